#include "KernelTestUtils.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <functional>
extern "C" {
#include <cblas.h>
void openblas_set_num_threads(int);
}
using namespace fleet::codegen::testing;
double bestSeconds(int repetitions, const std::function<void()> &run) {
  run();
  double best = 1e30;
  for (int i = 0; i < repetitions; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}
// usage: probe file.mlir flops bytes0 bytes1 bytes2 [M N K]
int main(int argc, char **argv) {
  openblas_set_num_threads(1);
  std::ifstream in(argv[1]); std::stringstream ss; ss << in.rdbuf();
  CompileFlags flags; if (getenv("NOCONF")) flags.configure = false;
  if (getenv("CPU")) flags.targetCPU = getenv("CPU");
  auto k = compileAndLoad(ss.str(), flags);
  if (!k) { llvm::errs() << llvm::toString(k.takeError()) << "\n"; return 1; }
  double flops = atof(argv[2]);
  std::vector<std::vector<float>> bufs; std::vector<void*> ptrs; std::vector<uint64_t> lens;
  for (int i = 3; i < 6; ++i) { size_t b = atoll(argv[i]); bufs.push_back(randomFloats(b/4, i)); }
  for (auto &b : bufs) { ptrs.push_back(b.data()); lens.push_back(b.size()*4); }
  fleet_kernel_state_t state = {};
  state.binding_ptrs = ptrs.data(); state.binding_lengths = lens.data(); state.binding_count = 3;
  for (int i = 0; i < 3; ++i) state.workgroup_count[i] = k->grid[i];
  uint64_t wg = uint64_t(k->grid[0]) * k->grid[1] * k->grid[2];
  double t = bestSeconds(5, [&] { runWorkgroupRange(*k, state, 0, wg); });
  std::printf("grid %u %u %u compile %.0f ms: %.3f ms %.1f GFLOP/s\n", k->grid[0], k->grid[1], k->grid[2], k->compileMillis, t*1e3, flops/t/1e9);
  if (argc > 8) {
    int M = atoi(argv[6]), N = atoi(argv[7]), K = atoi(argv[8]);
    std::vector<float> a = randomFloats(M*K,1), b = randomFloats(K*N,2), c(M*N);
    double tb = bestSeconds(5, [&] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a.data(), K, b.data(), N, 0.0f, c.data(), N); });
    std::printf("openblas %.3f ms %.1f GFLOP/s\n", tb*1e3, 2.0*M*N*K/tb/1e9);
  }
}
