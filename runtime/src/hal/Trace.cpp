//===- Trace.cpp - Chrome/Perfetto traces and statistics -------------------===//

#include "fleet/runtime/hal/Trace.h"

#include "fleet/runtime/hal/Device.h"
#include "fleet/runtime/hal/DeviceGroup.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <unordered_map>

namespace fleet::runtime::hal {

std::atomic<Tracer *> Tracer::activeTracer_{nullptr};

namespace {
std::atomic<bool> statisticsTiming{false};
std::atomic<uint64_t> hostWaits{0};
std::atomic<uint64_t> hostBlockedWaits{0};
std::atomic<uint64_t> hostWaitNanoseconds{0};

void appendEscaped(std::string &out, std::string_view text) {
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
        out += buffer;
      } else {
        out += c;
      }
    }
  }
}

/// Microseconds with nanosecond digits, as the trace format expects.
std::string microseconds(uint64_t nanoseconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%llu.%03llu",
                static_cast<unsigned long long>(nanoseconds / 1000),
                static_cast<unsigned long long>(nanoseconds % 1000));
  return buffer;
}
} // namespace

uint64_t monotonicNanoseconds() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

Tracer::Tracer(uint64_t firstSliceId)
    : nextSliceId_(firstSliceId), epochNanoseconds_(monotonicNanoseconds()) {
  tracks_.push_back("host");
}

Tracer::~Tracer() { uninstall(); }

void Tracer::install() {
  activeTracer_.store(this, std::memory_order_release);
}

void Tracer::uninstall() {
  Tracer *self = this;
  activeTracer_.compare_exchange_strong(self, nullptr);
}

uint32_t Tracer::queueTrack(const Device &device, uint32_t queue,
                            bool deviceTime) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_pair(&device, 2 * uint64_t(queue) + deviceTime);
  auto it = queueTracks_.find(key);
  if (it != queueTracks_.end())
    return it->second;
  uint32_t track = uint32_t(tracks_.size());
  tracks_.push_back(concat(device.name(), deviceTime ? " gpu queue " : " queue ",
                           queue));
  queueTracks_.emplace(key, track);
  return track;
}

void Tracer::addSlice(TraceSlice slice) {
  std::lock_guard<std::mutex> lock(mutex_);
  slices_.push_back(std::move(slice));
}

void Tracer::addFlow(uint64_t from, uint64_t to) {
  std::lock_guard<std::mutex> lock(mutex_);
  flows_.emplace_back(from, to);
}

std::vector<TraceSlice> Tracer::slices() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return slices_;
}

std::vector<std::pair<uint64_t, uint64_t>> Tracer::flows() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return flows_;
}

std::vector<std::string> Tracer::trackNames() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tracks_;
}

void Tracer::addRemote(RemoteTrace remote) {
  std::lock_guard<std::mutex> lock(mutex_);
  remotes_.push_back(std::move(remote));
}

std::string Tracer::toChromeJson() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto begin = [&] {
    if (!first)
      out += ",\n";
    first = false;
  };
  auto relative = [&](uint64_t ns) {
    return microseconds(ns >= epochNanoseconds_ ? ns - epochNanoseconds_ : 0);
  };
  // A complete ("X") event for `slice` in process `pid`.
  auto appendSlice = [&](const TraceSlice &slice, const std::string &pid) {
    begin();
    out += "{\"name\":\"";
    appendEscaped(out, slice.name);
    out += "\",\"cat\":\"";
    out += slice.track == 0 ? "host" : "queue";
    out += "\",\"ph\":\"X\",\"pid\":" + pid +
           ",\"tid\":" + std::to_string(slice.track + 1) +
           ",\"ts\":" + relative(slice.startNanoseconds) + ",\"dur\":" +
           microseconds(slice.endNanoseconds - slice.startNanoseconds) +
           ",\"args\":{\"id\":" + std::to_string(slice.id);
    if (slice.bytes)
      out += ",\"bytes\":" + std::to_string(slice.bytes);
    if (slice.crossDevice)
      out += ",\"cross_device\":true";
    if (slice.crossDeviceBytes)
      out += ",\"cross_device_bytes\":" +
             std::to_string(slice.crossDeviceBytes);
    if (slice.failed)
      out += ",\"failed\":true";
    out += "}}";
  };
  begin();
  out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":"
         "\"fleet\"}}";
  for (size_t track = 0; track < tracks_.size(); ++track) {
    begin();
    out += "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" +
           std::to_string(track + 1) + ",\"args\":{\"name\":\"";
    appendEscaped(out, tracks_[track]);
    out += "\"}}";
    begin();
    out += "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":" +
           std::to_string(track + 1) +
           ",\"args\":{\"sort_index\":" + std::to_string(track) + "}}";
  }
  for (const TraceSlice &slice : slices_)
    appendSlice(slice, "1");
  for (const RemoteTrace &remote : remotes_) {
    std::string pid = std::to_string(remote.pid);
    begin();
    out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid +
           ",\"args\":{\"name\":\"";
    appendEscaped(out, remote.processName);
    out += "\"}}";
    begin();
    out += "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + pid +
           ",\"args\":{\"sort_index\":" + pid + "}}";
    for (size_t track = 0; track < remote.tracks.size(); ++track) {
      begin();
      out += "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + pid +
             ",\"tid\":" + std::to_string(track + 1) +
             ",\"args\":{\"name\":\"";
      appendEscaped(out, remote.tracks[track]);
      out += "\"}}";
    }
    for (const TraceSlice &slice : remote.slices)
      appendSlice(slice, pid);
  }
  // Flow arrows: "s" inside the signalling slice, "f" bound to the start of
  // the waiting one ("bp":"e" binds to the enclosing slice). Slice ids are
  // unique across the processes, so an arrow may join two of them.
  std::unordered_map<uint64_t, std::pair<const TraceSlice *, int>> byId;
  for (const TraceSlice &slice : slices_)
    byId[slice.id] = {&slice, 1};
  for (const RemoteTrace &remote : remotes_)
    for (const TraceSlice &slice : remote.slices)
      byId[slice.id] = {&slice, remote.pid};
  uint64_t flowId = 0;
  auto appendFlow = [&](uint64_t from, uint64_t to) {
    auto source = byId.find(from);
    auto target = byId.find(to);
    if (source == byId.end() || target == byId.end())
      return;
    const TraceSlice &a = *source->second.first;
    const TraceSlice &b = *target->second.first;
    ++flowId;
    begin();
    out += "{\"name\":\"semaphore\",\"cat\":\"wait\",\"ph\":\"s\",\"id\":" +
           std::to_string(flowId) +
           ",\"pid\":" + std::to_string(source->second.second) +
           ",\"tid\":" + std::to_string(a.track + 1) + ",\"ts\":" +
           relative(a.startNanoseconds +
                    (a.endNanoseconds - a.startNanoseconds) / 2) +
           "}";
    begin();
    out += "{\"name\":\"semaphore\",\"cat\":\"wait\",\"ph\":\"f\",\"bp\":"
           "\"e\",\"id\":" +
           std::to_string(flowId) +
           ",\"pid\":" + std::to_string(target->second.second) +
           ",\"tid\":" + std::to_string(b.track + 1) + ",\"ts\":" +
           relative(b.startNanoseconds) + "}";
  };
  for (const auto &[from, to] : flows_)
    appendFlow(from, to);
  for (const RemoteTrace &remote : remotes_)
    for (const auto &[from, to] : remote.flows)
      appendFlow(from, to);
  out += "\n]}\n";
  return out;
}

Status Tracer::writeChromeJson(const std::string &path) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file)
    return makeStatus(StatusCode::PermissionDenied, "trace: cannot open '",
                      path, "' for writing");
  file << toChromeJson();
  file.close();
  if (!file)
    return makeStatus(StatusCode::DataLoss, "trace: writing '", path,
                      "' failed");
  return Status();
}

void setStatisticsTiming(bool enabled) {
  statisticsTiming.store(enabled, std::memory_order_relaxed);
}

bool timingEnabled() {
  return Tracer::active() != nullptr ||
         statisticsTiming.load(std::memory_order_relaxed);
}

HostStatistics hostStatistics() {
  HostStatistics statistics;
  statistics.waits = hostWaits.load(std::memory_order_relaxed);
  statistics.blockedWaits = hostBlockedWaits.load(std::memory_order_relaxed);
  statistics.waitNanoseconds =
      hostWaitNanoseconds.load(std::memory_order_relaxed);
  return statistics;
}

void resetHostStatistics() {
  hostWaits.store(0, std::memory_order_relaxed);
  hostBlockedWaits.store(0, std::memory_order_relaxed);
  hostWaitNanoseconds.store(0, std::memory_order_relaxed);
}

void noteHostWait(bool blocked, uint64_t nanoseconds) {
  hostWaits.fetch_add(1, std::memory_order_relaxed);
  if (blocked)
    hostBlockedWaits.fetch_add(1, std::memory_order_relaxed);
  if (nanoseconds)
    hostWaitNanoseconds.fetch_add(nanoseconds, std::memory_order_relaxed);
}

std::string formatStatistics(Span<Device *const> devices,
                             const DeviceGroup *group) {
  auto milliseconds = [](uint64_t ns) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.3f ms", double(ns) / 1e6);
    return std::string(buffer);
  };
  std::string out;
  for (Device *device : devices) {
    if (!device)
      continue;
    DeviceStatistics s = device->statistics();
    AllocatorStatistics a = device->allocator().statistics();
    out += concat("device '", device->name(), "' (", device->driverName(),
                  device->capabilities().discrete ? ", discrete" : "", ")\n",
                  "  queue ops executed:        ", s.queueOpsExecuted, " of ",
                  s.queueOpsSubmitted, " submitted (", s.queueOpsFailed,
                  " failed)\n", "  dispatches:                ", s.dispatches,
                  "\n", "  busy time:                 ",
                  milliseconds(s.busyNanoseconds), "\n",
                  "  bytes between devices:     ", s.bytesCrossDevice, "\n",
                  "  imports:                   ", s.imports, "\n",
                  "  allocations:               ", a.allocations,
                  " (peak ", a.bytesPeak, " bytes live)\n");
  }
  HostStatistics host = hostStatistics();
  out += concat("host\n", "  waits:                     ", host.waits, " (",
                host.blockedWaits, " blocked, ",
                milliseconds(host.waitNanoseconds), ")\n");
  if (group)
    out += concat("topology\n", "  link queries:              ",
                  group->linkQueryCount(), "\n");
  return out;
}

} // namespace fleet::runtime::hal
