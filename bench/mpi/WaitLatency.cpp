//===- WaitLatency.cpp - cross-rank wait latency (bench row MP4) ----------===//
//
// fleet-mpi-wait-latency URI [URI...] COUNT: the round trip of a wait
// through device URI, COUNT times, after 100 untimed ones. Each round
// submits a barrier to the device that waits on a host semaphore at value i
// and signals a second semaphore at i; the clock starts when the host
// signals the first and stops when its wait on the second returns. With
// URI mpi://1/local-task (run as rank 0 of `mpirun.sh 2`, rank 1 a device
// server) that is a wait on rank 0's semaphore by an op in rank 1 and a wait
// on rank 1's signal in rank 0; with URI local-task the same in one
// process. With several URIs the barriers form a chain, each waiting on the
// previous one's signal: mpi://1/local-task mpi://2/local-task adds a wait
// of rank 2 on rank 1 (relayed between the two servers). Prints "wait round
// trip: median X us, p10 Y us, p90 Z us (COUNT rounds, URI -> URI...)".
// Exit 1 with a message when the device cannot be created or an op fails.
//
//===----------------------------------------------------------------------===//

#include "drivers/mpi/MpiDevice.h"
#include "fleet/runtime/hal/Device.h"
#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/hal/Fence.h"
#include "fleet/runtime/hal/Semaphore.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace fleet::runtime;

static int fail(const std::string &what, const hal::Status &status) {
  std::fprintf(stderr, "fleet-mpi-wait-latency: %s: %s\n", what.c_str(),
               status.toString().c_str());
  return 1;
}

static int measure(const std::vector<std::string> &uris, int count) {
  std::vector<hal::Ref<hal::Device>> devices;
  for (const std::string &uri : uris) {
    hal::StatusOr<hal::Ref<hal::Device>> created = hal::createDevice(uri);
    if (!created.ok())
      return fail("creating " + uri, created.status());
    devices.push_back(*created);
  }
  // semaphores[k] is signalled by the host (k = 0) or by device k - 1's
  // barrier; device k's barrier waits on semaphores[k].
  std::vector<hal::Ref<hal::Semaphore>> semaphores;
  for (size_t k = 0; k <= devices.size(); ++k)
    semaphores.push_back(hal::Semaphore::create(0));
  const int warmup = 100;
  std::vector<double> micros;
  for (int i = 1; i <= warmup + count; ++i) {
    for (size_t k = 0; k < devices.size(); ++k) {
      hal::Ref<hal::Fence> wait =
          hal::Fence::createAt(*semaphores[k], uint64_t(i));
      hal::Ref<hal::Fence> signal =
          hal::Fence::createAt(*semaphores[k + 1], uint64_t(i));
      if (hal::Status status =
              devices[k]->queueBarrier(1, wait.get(), signal.get());
          !status.ok())
        return fail("submitting the barrier", status);
    }
    uint64_t start = hal::monotonicNanoseconds();
    if (hal::Status status = semaphores[0]->signal(uint64_t(i));
        !status.ok())
      return fail("signalling", status);
    if (hal::Status status = semaphores.back()->wait(
            uint64_t(i), hal::Timeout::milliseconds(60000));
        !status.ok())
      return fail("waiting for the barrier", status);
    uint64_t end = hal::monotonicNanoseconds();
    if (i > warmup)
      micros.push_back(double(end - start) / 1e3);
  }
  std::sort(micros.begin(), micros.end());
  auto at = [&](double q) { return micros[size_t(q * (micros.size() - 1))]; };
  std::string chain;
  for (const std::string &uri : uris)
    chain += (chain.empty() ? "" : " -> ") + uri;
  std::printf("wait round trip: median %.1f us, p10 %.1f us, p90 %.1f us "
              "(%d rounds, %s)\n",
              at(0.5), at(0.1), at(0.9), count, chain.c_str());
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3 || std::atoi(argv[argc - 1]) <= 0) {
    std::fprintf(stderr,
                 "usage: fleet-mpi-wait-latency URI [URI...] COUNT\n");
    return 1;
  }
  hal::registerRemoteDriver(&mpi::createMpiDevice);
  int code = measure(std::vector<std::string>(argv + 1, argv + argc - 1),
                     std::atoi(argv[argc - 1]));
  std::fflush(stdout);
  // The servers wait for rank 0's Shutdown (nothing without mpi devices).
  mpi::shutdownMpi();
  return code;
}
