//===- Context.cpp - devices, modules and calls --------------------------===//

#include "ModuleState.h"

#include "fleet/Artifact/Artifact.h"
#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "fleet/Dialect/Stream/IR/StreamDialect.h"
#include "fleet/Dialect/Util/IR/UtilDialect.h"
#include "fleet/runtime/hal/ExecutableLoader.h"
#include "fleet/runtime/hal/Trace.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>

namespace fleet::runtime::host {

using hal::makeStatus;
using hal::Status;
using hal::StatusCode;

hal::StatusOr<std::unique_ptr<Context>>
Context::create(std::vector<hal::Ref<hal::Device>> devices) {
  std::unique_ptr<Context> context(new Context());
  for (const hal::Ref<hal::Device> &device : devices)
    if (!device)
      return makeStatus(StatusCode::InvalidArgument,
                        "host context: null device");
  if (!devices.empty()) {
    auto group = hal::DeviceGroup::create(devices);
    if (!group.ok())
      return group.status();
    context->group_ = std::move(*group);
  }
  context->devices_ = std::move(devices);
  for (const hal::Ref<hal::Device> &device : context->devices_)
    context->devicePointers_.push_back(device.get());
  return context;
}

hal::Status Context::waitIdle() {
  uint64_t bound = hostWaitLimitMilliseconds_ ? hostWaitLimitMilliseconds_
                                               : 10000;
  hal::Status first = hal::Status::okStatus();
  for (hal::Device *device : devicePointers_) {
    hal::Status status =
        device->waitIdle(hal::Timeout::milliseconds(bound));
    if (first.ok() && !status.ok())
      first = std::move(status);
  }
  return first;
}

Context::~Context() {
  // Pending queue ops may run kernels of this context's executables and read
  // its constants: let the devices drain before modules go (bounded; the
  // ops retain what they touch, so a timeout only delays the release).
  waitIdle().ignoreError();
  while (!modules_.empty())
    modules_.pop_back();
}

hal::StatusOr<hal::ExecutableLoader *> Context::executableLoader() {
  if (!loader_) {
    auto loader = hal::ExecutableLoader::create();
    if (!loader.ok())
      return loader.status();
    loader_ = std::move(*loader);
  }
  return loader_.get();
}

/// Fleet's dialects and those a module not compiled to the end may still
/// hold (kernel modules of variants), so such a module is read and then
/// rejected with a message naming what is wrong; ops of other dialects read
/// as unregistered ops and are reported the same way.
static mlir::DialectRegistry hostDialects() {
  mlir::DialectRegistry registry;
  registry.insert<::fleet::util::UtilDialect, ::fleet::flow::FlowDialect,
                  ::fleet::stream::StreamDialect, ::fleet::hal::HALDialect,
                  mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::LLVM::LLVMDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect,
                  mlir::vector::VectorDialect>();
  return registry;
}

hal::StatusOr<Module *> Context::loadArtifact(hal::Span<const uint8_t> bytes,
                                              const std::string &name) {
  uint64_t start = hal::monotonicNanoseconds();
  // One MLIR context per load: artifacts are read once, and the compiled
  // form keeps nothing of the IR.
  mlir::MLIRContext mlirContext(hostDialects(),
                                mlir::MLIRContext::Threading::DISABLED);
  mlirContext.allowUnregisteredDialects();
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(bytes.data()),
                      bytes.size()),
      name, /*RequiresNullTerminator=*/false);
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      ::fleet::readArtifact(buffer->getMemBufferRef(), &mlirContext, error);
  if (!module)
    return Status(StatusCode::InvalidArgument, error);
  uint64_t read = hal::monotonicNanoseconds() - start;
  auto loaded = loadModuleInto(*this, *module, name, modules_);
  if (loaded.ok()) {
    Module *result = *loaded;
    result->statistics_.readNanoseconds = read;
    result->statistics_.totalNanoseconds += read;
  }
  return loaded;
}

hal::StatusOr<Module *> Context::loadArtifactFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                                   /*RequiresNullTerminator=*/
                                                   false);
  if (!buffer)
    return makeStatus(StatusCode::NotFound, "cannot read module '", path,
                      "': ", buffer.getError().message());
  llvm::StringRef data = (*buffer)->getBuffer();
  return loadArtifact(
      hal::Span<const uint8_t>(
          reinterpret_cast<const uint8_t *>(data.data()), data.size()),
      path == "-" ? std::string("<stdin>") : path);
}

hal::StatusOr<Module *> Context::loadModule(mlir::ModuleOp module,
                                            const std::string &source) {
  return loadModuleInto(*this, module, source, modules_);
}

const Function *Context::lookupFunction(std::string_view name) const {
  if (modules_.empty())
    return nullptr;
  size_t dot = name.find('.');
  if (dot != std::string_view::npos) {
    std::string_view moduleName = name.substr(0, dot);
    for (const std::unique_ptr<Module> &module : modules_)
      if (module->name() == moduleName)
        if (const Function *function =
                module->lookupExport(name.substr(dot + 1)))
          return function;
  }
  return modules_.back()->lookupExport(name);
}

hal::Status Context::invoke(const Function &function,
                            hal::Span<const Value> arguments,
                            std::vector<Value> &results) {
  const FunctionSignature &signature = function.signature();
  if (arguments.size() != signature.arguments.size())
    return makeStatus(StatusCode::InvalidArgument, "@",
                      function.qualifiedName(), " takes ",
                      signature.arguments.size(), " arguments, ",
                      arguments.size(), " given; expected ",
                      signature.toString(function.qualifiedName()));
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].type() != signature.arguments[i])
      return makeStatus(StatusCode::InvalidArgument, "@",
                        function.qualifiedName(), ": argument ", i, " is ",
                        typeName(arguments[i].type()), ", expected ",
                        typeName(signature.arguments[i]), " (",
                        signature.toString(function.qualifiedName()), ")");
  ExecState state;
  state.context = this;
  if (!callFunction(state, *function.code_, nullptr, nullptr, nullptr,
                    arguments, &results))
    return state.status;
  return Status();
}

std::string formatLoadStatistics(const Context &context) {
  std::string text;
  auto ms = [](uint64_t ns) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.3f ms", double(ns) / 1e6);
    return std::string(buffer);
  };
  for (const std::unique_ptr<Module> &module : context.modules()) {
    const ModuleLoadStatistics &s = module->loadStatistics();
    text += "module " +
            (module->name().empty() ? std::string("<unnamed>")
                                    : "'" + module->name() + "'") +
            " (" + module->source() + ")\n";
    text += hal::concat("  load time:                 ", ms(s.totalNanoseconds),
                        "\n");
    text += hal::concat("    read artifact:           ", ms(s.readNanoseconds),
                        "\n");
    text += hal::concat("    compile host code:       ",
                        ms(s.compileNanoseconds), " (", s.functionsCompiled,
                        " functions, ", s.opRecords, " op records)\n");
    text += hal::concat("    load executables:        ",
                        ms(s.executableLoadNanoseconds), " (",
                        s.executablesLoaded, " loaded)\n");
    text += hal::concat("    run initializers:        ",
                        ms(s.initializerNanoseconds), "\n");
  }
  return text;
}

} // namespace fleet::runtime::host
