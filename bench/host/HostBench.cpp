//===- HostBench.cpp - host-program executor timings ----------------------===//
//
//   fleet-host-bench ARTIFACT FUNCTION N REPETITIONS DEVICE...
//
// Loads ARTIFACT on the devices, calls FUNCTION(N : index) REPETITIONS times
// (after one warm-up call) and prints the median and minimum nanoseconds per
// loop iteration:  `median_ns=... min_ns=...`. With REPETITIONS = 0 it calls
// once and prints nothing (the callgrind mode of scripts/host-bench, where
// start-up cancels out between two values of N).
//
//   fleet-host-bench --load ARTIFACT LOADS DEVICE...
//
// Loads ARTIFACT LOADS times in this process, each into a fresh context on
// the same devices, and prints the median and minimum nanoseconds of one
// load (`load_median_ns=... load_min_ns=...`): reading the artifact, lowering
// the host program, loading the kernel library, running the initializers.
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/hal/Trace.h"
#include "fleet/runtime/host/Context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace fleet::runtime;

static int fail(const std::string &message) {
  std::fprintf(stderr, "fleet-host-bench: %s\n", message.c_str());
  return 1;
}

static int benchLoads(int argc, char **argv) {
  if (argc < 5)
    return fail("usage: fleet-host-bench --load ARTIFACT LOADS DEVICE...");
  std::string artifact = argv[2];
  int loads = std::atoi(argv[3]);
  if (loads <= 0)
    return fail("LOADS must be positive");
  std::vector<hal::Ref<hal::Device>> devices;
  for (int i = 4; i < argc; ++i) {
    auto device = hal::createDevice(argv[i]);
    if (!device.ok())
      return fail(device.status().toString());
    devices.push_back(*device);
  }
  std::vector<uint64_t> times;
  for (int i = 0; i < loads; ++i) {
    auto context = host::Context::create(devices);
    if (!context.ok())
      return fail(context.status().toString());
    uint64_t start = hal::monotonicNanoseconds();
    auto module = (*context)->loadArtifactFile(artifact);
    uint64_t end = hal::monotonicNanoseconds();
    if (!module.ok())
      return fail(module.status().toString());
    times.push_back(end - start);
  }
  std::sort(times.begin(), times.end());
  std::printf("load_median_ns=%llu load_min_ns=%llu\n",
              (unsigned long long)times[times.size() / 2],
              (unsigned long long)times.front());
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "--load")
    return benchLoads(argc, argv);
  if (argc < 6)
    return fail("usage: fleet-host-bench ARTIFACT FUNCTION N REPETITIONS "
                "DEVICE...");
  std::string artifact = argv[1], name = argv[2];
  long long n = std::atoll(argv[3]);
  int repetitions = std::atoi(argv[4]);
  std::vector<hal::Ref<hal::Device>> devices;
  for (int i = 5; i < argc; ++i) {
    auto device = hal::createDevice(argv[i]);
    if (!device.ok())
      return fail(device.status().toString());
    devices.push_back(*device);
  }
  auto context = host::Context::create(std::move(devices));
  if (!context.ok())
    return fail(context.status().toString());
  auto module = (*context)->loadArtifactFile(artifact);
  if (!module.ok())
    return fail(module.status().toString());
  const host::Function *function = (*context)->lookupFunction(name);
  if (!function)
    return fail("no function @" + name);
  std::vector<host::Value> arguments = {host::Value::index(n)};
  auto once = [&]() -> hal::Status {
    std::vector<host::Value> results;
    return (*context)->invoke(*function, arguments, results);
  };
  if (repetitions == 0) {
    hal::Status status = once();
    return status.ok() ? 0 : fail(status.toString());
  }
  hal::Status warmup = once();
  if (!warmup.ok())
    return fail(warmup.toString());
  std::vector<double> perIteration;
  for (int i = 0; i < repetitions; ++i) {
    uint64_t start = hal::monotonicNanoseconds();
    hal::Status status = once();
    uint64_t end = hal::monotonicNanoseconds();
    if (!status.ok())
      return fail(status.toString());
    perIteration.push_back(double(end - start) / double(n));
  }
  std::sort(perIteration.begin(), perIteration.end());
  std::printf("median_ns=%.0f min_ns=%.0f\n",
              perIteration[perIteration.size() / 2], perIteration.front());
  return 0;
}
