//===- KernelCompilerTest.cpp - compiled kernels compute the right values -===//
//
// Each test compiles a dispatch module (tensor form, docs/pipeline.md) to an
// object, loads it with ORC, runs every workgroup through the KernelABI.h
// entry point and compares with plain C++ loops. Shapes include multiples of
// the tile sizes, non-multiples and 1x1, with and without
// codegen-configure-workgroups (a 1x1x1 grid must work too).
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include "gtest/gtest.h"
#include "llvm/Support/Regex.h"

#include <array>
#include <cmath>
#include <cstring>

using namespace fleet::codegen::testing;

namespace {

/// The export/workgroups header every source shares; `$NAME` is the export.
std::string executable(const std::string &arguments, const std::string &body) {
  return R"mlir(
stream.executable private @ex {
  stream.executable.export public @$NAME workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @$NAME()mlir" +
         arguments + ") {\n      %c0 = arith.constant 0 : index\n" + body +
         "      return\n    }\n  }\n}\n";
}

#define ASSERT_LOADED(kernel)                                                  \
  ASSERT_TRUE(static_cast<bool>(kernel))                                       \
      << llvm::toString(kernel.takeError())

void expectNear(const std::vector<float> &actual,
                const std::vector<float> &expected, float tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    float bound = tolerance * std::max(1.0f, std::fabs(expected[i]));
    if (!(std::fabs(actual[i] - expected[i]) <= bound)) {
      if (++mismatches <= 5)
        ADD_FAILURE() << "element " << i << ": got " << actual[i]
                      << ", expected " << expected[i];
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

//===----------------------------------------------------------------------===//
// Elementwise chain: out = max(a * b + c, 0)
//===----------------------------------------------------------------------===//

const char *kElementwiseBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %2 = stream.binding.subspan %c[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %3 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Mx$Nxf32> to tensor<$Mx$Nxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Mx$Nxf32> to tensor<$Mx$Nxf32>
      %tc = bufferization.to_tensor %2 restrict : memref<$Mx$Nxf32> to tensor<$Mx$Nxf32>
      %e = tensor.empty() : tensor<$Mx$Nxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ta, %tb, %tc : tensor<$Mx$Nxf32>, tensor<$Mx$Nxf32>, tensor<$Mx$Nxf32>) outs(%e : tensor<$Mx$Nxf32>) {
      ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
        %m = arith.mulf %x, %y : f32
        %s = arith.addf %m, %z : f32
        %zero = arith.constant 0.0 : f32
        %v = arith.maximumf %s, %zero : f32
        linalg.yield %v : f32
      } -> tensor<$Mx$Nxf32>
      bufferization.materialize_in_destination %r in restrict writable %3 : (tensor<$Mx$Nxf32>, memref<$Mx$Nxf32>) -> ()
)mlir";

void checkElementwise(int64_t m, int64_t n, bool configure) {
  std::string source = substitute(
      executable("%a: !stream.binding, %b: !stream.binding, %c: "
                 "!stream.binding, %o: !stream.binding",
                 kElementwiseBody),
      {{"$NAME", "elementwise"},
       {"$M", std::to_string(m)},
       {"$N", std::to_string(n)}});
  auto kernel = compileAndLoad(source, {configure});
  ASSERT_LOADED(kernel);
  size_t count = m * n;
  std::vector<float> a = randomFloats(count, 1), b = randomFloats(count, 2),
                     c = randomFloats(count, 3), out(count, -7.0f),
                     expected(count);
  for (size_t i = 0; i < count; ++i)
    expected[i] = std::max(a[i] * b[i] + c[i], 0.0f);
  uint64_t bytes = count * sizeof(float);
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), b.data(), c.data(), out.data()},
                             {bytes, bytes, bytes, bytes}),
            0);
  expectNear(out, expected, 1e-6f);
}

TEST(KernelCompiler, ElementwiseChainSmall) { checkElementwise(37, 53, true); }
TEST(KernelCompiler, ElementwiseChainOneByOne) { checkElementwise(1, 1, true); }
TEST(KernelCompiler, ElementwiseChainManyWorkgroups) {
  checkElementwise(300, 1000, true);
}
TEST(KernelCompiler, ElementwiseChainSingleWorkgroup) {
  checkElementwise(300, 1000, false);
}
TEST(KernelCompiler, ElementwiseChainOneDimension) {
  checkElementwise(1, 200003, true);
}

/// A transpose with a bias, as multi-head attention makes K^T:
/// out[h, d, s] = in[s, h, d] + bias[h, d] (docs/kernels.md "Transposes").
const char *kTransposeBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Sx$Hx$Dxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Hx$Dxf32>
      %2 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Hx$Dx$Sxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Sx$Hx$Dxf32> to tensor<$Sx$Hx$Dxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Hx$Dxf32> to tensor<$Hx$Dxf32>
      %e = tensor.empty() : tensor<$Hx$Dx$Sxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ta, %tb : tensor<$Sx$Hx$Dxf32>, tensor<$Hx$Dxf32>) outs(%e : tensor<$Hx$Dx$Sxf32>) {
      ^bb0(%x: f32, %y: f32, %out: f32):
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
      } -> tensor<$Hx$Dx$Sxf32>
      bufferization.materialize_in_destination %r in restrict writable %2 : (tensor<$Hx$Dx$Sxf32>, memref<$Hx$Dx$Sxf32>) -> ()
)mlir";

void checkTranspose(int64_t s, int64_t h, int64_t d) {
  std::string source = substitute(
      executable("%a: !stream.binding, %b: !stream.binding, %o: !stream.binding",
                 kTransposeBody),
      {{"$NAME", "transpose_bias"},
       {"$S", std::to_string(s)},
       {"$H", std::to_string(h)},
       {"$D", std::to_string(d)}});
  CompileFlags flags;
  flags.keepLLVMIR = true;
  auto kernel = compileAndLoad(source, flags);
  ASSERT_LOADED(kernel);
  // Blocks of whole vectors of the input, transposed in registers.
  if (s >= 16 && d >= 16) {
    EXPECT_TRUE(llvm::Regex("load <(8|16) x float>").match(kernel->llvmIR))
        << "the input is not read in vectors";
  }
  std::vector<float> a = randomFloats(s * h * d, 12), b = randomFloats(h * d, 13);
  std::vector<float> out(h * d * s, -7.0f), expected(out.size());
  for (int64_t ih = 0; ih < h; ++ih)
    for (int64_t id = 0; id < d; ++id)
      for (int64_t is = 0; is < s; ++is)
        expected[(ih * d + id) * s + is] =
            a[(is * h + ih) * d + id] + b[ih * d + id];
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), b.data(), out.data()},
                             {a.size() * 4, b.size() * 4, out.size() * 4}),
            0);
  expectNear(out, expected, 0.0f);
}

/// linalg.transpose as data tiling's packs lower to (docs/kernels.md
/// "Transposes"): `permutation` of a 4-d `in` shape with a trailing unit
/// dimension. Checked element by element, and that the LLVM IR moves
/// vectors (`vectorPattern`).
void checkPackTranspose(std::array<int64_t, 4> in,
                        std::array<int64_t, 4> permutation,
                        const char *vectorPattern) {
  std::array<int64_t, 4> out;
  for (int i = 0; i < 4; ++i)
    out[i] = in[permutation[i]];
  auto shape = [](const std::array<int64_t, 4> &dims) {
    return std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
           std::to_string(dims[2]) + "x" + std::to_string(dims[3]) + "xf32";
  };
  std::string body = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$IN>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$OUT>
      %ta = bufferization.to_tensor %0 restrict : memref<$IN> to tensor<$IN>
      %e = tensor.empty() : tensor<$OUT>
      %r = linalg.transpose ins(%ta : tensor<$IN>) outs(%e : tensor<$OUT>) permutation = [$PERM]
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$OUT>, memref<$OUT>) -> ()
)mlir";
  std::string source = substitute(
      executable("%a: !stream.binding, %o: !stream.binding", body),
      {{"$NAME", "pack_transpose"},
       {"$IN", shape(in)},
       {"$OUT", shape(out)},
       {"$PERM", std::to_string(permutation[0]) + ", " +
                     std::to_string(permutation[1]) + ", " +
                     std::to_string(permutation[2]) + ", " +
                     std::to_string(permutation[3])}});
  CompileFlags flags;
  flags.keepLLVMIR = true;
  auto kernel = compileAndLoad(source, flags);
  ASSERT_LOADED(kernel);
  EXPECT_TRUE(llvm::Regex(vectorPattern).match(kernel->llvmIR))
      << "no '" << vectorPattern << "' in the LLVM IR";
  int64_t count = in[0] * in[1] * in[2] * in[3];
  std::vector<float> a = randomFloats(count, 14), result(count, -7.0f),
                     expected(count);
  std::array<int64_t, 4> index;
  for (index[0] = 0; index[0] < in[0]; ++index[0])
    for (index[1] = 0; index[1] < in[1]; ++index[1])
      for (index[2] = 0; index[2] < in[2]; ++index[2])
        for (index[3] = 0; index[3] < in[3]; ++index[3]) {
          int64_t from =
              ((index[0] * in[1] + index[1]) * in[2] + index[2]) * in[3] +
              index[3];
          int64_t to = 0;
          for (int i = 0; i < 4; ++i)
            to = to * out[i] + index[permutation[i]];
          expected[to] = a[from];
        }
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), result.data()},
                             {a.size() * 4, result.size() * 4}),
            0);
  expectNear(result, expected, 0.0f);
}

// A's pack: [M/8, 8, K, 1] -> [M/8, K, 8, 1], a transpose of 8-row blocks.
TEST(KernelCompiler, PackTransposeRows) {
  checkPackTranspose({5, 8, 37, 1}, {0, 2, 1, 3}, "load <(8|16) x float>");
}
// B's pack: [K, 1, N/32, 32] -> [N/32, K, 32, 1], runs of 32 moved whole.
TEST(KernelCompiler, PackTransposeRuns) {
  checkPackTranspose({37, 1, 3, 32}, {2, 0, 3, 1}, "load <(16|32) x float>");
}

TEST(KernelCompiler, TransposeBias) { checkTranspose(128, 4, 64); }
TEST(KernelCompiler, TransposeBiasOddSizes) { checkTranspose(129, 3, 37); }
TEST(KernelCompiler, TransposeBiasSmall) { checkTranspose(7, 1, 5); }

//===----------------------------------------------------------------------===//
// Matmul (+ bias + relu epilogue)
//===----------------------------------------------------------------------===//

const char *kMatmulBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Mx$Kxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Kx$Nxf32>
      %3 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Mx$Kxf32> to tensor<$Mx$Kxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Kx$Nxf32> to tensor<$Kx$Nxf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<$Mx$Nxf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<$Mx$Nxf32>) -> tensor<$Mx$Nxf32>
      %mm = linalg.matmul ins(%ta, %tb : tensor<$Mx$Kxf32>, tensor<$Kx$Nxf32>) outs(%f : tensor<$Mx$Nxf32>) -> tensor<$Mx$Nxf32>
)mlir";

const char *kMatmulStore = R"mlir(
      bufferization.materialize_in_destination %mm in restrict writable %3 : (tensor<$Mx$Nxf32>, memref<$Mx$Nxf32>) -> ()
)mlir";

const char *kBiasReluStore = R"mlir(
      %2 = stream.binding.subspan %bias[%c0] : !stream.binding -> memref<$Nxf32>
      %tbias = bufferization.to_tensor %2 restrict : memref<$Nxf32> to tensor<$Nxf32>
      %e2 = tensor.empty() : tensor<$Mx$Nxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %tbias : tensor<$Mx$Nxf32>, tensor<$Nxf32>) outs(%e2 : tensor<$Mx$Nxf32>) {
      ^bb0(%x: f32, %y: f32, %out: f32):
        %s = arith.addf %x, %y : f32
        %v = arith.maximumf %s, %zero : f32
        linalg.yield %v : f32
      } -> tensor<$Mx$Nxf32>
      bufferization.materialize_in_destination %r in restrict writable %3 : (tensor<$Mx$Nxf32>, memref<$Mx$Nxf32>) -> ()
)mlir";

void checkMatmul(int64_t m, int64_t n, int64_t k, bool biasRelu,
                 bool configure = true, bool vectorEdges = false) {
  std::string arguments =
      biasRelu ? "%a: !stream.binding, %b: !stream.binding, %bias: "
                 "!stream.binding, %o: !stream.binding"
               : "%a: !stream.binding, %b: !stream.binding, %o: !stream.binding";
  std::string body =
      std::string(kMatmulBody) + (biasRelu ? kBiasReluStore : kMatmulStore);
  std::string source = substitute(
      executable(arguments, body),
      {{"$NAME", biasRelu ? "matmul_bias_relu" : "matmul"},
       {"$M", std::to_string(m)},
       {"$N", std::to_string(n)},
       {"$K", std::to_string(k)}});
  CompileFlags flags;
  flags.configure = configure;
  flags.keepLLVMIR = vectorEdges;
  auto kernel = compileAndLoad(source, flags);
  ASSERT_LOADED(kernel);
  if (configure) {
    EXPECT_EQ(kernel->kind, "matmul");
  }
  // Edge tiles (docs/kernels.md "Register tiles"): no scalar FMA is left.
  if (vectorEdges) {
    EXPECT_FALSE(llvm::Regex("@llvm\\.fma\\.f32\\(|fmul (contract )?float")
                     .match(kernel->llvmIR))
        << "scalar multiply-adds in the LLVM IR";
  }
  std::vector<float> a = randomFloats(m * k, 4), b = randomFloats(k * n, 5),
                     bias = randomFloats(n, 6), out(m * n, -7.0f),
                     expected(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l)
        sum += static_cast<double>(a[i * k + l]) * b[l * n + j];
      float value = static_cast<float>(sum);
      if (biasRelu)
        value = std::max(value + bias[j], 0.0f);
      expected[i * n + j] = value;
    }
  std::vector<void *> bindings = {a.data(), b.data()};
  std::vector<uint64_t> lengths = {a.size() * 4, b.size() * 4};
  if (biasRelu) {
    bindings.push_back(bias.data());
    lengths.push_back(bias.size() * 4);
  }
  bindings.push_back(out.data());
  lengths.push_back(out.size() * 4);
  ASSERT_EQ(runAllWorkgroups(*kernel, bindings, lengths), 0);
  expectNear(out, expected, 1e-4f);
}

TEST(KernelCompiler, MatmulTileMultiples) { checkMatmul(128, 256, 64, false); }
TEST(KernelCompiler, MatmulNonSquare) { checkMatmul(96, 160, 48, false); }
TEST(KernelCompiler, MatmulNotTileMultiples) {
  checkMatmul(67, 45, 33, false);
}
TEST(KernelCompiler, MatmulLargeNotTileMultiples) {
  checkMatmul(130, 200, 37, false);
}
TEST(KernelCompiler, MatmulOneByOne) { checkMatmul(1, 1, 1, false); }
// 196 rows in workgroups of 64: the last workgroup's 4 rows are a dynamic
// edge tile, which must not be scalar code.
TEST(KernelCompiler, MatmulEdgeTilesVectorize) {
  checkMatmul(196, 128, 32, false, true, /*vectorEdges=*/true);
}
TEST(KernelCompiler, MatmulSingleWorkgroup) {
  checkMatmul(67, 45, 33, false, /*configure=*/false);
}
TEST(KernelCompiler, MatmulBiasRelu) { checkMatmul(128, 256, 64, true); }
TEST(KernelCompiler, MatmulBiasReluNotTileMultiples) {
  checkMatmul(70, 150, 29, true);
}
TEST(KernelCompiler, MatmulBiasReluOneByOne) { checkMatmul(1, 1, 1, true); }

// With 16 vector registers (AVX2) LLVM must not unroll the register tile's
// reduction loop (KernelCompiler.cpp, KeepRegisterTileSteps: unrolled, the
// 6 x 16 step spilled an accumulator each iteration); with AVX-512 it may.
TEST(KernelCompiler, RegisterTileStepsStayWholeWithAVX2) {
  std::string source = substitute(
      executable(
          "%a: !stream.binding, %b: !stream.binding, %o: !stream.binding",
          std::string(kMatmulBody) + kMatmulStore),
      {{"$NAME", "matmul"}, {"$M", "48"}, {"$N", "64"}, {"$K", "256"}});
  for (auto [cpu, marked] : {std::pair<const char *, bool>{"haswell", true},
                             {"skylake-avx512", false}}) {
    CompileFlags flags;
    flags.targetCPU = cpu;
    flags.keepLLVMIR = true;
    auto kernel = compileAndLoad(source, flags);
    ASSERT_LOADED(kernel);
    EXPECT_EQ(kernel->llvmIR.find("llvm.loop.unroll.disable") !=
                  std::string::npos,
              marked)
        << cpu;
  }
}

} // namespace

namespace {

//===----------------------------------------------------------------------===//
// Reductions along the innermost dimension
//===----------------------------------------------------------------------===//

const char *kRowSumBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Rx$Cxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Rxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Rx$Cxf32> to tensor<$Rx$Cxf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<$Rxf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<$Rxf32>) -> tensor<$Rxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%ta : tensor<$Rx$Cxf32>) outs(%f : tensor<$Rxf32>) {
      ^bb0(%x: f32, %acc: f32):
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      } -> tensor<$Rxf32>
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$Rxf32>, memref<$Rxf32>) -> ()
)mlir";

void checkRowSum(int64_t rows, int64_t columns, bool configure = true) {
  std::string source = substitute(
      executable("%a: !stream.binding, %o: !stream.binding", kRowSumBody),
      {{"$NAME", "row_sum"},
       {"$R", std::to_string(rows)},
       {"$C", std::to_string(columns)}});
  auto kernel = compileAndLoad(source, {configure});
  ASSERT_LOADED(kernel);
  if (configure) {
    EXPECT_EQ(kernel->kind, "reduction");
  }
  std::vector<float> a = randomFloats(rows * columns, 7), out(rows, -7.0f),
                     expected(rows);
  for (int64_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < columns; ++j)
      sum += a[i * columns + j];
    expected[i] = static_cast<float>(sum);
  }
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), out.data()},
                             {a.size() * 4, out.size() * 4}),
            0);
  expectNear(out, expected, 1e-4f);
}

TEST(KernelCompiler, RowSum) { checkRowSum(37, 129); }
TEST(KernelCompiler, RowSumManyWorkgroups) { checkRowSum(1000, 300); }
TEST(KernelCompiler, RowSumOneByOne) { checkRowSum(1, 1); }
TEST(KernelCompiler, RowSumSingleWorkgroup) { checkRowSum(37, 129, false); }

/// A row reduction over the columns j <= i only (a causal mask), written as
/// models lower it: the accumulator is selected where the mask skips
/// (docs/kernels.md "Masked reductions").
const char *kMaskedRowBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Rx$Cxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Rxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Rx$Cxf32> to tensor<$Rx$Cxf32>
      %init = arith.constant $INIT : f32
      %e = tensor.empty() : tensor<$Rxf32>
      %f = linalg.fill ins(%init : f32) outs(%e : tensor<$Rxf32>) -> tensor<$Rxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%ta : tensor<$Rx$Cxf32>) outs(%f : tensor<$Rxf32>) {
      ^bb0(%x: f32, %acc: f32):
        $FIRST
        $SECOND
        %s = arith.select %cond, $PICK : f32
        linalg.yield %s : f32
      } -> tensor<$Rxf32>
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$Rxf32>, memref<$Rxf32>) -> ()
)mlir";

/// `max` selects the row maximum, else the sum; the maximum's mask skips
/// (select(j > i, acc, max)), the sum's keeps (select(j <= i, sum, acc)).
/// `maskLast` computes the mask after the combining op (the rewrite must
/// move the combining op below it).
void checkMaskedRow(int64_t rows, int64_t columns, bool max,
                    bool maskLast = false) {
  std::string mask = "%i = linalg.index 0 : index\n        %j = linalg.index "
                     "1 : index\n        %cond = arith.cmpi $PREDICATE, %j, "
                     "%i : index";
  std::string combine = "%c = $COMBINE %x, %acc : f32";
  std::string source = substitute(
      substitute(executable("%a: !stream.binding, %o: !stream.binding",
                            kMaskedRowBody),
                 {{"$FIRST", maskLast ? combine : mask},
                  {"$SECOND", maskLast ? mask : combine}}),
      {{"$NAME", max ? "masked_row_max" : "masked_row_sum"},
       {"$INIT", max ? "0xFF800000" : "0.0"},
       {"$PREDICATE", max ? "ugt" : "ule"},
       {"$COMBINE", max ? "arith.maximumf" : "arith.addf"},
       {"$PICK", max ? "%acc, %c" : "%c, %acc"},
       {"$R", std::to_string(rows)},
       {"$C", std::to_string(columns)}});
  CompileFlags flags;
  flags.keepLLVMIR = true;
  auto kernel = compileAndLoad(source, flags);
  ASSERT_LOADED(kernel);
  // Vectorized: the combining op on vectors of the target's width.
  if (columns >= 64) {
    EXPECT_TRUE(
        llvm::Regex(max ? "llvm\\.(vector\\.reduce\\.f)?maximum\\.v[0-9]+f32"
                        : "(fadd <[0-9]+ x float>|reduce\\.fadd\\.v[0-9]+f32)")
            .match(kernel->llvmIR))
        << "no vector " << (max ? "maximum" : "sum") << " in the LLVM IR";
  }
  std::vector<float> a = randomFloats(rows * columns, 11), out(rows, -7.0f),
                     expected(rows);
  for (int64_t i = 0; i < rows; ++i) {
    double value = max ? -INFINITY : 0.0;
    for (int64_t j = 0; j <= std::min(i, columns - 1); ++j)
      value = max ? std::max<double>(value, a[i * columns + j])
                  : value + a[i * columns + j];
    expected[i] = static_cast<float>(value);
  }
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), out.data()},
                             {a.size() * 4, out.size() * 4}),
            0);
  expectNear(out, expected, 1e-5f);
}

TEST(KernelCompiler, MaskedRowMax) { checkMaskedRow(37, 129, true); }
TEST(KernelCompiler, MaskedRowMaxSquare) { checkMaskedRow(257, 257, true); }
TEST(KernelCompiler, MaskedRowSum) { checkMaskedRow(129, 129, false); }
TEST(KernelCompiler, MaskedRowSumNarrow) { checkMaskedRow(7, 1, false); }
TEST(KernelCompiler, MaskedRowMaxMaskAfterCombine) {
  checkMaskedRow(37, 129, true, /*maskLast=*/true);
}

/// softmax(x) along rows: max, exp(x - max), sum, divide.
const char *kSoftmaxBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Rx$Cxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Rx$Cxf32>
      %x = bufferization.to_tensor %0 restrict : memref<$Rx$Cxf32> to tensor<$Rx$Cxf32>
      %lowest = arith.constant 0xFF800000 : f32
      %zero = arith.constant 0.0 : f32
      %er = tensor.empty() : tensor<$Rxf32>
      %minit = linalg.fill ins(%lowest : f32) outs(%er : tensor<$Rxf32>) -> tensor<$Rxf32>
      %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<$Rx$Cxf32>) outs(%minit : tensor<$Rxf32>) {
      ^bb0(%v: f32, %acc: f32):
        %m = arith.maximumf %v, %acc : f32
        linalg.yield %m : f32
      } -> tensor<$Rxf32>
      %ex = tensor.empty() : tensor<$Rx$Cxf32>
      %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<$Rx$Cxf32>, tensor<$Rxf32>) outs(%ex : tensor<$Rx$Cxf32>) {
      ^bb0(%v: f32, %m: f32, %out: f32):
        %d = arith.subf %v, %m : f32
        %e = math.exp %d : f32
        linalg.yield %e : f32
      } -> tensor<$Rx$Cxf32>
      %sinit = linalg.fill ins(%zero : f32) outs(%er : tensor<$Rxf32>) -> tensor<$Rxf32>
      %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<$Rx$Cxf32>) outs(%sinit : tensor<$Rxf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %v, %acc : f32
        linalg.yield %s : f32
      } -> tensor<$Rxf32>
      %eo = tensor.empty() : tensor<$Rx$Cxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<$Rx$Cxf32>, tensor<$Rxf32>) outs(%eo : tensor<$Rx$Cxf32>) {
      ^bb0(%e: f32, %s: f32, %out: f32):
        %q = arith.divf %e, %s : f32
        linalg.yield %q : f32
      } -> tensor<$Rx$Cxf32>
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$Rx$Cxf32>, memref<$Rx$Cxf32>) -> ()
)mlir";

std::vector<float> softmaxReference(const std::vector<float> &x, int64_t rows,
                                    int64_t columns) {
  std::vector<float> expected(x.size());
  for (int64_t i = 0; i < rows; ++i) {
    const float *row = x.data() + i * columns;
    float max = -INFINITY;
    for (int64_t j = 0; j < columns; ++j)
      max = std::max(max, row[j]);
    double sum = 0;
    for (int64_t j = 0; j < columns; ++j)
      sum += std::exp(static_cast<double>(row[j] - max));
    for (int64_t j = 0; j < columns; ++j)
      expected[i * columns + j] =
          static_cast<float>(std::exp(static_cast<double>(row[j] - max)) / sum);
  }
  return expected;
}

std::string softmaxSource(int64_t rows, int64_t columns) {
  return substitute(
      executable("%a: !stream.binding, %o: !stream.binding", kSoftmaxBody),
      {{"$NAME", "softmax"},
       {"$R", std::to_string(rows)},
       {"$C", std::to_string(columns)}});
}

void checkSoftmax(int64_t rows, int64_t columns, bool configure = true) {
  auto kernel = compileAndLoad(softmaxSource(rows, columns), {configure});
  ASSERT_LOADED(kernel);
  std::vector<float> x = randomFloats(rows * columns, 8);
  for (float &v : x)
    v *= 8.0f;
  std::vector<float> out(x.size(), -7.0f);
  ASSERT_EQ(runAllWorkgroups(*kernel, {x.data(), out.data()},
                             {x.size() * 4, out.size() * 4}),
            0);
  expectNear(out, softmaxReference(x, rows, columns), 1e-5f);
}

TEST(KernelCompiler, Softmax) { checkSoftmax(19, 67); }
TEST(KernelCompiler, SoftmaxManyWorkgroups) { checkSoftmax(300, 1000); }
TEST(KernelCompiler, SoftmaxOneByOne) { checkSoftmax(1, 1); }

/// Softmax times 2, the exp also read (doubled) before its sum: the exp
/// stays out of the sum's chunk loop (its copy would be defined after that
/// reader; docs/kernels.md "Streaming stores").
TEST(KernelCompiler, SoftmaxExpReadBeforeItsSum) {
  const int64_t rows = 19, columns = 67;
  std::string body = kSoftmaxBody;
  const std::string sumInit = "      %sinit = linalg.fill";
  body.replace(body.find(sumInit), 0, R"mlir(
      %tw = tensor.empty() : tensor<$Rx$Cxf32>
      %twice = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp : tensor<$Rx$Cxf32>) outs(%tw : tensor<$Rx$Cxf32>) {
      ^bb0(%e: f32, %out: f32):
        %t = arith.addf %e, %e : f32
        linalg.yield %t : f32
      } -> tensor<$Rx$Cxf32>
)mlir");
  const std::string divInputs = "ins(%exp, %sum";
  body.replace(body.find(divInputs), divInputs.size(), "ins(%twice, %sum");
  auto kernel = compileAndLoad(
      substitute(executable("%a: !stream.binding, %o: !stream.binding", body),
                 {{"$NAME", "softmax2"},
                  {"$R", std::to_string(rows)},
                  {"$C", std::to_string(columns)}}));
  ASSERT_LOADED(kernel);
  std::vector<float> x = randomFloats(rows * columns, 8);
  std::vector<float> out(x.size(), -7.0f);
  ASSERT_EQ(runAllWorkgroups(*kernel, {x.data(), out.data()},
                             {x.size() * 4, out.size() * 4}),
            0);
  std::vector<float> expected = softmaxReference(x, rows, columns);
  for (float &v : expected)
    v *= 2.0f;
  expectNear(out, expected, 2e-5f);
}

/// A 16 MiB softmax result is written with streaming stores when the result
/// binding is 64-byte aligned and with ordinary ones when it is not; the
/// next row of the input is prefetched (docs/kernels.md "Streaming
/// stores"). Both paths must give the same numbers.
TEST(KernelCompiler, SoftmaxStreamsLargeResults) {
  const int64_t rows = 1024, columns = 4096;
  CompileFlags flags;
  flags.keepLLVMIR = true;
  flags.keepStepsIR = true;
  auto kernel = compileAndLoad(softmaxSource(rows, columns), flags);
  ASSERT_LOADED(kernel);
  // The exp is computed in the sum's chunk loop, which also yields the
  // exp's row for the division (docs/kernels.md "Streaming stores").
  EXPECT_TRUE(
      llvm::Regex(R"(-> \(tensor<1x[0-9]+xf32>, tensor<1x4096xf32>\))")
          .match(kernel->stepsIR));
  // The row loop is pipelined by one pass: it carries the next row's
  // maximum, computed in the scaling loop of this row, which thus also
  // yields the maximum's lanes (PipelineRowPasses.cpp).
  EXPECT_TRUE(
      llvm::Regex(R"(-> \(tensor<[0-9]+x4096xf32>, vector<[0-9]+xf32>\))")
          .match(kernel->stepsIR));
  EXPECT_TRUE(
      llvm::Regex(R"(-> \(vector<[0-9]+xf32>, tensor<1x4096xf32>\))")
          .match(kernel->stepsIR));
  EXPECT_NE(kernel->llvmIR.find("!nontemporal"), std::string::npos);
  EXPECT_NE(kernel->llvmIR.find("@llvm.prefetch"), std::string::npos);
  // A read prefetch into L2 (locality 2, `prefetcht1`) of data.
  EXPECT_NE(kernel->llvmIR.find("i32 0, i32 2, i32 1)"), std::string::npos);
  // The sum's lanes are merged in any order (halves, not lane by lane).
  EXPECT_TRUE(llvm::Regex("reassoc[a-z ]* float @llvm.vector.reduce.fadd")
                  .match(kernel->llvmIR));

  std::vector<float> x = randomFloats(rows * columns, 9);
  for (float &v : x)
    v *= 8.0f;
  std::vector<float> expected = softmaxReference(x, rows, columns);
  // Room for a 64-byte aligned result and one 4 bytes past it.
  std::vector<float> storage(x.size() + 32, -7.0f);
  float *aligned = reinterpret_cast<float *>(
      (reinterpret_cast<uintptr_t>(storage.data()) + 63) & ~uintptr_t(63));
  for (float *out : {aligned, aligned + 1}) {
    SCOPED_TRACE(out == aligned ? "aligned result" : "result 4 bytes off");
    std::fill(storage.begin(), storage.end(), -7.0f);
    ASSERT_EQ(runAllWorkgroups(*kernel, {x.data(), out},
                               {x.size() * 4, x.size() * 4}),
              0);
    expectNear(std::vector<float>(out, out + x.size()), expected, 1e-5f);
  }
}

//===----------------------------------------------------------------------===//
// Push constants and binding offsets (KernelABI.h)
//===----------------------------------------------------------------------===//

/// out = a * s + k, with a read at a byte offset that is itself a push
/// constant: f32 (one word), i64 and index (two words each).
const char *kScaleBody = R"mlir(
      %0 = stream.binding.subspan %a[%offset] : !stream.binding -> memref<$Nxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Nxf32> to tensor<$Nxf32>
      %kf = arith.sitofp %k : i64 to f32
      %e = tensor.empty() : tensor<$Nxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ta : tensor<$Nxf32>) outs(%e : tensor<$Nxf32>) {
      ^bb0(%x: f32, %out: f32):
        %m = arith.mulf %x, %s : f32
        %v = arith.addf %m, %kf : f32
        linalg.yield %v : f32
      } -> tensor<$Nxf32>
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$Nxf32>, memref<$Nxf32>) -> ()
)mlir";

TEST(KernelCompiler, PushConstantsAndBindingOffsets) {
  const int64_t n = 1000;
  std::string source = substitute(
      executable("%a: !stream.binding, %o: !stream.binding, %s: f32, %k: i64, "
                 "%offset: index",
                 kScaleBody),
      {{"$NAME", "scale"}, {"$N", std::to_string(n)}});
  auto kernel = compileAndLoad(source);
  ASSERT_LOADED(kernel);
  const int64_t skip = 3; // elements before the viewed range
  std::vector<float> a = randomFloats(n + skip, 9), out(n, -7.0f), expected(n);
  float scale = 2.5f;
  int64_t k = -(int64_t(1) << 33) + 7; // needs the high word
  for (int64_t i = 0; i < n; ++i)
    expected[i] = a[i + skip] * scale + static_cast<float>(k);
  uint32_t scaleWord;
  std::memcpy(&scaleWord, &scale, 4);
  uint64_t kBits = static_cast<uint64_t>(k);
  uint64_t offset = skip * sizeof(float);
  std::vector<uint32_t> constants = {
      scaleWord, static_cast<uint32_t>(kBits), static_cast<uint32_t>(kBits >> 32),
      static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)};
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), out.data()},
                             {a.size() * 4, out.size() * 4}, constants),
            0);
  expectNear(out, expected, 1e-6f);
}

TEST(KernelCompiler, UnknownTargetCPUIsAnError) {
  std::string source = substitute(
      executable("%a: !stream.binding, %b: !stream.binding, %c: "
                 "!stream.binding, %o: !stream.binding",
                 kElementwiseBody),
      {{"$NAME", "elementwise"}, {"$M", "4"}, {"$N", "4"}});
  auto kernel = compileAndLoad(source, {true, "not-a-cpu"});
  ASSERT_FALSE(static_cast<bool>(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("unknown target CPU 'not-a-cpu'"), std::string::npos)
      << message;
}

TEST(KernelCompiler, NamedTargetCPU) {
  // x86-64-v3 (AVX2, 256-bit vectors) picks 4-row register tiles.
  std::string source = substitute(
      executable("%a: !stream.binding, %b: !stream.binding, %o: !stream.binding",
                 std::string(kMatmulBody) + kMatmulStore),
      {{"$NAME", "matmul"}, {"$M", "40"}, {"$N", "48"}, {"$K", "16"}});
  auto kernel = compileAndLoad(source, {true, "x86-64-v3"});
  ASSERT_LOADED(kernel);
  std::vector<float> a = randomFloats(40 * 16, 1), b = randomFloats(16 * 48, 2),
                     out(40 * 48), expected(40 * 48, 0.0f);
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 48; ++j)
      for (int l = 0; l < 16; ++l)
        expected[i * 48 + j] += a[i * 16 + l] * b[l * 48 + j];
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), b.data(), out.data()},
                             {a.size() * 4, b.size() * 4, out.size() * 4}),
            0);
  expectNear(out, expected, 1e-4f);
}

} // namespace

namespace {

//===----------------------------------------------------------------------===//
// Edge cases: reduction-only contraction, 0-d result, transposed operand
//===----------------------------------------------------------------------===//

/// dot(a, b) into a 0-d tensor: a contraction with no parallel loop.
const char *kDotBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Nxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Nxf32>
      %2 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<f32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Nxf32> to tensor<$Nxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Nxf32> to tensor<$Nxf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<f32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
      %d = linalg.dot ins(%ta, %tb : tensor<$Nxf32>, tensor<$Nxf32>) outs(%f : tensor<f32>) -> tensor<f32>
      bufferization.materialize_in_destination %d in restrict writable %2 : (tensor<f32>, memref<f32>) -> ()
)mlir";

TEST(KernelCompiler, DotProductReductionOnly) {
  const int64_t n = 1001;
  std::string source = substitute(
      executable("%a: !stream.binding, %b: !stream.binding, %o: !stream.binding",
                 kDotBody),
      {{"$NAME", "dot"}, {"$N", std::to_string(n)}});
  auto kernel = compileAndLoad(source);
  ASSERT_LOADED(kernel);
  std::vector<float> a = randomFloats(n, 10), b = randomFloats(n, 11),
                     out(1, -7.0f);
  double expected = 0;
  for (int64_t i = 0; i < n; ++i)
    expected += static_cast<double>(a[i]) * b[i];
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), b.data(), out.data()},
                             {a.size() * 4, b.size() * 4, 4}),
            0);
  expectNear(out, {static_cast<float>(expected)}, 1e-4f);
}

/// out = a * b^T with b given as (N, K): a generic contraction whose B map
/// is transposed.
const char *kMatmulTransposeBBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Mx$Kxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Nx$Kxf32>
      %2 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Mx$Kxf32> to tensor<$Mx$Kxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Nx$Kxf32> to tensor<$Nx$Kxf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<$Mx$Nxf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<$Mx$Nxf32>) -> tensor<$Mx$Nxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ta, %tb : tensor<$Mx$Kxf32>, tensor<$Nx$Kxf32>) outs(%f : tensor<$Mx$Nxf32>) {
      ^bb0(%x: f32, %y: f32, %acc: f32):
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        linalg.yield %s : f32
      } -> tensor<$Mx$Nxf32>
      bufferization.materialize_in_destination %r in restrict writable %2 : (tensor<$Mx$Nxf32>, memref<$Mx$Nxf32>) -> ()
)mlir";

TEST(KernelCompiler, MatmulTransposedOperand) {
  const int64_t m = 70, n = 90, k = 33;
  std::string source = substitute(
      executable("%a: !stream.binding, %b: !stream.binding, %o: !stream.binding",
                 kMatmulTransposeBBody),
      {{"$NAME", "matmul_transpose_b"},
       {"$M", std::to_string(m)},
       {"$N", std::to_string(n)},
       {"$K", std::to_string(k)}});
  auto kernel = compileAndLoad(source);
  ASSERT_LOADED(kernel);
  EXPECT_EQ(kernel->kind, "matmul");
  std::vector<float> a = randomFloats(m * k, 12), b = randomFloats(n * k, 13),
                     out(m * n, -7.0f), expected(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l)
        sum += static_cast<double>(a[i * k + l]) * b[j * k + l];
      expected[i * n + j] = static_cast<float>(sum);
    }
  ASSERT_EQ(runAllWorkgroups(*kernel, {a.data(), b.data(), out.data()},
                             {a.size() * 4, b.size() * 4, out.size() * 4}),
            0);
  expectNear(out, expected, 1e-4f);
}

} // namespace
