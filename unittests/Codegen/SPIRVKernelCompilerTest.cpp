//===- SPIRVKernelCompilerTest.cpp - dispatch modules to valid SPIR-V -----===//
//
// Each test builds a dispatch module (tensor form, docs/pipeline.md), runs
// codegen-configure-workgroups, compiles the inner module with
// compileSPIRVKernelModule and requires `spirv-val --target-env vulkan1.2`
// to accept the binary. Without spirv-val on PATH the validation is skipped
// (a failure when CI=true).
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include "fleet/Codegen/KernelCompiler.h"
#include "fleet/Codegen/Passes.h"
#include "fleet/Codegen/SPIRVKernelCompiler.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace fleet::codegen;
using namespace fleet::codegen::testing;

namespace {

struct Compiled {
  SPIRVKernelObject object;
  std::vector<std::array<int64_t, 3>> grids;
  double millis = 0;
};

/// Parses `source` (one stream.executable, any number of exports), runs
/// codegen-configure-workgroups and compiles the inner module.
llvm::Expected<Compiled> compile(const std::string &source,
                                 int64_t maxLoopIterations = 0,
                                 int64_t invocations = kDefaultInvocations) {
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
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "parse error:\n" + diagnostics);
  PassManager pm(&context);
  pm.addPass(createConfigureWorkgroupsPass());
  if (failed(pm.run(*module)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "configure-workgroups failed:\n" +
                                       diagnostics);
  auto executable = *module->getOps<fleet::stream::ExecutableOp>().begin();
  Compiled compiled;
  SPIRVKernelOptions options;
  options.maxLoopIterations = maxLoopIterations;
  options.invocations = invocations;
  for (auto exportOp : executable.getBody()
                           .front()
                           .getOps<fleet::stream::ExecutableExportOp>()) {
    options.exports.push_back(exportOp.getFunctionRef().str());
    std::array<int64_t, 3> grid = {1, 1, 1};
    auto terminator = cast<fleet::stream::ReturnOp>(
        exportOp.getWorkgroupCount().front().getTerminator());
    for (auto [i, value] : llvm::enumerate(terminator.getOperands()))
      if (auto constant = value.getDefiningOp<arith::ConstantIndexOp>())
        grid[i] = constant.value();
    compiled.grids.push_back(grid);
  }
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<SPIRVKernelObject> object =
      compileSPIRVKernelModule(executable.getInnerModule(), options);
  compiled.millis = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  if (!object)
    return object.takeError();
  compiled.object = std::move(*object);
  // FLEET_SPIRV_DUMP_DIR=dir writes dir/<first export>.spv and .grid (one
  // "name x y z" line per export), to run the kernels by hand.
  if (const char *dir = getenv("FLEET_SPIRV_DUMP_DIR")) {
    std::string base = std::string(dir) + "/" + options.exports.front();
    std::error_code error;
    llvm::raw_fd_ostream spv(base + ".spv", error);
    spv.write(reinterpret_cast<const char *>(compiled.object.words.data()),
              compiled.object.words.size() * 4);
    llvm::raw_fd_ostream grid(base + ".grid", error);
    for (auto [name, g] : llvm::zip(options.exports, compiled.grids))
      grid << name << " " << g[0] << " " << g[1] << " " << g[2] << "\n";
  }
  if (getenv("FLEET_KERNEL_TIMES"))
    llvm::errs() << "SPIR-V compile: " << compiled.millis << " ms, "
                 << compiled.object.words.size() * 4 << " bytes\n";
  return compiled;
}

/// Runs SPIRV-Tools' `toolName` on `words` with `flags`; returns its exit
/// code and sets `output` to what it printed. Sets `skipped` when the tool
/// is not installed.
int runSpirvTool(llvm::StringRef toolName, llvm::ArrayRef<llvm::StringRef> flags,
                 const std::vector<uint32_t> &words, std::string &output,
                 bool &skipped) {
  skipped = false;
  llvm::ErrorOr<std::string> tool = llvm::sys::findProgramByName(toolName);
  if (!tool) {
    skipped = true;
    return 0;
  }
  llvm::SmallString<128> spvPath, logPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("fleet-kernel", "spv", fd, spvPath) ||
      llvm::sys::fs::createTemporaryFile("fleet-kernel", "log", logPath)) {
    output = "cannot create a temporary file";
    return -1;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(words.data()), words.size() * 4);
  }
  llvm::SmallVector<llvm::StringRef> args = {*tool};
  args.append(flags.begin(), flags.end());
  args.push_back(spvPath);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  int rc = llvm::sys::ExecuteAndWait(*tool, args, std::nullopt, redirects);
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    output = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(logPath);
  if (rc == 0)
    llvm::sys::fs::remove(spvPath);
  else
    output = "(module kept at " + spvPath.str().str() + ")\n" + output;
  return rc;
}

/// Runs spirv-val on `words`; "" when valid, else its output. Sets `skipped`
/// when spirv-val is not installed.
std::string validate(const std::vector<uint32_t> &words, bool &skipped) {
  std::string log;
  int rc = runSpirvTool("spirv-val", {"--target-env", "vulkan1.2"}, words, log,
                        skipped);
  if (skipped || rc == 0)
    return "";
  return "spirv-val failed (rc " + std::to_string(rc) + "): " + log;
}

#define SKIP_WITHOUT_SPIRV_TOOLS(skipped)                                      \
  if (skipped) {                                                               \
    const char *ci = getenv("CI");                                             \
    if (ci && std::string(ci) == "true")                                       \
      FAIL() << "SPIRV-Tools not found and CI=true";                           \
    GTEST_SKIP() << "SPIRV-Tools not found on PATH";                           \
  }

#define EXPECT_VALID_SPIRV(compiled)                                           \
  do {                                                                         \
    bool skipped = false;                                                      \
    std::string message = validate((compiled).object.words, skipped);          \
    SKIP_WITHOUT_SPIRV_TOOLS(skipped);                                         \
    EXPECT_EQ(message, "");                                                    \
  } while (false)

#define ASSERT_COMPILED(compiled)                                              \
  ASSERT_TRUE(static_cast<bool>(compiled))                                     \
      << llvm::toString(compiled.takeError())

/// One stream.executable; each entry of `functions` is (name, arguments,
/// body) of one export.
std::string executable(
    const std::vector<std::array<std::string, 3>> &functions) {
  std::string exports, bodies;
  for (const auto &[name, arguments, body] : functions) {
    exports += "  stream.executable.export public @" + name +
               R"mlir( workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
)mlir";
    bodies += "    func.func @" + name + "(" + arguments +
              ") {\n      %c0 = arith.constant 0 : index\n" + body +
              "      return\n    }\n";
  }
  return "stream.executable private @ex {\n" + exports +
         "  builtin.module {\n" + bodies + "  }\n}\n";
}

const char *kAbsBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<?xf32>{%n}
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<?xf32>{%n}
      %ta = bufferization.to_tensor %0 restrict : memref<?xf32> to tensor<?xf32>
      %e = tensor.empty(%n) : tensor<?xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ta : tensor<?xf32>) outs(%e : tensor<?xf32>) {
      ^bb0(%x: f32, %out: f32):
        %v = math.absf %x : f32
        linalg.yield %v : f32
      } -> tensor<?xf32>
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<?xf32>, memref<?xf32>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, AbsDynamicShape) {
  auto compiled = compile(executable(
      {{"abs", "%a: !stream.binding, %o: !stream.binding, %n: index",
        kAbsBody}}));
  ASSERT_COMPILED(compiled);
  ASSERT_EQ(compiled->object.workgroupSizes.size(), 1u);
  EXPECT_EQ(compiled->object.workgroupSizes[0],
            (std::array<int64_t, 3>{kDefaultInvocations, 1, 1}));
  EXPECT_EQ(compiled->object.pushConstantWords[0], 2u);
  EXPECT_VALID_SPIRV(*compiled);
}

const char *kElementwiseBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %2 = stream.binding.subspan %c[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %3 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Mx$Nxf32> to tensor<$Mx$Nxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Mx$Nxf32> to tensor<$Mx$Nxf32>
      %tc = bufferization.to_tensor %2 restrict : memref<$Mx$Nxf32> to tensor<$Mx$Nxf32>
      %e = tensor.empty() : tensor<$Mx$Nxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ta, %tb, %tc : tensor<$Mx$Nxf32>, tensor<$Mx$Nxf32>, tensor<$Mx$Nxf32>) outs(%e : tensor<$Mx$Nxf32>) {
      ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
        %m = arith.mulf %x, %y : f32
        %s = arith.addf %m, %z : f32
        %zero = arith.constant 0.0 : f32
        %v = arith.maximumf %s, %zero : f32
        %ex = math.exp %v : f32
        %neg = arith.cmpf olt, %x, %zero : f32
        %sel = arith.select %neg, %ex, %v : f32
        %i = arith.fptosi %sel : f32 to i32
        %f = arith.sitofp %i : i32 to f32
        %w = arith.addf %f, %sel : f32
        linalg.yield %w : f32
      } -> tensor<$Mx$Nxf32>
      bufferization.materialize_in_destination %r in restrict writable %3 : (tensor<$Mx$Nxf32>, memref<$Mx$Nxf32>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, ElementwiseChain) {
  auto compiled = compile(substitute(
      executable({{"elementwise",
                   "%a: !stream.binding, %b: !stream.binding, %c: "
                   "!stream.binding, %o: !stream.binding",
                   kElementwiseBody}}),
      {{"$M", "37"}, {"$N", "53"}}));
  ASSERT_COMPILED(compiled);
  EXPECT_EQ(compiled->object.pushConstantWords[0], 0u);
  EXPECT_VALID_SPIRV(*compiled);
}

const char *kMatmulBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Mx$Kxf32>
      %1 = stream.binding.subspan %b[%c0] : !stream.binding -> memref<$Kx$Nxf32>
      %3 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Mx$Kxf32> to tensor<$Mx$Kxf32>
      %tb = bufferization.to_tensor %1 restrict : memref<$Kx$Nxf32> to tensor<$Kx$Nxf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<$Mx$Nxf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<$Mx$Nxf32>) -> tensor<$Mx$Nxf32>
      %mm = linalg.matmul ins(%ta, %tb : tensor<$Mx$Kxf32>, tensor<$Kx$Nxf32>) outs(%f : tensor<$Mx$Nxf32>) -> tensor<$Mx$Nxf32>
      bufferization.materialize_in_destination %mm in restrict writable %3 : (tensor<$Mx$Nxf32>, memref<$Mx$Nxf32>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, MatmulOddSizes) {
  auto compiled = compile(substitute(
      executable({{"matmul",
                   "%a: !stream.binding, %b: !stream.binding, %o: "
                   "!stream.binding",
                   kMatmulBody}}),
      {{"$M", "37"}, {"$K", "65"}, {"$N", "129"}}));
  ASSERT_COMPILED(compiled);
  EXPECT_VALID_SPIRV(*compiled);
}

const char *kRowSumBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Rx$Cxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Rxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Rx$Cxf32> to tensor<$Rx$Cxf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<$Rxf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<$Rxf32>) -> tensor<$Rxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%ta : tensor<$Rx$Cxf32>) outs(%f : tensor<$Rxf32>) {
      ^bb0(%x: f32, %acc: f32):
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      } -> tensor<$Rxf32>
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$Rxf32>, memref<$Rxf32>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, RowSum) {
  auto compiled = compile(substitute(
      executable({{"rowsum", "%a: !stream.binding, %o: !stream.binding",
                   kRowSumBody}}),
      {{"$R", "100"}, {"$C", "77"}}));
  ASSERT_COMPILED(compiled);
  EXPECT_VALID_SPIRV(*compiled);
}

/// A column sum (reduction outside, the parallel dimension inside) and the
/// total of the same operand: a 0-d result no parallel loop writes.
const char *kColumnAndTotalBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Rx$Cxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Cxf32>
      %2 = stream.binding.subspan %t[%c0] : !stream.binding -> memref<f32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Rx$Cxf32> to tensor<$Rx$Cxf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<$Cxf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<$Cxf32>) -> tensor<$Cxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%ta : tensor<$Rx$Cxf32>) outs(%f : tensor<$Cxf32>) {
      ^bb0(%x: f32, %acc: f32):
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      } -> tensor<$Cxf32>
      %e0 = tensor.empty() : tensor<f32>
      %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
      %total = linalg.reduce ins(%r : tensor<$Cxf32>) outs(%f0 : tensor<f32>) dimensions = [0]
        (%in: f32, %acc: f32) {
          %s = arith.addf %in, %acc : f32
          linalg.yield %s : f32
        }
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$Cxf32>, memref<$Cxf32>) -> ()
      bufferization.materialize_in_destination %total in restrict writable %2 : (tensor<f32>, memref<f32>) -> ()
)mlir";

/// spirv-dis of `compiled`; skips the test without SPIRV-Tools.
#define DISASSEMBLE(compiled, text)                                            \
  do {                                                                         \
    bool skipped = false;                                                      \
    int rc = runSpirvTool("spirv-dis", {},                                     \
                          (compiled).object.words, text, skipped);             \
    SKIP_WITHOUT_SPIRV_TOOLS(skipped);                                         \
    ASSERT_EQ(rc, 0) << text;                                                  \
  } while (false)

TEST(SPIRVKernelCompiler, DistributesOverInvocations) {
  std::string source = substitute(
      executable({{"sums",
                   "%a: !stream.binding, %o: !stream.binding, %t: "
                   "!stream.binding",
                   kColumnAndTotalBody}}),
      {{"$R", "37"}, {"$C", "129"}});
  auto compiled = compile(source);
  ASSERT_COMPILED(compiled);
  EXPECT_VALID_SPIRV(*compiled);
  std::string text;
  DISASSEMBLE(*compiled, text);
  EXPECT_NE(text.find("LocalSize 64 1 1"), std::string::npos) << text;
  EXPECT_NE(text.find("BuiltIn LocalInvocationId"), std::string::npos) << text;
  // Barriers between the loop nests cover storage buffers: semantics
  // AcquireRelease | UniformMemory | WorkgroupMemory = 0x148.
  EXPECT_NE(text.find("OpControlBarrier"), std::string::npos) << text;
  EXPECT_NE(text.find("OpConstant %uint 328"), std::string::npos) << text;

  // workgroup_size = 1: one invocation computes the whole tile.
  auto serial = compile(source, /*maxLoopIterations=*/0, /*invocations=*/1);
  ASSERT_COMPILED(serial);
  EXPECT_VALID_SPIRV(*serial);
  DISASSEMBLE(*serial, text);
  EXPECT_NE(text.find("LocalSize 1 1 1"), std::string::npos) << text;
}

const char *kSoftmaxBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Rx$Cxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Rx$Cxf32>
      %x = bufferization.to_tensor %0 restrict : memref<$Rx$Cxf32> to tensor<$Rx$Cxf32>
      %ninf = arith.constant 0xFF800000 : f32
      %zero = arith.constant 0.0 : f32
      %me = tensor.empty() : tensor<$Rxf32>
      %minit = linalg.fill ins(%ninf : f32) outs(%me : tensor<$Rxf32>) -> tensor<$Rxf32>
      %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<$Rx$Cxf32>) outs(%minit : tensor<$Rxf32>) {
      ^bb0(%v: f32, %acc: f32):
        %m = arith.maximumf %v, %acc : f32
        linalg.yield %m : f32
      } -> tensor<$Rxf32>
      %ex = tensor.empty() : tensor<$Rx$Cxf32>
      %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<$Rx$Cxf32>, tensor<$Rxf32>) outs(%ex : tensor<$Rx$Cxf32>) {
      ^bb0(%v: f32, %m: f32, %out: f32):
        %d = arith.subf %v, %m : f32
        %e = math.exp %d : f32
        linalg.yield %e : f32
      } -> tensor<$Rx$Cxf32>
      %se = tensor.empty() : tensor<$Rxf32>
      %sinit = linalg.fill ins(%zero : f32) outs(%se : tensor<$Rxf32>) -> tensor<$Rxf32>
      %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<$Rx$Cxf32>) outs(%sinit : tensor<$Rxf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %v, %acc : f32
        linalg.yield %s : f32
      } -> tensor<$Rxf32>
      %eo = tensor.empty() : tensor<$Rx$Cxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<$Rx$Cxf32>, tensor<$Rxf32>) outs(%eo : tensor<$Rx$Cxf32>) {
      ^bb0(%v: f32, %s: f32, %out: f32):
        %q = arith.divf %v, %s : f32
        linalg.yield %q : f32
      } -> tensor<$Rx$Cxf32>
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$Rx$Cxf32>, memref<$Rx$Cxf32>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, Softmax) {
  auto compiled = compile(substitute(
      executable({{"softmax", "%a: !stream.binding, %o: !stream.binding",
                   kSoftmaxBody}}),
      {{"$R", "40"}, {"$C", "77"}}));
  ASSERT_COMPILED(compiled);
  EXPECT_VALID_SPIRV(*compiled);
}

TEST(SPIRVKernelCompiler, RefusesTemporariesBeyondWorkgroupMemory) {
  // 100 x 77 f32 row-group temporaries in one workgroup: 30 KiB.
  auto compiled = compile(substitute(
      executable({{"softmax", "%a: !stream.binding, %o: !stream.binding",
                   kSoftmaxBody}}),
      {{"$R", "100"}, {"$C", "77"}}));
  ASSERT_FALSE(static_cast<bool>(compiled));
  std::string message = llvm::toString(compiled.takeError());
  EXPECT_NE(message.find("bytes of temporaries in one workgroup"),
            std::string::npos)
      << message;
}

TEST(SPIRVKernelCompiler, RefusesKernelsOverTheLoopBudget) {
  // lavapipe's silent loop limit, made small: the matmul tile needs more
  // (its 65-step reduction alone, whatever tiles the host's caches give).
  auto compiled = compile(
      substitute(executable({{"matmul",
                              "%a: !stream.binding, %b: !stream.binding, %o: "
                              "!stream.binding",
                              kMatmulBody}}),
                 {{"$M", "37"}, {"$K", "65"}, {"$N", "129"}}),
      /*maxLoopIterations=*/64);
  ASSERT_FALSE(static_cast<bool>(compiled));
  std::string message = llvm::toString(compiled.takeError());
  EXPECT_NE(message.find("more than the target's max_loop_iterations = 64"),
            std::string::npos)
      << message;
  // The default budget takes the same kernel.
  EXPECT_TRUE(static_cast<bool>(compile(
      substitute(executable({{"matmul",
                              "%a: !stream.binding, %b: !stream.binding, %o: "
                              "!stream.binding",
                              kMatmulBody}}),
                 {{"$M", "37"}, {"$K", "65"}, {"$N", "129"}}),
      kDefaultMaxLoopIterations)));
}


TEST(SPIRVKernelCompiler, TwoExports) {
  auto compiled = compile(substitute(
      executable(
          {{"abs", "%a: !stream.binding, %o: !stream.binding, %n: index",
            kAbsBody},
           {"matmul",
            "%a: !stream.binding, %b: !stream.binding, %o: !stream.binding",
            kMatmulBody}}),
      {{"$M", "20"}, {"$K", "30"}, {"$N", "40"}}));
  ASSERT_COMPILED(compiled);
  EXPECT_EQ(compiled->object.workgroupSizes.size(), 2u);
  EXPECT_EQ(compiled->object.pushConstantWords,
            (std::vector<uint32_t>{2, 0}));
  EXPECT_VALID_SPIRV(*compiled);
}

/// Push constants of each one-word kind plus an index byte offset.
const char *kScaleBody = R"mlir(
      %0 = stream.binding.subspan %a[%offset] : !stream.binding -> memref<$Nxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Nxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Nxf32> to tensor<$Nxf32>
      %kf = arith.sitofp %k : i32 to f32
      %e = tensor.empty() : tensor<$Nxf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ta : tensor<$Nxf32>) outs(%e : tensor<$Nxf32>) {
      ^bb0(%x: f32, %out: f32):
        %m = arith.mulf %x, %s : f32
        %v = arith.addf %m, %kf : f32
        %w = arith.select %flag, %v, %x : f32
        linalg.yield %w : f32
      } -> tensor<$Nxf32>
      bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<$Nxf32>, memref<$Nxf32>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, PushConstantsAndBindingOffsets) {
  auto compiled = compile(substitute(
      executable({{"scale",
                   "%a: !stream.binding, %o: !stream.binding, %s: f32, %k: "
                   "i32, %offset: index, %flag: i1",
                   kScaleBody}}),
      {{"$N", "1000"}}));
  ASSERT_COMPILED(compiled);
  // f32, i32: one word each; index: two; i1: one.
  EXPECT_EQ(compiled->object.pushConstantWords[0], 5u);
  EXPECT_VALID_SPIRV(*compiled);
}

const char *kTransposePadBody = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Mx$Nxf32>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Px$Qxf32>
      %ta = bufferization.to_tensor %0 restrict : memref<$Mx$Nxf32> to tensor<$Mx$Nxf32>
      %e = tensor.empty() : tensor<$Nx$Mxf32>
      %t = linalg.transpose ins(%ta : tensor<$Mx$Nxf32>) outs(%e : tensor<$Nx$Mxf32>) permutation = [1, 0]
      %zero = arith.constant 0.0 : f32
      %p = tensor.pad %t low[1, 2] high[3, 4] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<$Nx$Mxf32> to tensor<$Px$Qxf32>
      bufferization.materialize_in_destination %p in restrict writable %1 : (tensor<$Px$Qxf32>, memref<$Px$Qxf32>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, TransposeAndPad) {
  auto compiled = compile(substitute(
      executable({{"transpose_pad", "%a: !stream.binding, %o: !stream.binding",
                   kTransposePadBody}}),
      {{"$M", "13"}, {"$N", "17"}, {"$P", "21"}, {"$Q", "19"}}));
  ASSERT_COMPILED(compiled);
  EXPECT_VALID_SPIRV(*compiled);
}

const char *kI64Body = R"mlir(
      %0 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<16xi64>
      %1 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<16xi64>
      %ta = bufferization.to_tensor %0 restrict : memref<16xi64> to tensor<16xi64>
      bufferization.materialize_in_destination %ta in restrict writable %1 : (tensor<16xi64>, memref<16xi64>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, I64IsAnError) {
  auto compiled = compile(executable(
      {{"copy64", "%a: !stream.binding, %o: !stream.binding", kI64Body}}));
  ASSERT_FALSE(static_cast<bool>(compiled));
  std::string message = llvm::toString(compiled.takeError());
  EXPECT_NE(message.find("vulkan-spirv: export 'copy64': 64-bit integers"),
            std::string::npos)
      << message;
}

} // namespace

namespace {

/// i1 bindings are bytes on the host (BooleanBindings.cpp); byte stores to
/// storage buffers do not lower without Int8 storage yet: a clear error.
const char *kMaskBody = R"mlir(
      %0 = stream.binding.subspan %m[%c0] : !stream.binding -> memref<$Nxi1>
      %1 = stream.binding.subspan %a[%c0] : !stream.binding -> memref<$Nxf32>
      %2 = stream.binding.subspan %o[%c0] : !stream.binding -> memref<$Nxi1>
      %tm = bufferization.to_tensor %0 restrict : memref<$Nxi1> to tensor<$Nxi1>
      %ta = bufferization.to_tensor %1 restrict : memref<$Nxf32> to tensor<$Nxf32>
      %e = tensor.empty() : tensor<$Nxi1>
      %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%tm, %ta : tensor<$Nxi1>, tensor<$Nxf32>) outs(%e : tensor<$Nxi1>) {
      ^bb0(%b: i1, %x: f32, %out: i1):
        %zero = arith.constant 0.0 : f32
        %pos = arith.cmpf ogt, %x, %zero : f32
        %v = arith.xori %b, %pos : i1
        linalg.yield %v : i1
      } -> tensor<$Nxi1>
      bufferization.materialize_in_destination %r in restrict writable %2 : (tensor<$Nxi1>, memref<$Nxi1>) -> ()
)mlir";

TEST(SPIRVKernelCompiler, BooleanBindingsAreAnError) {
  auto compiled = compile(substitute(
      executable({{"mask",
                   "%m: !stream.binding, %a: !stream.binding, %o: "
                   "!stream.binding",
                   kMaskBody}}),
      {{"$N", "1001"}}));
  ASSERT_FALSE(static_cast<bool>(compiled));
  std::string message = llvm::toString(compiled.takeError());
  EXPECT_NE(message.find("vulkan-spirv: export 'mask': i1/i8 bindings are "
                         "not supported yet"),
            std::string::npos)
      << message;
}

} // namespace
