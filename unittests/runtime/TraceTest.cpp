//===- TraceTest.cpp - Chrome trace output and statistics ------------------===//

#include "TestUtil.h"

#include "fleet/runtime/hal/Fence.h"
#include "fleet/runtime/hal/Semaphore.h"
#include "fleet/runtime/hal/Trace.h"

#include <cctype>
#include <cstdlib>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <set>
#include <thread>

namespace fleet::runtime::hal {
namespace {
using namespace testing;

/// A strict JSON reader (RFC 8259 subset: no surrogate handling needed),
/// enough to prove the trace is well-formed and to inspect it.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json &operator[](const std::string &key) const {
    static const Json null;
    auto it = object.find(key);
    return it == object.end() ? null : it->second;
  }
};

class JsonReader {
public:
  explicit JsonReader(const std::string &text) : text_(text) {}

  bool parse(Json &out) {
    if (!value(out))
      return false;
    skipSpace();
    return position_ == text_.size();
  }

private:
  void skipSpace() {
    while (position_ < text_.size() && std::isspace(uint8_t(text_[position_])))
      ++position_;
  }
  bool consume(char c) {
    skipSpace();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  bool literal(const char *word) {
    size_t length = std::strlen(word);
    if (text_.compare(position_, length, word) != 0)
      return false;
    position_ += length;
    return true;
  }
  bool stringValue(std::string &out) {
    if (!consume('"'))
      return false;
    while (position_ < text_.size()) {
      char c = text_[position_++];
      if (c == '"')
        return true;
      if (uint8_t(c) < 0x20)
        return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (position_ >= text_.size())
        return false;
      char escaped = text_[position_++];
      if (escaped == 'u') {
        if (position_ + 4 > text_.size())
          return false;
        for (int i = 0; i < 4; ++i)
          if (!std::isxdigit(uint8_t(text_[position_ + i])))
            return false;
        out += '?';
        position_ += 4;
      } else if (std::strchr("\"\\/bfnrt", escaped)) {
        out += escaped;
      } else {
        return false;
      }
    }
    return false;
  }
  bool value(Json &out) {
    skipSpace();
    if (position_ >= text_.size())
      return false;
    char c = text_[position_];
    if (c == '{') {
      out.kind = Json::Object;
      ++position_;
      if (consume('}'))
        return true;
      do {
        std::string key;
        Json member;
        if (!stringValue(key) || !consume(':') || !value(member))
          return false;
        out.object[key] = std::move(member);
      } while (consume(','));
      return consume('}');
    }
    if (c == '[') {
      out.kind = Json::Array;
      ++position_;
      if (consume(']'))
        return true;
      do {
        out.array.emplace_back();
        if (!value(out.array.back()))
          return false;
      } while (consume(','));
      return consume(']');
    }
    if (c == '"') {
      out.kind = Json::String;
      return stringValue(out.string);
    }
    if (literal("true")) {
      out.kind = Json::Bool;
      out.boolean = true;
      return true;
    }
    if (literal("false")) {
      out.kind = Json::Bool;
      return true;
    }
    if (literal("null"))
      return true;
    const char *begin = text_.c_str() + position_;
    char *end = nullptr;
    out.number = std::strtod(begin, &end);
    if (end == begin || !(c == '-' || std::isdigit(uint8_t(c))))
      return false;
    out.kind = Json::Number;
    position_ += size_t(end - begin);
    return true;
  }

  const std::string &text_;
  size_t position_ = 0;
};

TEST(TraceTest, JsonReaderRejectsMalformedText) {
  Json json;
  EXPECT_TRUE(JsonReader("{\"a\":[1,2.5,true,null,\"x\\n\"]}").parse(json));
  EXPECT_FALSE(JsonReader("{\"a\":[1,2,]}").parse(json));
  EXPECT_FALSE(JsonReader("{\"a\" 1}").parse(json));
  EXPECT_FALSE(JsonReader("{\"a\":1}}").parse(json));
  EXPECT_FALSE(JsonReader("\"tab\there\"").parse(json));
}

TEST(TraceTest, ChromeTraceHasTracksSlicesAndFlows) {
  Tracer tracer;
  tracer.install();
  Devices d = makeDevices({"local-task?name=gpu0", "local-task?name=gpu1"});
  Ref<Executable> executable = makeTestExecutable();
  Ref<Buffer> a = makeHostBuffer(d[0], 256);
  Ref<Buffer> b = makeHostBuffer(d[1], 256);
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> filled = d[0].createFence();
  Ref<Fence> added = d[0].createFence();
  Ref<Fence> copied = d[1].createFence();
  FLEET_ASSERT_OK(
      d[0].queueFill(1, gate.get(), filled.get(), *a, 0, 256, 2, 1));
  Ref<CommandBuffer> add =
      recordAdd(d[0], *executable, BindingRef::of(*a), BindingRef::of(*a), 64,
                1, 4);
  CommandBuffer *list[] = {add.get()};
  FLEET_ASSERT_OK(d[0].queueExecute(1, filled.get(), added.get(), list));
  FLEET_ASSERT_OK(
      d[1].queueCopy(1, added.get(), copied.get(), *a, 0, *b, 0, 256));
  // Open the gate only once the host is about to block, so the host wait is
  // real.
  std::atomic<bool> waiting{false};
  std::thread opener([&] {
    while (!waiting.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    (void)gate->signal();
  });
  waiting.store(true);
  FLEET_ASSERT_OK(copied->wait(testTimeout()));
  opener.join();
  tracer.uninstall();

  Json trace;
  std::string text = tracer.toChromeJson();
  ASSERT_TRUE(JsonReader(text).parse(trace)) << text;
  ASSERT_EQ(trace["traceEvents"].kind, Json::Array);

  std::map<double, std::string> trackNames;
  std::map<std::string, const Json *> slices;
  int flowStarts = 0, flowEnds = 0;
  for (const Json &event : trace["traceEvents"].array) {
    const std::string &phase = event["ph"].string;
    if (phase == "M" && event["name"].string == "thread_name")
      trackNames[event["tid"].number] = event["args"]["name"].string;
    if (phase == "X")
      slices[event["name"].string] = &event;
    flowStarts += phase == "s";
    flowEnds += phase == "f";
  }
  // One track per device queue (plus the host track).
  EXPECT_EQ(trackNames[1], "host");
  std::vector<std::string> names;
  for (auto &[tid, name] : trackNames)
    names.push_back(name);
  EXPECT_NE(std::find(names.begin(), names.end(), "gpu0 queue 0"),
            names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "gpu1 queue 0"),
            names.end());
  // Slices are named after the op, a dispatch after its export.
  ASSERT_TRUE(slices.count("fill"));
  ASSERT_TRUE(slices.count("add_constant"));
  ASSERT_TRUE(slices.count("copy"));
  ASSERT_TRUE(slices.count("wait"));
  const Json &copy = *slices["copy"];
  EXPECT_EQ(copy["args"]["bytes"].number, 256);
  EXPECT_TRUE(copy["args"]["cross_device"].boolean);
  EXPECT_EQ(trackNames[copy["tid"].number], "gpu1 queue 0");
  EXPECT_GE(copy["dur"].number, 0);
  EXPECT_LE((*slices["fill"])["ts"].number, copy["ts"].number);
  // Flows: gpu0's dispatch -> gpu1's copy, and gpu1's copy -> the host wait.
  EXPECT_GE(flowStarts, 2);
  EXPECT_EQ(flowStarts, flowEnds);
  std::vector<TraceSlice> recorded = tracer.slices();
  std::map<uint64_t, const TraceSlice *> byId;
  for (const TraceSlice &slice : recorded)
    byId[slice.id] = &slice;
  bool crossDeviceFlow = false;
  for (auto [from, to] : tracer.flows())
    if (byId.count(from) && byId.count(to) &&
        byId[from]->name == "add_constant" && byId[to]->name == "copy")
      crossDeviceFlow = true;
  EXPECT_TRUE(crossDeviceFlow);

  // Busy time is measured while tracing.
  EXPECT_GT(d[0].statistics().busyNanoseconds, 0u);
}

TEST(TraceTest, ArrowsJoinProcesses) {
  // A device server's tracer numbers its slices from its rank << 48; rank
  // 0's trace then holds arrows both ways between the two processes.
  Tracer server((uint64_t(1) << 48) + 1);
  uint64_t remoteSlice = server.newSliceId();
  EXPECT_EQ(remoteSlice, (uint64_t(1) << 48) + 1);
  Tracer tracer;
  uint64_t first = tracer.newSliceId(), last = tracer.newSliceId();
  uint64_t base = monotonicNanoseconds();
  auto slice = [&](uint64_t id, uint32_t track, uint64_t start) {
    TraceSlice s;
    s.id = id;
    s.track = track;
    s.name = "s" + std::to_string(id & 0xffff);
    s.startNanoseconds = base + start;
    s.endNanoseconds = base + start + 1000;
    return s;
  };
  tracer.addSlice(slice(first, 0, 0));
  tracer.addSlice(slice(last, 0, 4000));
  RemoteTrace remote;
  remote.pid = 2;
  remote.processName = "rank 1";
  remote.tracks = {"host", "mpi://1/local-task queue 0"};
  remote.slices.push_back(slice(remoteSlice, 1, 2000));
  remote.flows.emplace_back(first, remoteSlice); // rank 0 -> rank 1
  remote.flows.emplace_back(remoteSlice, 12345); // an unknown end: dropped
  tracer.addRemote(std::move(remote));
  tracer.addFlow(remoteSlice, last); // rank 1 -> rank 0

  Json trace;
  std::string text = tracer.toChromeJson();
  ASSERT_TRUE(JsonReader(text).parse(trace)) << text;
  std::map<double, double> startPid, endPid;
  for (const Json &event : trace["traceEvents"].array) {
    if (event["ph"].string == "s")
      startPid[event["id"].number] = event["pid"].number;
    if (event["ph"].string == "f")
      endPid[event["id"].number] = event["pid"].number;
  }
  ASSERT_EQ(startPid.size(), 2u) << text;
  std::multiset<std::pair<double, double>> arrows;
  for (auto [id, pid] : startPid)
    arrows.insert({pid, endPid[id]});
  EXPECT_EQ(arrows, (std::multiset<std::pair<double, double>>{{1, 2},
                                                              {2, 1}}));
}

TEST(TraceTest, FenceNamesItsLastSignaller) {
  // An op completed without a slice of its own passes on this one (the mpi
  // driver's arrows go through such ops).
  Ref<Semaphore> a = Semaphore::create(0), b = Semaphore::create(0);
  Ref<Fence> fence = Fence::createAt(*a, 1);
  fence->insert(*b, 1);
  EXPECT_EQ(fence->lastSignalerSlice(), 0u);
  a->setLastSignalerSlice(7);
  b->setLastSignalerSlice((uint64_t(1) << 48) + 3);
  EXPECT_EQ(fence->lastSignalerSlice(), (uint64_t(1) << 48) + 3);
  EXPECT_EQ(Fence::create()->lastSignalerSlice(), 0u);
}

TEST(TraceTest, NoRecordingWithoutTracer) {
  ASSERT_EQ(Tracer::active(), nullptr);
  Tracer idle; // not installed
  Ref<Device> device = makeDevice("local-sync");
  Ref<Buffer> buffer = makeHostBuffer(*device, 16);
  FLEET_ASSERT_OK(device->queueFill(1, nullptr, nullptr, *buffer, 0, 16, 0, 1));
  EXPECT_TRUE(idle.slices().empty());
  EXPECT_EQ(device->statistics().busyNanoseconds, 0u);
  EXPECT_EQ(device->statistics().queueOpsExecuted, 1u);
}

TEST(TraceTest, WriteFailsForUnwritablePath) {
  Tracer tracer;
  Status status = tracer.writeChromeJson("/nonexistent-dir/trace.json");
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(contains(status.message(), "/nonexistent-dir/trace.json"));
}

TEST(TraceTest, StatisticsReport) {
  setStatisticsTiming(true);
  resetHostStatistics();
  Devices d = makeDevices({"local-sync?name=s0", "local-task?name=t1"});
  Ref<Buffer> a = makeHostBuffer(d[0], 128);
  Ref<Buffer> b = makeHostBuffer(d[1], 128);
  Ref<Fence> done = d[1].createFence();
  FLEET_ASSERT_OK(d[1].queueCopy(1, nullptr, done.get(), *a, 0, *b, 0, 128));
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  (void)d.group->queryLink(d[0], d[1], "unified_memory");
  setStatisticsTiming(false);
  Device *devices[] = {&d[0], &d[1]};
  std::string report = formatStatistics(devices, d.group.get());
  EXPECT_TRUE(contains(report, "device 't1' (local-task)"));
  EXPECT_TRUE(contains(report, "queue ops executed:        1 of 1 submitted "
                               "(0 failed)"));
  EXPECT_TRUE(contains(report, "bytes between devices:     128"));
  EXPECT_TRUE(contains(report, "waits:                     1"));
  EXPECT_TRUE(contains(report, "link queries:              1"));
  EXPECT_GT(d[1].statistics().busyNanoseconds, 0u);
}

} // namespace
} // namespace fleet::runtime::hal
