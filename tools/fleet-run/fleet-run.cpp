//===- fleet-run.cpp - runs a function of .fleet artifacts ----------------===//
//
//   fleet-run --module=a.fleet [--module=b.fleet ...] --device=local-task ...
//             --function=f --input=4xf32=1,2,3,4 | --input=@x.npy
//             [--expected_output=...] [--output=@y.npy] [--trace=t.json]
//             [--print_statistics]
//
// Output follows iree-run-module: `EXEC @f`, then per result
// `result[i]: hal.buffer_view` and its contents (`4xf32=1 2 3 4`). With
// --expected_output it prints `[SUCCESS]` or `[FAILED]` and the first
// mismatch. Every error (bad flags, inputs, modules, device failures) is a
// message on stderr and exit code 1; nothing waits forever on a failed
// device, because failures reach every fence that depends on them
// (docs/design.md §4). docs/fleet-run.md is the user documentation.
//
// Flags are parsed with CLI11 (header-only); `@file` arguments are expanded
// first (whitespace-separated arguments, '#' comments, quotes). fleet-run
// uses no LLVM or MLIR: it builds with the runtime alone (cmake -S runtime).
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/hal/Driver.h"
#ifdef FLEET_HAVE_MPI
#include "drivers/mpi/MpiDevice.h"
#endif
#include "fleet/runtime/hal/Trace.h"
#include "fleet/runtime/host/Context.h"
#include "fleet/runtime/tooling/Tensor.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <map>

using namespace fleet::runtime;

// Flags (iree-run-module's names; docs/fleet-run.md).
static std::vector<std::string> modules;
static std::string functionName;
static std::vector<std::string> deviceUris;
static unsigned taskTopologyGroupCount = 0;
static bool serve = false;
static std::vector<std::string> inputs;
static std::vector<std::string> expectedOutputs;
static double expectedF32Threshold = 1e-4;
static double expectedF64Threshold = 1e-4;
static std::vector<std::string> outputs;
static std::string traceFile;
static std::string profileFile;
static unsigned hostWaitTimeoutMs = 0;
static bool printStatistics = false;
static unsigned warmupRuns = 0;
static unsigned timedRuns = 0;
static unsigned printMaxElementCount = 1024;

namespace {

int fail(const std::string &message) {
  std::cout.flush();
  std::cerr << "fleet-run: error: " << message << "\n";
  return 1;
}

/// Set when writing the trace fails or queue ops fail after the function
/// returned: fleet-run then exits 1 even though the call succeeded.
bool reportingFailed = false;

/// --profile_out: per dispatch description (the export name after
/// `_dispatch_<N>_`, which recompiling the same source keeps; fleet-compile
/// --profile reads it, docs/partitioning.md), the median device time of
/// every traced execution of it, in microseconds.
hal::Status writeDispatchProfile(const hal::Tracer &tracer,
                                 const std::string &path) {
  std::map<std::string, std::vector<double>> times;
  for (const hal::TraceSlice &slice : tracer.slices()) {
    if (slice.failed)
      continue;
    // The first `_dispatch_<digits>_` (a function may be named
    // `my_dispatch_fn`).
    size_t key = std::string::npos;
    for (size_t at = slice.name.find("_dispatch_");
         at != std::string::npos && key == std::string::npos;
         at = slice.name.find("_dispatch_", at + 1)) {
      size_t digits = at + std::strlen("_dispatch_");
      size_t end = slice.name.find_first_not_of("0123456789", digits);
      if (end != digits && end != std::string::npos && slice.name[end] == '_')
        key = end;
    }
    if (key == std::string::npos)
      continue;
    times[slice.name.substr(key + 1)].push_back(
        (slice.endNanoseconds - slice.startNanoseconds) / 1e3);
  }
  std::string out = "{\"dispatches\": {";
  bool first = true;
  for (auto &[key, samples] : times) {
    std::sort(samples.begin(), samples.end());
    char line[128];
    std::snprintf(line, sizeof(line),
                  "\": {\"median_us\": %.3f, \"count\": %zu}",
                  samples[samples.size() / 2], samples.size());
    out += (first ? "\n  \"" : ",\n  \"") + key + line;
    first = false;
  }
  out += "\n}}\n";
  FILE *file = std::fopen(path.c_str(), "w");
  bool written = file && std::fputs(out.c_str(), file) >= 0;
  if (file && std::fclose(file) != 0)
    written = false;
  if (!written)
    return hal::makeStatus(hal::StatusCode::Unavailable, "--profile_out '",
                           path, "': ", std::strerror(errno));
  return {};
}

/// Trace and statistics are written on every exit path once the run began.
struct Reporting {
  hal::Tracer tracer;
  host::Context *context = nullptr;
  /// The run already reported its failure (queue-op failures included).
  bool runFailed = false;

  Reporting() {
    if (!traceFile.empty() || !profileFile.empty())
      tracer.install();
    if (printStatistics)
      hal::setStatisticsTiming(true);
  }
  ~Reporting() {
    // Trailing queue ops (deallocas the host program never waits on) belong
    // in the trace and the statistics too.
    if (context) {
      if (hal::Status idle = context->waitIdle(); !idle.ok()) {
        reportingFailed = true;
        fail(idle.toString());
      }
      // A failure the program never waited for (e.g. a trailing dealloca)
      // still fails the run.
      for (hal::Device *device : context->devices())
        if (uint64_t failed = device->statistics().queueOpsFailed;
            failed && !runFailed) {
          reportingFailed = true;
          fail(std::to_string(failed) + " queue op(s) on device '" +
               std::string(device->name()) +
               "' failed (see --trace or --print_statistics)");
        }
    }
    if (!traceFile.empty()) {
      tracer.uninstall();
#ifdef FLEET_HAVE_MPI
      // The device servers' slices, a process per rank.
      if (hal::Status status = mpi::collectRemoteTraces(tracer);
          !status.ok()) {
        reportingFailed = true;
        fail(status.toString());
      }
#endif
      hal::Status status = tracer.writeChromeJson(traceFile);
      if (!status.ok()) {
        reportingFailed = true;
        fail(status.toString());
      }
    }
    if (!profileFile.empty()) {
      tracer.uninstall();
      if (hal::Status status = writeDispatchProfile(tracer, profileFile);
          !status.ok()) {
        reportingFailed = true;
        fail(status.toString());
      }
    }
    if (printStatistics && context) {
      std::cout.flush();
      std::cerr << hal::formatStatistics(context->devices(), context->group())
                << host::formatLoadStatistics(*context);
    }
  }
};

hal::StatusOr<std::vector<hal::Ref<hal::Device>>> createDevices() {
  std::vector<hal::Ref<hal::Device>> devices;
  for (const std::string &uri : deviceUris) {
    auto spec = hal::parseDeviceUri(uri);
    if (!spec.ok())
      return spec.status();
    if (taskTopologyGroupCount && spec->driver == "local-task" &&
        uri.find("task_topology_group_count") == std::string::npos)
      spec->options.workerCount = taskTopologyGroupCount;
    // The flag reaches a remote local-task device through its URI.
    if (taskTopologyGroupCount && spec->driver == "mpi" &&
        spec->remoteUri.rfind("local-task", 0) == 0 &&
        uri.find("task_topology_group_count") == std::string::npos) {
      spec->remoteUri +=
          (spec->remoteUri.find('?') == std::string::npos ? "?" : "&") +
          std::string("task_topology_group_count=") +
          std::to_string(taskTopologyGroupCount);
      spec->options.workerCount = taskTopologyGroupCount;
    }
    auto device = hal::createDevice(*spec);
    if (!device.ok())
      return device.status();
    devices.push_back(std::move(*device));
  }
  return devices;
}

std::string exportList(const host::Context &context) {
  std::string text;
  for (const auto &module : context.modules())
    for (const host::Function *function : module->exports())
      text += (text.empty() ? "@" : ", @") + function->qualifiedName();
  return text.empty() ? std::string("none") : text;
}

/// A scalar host value from text such as "i32=5", "5", "index=3".
hal::StatusOr<host::Value> parseScalar(const std::string &text,
                                       host::ValueType type) {
  std::string spelled = text;
  if (spelled.find('=') == std::string::npos)
    spelled = std::string(host::typeName(type)) + "=" + spelled;
  if (spelled.rfind("index=", 0) == 0)
    spelled = "i64=" + spelled.substr(6);
  auto tensor = tooling::parseTensor(spelled);
  if (!tensor.ok())
    return tensor.status();
  if (!tensor->shape.empty())
    return hal::makeStatus(hal::StatusCode::InvalidArgument, "'", text,
                           "' is a tensor, but the argument is a scalar ",
                           host::typeName(type));
  hal::ElementType et = tensor->elementType;
  bool isFloat = host::isFloatType(type) || host::isHalfFloatType(type);
  bool tensorFloat =
      hal::element_type::kind(et) == hal::element_type::kKindIeeeFloat ||
      hal::element_type::kind(et) == hal::element_type::kKindBFloat;
  unsigned bits = type == host::ValueType::I1 ? 8 : host::bitWidth(type);
  bool bfloatMismatch = (type == host::ValueType::BF16) !=
                        (et == hal::element_type::kBF16);
  if (isFloat != tensorFloat || hal::element_type::bitCount(et) != bits ||
      bfloatMismatch)
    return hal::makeStatus(hal::StatusCode::InvalidArgument, "'", text,
                           "' is ", tensor->typeString(),
                           ", but the argument is ", host::typeName(type));
  uint64_t raw = 0;
  std::memcpy(&raw, tensor->bytes.data(), tensor->bytes.size());
  return host::Value::fromBits(type, raw & (bits >= 64 ? ~uint64_t(0)
                                                       : (uint64_t(1) << bits) - 1));
}

/// Checks a parsed input against what the function expects.
std::optional<std::string> mismatch(const tooling::HostTensor &tensor,
                                    const host::TensorDescription &expected) {
  if (!expected.known)
    return std::nullopt;
  bool ok = tensor.shape.size() == expected.shape.size() &&
            (expected.elementType == 0 ||
             tensor.elementType == expected.elementType);
  for (size_t i = 0; ok && i < tensor.shape.size(); ++i)
    ok = expected.shape[i] < 0 || expected.shape[i] == tensor.shape[i];
  if (ok)
    return std::nullopt;
  return tensor.typeString() + " where " + expected.toString() +
         " is expected";
}

hal::StatusOr<std::vector<host::Value>>
buildArguments(host::Context &context, const host::Function &function) {
  const host::FunctionSignature &signature = function.signature();
  std::string expected =
      "expected signature: " + signature.toString(function.qualifiedName());
  size_t inputCount = signature.inputCount();
  if (inputs.size() != inputCount)
    return hal::makeStatus(hal::StatusCode::InvalidArgument, "@",
                           function.qualifiedName(), " takes ", inputCount,
                           " input(s) but ", inputs.size(),
                           " --input flag(s) were given\n  ", expected);
  std::vector<host::Value> arguments;
  for (size_t i = 0; i < inputCount; ++i) {
    host::ValueType type = signature.arguments[i];
    auto bad = [&](const std::string &why) {
      return hal::makeStatus(hal::StatusCode::InvalidArgument, "input ", i,
                             " ('", inputs[i], "'): ", why, "\n  ", expected);
    };
    if (type == host::ValueType::BufferView) {
      auto tensor = tooling::parseTensor(inputs[i]);
      if (!tensor.ok())
        return bad(tensor.status().message());
      // numpy has no bfloat16: a bf16 argument also takes a '<u2' .npy
      // (raw bits; '|V2' already reads as bf16).
      if (signature.argumentTensors[i].elementType == hal::element_type::kBF16 &&
          tensor->elementType == hal::element_type::make(
                                     hal::element_type::kKindUnsignedInt, 16) &&
          !inputs[i].empty() && inputs[i][0] == '@')
        tensor->elementType = hal::element_type::kBF16;
      if (auto problem = mismatch(*tensor, signature.argumentTensors[i]))
        return bad(*problem);
      if (context.devices().empty())
        return bad("a buffer-view input needs a device (--device)");
      auto view = tooling::uploadTensor(*context.devices()[0], *tensor);
      if (!view.ok())
        return bad(view.status().toString());
      arguments.push_back(host::Value::bufferView(std::move(*view)));
    } else if (!host::isReferenceType(type) &&
               type != host::ValueType::Pointer) {
      auto value = parseScalar(inputs[i], type);
      if (!value.ok())
        return bad(value.status().message());
      arguments.push_back(std::move(*value));
    } else {
      return bad(std::string("the argument is ") + host::typeName(type) +
                 ", which fleet-run cannot make from text");
    }
  }
  return arguments;
}

/// A result as a host tensor (scalars become rank-0 tensors).
hal::Timeout hostWait() {
  return hostWaitTimeoutMs ? hal::Timeout::milliseconds(hostWaitTimeoutMs)
                           : hal::Timeout::infinite();
}

/// The element type a scalar of `type` prints and saves as.
hal::ElementType scalarElementType(host::ValueType type) {
  namespace et = hal::element_type;
  switch (type) {
  case host::ValueType::F32:
    return et::kF32;
  case host::ValueType::F64:
    return et::kF64;
  case host::ValueType::F16:
    return et::kF16;
  case host::ValueType::BF16:
    return et::kBF16;
  case host::ValueType::I1:
    return et::kI1;
  default:
    return et::make(et::kKindSignlessInt, host::bitWidth(type));
  }
}

/// Fails, before anything runs, when an --output file cannot hold result
/// `i` (a reference other than a buffer view, or a type without a numpy
/// dtype).
std::optional<std::string> checkOutputTargets(const host::Function &function) {
  const host::FunctionSignature &signature = function.signature();
  for (size_t i = 0; i < outputs.size() && i < signature.results.size(); ++i) {
    const std::string &target = outputs[i];
    if (target.empty() || (target[0] != '@' && target[0] != '+'))
      continue;
    host::ValueType type = signature.results[i];
    hal::ElementType element = 0;
    if (type == host::ValueType::BufferView) {
      if (!signature.resultTensors[i].known)
        continue; // Checked when the result is written.
      element = signature.resultTensors[i].elementType;
    } else if (host::isReferenceType(type) || type == host::ValueType::Pointer) {
      return "--output '" + target + "': result " + std::to_string(i) +
             " is " + host::typeName(type) + ", which has no contents";
    } else {
      element = scalarElementType(type);
    }
    if (!tooling::hasNpyDtype(element))
      return "--output '" + target + "': result " + std::to_string(i) +
             " has element type " + hal::elementTypeName(element) +
             ", which has no .npy dtype (print it with --output=-)";
  }
  return std::nullopt;
}

hal::StatusOr<tooling::HostTensor> resultTensor(const host::Value &value) {
  if (hal::BufferView *view = value.asBufferView())
    return tooling::downloadTensor(*view, hostWait());
  if (value.isReference())
    return hal::makeStatus(hal::StatusCode::InvalidArgument, "a ",
                           host::typeName(value.type()),
                           " result has no contents");
  tooling::HostTensor tensor;
  tensor.elementType = scalarElementType(value.type());
  unsigned bits = hal::element_type::bitCount(tensor.elementType);
  uint64_t raw = value.bits();
  tensor.bytes.resize(bits / 8);
  std::memcpy(tensor.bytes.data(), &raw, tensor.bytes.size());
  return tensor;
}

/// Writes result `i` to the .npy file `target` names (@file.npy writes,
/// +file.npy appends); 0 or fail()'s exit code.
int writeOutputFile(const host::Value &value, size_t i,
                    const std::string &target) {
  auto tensor = resultTensor(value);
  if (!tensor.ok())
    return fail("result[" + std::to_string(i) +
                "]: " + tensor.status().toString());
  hal::Status status = tooling::writeNpyFile(target.substr(1), *tensor,
                                             target[0] == '+');
  if (!status.ok())
    return fail("--output '" + target + "': " + status.toString());
  return 0;
}

/// With --expected_output, the --output flags that name files
/// (@file.npy, +file.npy) are still written, the actual results (also when
/// they do not match: what a failing run produced).
int writeOutputFiles(const std::vector<host::Value> &results) {
  if (outputs.size() > results.size())
    return fail(std::to_string(outputs.size()) + " --output flag(s) for " +
                std::to_string(results.size()) + " result(s)");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string &target = outputs[i];
    if (target.empty() || (target[0] != '@' && target[0] != '+'))
      continue;
    if (int code = writeOutputFile(results[i], i, target))
      return code;
  }
  return 0;
}

int printResults(const host::Function &function,
                 const std::vector<host::Value> &results) {
  std::cout << "EXEC @" << function.name() << "\n";
  if (!expectedOutputs.empty()) {
    if (int code = writeOutputFiles(results))
      return code;
    if (expectedOutputs.size() != results.size())
      return fail("@" + function.qualifiedName() + " returned " +
                  std::to_string(results.size()) + " result(s) but " +
                  std::to_string(expectedOutputs.size()) +
                  " --expected_output flag(s) were given");
    for (size_t i = 0; i < results.size(); ++i) {
      auto actual = resultTensor(results[i]);
      if (!actual.ok())
        return fail("result[" + std::to_string(i) + "]: " +
                    actual.status().toString());
      std::string text = expectedOutputs[i];
      if (!results[i].isReference() && text.find('=') == std::string::npos &&
          text[0] != '@')
        text = actual->typeString() + "=" + text;
      auto expected = tooling::parseTensor(text);
      if (!expected.ok())
        return fail("--expected_output " + std::to_string(i) + ": " +
                    expected.status().message());
      double tolerance =
          expected->elementType == hal::element_type::kF64
              ? expectedF64Threshold
              : expectedF32Threshold;
      if (auto problem = tooling::compareTensors(*actual, *expected,
                                                 tolerance)) {
        std::cout << "[FAILED] result[" << i << "]: " << *problem << "\n"
                     << "  expected:\n"
                     << tooling::formatTensor(*expected, printMaxElementCount)
                     << "\n  actual:\n"
                     << tooling::formatTensor(*actual, printMaxElementCount)
                     << "\n";
        std::cout.flush();
        return 1;
      }
    }
    std::cout << "[SUCCESS] all function outputs matched their expected "
                    "values.\n";
    return 0;
  }
  if (outputs.size() > results.size())
    return fail(std::to_string(outputs.size()) + " --output flag(s) for " +
                std::to_string(results.size()) + " result(s)");
  for (size_t i = 0; i < results.size(); ++i) {
    const host::Value &value = results[i];
    std::string target = i < outputs.size() ? outputs[i] : "-";
    if (value.isReference() && !value.asBufferView()) {
      std::cout << "result[" << i << "]: " << value.toString() << "\n";
      continue;
    }
    if (value.asBufferView())
      std::cout << "result[" << i << "]: hal.buffer_view\n";
    if (target == "-" || target.empty()) {
      if (value.asBufferView()) {
        auto tensor = resultTensor(value);
        if (!tensor.ok())
          return fail("result[" + std::to_string(i) +
                      "]: " + tensor.status().toString());
        std::cout << tooling::formatTensor(*tensor, printMaxElementCount)
                     << "\n";
      } else {
        std::cout << "result[" << i << "]: " << value.toString() << "\n";
      }
      continue;
    }
    if (target[0] != '@' && target[0] != '+')
      return fail("--output '" + target +
                  "': expected @file.npy, +file.npy or -");
    if (int code = writeOutputFile(value, i, target))
      return code;
    if (!value.asBufferView())
      std::cout << "result[" << i << "]: " << typeName(value.type())
                   << "\n";
    std::cout << "(written to " << target.substr(1) << ")\n";
  }
  return 0;
}

int run() {
  if (modules.empty())
    return fail("no --module given (a .fleet artifact from fleet-compile)");
  if (!traceFile.empty()) {
    // Find out now, not after the run, that the trace cannot be written.
    FILE *probe = std::fopen(traceFile.c_str(), "w");
    if (!probe)
      return fail("--trace '" + traceFile + "': " + std::strerror(errno));
    std::fclose(probe);
  }
  auto devices = createDevices();
  if (!devices.ok())
    return fail(devices.status().toString());
  auto context = host::Context::create(std::move(*devices));
  if (!context.ok())
    return fail(context.status().toString());
  Reporting reporting;
  reporting.context = context->get();
  (*context)->setHostWaitLimit(hostWaitTimeoutMs);
  for (const std::string &path : modules) {
    auto module = (*context)->loadArtifactFile(path);
    if (!module.ok())
      return fail(module.status().message());
  }
  if (functionName.empty())
    return fail("no --function given; the modules export " +
                exportList(**context));
  const host::Function *function = (*context)->lookupFunction(functionName);
  if (!function)
    return fail("no exported function @" + functionName +
                "; the modules export " + exportList(**context));

  auto arguments = buildArguments(**context, *function);
  if (!arguments.ok())
    return fail(arguments.status().message());
  if (auto problem = checkOutputTargets(*function))
    return fail(*problem);

  // Coarse-fences exports (docs/design.md §4) get a signalled wait fence and a
  // fresh signal fence that fleet-run waits on before reading results.
  hal::Ref<hal::Fence> signalFence;
  if (function->signature().convention == host::Convention::CoarseFences) {
    hal::Ref<hal::Semaphore> waitSemaphore = hal::Semaphore::create(1);
    arguments->push_back(host::Value::fence(
        hal::Fence::createAt(*waitSemaphore, 1)));
    hal::Ref<hal::Semaphore> signalSemaphore = hal::Semaphore::create(0);
    signalFence = hal::Fence::createAt(*signalSemaphore, 1);
    arguments->push_back(host::Value::fence(signalFence));
  }

  // Warm-up calls (untraced): allocator free lists and page tables are warm
  // when the measured call starts, as in a steady-state run. Then the timed
  // calls (--timed_runs), each from invoke until every device is idle.
  hal::Status status;
  bool untraced =
      warmupRuns + timedRuns > 0 && !traceFile.empty() && profileFile.empty();
  if (untraced)
    reporting.tracer.uninstall();
  std::vector<double> callMilliseconds;
  for (unsigned i = 0; i < warmupRuns + timedRuns && status.ok(); ++i) {
    std::vector<host::Value> dropped;
    std::vector<host::Value> warmupArguments = *arguments;
    uint64_t start = hal::monotonicNanoseconds();
    if (signalFence) {
      hal::Ref<hal::Semaphore> semaphore = hal::Semaphore::create(0);
      warmupArguments.back() =
          host::Value::fence(hal::Fence::createAt(*semaphore, 1));
      status = (*context)->invoke(*function, warmupArguments, dropped);
      if (status.ok())
        status = warmupArguments.back().asFence()->wait(hostWait());
    } else {
      status = (*context)->invoke(*function, warmupArguments, dropped);
    }
    if (status.ok())
      status = (*context)->waitIdle();
    callMilliseconds.push_back((hal::monotonicNanoseconds() - start) / 1e6);
    if (!status.ok())
      status = status.withContext(
          (i < warmupRuns ? "warm-up call " : "timed call ") +
          std::to_string(i < warmupRuns ? i + 1 : i - warmupRuns + 1));
  }
  if (status.ok() && timedRuns) {
    std::vector<double> timed(callMilliseconds.begin() + warmupRuns,
                              callMilliseconds.end());
    std::sort(timed.begin(), timed.end());
    std::fprintf(stderr,
                 "fleet-run: call times (invoke until idle): first %.3f ms; "
                 "%u timed calls: median %.3f ms, min %.3f ms\n",
                 callMilliseconds.front(), timedRuns,
                 timed[timed.size() / 2], timed.front());
  }
  if (untraced)
    reporting.tracer.install();
#ifdef FLEET_HAVE_MPI
  // Device servers record from the traced call on.
  if (!traceFile.empty())
    if (hal::Status started = mpi::startRemoteTracing(); !started.ok())
      return fail(started.toString());
#endif

  std::vector<host::Value> results;
  if (status.ok())
    status = (*context)->invoke(*function, *arguments, results);
  if (status.ok() && signalFence)
    status = signalFence->wait(hostWait())
                 .withContext("@" + function->qualifiedName() +
                              ": its signal fence failed");
  if (!status.ok()) {
    reporting.runFailed = true;
    std::cout << "EXEC @" << function->name() << "\n";
    std::cout.flush();
    return fail(status.toString());
  }
  int code = printResults(*function, results);
  reporting.runFailed = code != 0;
  std::cout.flush();
  return code;
}

/// Splits a response file into arguments: whitespace separates, '#' starts
/// a comment line, single or double quotes group.
bool readResponseFile(const std::string &path, std::vector<std::string> &out) {
  std::ifstream file(path);
  if (!file)
    return false;
  std::string line;
  while (std::getline(file, line)) {
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#')
      continue;
    std::string current;
    bool any = false;
    char quote = 0;
    for (char c : line.substr(start)) {
      if (quote) {
        if (c == quote)
          quote = 0;
        else
          current += c;
      } else if (c == '"' || c == '\'') {
        quote = c;
        any = true;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        if (any || !current.empty())
          out.push_back(current);
        current.clear();
        any = false;
      } else {
        current += c;
      }
    }
    if (any || !current.empty())
      out.push_back(current);
  }
  return true;
}

/// argv with every `@file` replaced by the file's arguments (nested files
/// too, up to a depth of 16). Returns false after reporting a missing file.
bool expandResponseFiles(int argc, char **argv, std::vector<std::string> &out,
                         int depth = 0) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string &arg : args) {
    if (arg.size() < 2 || arg[0] != '@') {
      out.push_back(arg);
      continue;
    }
    std::vector<std::string> nested;
    if (depth > 16 || !readResponseFile(arg.substr(1), nested)) {
      fail("response file '" + arg.substr(1) + "' not found");
      return false;
    }
    std::vector<char *> pointers = {argv[0]};
    for (std::string &n : nested)
      pointers.push_back(n.data());
    if (!expandResponseFiles(int(pointers.size()), pointers.data(), out,
                             depth + 1))
      return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args;
  if (!expandResponseFiles(argc, argv, args))
    return 1;
  CLI::App app("Fleet runner: runs a function of .fleet artifacts on runtime "
               "devices",
               "fleet-run");
  app.option_defaults()->always_capture_default();
  auto repeated = [&](const char *name, std::vector<std::string> &values,
                      const char *description) {
    app.add_option(name, values, description)
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
  };
  repeated("--module", modules,
           "A .fleet artifact to load (repeatable, loaded in order; '-' reads "
           "stdin)");
  app.add_option("--function", functionName,
                 "The function to run: NAME (in the module loaded last) or "
                 "MODULE.NAME");
  repeated("--device", deviceUris,
           "A device: local-sync | local-task | vulkan[://N][?params] "
           "(repeatable; ordinal N of a backend is the N-th one serving it)");
  app.add_option("--task_topology_group_count", taskTopologyGroupCount,
                 "Worker threads of each local-task device whose URI does not "
                 "say (default 1)");
  repeated("--input", inputs,
           "An input: 4xf32=1,2,3,4 | 2x2xf32=[1 2][3 4] | 4096xf32=-2.0 "
           "(fills) | i32=5 | @file.npy");
  repeated("--expected_output", expectedOutputs,
           "The expected value of each result (same syntax as --input)");
  app.add_option("--expected_f32_threshold", expectedF32Threshold,
                 "Absolute tolerance of f32 (and f16/bf16) comparisons");
  app.add_option("--expected_f64_threshold", expectedF64Threshold,
                 "Absolute tolerance of f64 comparisons");
  repeated("--output", outputs,
           "Where result i goes: @file.npy (write), +file.npy (append), '-' "
           "(print, the default); files are written with --expected_output "
           "too");
  app.add_option("--trace", traceFile,
                 "Write a Chrome/Perfetto trace of the run (JSON)");
  app.add_option("--profile_out", profileFile,
                 "Write each dispatch's median device time over every call "
                 "(warm-up and timed calls included) as JSON, for "
                 "fleet-compile --profile (Fleet extension)");
  app.add_option("--host_wait_timeout_ms", hostWaitTimeoutMs,
                 "Bound every host wait (the program's hal.fence.await and "
                 "fleet-run's own) to this many milliseconds; 0 = no bound");
  app.add_flag("--print_statistics", printStatistics,
               "Print device, host-wait, topology and load statistics to "
               "stderr");
  app.add_option("--warmup_runs", warmupRuns,
                 "Call the function this many times before the measured call "
                 "and drop their results (Fleet extension): the trace holds "
                 "only the measured call, statistics count every call");
  app.add_option("--timed_runs", timedRuns,
                 "After the warm-up calls, call the function this many times "
                 "more, each timed from the call until every device is idle, "
                 "and print the first call's time and the median and minimum "
                 "of these to stderr (Fleet extension; untraced, results "
                 "dropped)");
  app.add_option("--print_max_element_count", printMaxElementCount,
                 "Elements printed per result before '...'");
  app.add_flag("--serve", serve,
               "Run as a device server for rank 0 under mpirun (mpi driver, "
               "docs/distributed.md); takes no other flag");
  // CLI11 parses the arguments in reverse order.
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp &) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ExtrasError &error) {
    std::string first = args.empty() ? "" : error.what();
    size_t quote = first.find(": ");
    return fail("Unknown command line argument '" +
                std::string(first.substr(quote == std::string::npos ? 0
                                                                    : quote + 2)) +
                "' (fleet-run --help lists the flags)");
  } catch (const CLI::ParseError &error) {
    return fail(error.what());
  }
#ifdef FLEET_HAVE_MPI
  if (serve)
    return mpi::runDeviceServer();
  hal::registerRemoteDriver(&mpi::createMpiDevice);
#else
  if (serve)
    return fail("--serve needs the mpi driver, which this fleet-run was "
                "built without (FLEET_ENABLE_MPI, docs/distributed.md)");
#endif
  int code = run();
#ifdef FLEET_HAVE_MPI
  mpi::shutdownMpi();
#endif
  // A device worker may still be tearing down the last device it held
  // (hal::Device::waitForThreadHolds): not while the process exits.
  (void)hal::Device::waitForThreadHolds(hal::Timeout::milliseconds(5000));
  return reportingFailed ? 1 : code;
}
