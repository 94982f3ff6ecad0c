//===- KernelBench.cpp - Fleet kernels against OpenBLAS and memcpy --------===//
//
// Compiles dispatch kernels with Fleet's kernel compiler (the same path as
// hal-serialize-executables), loads them with ORC and times them side by
// side with the reference in one run:
//   P4  f32 matmul 512^3, one thread, GFLOP/s vs OpenBLAS cblas_sgemm
//   add 16M f32 elementwise, bytes/s (3 streams) vs memcpy (2 streams)
//   matmul 512^3 on two threads splitting the workgroup grid vs one
// Prints a table of ratios with their goals (docs/kernels.md). Run through
// bench/kernels.sh, which picks the OpenBLAS core type.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

extern "C" {
#include <cblas.h>
char *openblas_get_corename(void);
void openblas_set_num_threads(int);
}

using namespace fleet::codegen::testing;

namespace {

const char *kMatmulSource = R"mlir(
stream.executable private @ex {
  stream.executable.export public @matmul workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @matmul(%a: !stream.binding, %b: !stream.binding, %o: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Nx$Nxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Nx$Nxf32>
      %2 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Nx$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Nx$Nxf32> to tensor<$Nx$Nxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Nx$Nxf32> to tensor<$Nx$Nxf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<$Nx$Nxf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<$Nx$Nxf32>) -> tensor<$Nx$Nxf32>
      %mm = linalg.matmul ins(%ta, %tb : tensor<$Nx$Nxf32>, tensor<$Nx$Nxf32>) outs(%f : tensor<$Nx$Nxf32>) -> tensor<$Nx$Nxf32>
      bufferization.materialize_in_destination %mm in restrict writable %2 : (tensor<$Nx$Nxf32>, memref<$Nx$Nxf32>) -> ()
      return
    }
  }
}
)mlir";

const char *kAddSource = R"mlir(
stream.executable private @ex {
  stream.executable.export public @add workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @add(%a: !stream.binding, %b: !stream.binding, %o: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Nxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Nxf32>
      %2 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Nxf32> to tensor<$Nxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Nxf32> to tensor<$Nxf32>
      %e = tensor.empty() : tensor<$Nxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ta, %tb : tensor<$Nxf32>, tensor<$Nxf32>) outs(%e : tensor<$Nxf32>) {
      ^bb0(%x: f32, %y: f32, %out: f32):
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
      } -> tensor<$Nxf32>
      bufferization.materialize_in_destination %r in restrict writable %2 : (tensor<$Nxf32>, memref<$Nxf32>) -> ()
      return
    }
  }
}
)mlir";

/// Best wall time of `repetitions` runs (after one warm-up), seconds.
double bestSeconds(int repetitions, const std::function<void()> &run) {
  run();
  double best = 1e30;
  for (int i = 0; i < repetitions; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  return best;
}

LoadedKernel load(const char *source, int64_t n) {
  auto kernel = compileAndLoad(substitute(source, {{"$N", std::to_string(n)}}));
  if (!kernel) {
    llvm::errs() << "compile failed: " << llvm::toString(kernel.takeError())
                 << "\n";
    std::exit(1);
  }
  return std::move(*kernel);
}

fleet_kernel_state_t makeState(const LoadedKernel &kernel,
                               const std::vector<void *> &bindings,
                               const std::vector<uint64_t> &lengths) {
  fleet_kernel_state_t state = {};
  state.binding_ptrs = bindings.data();
  state.binding_lengths = lengths.data();
  state.binding_count = bindings.size();
  for (int i = 0; i < 3; ++i)
    state.workgroup_count[i] = kernel.grid[i];
  return state;
}

void row(const char *what, double fleet, double reference, const char *unit,
         double goal) {
  double ratio = fleet / reference;
  std::printf("%-44s %10.1f %10.1f %-8s %6.2f  %s %.2f  %s\n", what, fleet,
              reference, unit, ratio, ">=", goal,
              ratio >= goal ? "met" : "MISSED");
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--corename") == 0) {
    std::printf("%s\n", openblas_get_corename());
    return 0;
  }
  openblas_set_num_threads(1);
  // --sgemm M N K ROUNDS [BATCH [t]]: best time (ms) of BATCH (default 1)
  // one-thread cblas_sgemm calls, C_i = A_i B_i (row-major; `t`: B_i given
  // as N x K, C_i = A_i B_i^T), over ROUNDS runs after a warm-up.
  // --memcpy BYTES ROUNDS: best time (ms) of one memcpy of BYTES.
  // (bench/rows/matmul.py and streams.py alternate these with Fleet's runs.)
  if (argc > 5 && std::strcmp(argv[1], "--sgemm") == 0) {
    int m = std::atoi(argv[2]), n = std::atoi(argv[3]), k = std::atoi(argv[4]);
    int batch = argc > 6 ? std::atoi(argv[6]) : 1;
    bool transposed = argc > 7 && std::strcmp(argv[7], "t") == 0;
    std::vector<float> a = randomFloats(size_t(batch) * m * k, 1),
                       b = randomFloats(size_t(batch) * k * n, 2),
                       c(size_t(batch) * m * n);
    double seconds = bestSeconds(std::atoi(argv[5]), [&] {
      for (int i = 0; i < batch; ++i)
        cblas_sgemm(CblasRowMajor, CblasNoTrans,
                    transposed ? CblasTrans : CblasNoTrans, m, n, k, 1.0f,
                    a.data() + size_t(i) * m * k, k,
                    b.data() + size_t(i) * k * n, transposed ? k : n, 0.0f,
                    c.data() + size_t(i) * m * n, n);
    });
    std::printf("%.4f\n", seconds * 1e3);
    return 0;
  }
  // --conv HP WP C F K S ROUNDS: best time (ms) of an NHWC convolution
  // (batch 1, input already padded to HP x WP x C, filter K x K x C x F,
  // stride S) as im2col (the copy included) + one-thread sgemm.
  if (argc > 8 && std::strcmp(argv[1], "--conv") == 0) {
    int hp = std::atoi(argv[2]), wp = std::atoi(argv[3]), c = std::atoi(argv[4]),
        f = std::atoi(argv[5]), k = std::atoi(argv[6]), s = std::atoi(argv[7]);
    int oh = (hp - k) / s + 1, ow = (wp - k) / s + 1;
    std::vector<float> input = randomFloats(size_t(hp) * wp * c, 1),
                       filter = randomFloats(size_t(k) * k * c * f, 2),
                       columns(size_t(oh) * ow * k * k * c),
                       output(size_t(oh) * ow * f);
    double seconds = bestSeconds(std::atoi(argv[8]), [&] {
      float *row = columns.data();
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x)
          for (int i = 0; i < k; ++i)
            for (int j = 0; j < k; ++j, row += c)
              std::memcpy(row,
                          input.data() +
                              (size_t(y * s + i) * wp + (x * s + j)) * c,
                          c * sizeof(float));
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, oh * ow, f,
                  k * k * c, 1.0f, columns.data(), k * k * c, filter.data(),
                  f, 0.0f, output.data(), f);
    });
    std::printf("%.4f\n", seconds * 1e3);
    return 0;
  }
  if (argc > 3 && std::strcmp(argv[1], "--memcpy") == 0) {
    size_t bytes = std::strtoull(argv[2], nullptr, 10);
    std::vector<char> from(bytes, 1), to(bytes, 0);
    double seconds = bestSeconds(std::atoi(argv[3]), [&] {
      std::memcpy(to.data(), from.data(), bytes);
    });
    std::printf("%.4f\n", seconds * 1e3);
    return 0;
  }
  std::printf("CPU: %s, OpenBLAS core: %s\n",
              llvm::sys::getHostCPUName().str().c_str(),
              openblas_get_corename());

  // P4: matmul 512^3, one thread.
  const int64_t n = 512;
  LoadedKernel matmul = load(kMatmulSource, n);
  std::vector<float> a = randomFloats(n * n, 1), b = randomFloats(n * n, 2),
                     c(n * n), reference(n * n);
  std::vector<void *> bindings = {a.data(), b.data(), c.data()};
  std::vector<uint64_t> lengths(3, n * n * 4);
  fleet_kernel_state_t state = makeState(matmul, bindings, lengths);
  uint64_t workgroups =
      uint64_t(matmul.grid[0]) * matmul.grid[1] * matmul.grid[2];
  double flops = 2.0 * n * n * n;
  // Alternate short batches of both, so a burst of load from elsewhere on
  // the (shared) machine hits both sides alike; keep each side's best.
  double fleetOne = 1e30, blas = 1e30;
  for (int round = 0; round < 8; ++round) {
    fleetOne = std::min(fleetOne, bestSeconds(5, [&] {
      runWorkgroupRange(matmul, state, 0, workgroups);
    }));
    blas = std::min(blas, bestSeconds(5, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                  a.data(), n, b.data(), n, 0.0f, reference.data(), n);
    }));
  }
  double maxError = 0;
  for (int64_t i = 0; i < n * n; ++i)
    maxError = std::max<double>(maxError, std::fabs(c[i] - reference[i]));
  // Two threads, each a contiguous half of the grid.
  double fleetTwo = bestSeconds(20, [&] {
    std::thread other(
        [&] { runWorkgroupRange(matmul, state, 0, workgroups / 2); });
    runWorkgroupRange(matmul, state, workgroups / 2, workgroups);
    other.join();
  });

  // Elementwise add of 16M floats vs memcpy of the same size.
  const int64_t count = 16 * 1024 * 1024;
  LoadedKernel add = load(kAddSource, count);
  std::vector<float> x = randomFloats(count, 3), y = randomFloats(count, 4),
                     z(count, 0.0f), copy(count, 0.0f);
  std::vector<void *> addBindings = {x.data(), y.data(), z.data()};
  std::vector<uint64_t> addLengths(3, count * 4);
  fleet_kernel_state_t addState = makeState(add, addBindings, addLengths);
  uint64_t addWorkgroups = uint64_t(add.grid[0]) * add.grid[1] * add.grid[2];
  double addSeconds = bestSeconds(10, [&] {
    runWorkgroupRange(add, addState, 0, addWorkgroups);
  });
  double copySeconds = bestSeconds(10, [&] {
    std::memcpy(copy.data(), x.data(), count * 4);
  });
  bool addCorrect = z[12345] == x[12345] + y[12345];

  std::printf("\n%-44s %10s %10s %-8s %6s  %s\n", "benchmark", "fleet",
              "reference", "unit", "ratio", "goal");
  row("matmul 512^3 f32, 1 thread (vs OpenBLAS)", flops / fleetOne / 1e9,
      flops / blas / 1e9, "GFLOP/s", 0.9);
  row("add 16M f32, 3 streams (vs memcpy, 2)",
      3.0 * count * 4 / addSeconds / 1e9, 2.0 * count * 4 / copySeconds / 1e9,
      "GB/s", 0.8);
  row("matmul 512^3 f32, 2 threads (vs 1)", flops / fleetTwo / 1e9,
      flops / fleetOne / 1e9, "GFLOP/s", 1.5);
  std::printf("\nmatmul grid %ux%ux%u, max |fleet - openblas| = %.2e; add "
              "grid %ux%ux%u, %s\n",
              matmul.grid[0], matmul.grid[1], matmul.grid[2], maxError,
              add.grid[0], add.grid[1], add.grid[2],
              addCorrect ? "correct" : "WRONG");
  std::printf("compile: matmul %.0f ms, add %.0f ms\n", matmul.compileMillis,
              add.compileMillis);
  return maxError < 1e-2 && addCorrect ? 0 : 1;
}
