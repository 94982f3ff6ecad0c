//===- ExecutableLoaderTest.cpp - kernel objects through the loader --------===//
//
// The test builds its kernel objects itself with LLVM's C++ API (IRBuilder +
// TargetMachine emitting an ELF object to memory), in the form the kernel ABI
// fixes (KernelABI.h), links them into a kernel library with the compiler's
// linker (KernelLinker.h, lld), loads it with dlopen and runs the kernels on
// a device.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "fleet/Codegen/KernelLinker.h"
#include "fleet/runtime/hal/ExecutableLoader.h"
#include "fleet/runtime/hal/KernelLibrary.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>

namespace fleet::runtime::hal {
namespace {
using namespace testing;

/// fleet_kernel_fn_t as LLVM IR: i32 (ptr state, i32 x, i32 y, i32 z).
llvm::Function *declareKernel(llvm::Module &module, const char *name) {
  llvm::LLVMContext &context = module.getContext();
  auto *i32 = llvm::Type::getInt32Ty(context);
  auto *ptr = llvm::PointerType::get(context, 0);
  auto *type = llvm::FunctionType::get(i32, {ptr, i32, i32, i32}, false);
  return llvm::Function::Create(type, llvm::Function::ExternalLinkage, name,
                                module);
}

/// out[x] = expf(in[x]) * bitcast<float>(constants[0]); calls libm's expf.
void buildScaleExp(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Function *kernel = declareKernel(module, "scale_exp");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", kernel));
  auto *ptr = b.getPtrTy();
  auto *f32 = b.getFloatTy();
  llvm::Value *state = kernel->getArg(0);
  // fleet_kernel_state_t: binding_ptrs at 0, binding_lengths at 8,
  // constants at 16.
  llvm::Value *bindings = b.CreateLoad(ptr, state, "binding_ptrs");
  llvm::Value *in = b.CreateLoad(ptr, bindings, "in");
  llvm::Value *out =
      b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, bindings, 1), "out");
  llvm::Value *constants =
      b.CreateLoad(ptr, b.CreateConstGEP1_64(b.getInt8Ty(), state, 16));
  llvm::Value *scale = b.CreateLoad(f32, constants, "scale");
  llvm::Value *index = b.CreateZExt(kernel->getArg(1), b.getInt64Ty());
  llvm::Value *value = b.CreateLoad(f32, b.CreateGEP(f32, in, index));
  llvm::FunctionCallee expf = module.getOrInsertFunction(
      "expf", llvm::FunctionType::get(f32, {f32}, false));
  llvm::Value *result = b.CreateFMul(b.CreateCall(expf, {value}), scale);
  b.CreateStore(result, b.CreateGEP(f32, out, index));
  b.CreateRet(b.getInt32(0));
}

/// Returns x & 1: fails on odd workgroups.
void buildOddFails(llvm::Module &module, const char *name = "odd_fails") {
  llvm::Function *kernel = declareKernel(module, name);
  llvm::IRBuilder<> b(
      llvm::BasicBlock::Create(module.getContext(), "entry", kernel));
  b.CreateRet(b.CreateAnd(kernel->getArg(1), b.getInt32(1)));
}

/// Calls a function nobody defines.
void buildUnresolved(llvm::Module &module) {
  llvm::Function *kernel = declareKernel(module, "calls_missing");
  llvm::IRBuilder<> b(
      llvm::BasicBlock::Create(module.getContext(), "entry", kernel));
  llvm::FunctionCallee missing = module.getOrInsertFunction(
      "fleet_test_symbol_that_does_not_exist",
      llvm::FunctionType::get(b.getInt32Ty(), {}, false));
  b.CreateRet(b.CreateCall(missing, {}));
}

/// Emits `module` as a relocatable ELF object for the host.
std::vector<uint8_t> emitObject(llvm::Module &module) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  EXPECT_NE(target, nullptr) << error;
  if (!target)
    return {};
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "generic", "", options, llvm::Reloc::PIC_));
  module.setDataLayout(machine->createDataLayout());
  module.setTargetTriple(triple);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  bool cannotEmit = machine->addPassesToEmitFile(
      passes, stream, nullptr, llvm::CodeGenFileType::ObjectFile);
  EXPECT_FALSE(cannotEmit);
  passes.run(module);
  return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

std::vector<uint8_t> kernelObject(void (*build)(llvm::Module &)) {
  llvm::LLVMContext context;
  llvm::Module module("kernels", context);
  build(module);
  return emitObject(module);
}

/// A linked kernel library: `object` with each symbol of `exports` renamed
/// to "lib_<name>".
struct Library {
  std::vector<uint8_t> bytes;
  KernelLibraryInfo info;
};

Library linkLibrary(const std::vector<uint8_t> &object,
                    const std::vector<std::string> &exports,
                    const std::string &name = "test") {
  codegen::KernelLinkInput input;
  input.name = name;
  input.object = object;
  for (const std::string &symbol : exports)
    input.renames.emplace_back(symbol, "lib_" + symbol);
  codegen::KernelLinkOptions options;
  options.targetCPU = "x86-64";
  options.abiVersion = FLEET_KERNEL_ABI_VERSION;
  auto image = codegen::linkKernelLibrary({input}, options);
  EXPECT_TRUE(bool(image)) << (image ? "" : llvm::toString(image.takeError()));
  Library library;
  if (!image)
    return library;
  library.bytes = image->bytes;
  library.info.name = name;
  library.info.targetCpu = image->targetCPU;
  library.info.cpuFeatures = image->cpuFeatures;
  library.info.abiVersion = FLEET_KERNEL_ABI_VERSION;
  library.info.checksum = kernel_library::checksum(library.bytes.data(),
                                                   library.bytes.size());
  return library;
}

std::vector<std::string> prefixed(const std::vector<std::string> &names) {
  std::vector<std::string> symbols;
  for (const std::string &name : names)
    symbols.push_back("lib_" + name);
  return symbols;
}

/// Loads `object` as a library and creates executable `name` of `exports`.
StatusOr<Ref<Executable>> loadExecutable(ExecutableLoader &loader,
                                         const std::string &name,
                                         const std::vector<uint8_t> &object,
                                         const std::vector<std::string> &exports) {
  Library library = linkLibrary(object, exports, name);
  FLEET_ASSIGN_OR_RETURN(std::shared_ptr<KernelLibrary> handle,
                         loader.loadLibrary(library.info, library.bytes));
  return loader.createExecutable(name, handle, exports, prefixed(exports));
}

std::unique_ptr<ExecutableLoader> makeLoader() {
  auto loader = ExecutableLoader::create();
  EXPECT_TRUE(loader.ok()) << loader.status().toString();
  return loader.ok() ? std::move(*loader) : nullptr;
}

TEST(ExecutableLoaderTest, LoadsAndRunsKernels) {
  std::vector<uint8_t> object = kernelObject([](llvm::Module &module) {
    buildScaleExp(module);
    buildOddFails(module);
  });
  ASSERT_FALSE(object.empty());
  ASSERT_EQ(std::memcmp(object.data(), "\x7f" "ELF", 4), 0);
  std::unique_ptr<ExecutableLoader> loader = makeLoader();
  ASSERT_TRUE(loader);
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Executable> executable,
      loadExecutable(*loader, "math", object, {"scale_exp", "odd_fails"}));
  EXPECT_EQ(executable->exportCount(), 2u);
  EXPECT_EQ(executable->exportName(1), "odd_fails");
  EXPECT_GT(executable->loadNanoseconds(), 0u);
  std::printf("[ measured ] object %zu bytes, load %.3f ms\n", object.size(),
              loader->statistics().loadNanoseconds / 1e6);

  // Through a device: 8 workgroups, one element each.
  Ref<Device> device = makeDevice("local-task?task_topology_group_count=2");
  Ref<Buffer> in = makeHostBuffer(*device, 32);
  Ref<Buffer> out = makeHostBuffer(*device, 32);
  float inputs[8] = {0.0f, 0.5f, -1.0f, 1.0f, 2.0f, -3.5f, 0.25f, 4.0f};
  FLEET_ASSERT_OK(in->write(0, inputs, sizeof(inputs)));
  float scale = 2.0f;
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &scale, 4);
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<CommandBuffer> commands,
      CommandBuffer::create(*device, CommandBufferMode::OneShot,
                            CommandCategory::Dispatch, 1));
  uint32_t counts[3] = {8, 1, 1};
  uint32_t constants[] = {scaleBits};
  BindingRef bindings[] = {BindingRef::of(*in), BindingRef::of(*out)};
  FLEET_ASSERT_OK(
      commands->dispatch(*executable, 0, counts, constants, bindings));
  FLEET_ASSERT_OK(commands->finalize());
  CommandBuffer *list[] = {commands.get()};
  Ref<Fence> done = device->createFence();
  FLEET_ASSERT_OK(device->queueExecute(1, nullptr, done.get(), list));
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  float outputs[8];
  FLEET_ASSERT_OK(out->read(0, outputs, sizeof(outputs)));
  for (int i = 0; i < 8; ++i)
    EXPECT_FLOAT_EQ(outputs[i], std::exp(inputs[i]) * 2.0f) << i;

  // The second export's return value reaches the caller.
  fleet_kernel_state_t state{};
  EXPECT_EQ(executable->function(1)(&state, 3, 0, 0), 1);
  EXPECT_EQ(executable->function(1)(&state, 4, 0, 0), 0);
  EXPECT_EQ(loader->statistics().executablesLoaded, 1u);
}

TEST(ExecutableLoaderTest, ExecutablesAreIsolatedAndOutliveTheLoader) {
  std::vector<uint8_t> object = kernelObject(
      [](llvm::Module &module) { buildOddFails(module, "kernel"); });
  Ref<Executable> first, second;
  {
    std::unique_ptr<ExecutableLoader> loader = makeLoader();
    ASSERT_TRUE(loader);
    // The same symbol name in two libraries: each is opened RTLD_LOCAL.
    FLEET_ASSERT_OK_AND_ASSIGN(first,
                               loadExecutable(*loader, "a", object, {"kernel"}));
    FLEET_ASSERT_OK_AND_ASSIGN(second,
                               loadExecutable(*loader, "b", object, {"kernel"}));
  }
  EXPECT_NE(reinterpret_cast<void *>(first->function(0)),
            reinterpret_cast<void *>(second->function(0)));
  fleet_kernel_state_t state{};
  EXPECT_EQ(first->function(0)(&state, 1, 0, 0), 1);
  first.reset();
  EXPECT_EQ(second->function(0)(&state, 2, 0, 0), 0);
}

TEST(ExecutableLoaderTest, ErrorsNameTheExecutableAndSymbol) {
  std::unique_ptr<ExecutableLoader> loader = makeLoader();
  ASSERT_TRUE(loader);
  std::vector<uint8_t> object = kernelObject(
      [](llvm::Module &module) { buildOddFails(module); });
  Library library = linkLibrary(object, {"odd_fails"}, "m");
  ASSERT_FALSE(library.bytes.empty());
  FLEET_ASSERT_OK_AND_ASSIGN(std::shared_ptr<KernelLibrary> handle,
                             loader->loadLibrary(library.info, library.bytes));
  auto missing = loader->createExecutable("m", handle, {"odd_fails", "nope"},
                                          {"lib_odd_fails", "lib_nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::NotFound);
  EXPECT_TRUE(contains(missing.status().message(),
                       "executable 'm': export 'nope' cannot be resolved"));
  EXPECT_TRUE(contains(missing.status().message(), "lib_nope"));

  // Wrong ABI version, corrupted bytes, missing or unknown CPU features.
  KernelLibraryInfo info = library.info;
  info.abiVersion = FLEET_KERNEL_ABI_VERSION + 1;
  auto abi = loader->loadLibrary(info, library.bytes);
  ASSERT_FALSE(abi.ok());
  EXPECT_TRUE(contains(abi.status().message(),
                       "kernel library 'm': kernel ABI version mismatch"));

  std::vector<uint8_t> corrupt = library.bytes;
  corrupt[corrupt.size() / 2] ^= 0x40;
  auto damaged = loader->loadLibrary(library.info, corrupt);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::DataLoss);
  EXPECT_TRUE(contains(damaged.status().message(),
                       "corrupt shared object: checksum"));

  // Bytes that hash right but are no shared object.
  std::vector<uint8_t> garbage(128, 'x');
  info = library.info;
  info.checksum = kernel_library::checksum(garbage.data(), garbage.size());
  auto malformed = loader->loadLibrary(info, garbage);
  ASSERT_FALSE(malformed.ok());
  EXPECT_TRUE(contains(malformed.status().message(),
                       "not an x86-64 ELF shared object"));

  info = library.info;
  info.cpuFeatures.push_back("fleet-imaginary-feature");
  auto unknown = loader->loadLibrary(info, library.bytes);
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(contains(unknown.status().message(), "fleet-imaginary-feature"));

  ::setenv("FLEET_TEST_HIDE_CPU_FEATURES", "sse4.2,sse2", 1);
  info = library.info;
  info.cpuFeatures = {"sse2"};
  auto lacking = loader->loadLibrary(info, library.bytes);
  ::unsetenv("FLEET_TEST_HIDE_CPU_FEATURES");
  ASSERT_FALSE(lacking.ok());
  EXPECT_EQ(lacking.status().code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(contains(lacking.status().message(),
                       "this host's CPU lacks sse2"));

  // An unresolved symbol surfaces at dlopen (RTLD_NOW).
  std::vector<uint8_t> unresolved = kernelObject(buildUnresolved);
  auto linkError = loadExecutable(*loader, "u", unresolved, {"calls_missing"});
  ASSERT_FALSE(linkError.ok());
  EXPECT_TRUE(contains(linkError.status().message(),
                       "fleet_test_symbol_that_does_not_exist"));
  // A failed load leaves the loader usable.
  FLEET_EXPECT_OK(loadExecutable(*loader, "ok", object, {"odd_fails"}).status());
}

TEST(ExecutableLoaderTest, HostFeaturesIncludeTheBaseline) {
  std::vector<std::string> features = hostCpuFeatures();
  EXPECT_NE(std::find(features.begin(), features.end(), "sse2"),
            features.end());
  FLEET_EXPECT_OK(checkCpuFeatures({"sse", "sse2"}, "test", "x86-64"));
}

} // namespace
} // namespace fleet::runtime::hal
