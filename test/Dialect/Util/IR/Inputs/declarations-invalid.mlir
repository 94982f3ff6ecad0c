// A types-only declaration cannot tie a result.
util.func private @t(!hal.buffer_view) -> %arg0
// -----
// Types only, then a name.
util.func private @t(!hal.buffer_view, %a: index)
// -----
// A name, then types only.
util.func private @t(%a: index, index)
// -----
// A body needs named arguments.
util.func private @t(index) {
  util.return
}
