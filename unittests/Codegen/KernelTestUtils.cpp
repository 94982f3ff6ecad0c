//===- KernelTestUtils.cpp - compile, load and run dispatch kernels -------===//

#include "KernelTestUtils.h"

#include "fleet/Codegen/KernelCompiler.h"
#include "fleet/Codegen/KernelConfig.h"
#include "fleet/Codegen/Passes.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>

using namespace mlir;

namespace fleet::codegen::testing {

namespace {
llvm::Error makeError(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}
} // namespace

std::string substitute(std::string text,
                       const std::map<std::string, std::string> &values) {
  // Longest keys first so "$MN" is not split by "$M".
  std::vector<std::pair<std::string, std::string>> ordered(values.begin(),
                                                           values.end());
  std::sort(ordered.begin(), ordered.end(), [](auto &a, auto &b) {
    return a.first.size() > b.first.size();
  });
  for (auto &[key, value] : ordered) {
    size_t position = 0;
    while ((position = text.find(key, position)) != std::string::npos) {
      text.replace(position, key.size(), value);
      position += value.size();
    }
  }
  return text;
}

llvm::Expected<LoadedKernel> compileAndLoad(const std::string &source,
                                            const CompileFlags &flags) {
  DialectRegistry registry;
  registerKernelInputDialects(registry);
  MLIRContext context(registry);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    diagnostics += diagnostic.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return makeError("parse error:\n" + diagnostics);
  if (flags.configure) {
    PassManager pm(&context);
    pm.addPass(createConfigureWorkgroupsPass());
    if (failed(pm.run(*module)))
      return makeError("codegen-configure-workgroups failed:\n" + diagnostics);
  }
  auto executables = module->getOps<stream::ExecutableOp>();
  if (executables.empty())
    return makeError("no stream.executable in the test module");
  stream::ExecutableOp executable = *executables.begin();
  auto exportOp = *executable.getBody()
                       .front()
                       .getOps<stream::ExecutableExportOp>()
                       .begin();
  LoadedKernel kernel;
  // The grid: constants returned by the workgroups region.
  if (!exportOp.getWorkgroupCount().empty()) {
    auto terminator = cast<stream::ReturnOp>(
        exportOp.getWorkgroupCount().front().getTerminator());
    for (auto [i, value] : llvm::enumerate(terminator.getOperands())) {
      auto constant = value.getDefiningOp<arith::ConstantIndexOp>();
      if (!constant)
        return makeError("the workgroup count is not constant");
      kernel.grid[i] = constant.value();
    }
  }
  ModuleOp inner = executable.getInnerModule();
  std::string function = exportOp.getFunctionRef().str();
  if (auto func = inner.lookupSymbol<func::FuncOp>(function))
    if (std::optional<KernelConfig> config =
            KernelConfig::fromAttr(func->getAttr(kConfigAttrName)))
      kernel.kind = stringifyKernelKind(config->kind).str();

  KernelCompileOptions options;
  options.targetCPU = flags.targetCPU;
  // FLEET_KERNEL_DUMP=1 prints the IR after each step (debugging).
  llvm::raw_string_ostream stepsIR(kernel.stepsIR);
  if (getenv("FLEET_KERNEL_DUMP"))
    options.dumpStream = &llvm::errs();
  else if (flags.keepStepsIR)
    options.dumpStream = &stepsIR;
  options.exports.push_back({exportOp.getSymName().str(), function});
  llvm::raw_string_ostream llvmIR(kernel.llvmIR);
  if (flags.keepLLVMIR)
    options.llvmIRStream = &llvmIR;
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<KernelObject> object = compileKernelModule(inner, options);
  if (!object)
    return object.takeError();
  kernel.compileMillis = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  kernel.objectBytes = object->bytes.size();
  kernel.mlirMillis = object->mlirMillis;
  kernel.llvmMillis = object->llvmMillis;
  if (getenv("FLEET_KERNEL_TIMES"))
    llvm::errs() << exportOp.getSymName() << ": MLIR " << kernel.mlirMillis
                 << " ms, LLVM " << kernel.llvmMillis << " ms, "
                 << kernel.objectBytes << " bytes\n";

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  auto generator =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator)
    return generator.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  llvm::StringRef bytes(reinterpret_cast<const char *>(object->bytes.data()),
                        object->bytes.size());
  if (llvm::Error error = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(bytes, "kernel.o")))
    return std::move(error);
  auto symbol = (*jit)->lookup(exportOp.getSymName());
  if (!symbol)
    return symbol.takeError();
  kernel.function = symbol->toPtr<fleet_kernel_fn_t>();
  kernel.jit = std::move(*jit);
  return kernel;
}

int32_t runAllWorkgroups(const LoadedKernel &kernel,
                         const std::vector<void *> &bindings,
                         const std::vector<uint64_t> &lengths,
                         const std::vector<uint32_t> &constants) {
  fleet_kernel_state_t state = {};
  state.binding_ptrs = bindings.data();
  state.binding_lengths = lengths.data();
  state.constants = constants.data();
  state.binding_count = static_cast<uint32_t>(bindings.size());
  state.constant_count = static_cast<uint32_t>(constants.size());
  for (int i = 0; i < 3; ++i)
    state.workgroup_count[i] = kernel.grid[i];
  uint64_t count =
      uint64_t(kernel.grid[0]) * kernel.grid[1] * kernel.grid[2];
  return runWorkgroupRange(kernel, state, 0, count);
}

int32_t runWorkgroupRange(const LoadedKernel &kernel,
                          const fleet_kernel_state_t &state, uint64_t begin,
                          uint64_t end) {
  uint64_t gridX = kernel.grid[0], gridY = kernel.grid[1];
  for (uint64_t i = begin; i < end; ++i) {
    uint32_t x = i % gridX, y = (i / gridX) % gridY, z = i / (gridX * gridY);
    if (int32_t status = kernel.function(&state, x, y, z))
      return status;
  }
  return 0;
}

std::vector<float> randomFloats(size_t count, uint32_t seed) {
  std::vector<float> values(count);
  uint32_t state = seed * 2654435761u + 12345u;
  for (float &value : values) {
    state = state * 1664525u + 1013904223u;
    value = static_cast<float>(state >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return values;
}

} // namespace fleet::codegen::testing
