//===- ExecutorTest.cpp - the host-program executor ----------------------===//
//
// Context.h on host IR parsed from text and written as a flat artifact by the
// compiler's writer (fleet/Artifact/Artifact.h): compiled control flow and scalars,
// device binding and its errors, imports between modules, signatures, the
// call-depth limit, and hal ops that need no kernel (fills, copies, updates,
// imports of host constants).
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/host/Context.h"

#include "fleet/Artifact/Artifact.h"
#include "fleet/Tools/InitAll.h"
#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/tooling/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace fleet::runtime;

namespace {

class ExecutorTest : public ::testing::Test {
protected:
  ExecutorTest() {
    mlir::DialectRegistry registry;
    fleet::registerAllDialects(registry);
    mlir.appendDialectRegistry(registry);
    mlir.loadAllAvailableDialects();
  }

  /// A context on devices created from `uris`.
  std::unique_ptr<host::Context> makeContext(std::vector<std::string> uris) {
    std::vector<hal::Ref<hal::Device>> devices;
    for (const std::string &uri : uris) {
      auto device = hal::createDevice(uri);
      EXPECT_TRUE(device.ok()) << device.status().toString();
      devices.push_back(*device);
    }
    auto context = host::Context::create(std::move(devices));
    EXPECT_TRUE(context.ok()) << context.status().toString();
    return std::move(*context);
  }

  hal::StatusOr<host::Module *> load(host::Context &context,
                                     const std::string &text) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, &mlir);
    EXPECT_TRUE(module) << "cannot parse:\n" << text;
    if (!module)
      return hal::makeStatus(hal::StatusCode::InvalidArgument, "parse");
    std::vector<uint8_t> bytes;
    std::string error;
    if (!fleet::emitArtifact(*module, bytes, error))
      return hal::makeStatus(hal::StatusCode::InvalidArgument, error);
    return context.loadArtifact(bytes, "test.mlir");
  }

  std::vector<host::Value> call(host::Context &context, const char *name,
                                std::vector<host::Value> arguments) {
    const host::Function *function = context.lookupFunction(name);
    EXPECT_TRUE(function) << name;
    std::vector<host::Value> results;
    if (!function)
      return results;
    hal::Status status = context.invoke(*function, arguments, results);
    EXPECT_TRUE(status.ok()) << status.toString();
    return results;
  }

  mlir::MLIRContext mlir;
};

TEST_F(ExecutorTest, ScalarControlFlow) {
  auto context = makeContext({});
  auto module = load(*context, R"mlir(
    util.global private mutable @total = 0 : i64
    util.func public @collatz(%n: i64) -> i64 {
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %c2 = arith.constant 2 : i64
      %c3 = arith.constant 3 : i64
      %r:2 = scf.while (%x = %n, %steps = %c0) : (i64, i64) -> (i64, i64) {
        %more = arith.cmpi ne, %x, %c1 : i64
        scf.condition(%more) %x, %steps : i64, i64
      } do {
      ^bb0(%y: i64, %s: i64):
        %rem = arith.remui %y, %c2 : i64
        %odd = arith.cmpi eq, %rem, %c1 : i64
        %next = scf.if %odd -> i64 {
          %t = arith.muli %y, %c3 : i64
          %u = arith.addi %t, %c1 : i64
          scf.yield %u : i64
        } else {
          %h = arith.divui %y, %c2 : i64
          scf.yield %h : i64
        }
        %s1 = arith.addi %s, %c1 : i64
        scf.yield %next, %s1 : i64, i64
      }
      %old = util.global.load @total : i64
      %new = arith.addi %old, %r#1 : i64
      util.global.store %new, @total : i64
      util.return %r#1 : i64
    }
    // Loop-carried values that swap every iteration (parallel moves).
    util.func public @swap(%n: index, %a: i32, %b: i32) -> (i32, i32) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (i32, i32) {
        scf.yield %y, %x : i32, i32
      }
      util.return %r#0, %r#1 : i32, i32
    }
    util.func public @get_total() -> i64 {
      %t = util.global.load @total : i64
      util.return %t : i64
    }
  )mlir");
  ASSERT_TRUE(module.ok()) << module.status().toString();
  EXPECT_EQ(call(*context, "collatz", {host::Value::i64(27)})[0].asSigned(),
            111);
  EXPECT_EQ(call(*context, "collatz", {host::Value::i64(6)})[0].asSigned(), 8);
  EXPECT_EQ(call(*context, "get_total", {})[0].asSigned(), 119);
  auto odd = call(*context, "swap",
                  {host::Value::index(3), host::Value::i32(1),
                   host::Value::i32(2)});
  EXPECT_EQ(odd[0].asSigned(), 2);
  EXPECT_EQ(odd[1].asSigned(), 1);
  auto none = call(*context, "swap",
                   {host::Value::index(0), host::Value::i32(1),
                    host::Value::i32(2)});
  EXPECT_EQ(none[0].asSigned(), 1);
  EXPECT_EQ(none[1].asSigned(), 2);
}

TEST_F(ExecutorTest, InvokeChecksArguments) {
  auto context = makeContext({});
  ASSERT_TRUE(load(*context, R"mlir(
    util.func public @id(%x: i32) -> i32 { util.return %x : i32 }
  )mlir").ok());
  const host::Function *function = context->lookupFunction("id");
  ASSERT_TRUE(function);
  EXPECT_EQ(function->signature().toString("id"), "@id(i32) -> (i32)");
  std::vector<host::Value> results;
  hal::Status count = context->invoke(*function, {}, results);
  EXPECT_NE(count.message().find("takes 1 arguments, 0 given"),
            std::string::npos);
  std::vector<host::Value> wrongType = {host::Value::f32(1)};
  hal::Status type = context->invoke(*function, wrongType, results);
  EXPECT_NE(type.message().find("argument 0 is f32, expected i32"),
            std::string::npos);
  EXPECT_FALSE(context->lookupFunction("nothing"));
}

TEST_F(ExecutorTest, BindingNeedsEnoughDevices) {
  const char *text = R"mlir(
    util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
    util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
    util.global private @unused = #hal.device.target<"local", {ordinal = 5 : index}> : !hal.device
    util.func public @f() -> (!hal.device, !hal.device) {
      %a = util.global.load @a : !hal.device
      %b = util.global.load @b : !hal.device
      util.return %a, %b : !hal.device, !hal.device
    }
  )mlir";
  auto one = makeContext({"local-sync"});
  auto failed = load(*one, text);
  ASSERT_FALSE(failed.ok());
  const std::string &message = failed.status().message();
  EXPECT_NE(message.find("@a = local[0]\n"), std::string::npos) << message;
  EXPECT_NE(message.find("@b = local[1]  <- no such device"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("@unused"), std::string::npos) << message;
  EXPECT_NE(message.find("given 1 device(s): local-sync"), std::string::npos);
  EXPECT_TRUE(one->modules().empty());

  // Ordinal N is the N-th device serving "local", whatever its driver.
  auto two = makeContext({"local-task?name=first", "local-sync?name=second"});
  ASSERT_TRUE(load(*two, text).ok());
  auto devices = call(*two, "f", {});
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(static_cast<hal::Device *>(devices[0].object())->name(), "first");
  EXPECT_EQ(static_cast<hal::Device *>(devices[1].object())->name(), "second");
}

TEST_F(ExecutorTest, ModulesWithoutDeviceUseNeedNoDevice) {
  auto context = makeContext({});
  auto module = load(*context, R"mlir(
    util.global private @dev = #hal.device.target<"local"> : !hal.device
    util.global private @gpu = #hal.device.target<"cuda"> : !hal.device
    util.func public @f(%x: f64) -> f64 {
      %y = arith.mulf %x, %x : f64
      util.return %y : f64
    }
  )mlir");
  ASSERT_TRUE(module.ok()) << module.status().toString();
  EXPECT_EQ(call(*context, "f", {host::Value::f64(1.5)})[0].asFloat(), 2.25);

  auto cuda = load(*context, R"mlir(
    util.global private @gpu = #hal.device.target<"cuda"> : !hal.device
    util.func public @g() -> !hal.device {
      %d = util.global.load @gpu : !hal.device
      util.return %d : !hal.device
    }
  )mlir");
  ASSERT_FALSE(cuda.ok());
  EXPECT_NE(cuda.status().message().find("@gpu = cuda[0]  <- no such device"),
            std::string::npos)
      << cuda.status().message();
}

TEST_F(ExecutorTest, ImportsResolveAgainstEarlierModules) {
  auto context = makeContext({});
  ASSERT_TRUE(load(*context, R"mlir(
    module attributes {fleet.module_name = "lib"} {
      util.func public @square(%x: i32) -> i32 {
        %y = arith.muli %x, %x : i32
        util.return %y : i32
      }
    }
  )mlir").ok());
  auto user = load(*context, R"mlir(
    module attributes {fleet.module_name = "app"} {
      util.func private @lib.square(%x: i32) -> i32
      util.func public @fourth(%x: i32) -> i32 {
        %a = util.call @lib.square(%x) : (i32) -> i32
        %b = util.call @lib.square(%a) : (i32) -> i32
        util.return %b : i32
      }
    }
  )mlir");
  ASSERT_TRUE(user.ok()) << user.status().toString();
  EXPECT_EQ(call(*context, "fourth", {host::Value::i32(3)})[0].asSigned(), 81);
  EXPECT_EQ(call(*context, "lib.square", {host::Value::i32(5)})[0].asSigned(),
            25);
  EXPECT_EQ(context->lookupFunction("app.fourth")->qualifiedName(),
            "app.fourth");

  auto missing = load(*context, R"mlir(
    util.func private @lib.cube(%x: i32) -> i32
  )mlir");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(
                "import @lib.cube is not exported by any module loaded "
                "before this one (module 'lib' exports @lib.square; module "
                "'app' exports @app.fourth)"),
            std::string::npos)
      << missing.status().message();
  auto duplicate = load(*context, R"mlir(
    module attributes {fleet.module_name = "lib"} {}
  )mlir");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.status().message().find("already loaded"),
            std::string::npos);
  EXPECT_EQ(context->modules().size(), 2u);
}

TEST_F(ExecutorTest, CallDepthIsBounded) {
  auto context = makeContext({});
  ASSERT_TRUE(load(*context, R"mlir(
    util.func public @down(%n: i64) -> i64 {
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %done = arith.cmpi eq, %n, %c0 : i64
      %r = scf.if %done -> i64 {
        scf.yield %c0 : i64
      } else {
        %m = arith.subi %n, %c1 : i64
        %s = util.call @down(%m) : (i64) -> i64
        %t = arith.addi %s, %c1 : i64
        scf.yield %t : i64
      }
      util.return %r : i64
    }
  )mlir").ok());
  EXPECT_EQ(call(*context, "down", {host::Value::i64(200)})[0].asSigned(),
            200);
  std::vector<host::Value> results;
  std::vector<host::Value> deep = {host::Value::i64(100000)};
  hal::Status status =
      context->invoke(*context->lookupFunction("down"), deep, results);
  EXPECT_EQ(status.code(), hal::StatusCode::ResourceExhausted);
  EXPECT_NE(status.message().find("call depth exceeds 256"),
            std::string::npos);
}

TEST_F(ExecutorTest, SignatureFromAsserts) {
  auto context = makeContext({"local-sync"});
  ASSERT_TRUE(load(*context, R"mlir(
    util.func public @f(%v: !hal.buffer_view, %n: index, %w: !hal.fence, %s: !hal.fence) -> !hal.buffer_view attributes {hal.abi.convention = #hal.abi.convention<coarse_fences>} {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %f32 = hal.element_type<f32> : i32
      %dense = hal.encoding_type<dense_row_major> : i32
      hal.buffer_view.assert<%v : !hal.buffer_view> message("input0") shape([%n, %c3]) type(%f32) encoding(%dense)
      %b = hal.buffer_view.buffer<%v : !hal.buffer_view> : !hal.buffer
      %c12 = arith.constant 12 : index
      %r = hal.buffer_view.create buffer(%b : !hal.buffer)[%c0, %c12] shape([%c3]) type(%f32) encoding(%dense) : !hal.buffer_view
      util.return %r : !hal.buffer_view
    }
  )mlir").ok());
  const host::FunctionSignature &signature =
      context->lookupFunction("f")->signature();
  EXPECT_EQ(signature.convention, host::Convention::CoarseFences);
  EXPECT_EQ(signature.inputCount(), 2u);
  EXPECT_EQ(signature.toString("f"),
            "@f(?x3xf32, index, wait fence, signal fence) -> (3xf32)");
}

TEST_F(ExecutorTest, QueueOpsWithoutKernels) {
  // fill -> copy -> update through queue ops, then a buffer view of it; an
  // imported host constant as the copy source.
  auto context = makeContext({"local-task"});
  ASSERT_TRUE(load(*context, R"mlir(
    util.global private @dev = #hal.device.target<"local"> : !hal.device
    util.func public @f() -> !hal.buffer_view {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c0_i64 = arith.constant 0 : i64
      %cm1 = arith.constant -1 : i32
      %q = arith.constant -1 : i64
      %pattern = arith.constant 0x3F800000 : i32
      %i32 = hal.element_type<i32> : i32
      %dense = hal.encoding_type<dense_row_major> : i32
      %d = util.global.load @dev : !hal.device
      %allocator = hal.device.allocator<%d : !hal.device> : !hal.allocator
      %type = hal.memory_type<"HostVisible|DeviceVisible|DeviceLocal"> : i32
      %usage = hal.buffer_usage<"Transfer|DispatchStorage|MappingScoped"> : i32
      %none = util.null : !hal.fence
      %f0 = hal.fence.create device(%d : !hal.device) flags("None") : !hal.fence
      %buffer = hal.device.queue.alloca<%d : !hal.device> affinity(%q) wait(%none) signal(%f0) pool(%c0_i64) type(%type) usage(%usage) flags("None") : !hal.buffer{%c16}
      %f1 = hal.fence.create device(%d : !hal.device) flags("None") : !hal.fence
      hal.device.queue.fill<%d : !hal.device> affinity(%q) wait(%f0) signal(%f1) target(%buffer : !hal.buffer)[%c0] length(%c16) pattern(%pattern : i32) flags("None")
      %constant = util.buffer.constant : !util.buffer = dense<[7, 8]> : tensor<2xi32>
      %ok, %imported = hal.allocator.import<%allocator : !hal.allocator> source(%constant : !util.buffer)[%c0, %c8] affinity(%q) type(%type) usage(%usage) : i1, !hal.buffer
      %f2 = hal.fence.create device(%d : !hal.device) flags("None") : !hal.fence
      hal.device.queue.copy<%d : !hal.device> affinity(%q) wait(%f1) signal(%f2) source(%imported : !hal.buffer)[%c0] target(%buffer : !hal.buffer)[%c8] length(%c8) flags("None")
      %update = util.buffer.constant : !util.buffer = dense<[5]> : tensor<1xi32>
      %f3 = hal.fence.create device(%d : !hal.device) flags("None") : !hal.fence
      hal.device.queue.update<%d : !hal.device> affinity(%q) wait(%f2) signal(%f3) source(%update : !util.buffer)[%c0] target(%buffer : !hal.buffer)[%c4] length(%c4) flags("None")
      %status = hal.fence.await until([%f3]) timeout_millis(%cm1) flags("None") : i32
      util.status.check_ok %status, "queue ops failed"
      %view = hal.buffer_view.create buffer(%buffer : !hal.buffer)[%c0, %c16] shape([%c4]) type(%i32) encoding(%dense) : !hal.buffer_view
      util.return %view : !hal.buffer_view
    }
  )mlir").ok());
  auto results = call(*context, "f", {});
  ASSERT_EQ(results.size(), 1u);
  auto tensor = tooling::downloadTensor(*results[0].asBufferView(),
                                        hal::Timeout::milliseconds(5000));
  ASSERT_TRUE(tensor.ok());
  EXPECT_EQ(tooling::formatTensor(*tensor), "4xi32=1065353216 5 7 8");
}

} // namespace
