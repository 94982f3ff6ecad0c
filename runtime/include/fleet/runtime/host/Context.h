//===- Context.h - the host-program executor ----------------------*- C++ -*-===//
//
// A Context runs host programs (docs/pipeline.md §3–§5) on a fixed list of
// runtime devices. Nothing here uses MLIR or LLVM. Loading a module
//   1. verifies the flat artifact (ArtifactFormat.h, runtime/schema/
//      artifact.fbs: header and checksum, the FlatBuffers verifier, then
//      every index, slot layout and register type against the op table
//      OpTable.def) and turns its op records into the executor's form: an
//      array of records, each a handler function pointer plus operand/result
//      slot indices into a flat register file, so calls do no hashing or
//      string work; a damaged or mismatched artifact is an error naming
//      the file and the problem, never a crash;
//   2. resolves external declarations (`util.func private @module_a.abs`)
//      against the exports of modules loaded earlier (issue 10 part 6);
//   3. binds device globals (docs/design.md §5: `#hal.device.target<"local",
//      {ordinal = N}>` is the N-th device whose driver serves "local");
//   4. loads each `hal.executable`'s kernel library with the dlopen loader,
//      once per executable and executable format (devices of one format share
//      the loaded code: it is plain host code on local devices);
//   5. runs the module's util.initializers in order.
// A module that references no device global needs no device at all.
//
// Ownership: create() returns the context; the context owns its modules and
// retains its devices and their DeviceGroup. Values returned by invoke()
// hold their own references and may outlive the context.
// Thread safety: loading must not race with anything. invoke() may be called
// from several threads at once (each call has its own registers); stores to
// mutable globals are not synchronized, as in IREE's VM.
// Failure behaviour: every error is a Status naming the module, function, op
// and location; a failing device op, kernel or `util.status.check_ok`
// ends the call with a status that also carries the call stack. A failed
// load leaves no partly loaded module behind (other modules stay usable).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HOST_CONTEXT_H
#define FLEET_RUNTIME_HOST_CONTEXT_H

#include "fleet/runtime/hal/DeviceGroup.h"
#include "fleet/runtime/host/Value.h"

#include <memory>
#include <string>
#include <vector>

namespace fleet::runtime::hal {
class ExecutableLoader;
} // namespace fleet::runtime::hal

namespace fleet::runtime::host {

class Module;
class ModuleLoader;
struct FunctionCode;

/// `hal.abi.convention` of an export (docs/design.md §4).
enum class Convention : uint8_t {
  Synchronous,
  /// The last two arguments are a wait and a signal fence.
  CoarseFences,
};

/// What a buffer-view argument or result is expected to hold, recovered from
/// the host program (`hal.buffer_view.assert` on arguments,
/// `hal.buffer_view.create` for results). `known` is false when the program
/// does not say; a dimension of -1 is dynamic; elementType 0 is unknown.
struct TensorDescription {
  bool known = false;
  std::vector<int64_t> shape;
  hal::ElementType elementType = 0;

  /// "4x?xf32", or "?" when unknown.
  std::string toString() const;
};

struct FunctionSignature {
  std::vector<ValueType> arguments;
  std::vector<ValueType> results;
  /// Per argument/result; meaningful for buffer views only.
  std::vector<TensorDescription> argumentTensors;
  std::vector<TensorDescription> resultTensors;
  Convention convention = Convention::Synchronous;

  /// Arguments the caller supplies as inputs: all but the two trailing
  /// fences of a coarse-fences function.
  size_t inputCount() const;
  /// "@abs(4xf32, i32) -> (4xf32)"; fences of coarse-fences functions are
  /// shown as "wait fence", "signal fence".
  std::string toString(const std::string &name) const;
};

/// A compiled util.func of a loaded module. Owned by its Module.
class Function {
public:
  /// The symbol ("abs").
  const std::string &name() const { return name_; }
  /// "module_a.abs" for a named module, else the symbol.
  const std::string &qualifiedName() const { return qualifiedName_; }
  const FunctionSignature &signature() const { return signature_; }
  const Module &module() const { return *module_; }
  bool isExported() const { return exported_; }

private:
  friend class Module;
  friend class ModuleLoader;
  friend class Context;
  std::string name_;
  std::string qualifiedName_;
  FunctionSignature signature_;
  const Module *module_ = nullptr;
  bool exported_ = false;
  const FunctionCode *code_ = nullptr;
};

struct ModuleLoadStatistics {
  /// Reading and verifying the artifact.
  uint64_t readNanoseconds = 0;
  /// Turning the artifact's records into the executor's form.
  uint64_t compileNanoseconds = 0;
  /// Loading kernel objects (sum over executables).
  uint64_t executableLoadNanoseconds = 0;
  uint64_t executablesLoaded = 0;
  /// Running util.initializers.
  uint64_t initializerNanoseconds = 0;
  uint64_t totalNanoseconds = 0;
  /// Host functions compiled and the op records they hold.
  uint64_t functionsCompiled = 0;
  uint64_t opRecords = 0;
};

/// A loaded module. Owned by its Context.
class Module {
public:
  ~Module();
  /// `fleet.module_name`, or empty for an unnamed module.
  const std::string &name() const { return name_; }
  /// The file or buffer it came from.
  const std::string &source() const { return source_; }
  /// Public functions with bodies, in module order.
  const std::vector<const Function *> &exports() const { return exports_; }
  const Function *lookupExport(std::string_view name) const;
  const ModuleLoadStatistics &loadStatistics() const { return statistics_; }

private:
  friend class ModuleLoader;
  friend class Context;
  Module();
  struct State;
  std::string name_;
  std::string source_;
  std::vector<const Function *> exports_;
  ModuleLoadStatistics statistics_;
  std::unique_ptr<State> state_;
};

class Context {
public:
  /// `devices` in `--device` order (docs/design.md §5 binding); may be empty.
  /// Forms their DeviceGroup (the runtime topology) when there are any.
  static hal::StatusOr<std::unique_ptr<Context>>
  create(std::vector<hal::Ref<hal::Device>> devices);
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  hal::Span<hal::Device *const> devices() const { return devicePointers_; }
  hal::DeviceGroup *group() const { return group_.get(); }

  /// Blocks until every queue op submitted to the context's devices so far
  /// has retired (a function may return while its trailing deallocas still
  /// run). Bounded by the host wait limit (10 s when none is set); returns
  /// the first device's timeout status, never a queue op's failure.
  hal::Status waitIdle();

  /// Reads a .fleet artifact ('-': stdin) and loads it.
  hal::StatusOr<Module *> loadArtifactFile(const std::string &path);
  /// Loads an artifact held in memory (only read during the call); `name`
  /// names the buffer in messages ("<stdin>").
  hal::StatusOr<Module *> loadArtifact(hal::Span<const uint8_t> bytes,
                                       const std::string &name);

  const std::vector<std::unique_ptr<Module>> &modules() const {
    return modules_;
  }
  /// "fn" is looked up in the module loaded last; "module_a.fn" in the
  /// module named module_a.
  const Function *lookupFunction(std::string_view name) const;

  /// Calls `function` with `arguments` (types must match its signature
  /// exactly, fences included) and appends its results to `results`.
  hal::Status invoke(const Function &function, hal::Span<const Value> arguments,
                     std::vector<Value> &results);

  /// Bounds every `hal.fence.await` of the host program (0, the default,
  /// keeps the program's own timeouts). A program that waits on a fence
  /// nothing will signal then ends with DEADLINE_EXCEEDED instead of
  /// waiting forever (tests, fuzzing; fleet-run --host_wait_timeout_ms).
  void setHostWaitLimit(uint64_t milliseconds) {
    hostWaitLimitMilliseconds_ = milliseconds;
  }
  uint64_t hostWaitLimit() const { return hostWaitLimitMilliseconds_; }

  /// The kernel-library loader, created on first use.
  hal::StatusOr<hal::ExecutableLoader *> executableLoader();

private:
  friend class ModuleLoader;
  Context() = default;

  std::vector<hal::Ref<hal::Device>> devices_;
  std::vector<hal::Device *> devicePointers_;
  hal::Ref<hal::DeviceGroup> group_;
  std::unique_ptr<hal::ExecutableLoader> loader_;
  std::vector<std::unique_ptr<Module>> modules_;
  uint64_t hostWaitLimitMilliseconds_ = 0;
};

/// One line per module: load time split into read / compile / executables /
/// initializers (the `--print_statistics` executor section).
std::string formatLoadStatistics(const Context &context);

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_HOST_CONTEXT_H
