//===- RuntimeBench.cpp - cost of queue ops and waits ----------------------===//
//
// What a host program pays per queue op on each local driver, and how long a
// cross-device semaphore wait takes to wake the waiting device.
//
//   fleet-runtime-bench                       Google Benchmark run
//   fleet-runtime-bench --dispatch-loop=N [--device=URI]
//                                             N host-program-shaped dispatches
//                                             on local-sync (or URI), for
//                                             instruction counting under
//                                             callgrind; on vulkan the kernel
//                                             is the driver test's abs.spv
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/hal/CommandBuffer.h"
#include "fleet/runtime/hal/Device.h"
#include "fleet/runtime/hal/DeviceGroup.h"
#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/hal/Trace.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

using namespace fleet::runtime::hal;

namespace {

int32_t emptyKernel(const fleet_kernel_state_t *, uint32_t, uint32_t,
                    uint32_t) {
  return 0;
}

Ref<Device> device(const char *uri) {
  auto created = createDevice(uri);
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().toString().c_str());
    std::abort();
  }
  return *created;
}

void check(const Status &status) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.toString().c_str());
    std::abort();
  }
}

Ref<Buffer> buffer(Device &owner, uint64_t size) {
  auto allocated = owner.allocator().allocate(
      MemoryType::DeviceLocal,
      BufferUsage::Transfer | BufferUsage::DispatchStorage, size);
  check(allocated.status());
  return *allocated;
}

/// What the host program does for one dispatch: a fresh signal fence, a
/// one-shot command buffer with one dispatch, queue_execute waiting on the
/// previous fence.
struct DispatchLoop {
  Ref<Device> target;
  Ref<Executable> executable;
  Ref<Buffer> data;
  Ref<Fence> previous;

  /// Constants of the kernel: the empty host kernel takes two words; the
  /// SPIR-V abs kernel one (its element count: 512 floats of 2 KiB).
  std::vector<uint32_t> constants = {1, 2};

  explicit DispatchLoop(const char *uri) : target(device(uri)) {
    if (std::strcmp(target->executableFormat(), kSpirvExecutableFormat) == 0) {
#ifdef FLEET_BENCH_ABS_SPV
      std::ifstream in(FLEET_BENCH_ABS_SPV, std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
      ExecutableSource source;
      source.name = "bench";
      source.format = kSpirvExecutableFormat;
      source.bytes = Span<const uint8_t>(bytes.data(), bytes.size());
      source.exportNames = {"abs"};
      source.symbols = {"abs_kernel"};
      source.layouts = {ExportLayout{2, 1}};
      auto loaded = target->loadExecutable(source);
      check(loaded.status());
      executable = *loaded;
      constants = {512};
#else
      check(Status(StatusCode::Unimplemented, "built without the SPIR-V "
                                              "kernel of the Vulkan tests"));
#endif
    } else {
      auto created = Executable::create("bench", {{"empty", emptyKernel}});
      check(created.status());
      executable = *created;
    }
    data = buffer(*target, 4096);
    previous = Fence::create();
  }

  void step() {
    Ref<Fence> signal = target->createFence();
    auto commands = CommandBuffer::create(*target, CommandBufferMode::OneShot,
                                          CommandCategory::Dispatch, 1);
    uint32_t workgroups[3] = {1, 1, 1};
    BindingRef bindings[2] = {BindingRef::of(*data, 0, 2048),
                              BindingRef::of(*data, 2048, 2048)};
    check((*commands)->dispatch(
        *executable, 0, workgroups,
        Span<const uint32_t>(constants.data(), constants.size()), bindings));
    check((*commands)->finalize());
    CommandBuffer *list[] = {commands->get()};
    check(target->queueExecute(1, previous.get(), signal.get(), list));
    previous = signal;
  }

  void finish() { check(previous->wait(Timeout::milliseconds(60000))); }
};

void BM_DispatchHostProgram(benchmark::State &state, const char *uri) {
  DispatchLoop loop(uri);
  for (auto _ : state)
    loop.step();
  loop.finish();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_DispatchHostProgram, local_sync, "local-sync");
BENCHMARK_CAPTURE(BM_DispatchHostProgram, local_task, "local-task");

/// The cheapest queue op, chained on one timeline.
void BM_BarrierOnTimeline(benchmark::State &state, const char *uri) {
  Ref<Device> target = device(uri);
  Ref<Semaphore> timeline = target->createSemaphore(0);
  uint64_t value = 0;
  for (auto _ : state) {
    Ref<Fence> wait = Fence::createAt(*timeline, value);
    Ref<Fence> signal = Fence::createAt(*timeline, ++value);
    check(target->queueBarrier(1, wait.get(), signal.get()));
  }
  check(timeline->wait(value, Timeout::milliseconds(60000)));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_BarrierOnTimeline, local_sync, "local-sync");
BENCHMARK_CAPTURE(BM_BarrierOnTimeline, local_task, "local-task");

/// Submit one op and block the host until it is done: the round trip.
void BM_SubmitAndWait(benchmark::State &state, const char *uri) {
  Ref<Device> target = device(uri);
  Ref<Semaphore> timeline = target->createSemaphore(0);
  uint64_t value = 0;
  for (auto _ : state) {
    Ref<Fence> signal = Fence::createAt(*timeline, ++value);
    check(target->queueBarrier(1, nullptr, signal.get()));
    check(timeline->wait(value, Timeout::milliseconds(60000)));
  }
}
BENCHMARK_CAPTURE(BM_SubmitAndWait, local_sync, "local-sync");
BENCHMARK_CAPTURE(BM_SubmitAndWait, local_task, "local-task");

/// A chain of ops alternating between two local-task devices, each waiting
/// on the other's semaphore: per hop, the time from one device signalling to
/// the other device finishing its op (cross-device wait latency).
void BM_CrossDeviceHop(benchmark::State &state) {
  Ref<Device> a = device("local-task");
  Ref<Device> b = device("local-task");
  auto group = DeviceGroup::create({a, b});
  check(group.status());
  constexpr int kHops = 64;
  for (auto _ : state) {
    Ref<Semaphore> sa = a->createSemaphore(0);
    Ref<Semaphore> sb = b->createSemaphore(0);
    Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
    for (int hop = 0; hop < kHops; ++hop) {
      Device &on = hop % 2 ? *b : *a;
      Semaphore &from = hop % 2 ? *sa : *sb;
      Semaphore &to = hop % 2 ? *sb : *sa;
      Ref<Fence> wait = hop == 0 ? gate : Fence::createAt(from, hop);
      Ref<Fence> signal = Fence::createAt(to, hop + 1);
      check(on.queueBarrier(1, wait.get(), signal.get()));
    }
    auto start = std::chrono::steady_clock::now();
    check(gate->signal());
    check(sb->wait(kHops, Timeout::milliseconds(60000)));
    auto elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(
        std::chrono::duration<double>(elapsed).count() / kHops);
  }
}
BENCHMARK(BM_CrossDeviceHop)->UseManualTime();

/// 64 KiB copies between devices.
void BM_CrossDeviceCopy(benchmark::State &state, const char *uri) {
  Ref<Device> a = device(uri);
  Ref<Device> b = device(uri);
  auto group = DeviceGroup::create({a, b});
  check(group.status());
  Ref<Buffer> source = buffer(*a, 65536);
  Ref<Buffer> target = buffer(*b, 65536);
  Ref<Semaphore> timeline = b->createSemaphore(0);
  uint64_t value = 0;
  for (auto _ : state) {
    Ref<Fence> signal = Fence::createAt(*timeline, ++value);
    check(b->queueCopy(1, nullptr, signal.get(), *source, 0, *target, 0,
                       65536));
  }
  check(timeline->wait(value, Timeout::milliseconds(60000)));
  state.SetBytesProcessed(state.iterations() * 65536);
}
BENCHMARK_CAPTURE(BM_CrossDeviceCopy, local_sync, "local-sync");
BENCHMARK_CAPTURE(BM_CrossDeviceCopy, local_task, "local-task");

} // namespace

int main(int argc, char **argv) {
  const char *uri = "local-sync";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--device=", 9) == 0)
      uri = argv[i] + 9;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--dispatch-loop=", 16) != 0)
      continue;
    long count = std::atol(argv[i] + 16);
    DispatchLoop loop(uri);
    uint64_t start = monotonicNanoseconds();
    for (long n = 0; n < count; ++n)
      loop.step();
    loop.finish();
    uint64_t elapsed = monotonicNanoseconds() - start;
    std::printf("%ld dispatches on %s: %.2f us per dispatch\n", count, uri,
                count ? elapsed / 1e3 / double(count) : 0.0);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
