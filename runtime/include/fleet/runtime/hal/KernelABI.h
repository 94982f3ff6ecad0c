//===- KernelABI.h - the interface between compiled kernels and the runtime -===//
//
// One header shared by Fleet's kernel codegen (lib/Codegen) and the runtime's
// executable loader (runtime/src/hal). Plain C so both sides agree on layout.
//
// Kernel objects
//   Each `hal.executable.variant` of target backend "llvm-cpu" (format
//   "fleet-object-x86_64") holds one relocatable ELF object for the host CPU
//   (see docs/kernel-abi.md). For every `hal.executable.export @name
//   ordinal(N)` the object defines a global function symbol `name` of type
//   `fleet_kernel_fn_t`. The compiler links the objects of an artifact into
//   one shared object, renaming each entry symbol (KernelLibrary.h); the
//   object may call libm/libc functions (expf, memcpy, ...) that the
//   dynamic loader resolves from the process.
//
// Calling convention
//   The runtime calls the function once per workgroup (x, y, z) of the grid
//   given by `hal.command_buffer.dispatch ... workgroups([X, Y, Z])`, in any
//   order and possibly concurrently from several worker threads: workgroups
//   must write disjoint bytes. All pointers stay valid for the call only.
//
// Bindings
//   Binding i of the pipeline layout is `binding_ptrs[i]`, already offset by
//   the binding's byte offset from the dispatch op, and `binding_lengths[i]`
//   bytes long. `stream.binding.subspan %b[%off]` in the kernel adds `%off`
//   bytes to that base.
//
// Constants
//   Push constants are 32-bit words, `constants[0 .. constant_count)`, in the
//   order of the dispatch's `constants([...])`. A kernel argument of type
//   index/i64 takes two words (low, high); i32/f32 take one.
//
// Streaming stores
//   Kernels may write with non-temporal stores (docs/kernels.md "Streaming
//   stores"), which x86 does not order with later stores or atomics. Whoever
//   runs workgroups calls fleet_kernel_store_fence() on each thread that ran
//   some, after them and before publishing their completion (ABI version 2).
//
// Errors
//   Return 0 on success; a non-zero value fails the dispatch, and the runtime
//   fails the signal fence of the queue op that ran it.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_KERNELABI_H
#define FLEET_RUNTIME_HAL_KERNELABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Version of this ABI, stored in each artifact (`fleet.kernel_abi_version`).
#define FLEET_KERNEL_ABI_VERSION 2

/// Per-dispatch state shared by all workgroups of one dispatch.
typedef struct fleet_kernel_state_t {
  /// [binding_count] base pointers; binding i already offset.
  void *const *binding_ptrs;
  /// [binding_count] lengths in bytes.
  const uint64_t *binding_lengths;
  /// [constant_count] push constants (32-bit words).
  const uint32_t *constants;
  uint32_t binding_count;
  uint32_t constant_count;
  /// Workgroup grid size (X, Y, Z).
  uint32_t workgroup_count[3];
} fleet_kernel_state_t;

/// Entry point of one kernel: runs workgroup (x, y, z). Returns 0 on success.
typedef int32_t (*fleet_kernel_fn_t)(const fleet_kernel_state_t *state,
                                     uint32_t workgroup_id_x,
                                     uint32_t workgroup_id_y,
                                     uint32_t workgroup_id_z);

/// Orders the calling thread's non-temporal stores before its later stores
/// (an `sfence` on x86; other targets' fences in atomics already do).
static inline void fleet_kernel_store_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#endif
}

#ifdef __cplusplus
} // extern "C"
#endif

#endif // FLEET_RUNTIME_HAL_KERNELABI_H
