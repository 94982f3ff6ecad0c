// The output format of iree-run-module, --expected_output, --output and
// .npy inputs, on a hand-written host program of docs/pipeline.md §3's form.

// RUN: %llc %kernels -o %t.o
// RUN: %embed %s %t.o | fleet-opt --hal-link-executables | fleet-compile - --compile-from-host -o %t.fleet

// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 | FileCheck %s --check-prefix=ABS
// RUN: fleet-run --module=%t.fleet --device=local-task --function=abs "--input=4xf32=-1 2 -3 4" | FileCheck %s --check-prefix=ABS
// ABS: EXEC @abs
// ABS-NEXT: result[0]: hal.buffer_view
// ABS-NEXT: 4xf32=1 2 3 4
// ABS-NOT: result

// Rank 2 prints with brackets; one value fills the shape.
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs2d "--input=2x2xf32=[-1 2][-3 4]" | FileCheck %s --check-prefix=TWO
// TWO: 2x2xf32=[1 2][3 4]
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs2d --input=2x2xf32=-2.5 | FileCheck %s --check-prefix=SPLAT
// SPLAT: 2x2xf32=[2.5 2.5][2.5 2.5]

// Several results, in order.
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=both --input=4xf32=-1,2,-3,4 | FileCheck %s --check-prefix=BOTH
// BOTH: EXEC @both
// BOTH-NEXT: result[0]: hal.buffer_view
// BOTH-NEXT: 4xf32=1 2 3 4
// BOTH-NEXT: result[1]: hal.buffer_view
// BOTH-NEXT: 4xf32=-1 2 -3 4

// --expected_output: success, a mismatch (exit 1), the f32 tolerance.
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 --expected_output=4xf32=1,2,3,4 | FileCheck %s --check-prefix=SUCCESS
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 --expected_output=4xf32=1,2,3,4.00001 | FileCheck %s --check-prefix=SUCCESS
// SUCCESS: EXEC @abs
// SUCCESS-NEXT: [SUCCESS] all function outputs matched their expected values.
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 --expected_output=4xf32=1,2,3,5 | FileCheck %s --check-prefix=FAILED
// FAILED: [FAILED] result[0]: element [3] is 4 but 5 was expected (difference 1, tolerance 0.0001)
// FAILED-NEXT: expected:
// FAILED-NEXT: 4xf32=1 2 3 5
// FAILED-NEXT: actual:
// FAILED-NEXT: 4xf32=1 2 3 4
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 --expected_output=4xf32=1,2,3,4.00001 --expected_f32_threshold=0 | FileCheck %s --check-prefix=STRICT
// STRICT: [FAILED] result[0]: element [3] is 4 but 4.00001001 was expected (difference 1e-05, tolerance 0)
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 --expected_output=2x2xf32=1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: [FAILED] result[0]: the result is 4xf32 but 2x2xf32 was expected
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 --expected_output=4xf32=1 --expected_output=4xf32=1 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: @abs returned 1 result(s) but 2 --expected_output flag(s) were given

// --output writes .npy that numpy reads; .npy inputs from numpy work.
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 --output=@%t.out.npy | FileCheck %s --check-prefix=WRITTEN
// WRITTEN: result[0]: hal.buffer_view
// WRITTEN-NEXT: (written to {{.*}}.out.npy)
// RUN: %python -c "import numpy; a = numpy.load('%t.out.npy'); print(a.dtype, a.shape, a.tolist())" | FileCheck %s --check-prefix=NPY
// NPY: float32 (4,) [1.0, 2.0, 3.0, 4.0]
// With --expected_output too, the file still holds the actual result, also
// when it does not match.
// RUN: rm -f %t.out2.npy && not fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 --expected_output=4xf32=1,2,3,5 --output=@%t.out2.npy | FileCheck %s --check-prefix=FAILED
// RUN: %python -c "import numpy; a = numpy.load('%t.out2.npy'); print(a.dtype, a.shape, a.tolist())" | FileCheck %s --check-prefix=NPY
// RUN: %python -c "import numpy; numpy.save('%t.in.npy', numpy.array([[-5, 6], [-7, 8]], dtype=numpy.float32))"
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs2d --input=@%t.in.npy | FileCheck %s --check-prefix=FROMNPY
// FROMNPY: 2x2xf32=[5 6][7 8]
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs2d --input=@%t.in.npy --expected_output=@%t.in.npy --expected_f32_threshold=20 | FileCheck %s --check-prefix=SUCCESS2
// SUCCESS2: [SUCCESS]

module attributes {fleet.artifact_version = 1 : i64, fleet.kernel_abi_version = 2 : i64} {
  util.global private @__device_0 = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  hal.executable private @kernels {
    hal.executable.variant public @fleet_object target(<"llvm-cpu", "fleet-object-x86_64">) objects([#hal.executable.object<{data = @OBJECT@}>]) {
      hal.executable.export public @abs ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
    }
  }

  // |x| of a buffer view's 16 bytes into a new buffer, viewed as `shape`.
  util.func private @abs_bytes(%view: !hal.buffer_view) -> !hal.buffer {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c0_i64 = arith.constant 0 : i64
    %cm1_i32 = arith.constant -1 : i32
    %q = arith.constant -1 : i64
    %device = util.global.load immutable @__device_0 : !hal.device
    %buffer = hal.buffer_view.buffer<%view : !hal.buffer_view> : !hal.buffer
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %none = util.null : !hal.fence
    %f0 = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    %out = hal.device.queue.alloca<%device : !hal.device> affinity(%q) wait(%none) signal(%f0) pool(%c0_i64) type(%memory_type) usage(%usage) flags("None") : !hal.buffer{%c16}
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%q) : !hal.command_buffer
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@kernels) : !hal.executable
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0_i64] workgroups([%c1, %c1, %c1]) bindings([
      (%buffer : !hal.buffer)[%c0, %c16],
      (%out : !hal.buffer)[%c0, %c16]
    ]) flags("None")
    hal.command_buffer.finalize<%cmd : !hal.command_buffer>
    %f1 = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    hal.device.queue.execute<%device : !hal.device> affinity(%q) wait(%f0) signal(%f1) commands(%cmd) flags("None")
    %status = hal.fence.await until([%f1]) timeout_millis(%cm1_i32) flags("None") : i32
    util.status.check_ok %status, "abs: device work failed"
    util.return %out : !hal.buffer
  }

  util.func public @abs(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %f32 = hal.element_type<f32> : i32
    %dense = hal.encoding_type<dense_row_major> : i32
    hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input0") shape([%c4]) type(%f32) encoding(%dense)
    %out = util.call @abs_bytes(%arg0) : (!hal.buffer_view) -> !hal.buffer
    %view = hal.buffer_view.create buffer(%out : !hal.buffer)[%c0, %c16] shape([%c4]) type(%f32) encoding(%dense) : !hal.buffer_view
    util.return %view : !hal.buffer_view
  }

  util.func public @abs2d(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %f32 = hal.element_type<f32> : i32
    %dense = hal.encoding_type<dense_row_major> : i32
    hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input0") shape([%c2, %c2]) type(%f32) encoding(%dense)
    %out = util.call @abs_bytes(%arg0) : (!hal.buffer_view) -> !hal.buffer
    %view = hal.buffer_view.create buffer(%out : !hal.buffer)[%c0, %c16] shape([%c2, %c2]) type(%f32) encoding(%dense) : !hal.buffer_view
    util.return %view : !hal.buffer_view
  }

  util.func public @both(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
    %0 = util.call @abs(%arg0) : (!hal.buffer_view) -> !hal.buffer_view
    util.return %0, %arg0 : !hal.buffer_view, !hal.buffer_view
  }
}
