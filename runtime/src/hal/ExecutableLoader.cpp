//===- ExecutableLoader.cpp - kernel objects through LLVM ORC --------------===//

#include "fleet/runtime/hal/ExecutableLoader.h"

#include "fleet/runtime/hal/Trace.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <atomic>
#include <mutex>

namespace fleet::runtime::hal {

struct ExecutableLoader::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::mutex mutex; // serializes JITDylib creation/removal
  uint64_t nextId = 0;
  std::atomic<uint64_t> loaded{0};
  std::atomic<uint64_t> loadNanoseconds{0};
  uint64_t setupNanoseconds = 0;
};

namespace {

std::string toMessage(llvm::Error error) {
  return llvm::toString(std::move(error));
}

/// Link errors (unresolved symbols, bad relocations) reach ORC's session
/// error reporter, not the failing lookup. Materialization runs on the
/// thread that looks the symbol up (LLJIT without compile threads), so a
/// per-thread buffer ties them to the load that caused them.
thread_local std::string sessionErrors;

void reportSessionError(llvm::Error error) {
  if (!sessionErrors.empty())
    sessionErrors += "; ";
  sessionErrors += toMessage(std::move(error));
}

/// The lookup error plus what the session reported while it ran.
std::string withSessionErrors(llvm::Error error) {
  std::string message = toMessage(std::move(error));
  if (!sessionErrors.empty())
    message += " (" + sessionErrors + ")";
  sessionErrors.clear();
  return message;
}

/// Kept alive by the Executable; drops the executable's code when it dies.
struct LoadedCode {
  std::shared_ptr<ExecutableLoader::Impl> impl;
  llvm::orc::JITDylib *dylib = nullptr;

  ~LoadedCode() {
    if (!dylib)
      return;
    std::lock_guard<std::mutex> lock(impl->mutex);
    llvm::consumeError(
        impl->jit->getExecutionSession().removeJITDylib(*dylib));
  }
};

} // namespace

ExecutableLoader::ExecutableLoader(std::shared_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

ExecutableLoader::~ExecutableLoader() = default;

StatusOr<std::unique_ptr<ExecutableLoader>> ExecutableLoader::create() {
  static std::once_flag targetsInitialized;
  std::call_once(targetsInitialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  uint64_t start = monotonicNanoseconds();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return makeStatus(StatusCode::Internal,
                      "executable loader: cannot create the JIT: ",
                      toMessage(jit.takeError()));
  auto impl = std::make_shared<Impl>();
  impl->jit = std::move(*jit);
  impl->jit->getExecutionSession().setErrorReporter(reportSessionError);
  impl->setupNanoseconds = monotonicNanoseconds() - start;
  return std::unique_ptr<ExecutableLoader>(new ExecutableLoader(impl));
}

StatusOr<Ref<Executable>>
ExecutableLoader::load(const std::string &name, Span<const uint8_t> object,
                       const std::vector<std::string> &exportNames,
                       const std::vector<std::optional<ExportLayout>> &layouts) {
  uint64_t start = monotonicNanoseconds();
  sessionErrors.clear();
  auto code = std::make_shared<LoadedCode>();
  code->impl = impl_;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto dylib = impl_->jit->createJITDylib(
        "fleet." + name + "." + std::to_string(impl_->nextId++));
    if (!dylib)
      return makeStatus(StatusCode::Internal, "executable '", name,
                        "': cannot create a JITDylib: ",
                        toMessage(dylib.takeError()));
    code->dylib = &*dylib;
  }
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(object.data()),
                      object.size()),
      name);
  if (llvm::Error error =
          impl_->jit->addObjectFile(*code->dylib, std::move(buffer)))
    return makeStatus(StatusCode::InvalidArgument, "executable '", name,
                      "': cannot load the kernel object: ",
                      withSessionErrors(std::move(error)));

  // Looking the exports up links the object; unresolved symbols surface here.
  std::vector<ExecutableExport> exports;
  exports.reserve(exportNames.size());
  for (const std::string &exportName : exportNames) {
    auto address = impl_->jit->lookup(*code->dylib, exportName);
    if (!address)
      return makeStatus(StatusCode::NotFound, "executable '", name,
                        "': export '", exportName,
                        "' cannot be resolved: ",
                        withSessionErrors(address.takeError()));
    std::optional<ExportLayout> layout;
    if (exports.size() < layouts.size())
      layout = layouts[exports.size()];
    exports.push_back(ExecutableExport{
        exportName, address->toPtr<fleet_kernel_fn_t>(), layout});
  }
  FLEET_ASSIGN_OR_RETURN(Ref<Executable> executable,
                         Executable::create(name, std::move(exports), code));
  uint64_t elapsed = monotonicNanoseconds() - start;
  executable->setLoadNanoseconds(elapsed);
  impl_->loaded.fetch_add(1, std::memory_order_relaxed);
  impl_->loadNanoseconds.fetch_add(elapsed, std::memory_order_relaxed);
  return executable;
}

LoaderStatistics ExecutableLoader::statistics() const {
  LoaderStatistics statistics;
  statistics.executablesLoaded = impl_->loaded.load(std::memory_order_relaxed);
  statistics.loadNanoseconds =
      impl_->loadNanoseconds.load(std::memory_order_relaxed);
  statistics.setupNanoseconds = impl_->setupNanoseconds;
  return statistics;
}

} // namespace fleet::runtime::hal
