; Test kernels implementing KernelABI.h (runtime/include/fleet/runtime/hal):
;   int32_t fn(const fleet_kernel_state_t *state, uint32_t x, uint32_t y,
;              uint32_t z)
; state = { ptr binding_ptrs, ptr binding_lengths, ptr constants,
;           i32 binding_count, i32 constant_count, [3 x i32] workgroup_count }
; Compiled with `llc -relocation-model=pic -filetype=obj` by the tests and
; embedded into hand-written host programs (embed_object.py).

%state = type { ptr, ptr, ptr, i32, i32, [3 x i32] }

declare float @llvm.fabs.f32(float)

define internal ptr @binding(ptr %s, i64 %i) {
  %ptrs = load ptr, ptr %s
  %slot = getelementptr ptr, ptr %ptrs, i64 %i
  %p = load ptr, ptr %slot
  ret ptr %p
}

define internal i64 @floats(ptr %s, i64 %i) {
  %lensp = getelementptr %state, ptr %s, i32 0, i32 1
  %lens = load ptr, ptr %lensp
  %slot = getelementptr i64, ptr %lens, i64 %i
  %bytes = load i64, ptr %slot
  %n = udiv i64 %bytes, 4
  ret i64 %n
}

; out[i] = |in[i]|, bindings (in, out)
define i32 @abs(ptr %s, i32 %x, i32 %y, i32 %z) {
entry:
  %in = call ptr @binding(ptr %s, i64 0)
  %out = call ptr @binding(ptr %s, i64 1)
  %n = call i64 @floats(ptr %s, i64 1)
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %pi = getelementptr float, ptr %in, i64 %i
  %v = load float, ptr %pi
  %a = call float @llvm.fabs.f32(float %v)
  %po = getelementptr float, ptr %out, i64 %i
  store float %a, ptr %po
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 0
}

; out[i] = a[i] * b[i], bindings (a, b, out)
define i32 @mul(ptr %s, i32 %x, i32 %y, i32 %z) {
entry:
  %a = call ptr @binding(ptr %s, i64 0)
  %b = call ptr @binding(ptr %s, i64 1)
  %out = call ptr @binding(ptr %s, i64 2)
  %n = call i64 @floats(ptr %s, i64 2)
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %pa = getelementptr float, ptr %a, i64 %i
  %pb = getelementptr float, ptr %b, i64 %i
  %va = load float, ptr %pa
  %vb = load float, ptr %pb
  %r = fmul float %va, %vb
  %po = getelementptr float, ptr %out, i64 %i
  store float %r, ptr %po
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 0
}

; out[i] = in[i] * k, k = push constant 0 (f32 bits), bindings (in, out)
define i32 @scale(ptr %s, i32 %x, i32 %y, i32 %z) {
entry:
  %in = call ptr @binding(ptr %s, i64 0)
  %out = call ptr @binding(ptr %s, i64 1)
  %n = call i64 @floats(ptr %s, i64 1)
  %cp = getelementptr %state, ptr %s, i32 0, i32 2
  %constants = load ptr, ptr %cp
  %k = load float, ptr %constants
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %pi = getelementptr float, ptr %in, i64 %i
  %v = load float, ptr %pi
  %r = fmul float %v, %k
  %po = getelementptr float, ptr %out, i64 %i
  store float %r, ptr %po
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 0
}

; out[0] = in[0] + 1, bindings (in, out): one element per dispatch (P2).
define i32 @inc(ptr %s, i32 %x, i32 %y, i32 %z) {
  %in = call ptr @binding(ptr %s, i64 0)
  %out = call ptr @binding(ptr %s, i64 1)
  %v = load float, ptr %in
  %r = fadd float %v, 1.0
  store float %r, ptr %out
  ret i32 0
}

; out[x] = x for each workgroup x of the grid, binding (out).
define i32 @iota(ptr %s, i32 %x, i32 %y, i32 %z) {
  %out = call ptr @binding(ptr %s, i64 0)
  %f = uitofp i32 %x to float
  %i = zext i32 %x to i64
  %po = getelementptr float, ptr %out, i64 %i
  store float %f, ptr %po
  ret i32 0
}

; Always fails: the runtime fails the queue op's signal fence.
define i32 @fail(ptr %s, i32 %x, i32 %y, i32 %z) {
  ret i32 7
}
