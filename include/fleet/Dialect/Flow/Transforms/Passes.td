//===- Passes.td - flow (input phase) passes ----------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_TD
#define FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FormDispatchesPass : Pass<"flow-form-dispatches", "mlir::ModuleOp"> {
  let summary = "Outlines each compute op (or fused elementwise chain) into an executable";
  let description = [{
    In every host function: elementwise arith/math ops on tensors become
    `linalg.generic`s, producer-consumer chains of elementwise generics are
    fused, and then every remaining linalg op (the root) is outlined into a
    `stream.executable` with one export and replaced by a `flow.dispatch`.
    `tensor.empty`/`linalg.fill` producing a root's init, and constants used
    by it, are cloned into the dispatch; other tensors become bindings, other
    scalars push constants (docs/pipeline.md, "Dispatch function contract").
    Identical executables are deduplicated. An op the host program cannot
    run and no dispatch can hold is a diagnostic naming it.

    ```mlir
    %0 = math.absf %a : tensor<4xf32>
    // becomes
    %0 = flow.dispatch @abs_dispatch_0::@abs_dispatch_0_elementwise_4_f32(%a) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::fleet::flow::FlowDialect", "::fleet::stream::StreamDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect", "::mlir::func::FuncDialect",
    "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

def DataTilingPass : Pass<"flow-data-tiling", "mlir::ModuleOp"> {
  let summary = "Packs the operands of large f32 matmuls into tiles (mmt4d)";
  let description = [{
    In every host function, a static f32 `linalg.matmul` C[M,N] = A[M,K] *
    B[K,N] becomes `linalg.mmt4d` on packed operands: A as [M/M0, K, M0, 1]
    and B as [N/N0, K, N0, 1] (`linalg.pack`, padded with zeros), the result
    unpacked from [M/M0, N/N0, M0, N0] (`linalg.unpack`); M0 x N0 is the
    kernels' register tile (8 x 32 with AVX-512, 6 x 16 with AVX2). Each step of the
    kernel then reads 8 contiguous floats of A and 32 of B, whatever the
    leading dimensions, instead of rows K*4 and N*4 bytes apart (which share
    cache sets and TLB entries at large power-of-two sizes).

    First, a `linalg.matmul` or `linalg.batch_matmul` whose indexing maps
    read B transposed (attention's Q K^T) gets B transposed once by a
    `linalg.transpose` and the default maps, so its kernel reads rows.
    Then a `linalg.transpose` of a compile-time constant (a weight read
    transposed: ONNX Gemm's transB) folds into a new constant global
    `@<global>__transposed`, so no call transposes it and the matmul
    reading it sees a constant.

    When: B is a constant (an `arith.constant` or the load of an immutable
    `util.global` with a dense initial value) and N >= 32: B is packed at
    compile time into a new constant, so no call ever packs it. Otherwise
    when M >= 64, N >= 64 and B is larger than 1 MiB: there the packing
    dispatches (transposes, O(n^2)) cost less than the strided kernel loses
    (docs/kernels.md "Data tiling", measured). The packs and the unpack are
    lowered to pad + expand_shape + linalg.transpose and linalg.transpose +
    collapse_shape + extract_slice, which form-dispatches outlines like any
    other op.

    ```mlir
    %c = linalg.matmul ins(%a, %b : tensor<2048x2048xf32>, tensor<2048x2048xf32>) ...
    // becomes (lowered form)
    %a4 = linalg.transpose ins(%a_expanded : tensor<256x8x2048x1xf32>) ... permutation = [0, 2, 1, 3]
    %c4 = linalg.mmt4d ins(%a4, %b4 : tensor<256x2048x8x1xf32>, tensor<64x2048x32x1xf32>) ...
    ```
  }];
  let options = [
    Option<"enabled", "enabled", "bool", /*default=*/"true",
           "Data-tile matmuls (--opt-data-tiling=false turns it off)">,
    Option<"tileM", "tile-m", "int64_t", /*default=*/"8",
           "Rows of a packed tile (M0): the kernels' register tile rows, 8 "
           "with AVX-512, 6 with AVX2 (the pipeline sets it from "
           "--llvmcpu-target-cpu)">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"32",
           "Columns of a packed tile (N0): 32 f32 with AVX-512, 16 with "
           "AVX2">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::fleet::util::UtilDialect"];
}

def ConvertConv2DToImg2ColPass
    : Pass<"preprocessing-convert-conv2d-to-img2col", "mlir::ModuleOp"> {
  let summary = "Rewrites NHWC convolutions as im2col + matmul";
  let description = [{
    In every host function, a static f32 `linalg.conv_2d_nhwc_hwcf` with
    batch 1 becomes a `linalg.generic` copying each output position's
    window into a row (`col[OH, OW, KH, KW, C]`, contiguous along C),
    collapsed to [OH*OW, KH*KW*C], times the filter viewed as [KH*KW*C, F]
    (`linalg.matmul`), expanded back to [1, OH, OW, F]. The matmul then gets
    the matmul kernels and data tiling (a constant filter packed at compile
    time). 1x1 stride-1 convolutions skip the copy. IREE's
    `iree-preprocessing-convert-conv2d-to-img2col` does the same rewrite.

    ```mlir
    %o = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>, ...}
           ins(%x, %w : tensor<1x9x9x8xf32>, tensor<3x3x8x16xf32>) ...
    // becomes
    %col = linalg.generic ... -> tensor<4x4x3x3x8xf32>
    %m = linalg.matmul ins(%col2, %w2 : tensor<16x72xf32>, tensor<72x16xf32>) ...
    %o = tensor.expand_shape %m [[0, 1, 2], [3]] ... into tensor<1x4x4x16xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def SplitMicroBatchesPass : Pass<"flow-split-micro-batches", "mlir::ModuleOp"> {
  let summary = "Computes the batch of each entry function as K micro-batches";
  let description = [{
    With `count` K > 1, in every public host function: the leading
    dimension B of input 0 is the batch; every input whose leading
    dimension is B is sliced into K parts of B/K rows, every op reached
    from them is cloned per micro-batch (micro-batch-major), and each
    result derived from them is the `tensor.concat` of its parts. Ops not
    reached from the batch stay once. Every op on the batch must treat batch
    rows independently (docs/partitioning.md "Micro-batches"); the first
    that does not is the error, e.g. a reduction over the batch:

    ```
    error: 'linalg.generic' op does not treat batch rows independently (it
    reads across the batch dimension: loop d0 is a reduction)
    ```

    Clones are marked for flow-partition-pipeline (`fleet.micro_batch`,
    `fleet.template`), which cuts them as one.
  }];
  let options = [
    Option<"count", "count", "int64_t", /*default=*/"1",
           "Micro-batches (fleet-compile --micro-batches)">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def PartitionPipelinePass : Pass<"flow-partition-pipeline", "mlir::ModuleOp"> {
  let summary = "Cuts each entry function into pipeline stages over the devices";
  let description = [{
    Mode `pipeline`: the compute ops of every public host function (in
    program order) are cut into contiguous stages, stage s on the module's
    s-th device global, so that the busiest stage (estimated compute plus
    transfers in, docs/partitioning.md "Cost model") is least busy; values
    crossing a cut get a `flow.tensor.transfer` to the consumer's device,
    inputs without an affinity are imported where they are first used.
    Explicit placements (`stream.affinity` on an op, the user's
    `flow.tensor.transfer`, an input's affinity) are constraints. Ops cloned
    per micro-batch are cut together. Mode `none` only removes the
    micro-batch marks.

    ```mlir
    %a = linalg.matmul ins(%x, %w1 ...)   // stage 0
    %b = linalg.matmul ins(%a, %w2 ...)   // stage 1
    // becomes
    %a = linalg.matmul ins(%x, %w1 ...)
    %t = flow.tensor.transfer %a : tensor<128x256xf32> to #hal.device.affinity<@device_b>
    %b = linalg.matmul ins(%t, %w2 ...)
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"pipeline\"",
           "pipeline | none (fleet-compile --partition)">,
    Option<"costModel", "cost-model", "std::string", /*default=*/"\"\"",
           "JSON file of cost-model constants (bench/calibrate_cost_model.py)">,
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "Measured dispatch times (fleet-run --profile_out)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Prints the stages, their costs and the reason of each cut to "
           "stderr (fleet-compile --explain-placement)">,
  ];
  let dependentDialects = [
    "::fleet::flow::FlowDialect", "::fleet::hal::HALDialect"];
}

#endif // FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_TD
