//===- SerializeExecutables.cpp - kernel modules to object files ----------===//
//
// Invariant established: no `hal.executable.variant` holds a kernel module;
// each variant of backend "llvm-cpu" holds one relocatable ELF object
// (`objects([#hal.executable.object<{data = ...}>])`) that defines, for
// every `hal.executable.export @name`, the KernelABI.h entry point `name`
// (docs/pipeline.md §4); each "vulkan-spirv" variant holds one SPIR-V
// module with a GLCompute entry point `name` per export.
//
//===----------------------------------------------------------------------===//

#include "fleet/Codegen/Passes.h"

#include "fleet/Codegen/CPUTarget.h"

#include "fleet/Codegen/KernelCompiler.h"
#include "fleet/Codegen/SPIRVKernelCompiler.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "hal-serialize-executables"

namespace fleet::codegen {
#define GEN_PASS_DEF_SERIALIZEEXECUTABLESPASS
#include "fleet/Codegen/Passes.h.inc"
} // namespace fleet::codegen

using namespace mlir;
using namespace fleet;

namespace {

/// The backend whose variants hold Fleet kernel objects (KernelABI.h).
constexpr llvm::StringLiteral kBackend = "llvm-cpu";
/// The backend whose variants hold SPIR-V (docs/kernel-abi.md "SPIR-V
/// executables").
constexpr llvm::StringLiteral kSPIRVBackend = "vulkan-spirv";

struct Job {
  hal::ExecutableVariantOp variant;
  ModuleOp module;
  codegen::KernelCompileOptions options;
  std::optional<codegen::KernelObject> object;
  std::string error;
  /// The LLVM IR compiled, for dump-intermediates-path.
  std::string llvmIR;
};

/// Writes `job`'s LLVM IR to `dir/<executable>_<variant>.codegen.ll`.
LogicalResult writeIntermediates(Job &job, StringRef dir) {
  auto executable = job.variant->getParentOfType<hal::ExecutableOp>();
  std::string name = (executable ? executable.getSymName().str() + "_" : "") +
                     job.variant.getSymName().str() + ".codegen.ll";
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code error = llvm::sys::fs::create_directories(dir);
  if (!error) {
    llvm::raw_fd_ostream os(path, error);
    if (!error) {
      os << job.llvmIR;
      os.close();
      error = os.error();
    }
  }
  if (error)
    return job.variant.emitOpError("cannot write ")
           << path << ": " << error.message();
  return success();
}

struct SerializeExecutablesPass
    : public fleet::codegen::impl::SerializeExecutablesPassBase<
          SerializeExecutablesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!target.empty() && target != kBackend && target != kSPIRVBackend) {
      getOperation().emitError()
          << "hal-serialize-executables: target '" << target
          << "' is not a backend Fleet compiles kernels for ('" << kBackend
          << "', '" << kSPIRVBackend << "')";
      return signalPassFailure();
    }
    std::vector<Job> jobs;
    std::vector<hal::ExecutableVariantOp> spirvVariants;
    bool failedToPrepare = false;
    getOperation().walk([&](hal::ExecutableVariantOp variant) {
      ModuleOp module = variant.getInnerModule();
      if (!module)
        return;
      StringRef backend = variant.getTarget().getBackend().getValue();
      if (!target.empty() && backend != target)
        return; // Another backend's variants are not ours.
      if (backend == kSPIRVBackend) {
        spirvVariants.push_back(variant);
        return;
      }
      if (backend != kBackend) {
        variant.emitOpError("has target backend ")
            << variant.getTarget().getBackend()
            << "; hal-serialize-executables compiles only '" << kBackend
            << "' and '" << kSPIRVBackend << "' variants";
        failedToPrepare = true;
        return;
      }
      Job job;
      job.variant = variant;
      job.module = module;
      // The variant's target (codegen-resolve-executable-targets) names its
      // CPU; the option is the fallback for targets without one.
      codegen::CPUTarget fallback;
      fallback.cpu = targetCPU;
      codegen::CPUTarget cpu = codegen::getCPUTarget(variant.getTarget(), fallback);
      job.options.targetCPU = cpu.cpu;
      job.options.targetFeatures = cpu.features;
      for (auto exportOp : variant.getBlock().getOps<hal::ExecutableExportOp>())
        job.options.exports.push_back(
            {exportOp.getSymName().str(), exportOp.getSymName().str()});
      if (job.options.exports.empty()) {
        variant.emitOpError("has a kernel module but no exports");
        failedToPrepare = true;
        return;
      }
      jobs.push_back(std::move(job));
    });
    if (failedToPrepare)
      return signalPassFailure();

    bool failedToCompile = false;
    for (hal::ExecutableVariantOp variant : spirvVariants)
      if (failed(serializeSPIRV(variant)))
        failedToCompile = true;

    // Each compilation has its own context (KernelCompiler.h).
    bool dump = !dumpIntermediatesPath.empty();
    (void)failableParallelForEach(&getContext(), jobs, [&](Job &job) {
      llvm::raw_string_ostream llvmIR(job.llvmIR);
      if (dump)
        job.options.llvmIRStream = &llvmIR;
      llvm::Expected<codegen::KernelObject> object =
          codegen::compileKernelModule(job.module, job.options);
      job.options.llvmIRStream = nullptr;
      if (!object) {
        job.error = llvm::toString(object.takeError());
        return failure();
      }
      job.object = std::move(*object);
      return success();
    });

    for (Job &job : jobs) {
      if (!job.object) {
        job.variant.emitOpError("kernel compilation failed: ") << job.error;
        failedToCompile = true;
        continue;
      }
      if (dump && failed(writeIntermediates(job, dumpIntermediatesPath)))
        failedToCompile = true;
      LLVM_DEBUG(llvm::dbgs()
                 << job.variant.getSymName() << ": " << job.object->bytes.size()
                 << " bytes, MLIR " << job.object->mlirMillis << " ms, LLVM "
                 << job.object->llvmMillis << " ms\n");
      setObject(job.variant, job.object->bytes);
      job.module.erase();
    }
    if (failedToCompile)
      signalPassFailure();
  }

  /// Replaces `variant`'s module by the object `bytes`.
  void setObject(hal::ExecutableVariantOp variant, ArrayRef<uint8_t> bytes) {
    MLIRContext *context = &getContext();
    auto type = VectorType::get({static_cast<int64_t>(bytes.size())},
                                IntegerType::get(context, 8));
    ArrayRef<char> raw(reinterpret_cast<const char *>(bytes.data()),
                       bytes.size());
    auto data =
        cast<DenseIntElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, raw));
    auto objectAttr = hal::ExecutableObjectAttr::get(context, StringAttr(), data);
    variant.setObjectsAttr(ArrayAttr::get(context, {objectAttr}));
  }

  /// Compiles a vulkan-spirv variant to one SPIR-V module
  /// (SPIRVKernelCompiler.h) in this context, on a copy of its module.
  LogicalResult serializeSPIRV(hal::ExecutableVariantOp variant) {
    ModuleOp module = variant.getInnerModule();
    codegen::SPIRVKernelOptions options;
    options.maxLoopIterations = codegen::kDefaultMaxLoopIterations;
    if (DictionaryAttr config = variant.getTarget().getConfiguration()) {
      if (auto limit = config.getAs<IntegerAttr>("max_loop_iterations"))
        options.maxLoopIterations = limit.getInt();
      if (auto size = config.getAs<IntegerAttr>("workgroup_size")) {
        if (size.getInt() < 1 || size.getInt() > 128)
          return variant.emitOpError("workgroup_size = ")
                 << size.getInt()
                 << " is outside [1, 128] (Vulkan guarantees 128 "
                    "invocations per workgroup)";
        options.invocations = size.getInt();
      }
    }
    for (auto exportOp : variant.getBlock().getOps<hal::ExecutableExportOp>())
      options.exports.push_back(exportOp.getSymName().str());
    if (options.exports.empty())
      return variant.emitOpError("has a kernel module but no exports");
    llvm::Expected<codegen::SPIRVKernelObject> object =
        codegen::compileSPIRVKernelModule(module, options);
    if (!object)
      return variant.emitOpError("SPIR-V kernel compilation failed: ")
             << llvm::toString(object.takeError());
    LLVM_DEBUG(llvm::dbgs() << variant.getSymName() << ": "
                            << object->words.size() * 4
                            << " bytes of SPIR-V\n");
    setObject(variant,
              ArrayRef<uint8_t>(
                  reinterpret_cast<const uint8_t *>(object->words.data()),
                  object->words.size() * 4));
    module.erase();
    return success();
  }
};

} // namespace
