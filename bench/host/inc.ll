; The P2 kernel (KernelABI.h): out[0] = in[0] + 1 over bindings (in, out),
; one workgroup. Compiled with LLVM 22's llc by scripts/host-bench.
%state = type { ptr, ptr, ptr, i32, i32, [3 x i32] }

define i32 @inc(ptr %s, i32 %x, i32 %y, i32 %z) {
  %ptrs = load ptr, ptr %s
  %in = load ptr, ptr %ptrs
  %outp = getelementptr ptr, ptr %ptrs, i64 1
  %out = load ptr, ptr %outp
  %v = load float, ptr %in
  %r = fadd float %v, 1.0
  store float %r, ptr %out
  ret i32 0
}
