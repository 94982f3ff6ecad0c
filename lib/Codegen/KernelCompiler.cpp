//===- KernelCompiler.cpp - dispatch module to a relocatable object -------===//
//
// compileKernelModule: copy the dispatch module into a private context,
// rewrite each export for the kernel ABI, tile and vectorize, lower to the
// LLVM dialect, add the KernelABI.h entry points, translate to LLVM IR,
// optimize at O3 for the target CPU and emit an ELF object.
//
//===----------------------------------------------------------------------===//

#include "fleet/Codegen/KernelCompiler.h"

#include "fleet/Codegen/CPUTarget.h"

#include "KernelCompilerInternal.h"
#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/AllInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <chrono>
#include <mutex>

using namespace mlir;
using namespace fleet;

namespace fleet::codegen {

void registerKernelInputDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, index::IndexDialect, LLVM::LLVMDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect,
                  ub::UBDialect, vector::VectorDialect>();
  registry.insert<util::UtilDialect, flow::FlowDialect, stream::StreamDialect,
                  hal::HALDialect>();
  // Tiling, bufferization and value-bounds models of the upstream ops.
  linalg::registerAllDialectInterfaceImplementations(registry);
  tensor::registerTilingInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerValueBoundsOpInterfaceExternalModels(registry);
  memref::registerValueBoundsOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

namespace {

using Clock = std::chrono::steady_clock;

double millisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}


struct HostTarget {
  std::string triple, cpu, features;
};

/// The CPU name and feature string for `targetCPU` ("host" = detected).
HostTarget resolveTarget(StringRef targetCPU) {
  HostTarget target;
  target.triple = llvm::sys::getProcessTriple();
  if (targetCPU == "host") {
    target.cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures features;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.first(), feature.second);
    target.features = features.getString();
  } else {
    target.cpu = targetCPU.str();
  }
  return target;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const HostTarget &host) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  std::string error;
  llvm::Triple triple(host.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no LLVM target for " + host.triple + ": " +
                                       error);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, host.cpu, host.features, options, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot create a target machine for '" +
                                       host.cpu + "'");
  if (!machine->getMCSubtargetInfo()->isCPUStringValid(host.cpu))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown target CPU '" + host.cpu +
                                       "' (use `host` or an LLVM CPU name "
                                       "such as x86-64-v3)");
  return machine;
}

/// Widest vector register of the target machine's subtarget.
detail::TargetInfo getTargetInfo(const llvm::TargetMachine &machine) {
  detail::TargetInfo info;
  info.vectorBits = getVectorBits(*machine.getMCSubtargetInfo());
  return info;
}

/// The lanes of `inst` if it is a vector multiply feeding an add (the
/// `contract` pair the MLIR lowering emits for a row of an outer product,
/// fused into an FMA by instruction selection); 0 otherwise.
unsigned getMultiplyAddLanes(llvm::Instruction &inst) {
  auto *type = dyn_cast<llvm::FixedVectorType>(inst.getType());
  if (!type || inst.getOpcode() != llvm::Instruction::FMul ||
      !inst.hasOneUse() ||
      cast<llvm::Instruction>(*inst.user_begin())->getOpcode() !=
          llvm::Instruction::FAdd)
    return 0;
  return type->getNumElements();
}

/// Marks register-tile reduction loops (innermost loops whose body does
/// at least 64 lanes of multiply-adds: one step of an M0 x N0 outer
/// product) as not to be unrolled. With 16 vector registers (AVX2), a 6 x 16
/// tile holds 12 accumulators, 2 rows of B and a broadcast; unrolled by
/// two, the next step's loads are hoisted above this step's FMAs and an
/// accumulator spills to the stack in every iteration (2048^3 on Zen 3: 47
/// GFLOP/s unrolled, docs/kernels.md "Register tiles").
struct KeepRegisterTileSteps : llvm::PassInfoMixin<KeepRegisterTileSteps> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses) {
    auto &loops = analyses.getResult<llvm::LoopAnalysis>(function);
    for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
      if (!loop->isInnermost())
        continue;
      unsigned lanes = 0;
      for (llvm::BasicBlock *block : loop->blocks())
        for (llvm::Instruction &inst : *block)
          lanes += getMultiplyAddLanes(inst);
      if (lanes >= 64)
        loop->setLoopAlreadyUnrolled();
    }
    return llvm::PreservedAnalyses::all();
  }
};

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  // MLIR already vectorized the main tiles; what loops are left are
  // remainders (scalar by design). Letting LLVM vectorize them again
  // multiplied compile time (up to 1 s per dispatch) for no speed. Unrolling
  // stays: it pays on the register-tile reduction loops.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = false;
  tuning.LoopUnrolling = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning);
  // Unrolling the register tile's steps pays with 32 vector registers
  // (AVX-512) and spills with 16.
  if (getTargetInfo(machine).vectorBits < 512)
    builder.registerVectorizerStartEPCallback(
        [](llvm::FunctionPassManager &passes, llvm::OptimizationLevel) {
          passes.addPass(KeepRegisterTileSteps());
        });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createKernelTargetMachine(StringRef targetCPU) {
  return createTargetMachine(resolveTarget(targetCPU));
}

llvm::Expected<KernelObject>
compileKernelModule(ModuleOp module, const KernelCompileOptions &options) {
  auto mlirStart = Clock::now();
  KernelObject object;

  // A private copy: the caller's module and context stay untouched and
  // compilations may run concurrently.
  std::string bytecode;
  {
    llvm::raw_string_ostream os(bytecode);
    if (failed(writeBytecodeToFile(module, os)))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot serialize the kernel module");
  }
  DialectRegistry registry;
  registerKernelInputDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  // Transformations create ops of dialects the input may not use yet
  // (ub.poison from vectorization, scf, vector, llvm...).
  context.loadAllAvailableDialects();
  // Errors name the op at fault; a dump of the op would be noise.
  context.printOpOnDiagnostic(false);
  detail::DiagnosticCollector diagnostics(&context);
  // Not verified here: a kernel module is valid only inside its executable
  // (stream.dispatch.workgroup.* check their container), and the module was
  // valid where it came from.
  OwningOpRef<ModuleOp> copy = parseSourceString<ModuleOp>(
      bytecode, ParserConfig(&context, /*verifyAfterParse=*/false));
  if (!copy)
    return diagnostics.error("cannot read the kernel module");
  // The copy must not keep the executable's symbol name or attributes that
  // mean something only in the host program.
  (*copy)->setAttrs(DictionaryAttr::get(&context));

  std::vector<KernelExport> exports = options.exports;
  if (exports.empty())
    for (auto func : copy->getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        exports.push_back({func.getSymName().str(), func.getSymName().str()});
  if (exports.empty())
    return diagnostics.error("the kernel module defines no public function");

  HostTarget host = resolveTarget(options.targetCPU);
  // The variant's extra features (CPUTarget.h `cpu_features`) come last, so
  // they win over the CPU's own.
  if (!options.targetFeatures.empty())
    host.features = host.features.empty()
                        ? options.targetFeatures
                        : host.features + "," + options.targetFeatures;
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createTargetMachine(host);
  if (!machine)
    return machine.takeError();
  detail::TargetInfo targetInfo = getTargetInfo(**machine);

  SmallVector<detail::DispatchSignature> signatures;
  for (const KernelExport &entry : exports) {
    auto func = copy->lookupSymbol<func::FuncOp>(entry.function);
    if (!func)
      return diagnostics.error("export '" + entry.symbol +
                               "': no function '" + entry.function +
                               "' in the kernel module");
    if (failed(detail::storeBooleansAsBytes(func)))
      return diagnostics.error("export '" + entry.symbol +
                               "': unsupported boolean binding");
    FailureOr<detail::DispatchSignature> signature =
        detail::prepareDispatchFunction(func, entry.symbol);
    if (failed(signature))
      return diagnostics.error("export '" + entry.symbol +
                               "': unsupported dispatch function");
    detail::makeIntegerDivisionTotal(func);
    detail::exposeMaskedReductions(func);
    if (failed(detail::tileAndVectorize(func, targetInfo, options.dumpStream)))
      return diagnostics.error("export '" + entry.symbol +
                               "': tiling and vectorization failed");
    signatures.push_back(*signature);
    object.symbols.push_back(entry.symbol);
  }
  // Functions no export needs (helpers are inlined or private).
  for (auto func : llvm::make_early_inc_range(copy->getOps<func::FuncOp>()))
    if (func.isPublic())
      func.erase();
  if (options.dumpStream)
    *options.dumpStream << "// -----// after tiling and vectorization\n"
                        << *copy << "\n";
  if (failed(detail::lowerToLLVMDialect(*copy, options.dumpStream)))
    return diagnostics.error("lowering the kernels failed");
  for (const detail::DispatchSignature &signature : signatures)
    if (failed(detail::buildEntryPoint(*copy, signature)))
      return diagnostics.error("export '" + signature.symbol +
                               "': cannot build the entry point");
  if (failed(verify(*copy)))
    return diagnostics.error("the lowered kernel module is invalid");
  object.mlirMillis = millisSince(mlirStart);

  auto llvmStart = Clock::now();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*copy, llvmContext, "fleet_kernels");
  if (!llvmModule)
    return diagnostics.error("translation to LLVM IR failed");
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  for (llvm::Function &function : *llvmModule)
    if (!function.isDeclaration()) {
      function.addFnAttr("target-cpu", host.cpu);
      if (!host.features.empty())
        function.addFnAttr("target-features", host.features);
    }
  optimizeModule(*llvmModule, **machine);
  if (options.dumpStream)
    *options.dumpStream << "// -----// LLVM IR\n" << *llvmModule << "\n";
  if (options.llvmIRStream)
    *options.llvmIRStream << *llvmModule;

  llvm::SmallVector<char, 0> buffer;
  {
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the target cannot emit object files");
    codegen.run(*llvmModule);
  }
  object.bytes.assign(buffer.begin(), buffer.end());
  object.llvmMillis = millisSince(llvmStart);
  return object;
}

} // namespace fleet::codegen
