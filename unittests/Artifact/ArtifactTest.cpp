//===- ArtifactTest.cpp - flat .fleet files: written, loaded, rejected ----===//
//
// The compiler's writer (fleet/Artifact/Artifact.h) and the runtime's loader
// (Context::loadArtifact): a host program round trips and runs; damaged
// headers, other versions, a wrong checksum and truncation are rejected with
// a message; the op table the writer uses is the runtime's
// (OpTable.def: every kind has a handler and a parsable layout).
//
//===----------------------------------------------------------------------===//

#include "fleet/Artifact/Artifact.h"
#include "fleet/Tools/InitAll.h"
#include "fleet/runtime/host/ArtifactFormat.h"
#include "fleet/runtime/host/Context.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace {

using namespace fleet::runtime;

constexpr const char *kModule = R"mlir(
module attributes {fleet.module_name = "m"} {
  util.global private mutable @count = 0 : i64
  util.func public @sum(%n: i64) -> i64 {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
      %next = arith.addi %acc, %i : i64
      scf.yield %next : i64
    }
    %old = util.global.load @count : i64
    %new = arith.addi %old, %c1 : i64
    util.global.store %new, @count : i64
    util.return %r : i64
  }
}
)mlir";

class ArtifactTest : public ::testing::Test {
protected:
  ArtifactTest() {
    fleet::registerAllDialects(registry);
    mlir = std::make_unique<::mlir::MLIRContext>(registry);
    mlir->loadAllAvailableDialects();
  }

  std::vector<uint8_t> write(const char *text) {
    auto module = ::mlir::parseSourceString<::mlir::ModuleOp>(text, mlir.get());
    EXPECT_TRUE(module);
    std::vector<uint8_t> bytes;
    std::string error;
    EXPECT_TRUE(fleet::emitArtifact(*module, bytes, error)) << error;
    return bytes;
  }

  /// The load's error message, or "" when it loads.
  std::string load(const std::vector<uint8_t> &bytes) {
    auto context = host::Context::create({});
    auto module = (*context)->loadArtifact(bytes, "test.fleet");
    return module.ok() ? std::string() : module.status().message();
  }

  void reseal(std::vector<uint8_t> &bytes) {
    host::writeArtifactHeader(bytes.data(),
                              bytes.data() + host::kArtifactHeaderSize,
                              bytes.size() - host::kArtifactHeaderSize);
  }

  ::mlir::DialectRegistry registry;
  std::unique_ptr<::mlir::MLIRContext> mlir;
};

TEST_F(ArtifactTest, WrittenLoadedAndRun) {
  std::vector<uint8_t> bytes = write(kModule);
  auto context = host::Context::create({});
  ASSERT_TRUE(context.ok());
  auto module = (*context)->loadArtifact(bytes, "test.fleet");
  ASSERT_TRUE(module.ok()) << module.status().toString();
  EXPECT_EQ((*module)->name(), "m");
  const host::Function *sum = (*context)->lookupFunction("sum");
  ASSERT_TRUE(sum);
  std::vector<host::Value> results;
  ASSERT_TRUE((*context)->invoke(*sum, {host::Value::i64(5)}, results).ok());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].asSigned(), 10);
}

TEST_F(ArtifactTest, UnsupportedHostIRIsAWriterError) {
  auto module = ::mlir::parseSourceString<::mlir::ModuleOp>(R"mlir(
    util.func public @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      util.return %x : tensor<4xf32>
    }
  )mlir", mlir.get());
  ASSERT_TRUE(module);
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_FALSE(fleet::emitArtifact(*module, bytes, error));
  EXPECT_NE(error.find("cannot hold values of type tensor<4xf32>"),
            std::string::npos)
      << error;
}

TEST_F(ArtifactTest, RejectsDamagedHeadersVersionsAndPayloads) {
  std::vector<uint8_t> bytes = write(kModule);
  ASSERT_EQ(load(bytes), "");

  std::vector<uint8_t> magic = bytes;
  magic[0] = 'X';
  EXPECT_NE(load(magic).find("not a Fleet artifact"), std::string::npos);

  std::vector<uint8_t> version = bytes;
  version[8] = 7;
  EXPECT_NE(load(version).find("artifact format version 7 is not supported"),
            std::string::npos)
      << load(version);

  std::vector<uint8_t> flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x40;
  EXPECT_NE(load(flipped).find("checksum mismatch"), std::string::npos);

  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + bytes.size() / 2);
  EXPECT_NE(load(cut).find("corrupt or truncated artifact"), std::string::npos);

  // Resealed garbage reaches the FlatBuffers verifier.
  std::vector<uint8_t> garbage = bytes;
  for (size_t i = host::kArtifactHeaderSize; i < garbage.size(); ++i)
    garbage[i] = uint8_t(i * 131);
  reseal(garbage);
  EXPECT_NE(load(garbage).find("FlatBuffers verifier"), std::string::npos)
      << load(garbage);
}

TEST(OpTableTest, EveryKindHasALayoutTheCheckerReads) {
  uint8_t scalars[8] = {};
  host::RegisterTypes types{scalars, 8, nullptr, 0};
  for (uint32_t k = 0; k < host::kOpKindCount; ++k) {
    auto kind = host::OpKind(k);
    EXPECT_STRNE(host::opKindName(kind), "?");
    // A wrong slot count is reported (with the layout), except for the
    // variadic calls and returns.
    if (std::string(host::opKindLayout(kind)) == "(*)*")
      continue;
    uint32_t slots[64] = {};
    std::string problem = host::checkRecord(kind, slots, 63, 1, 1, types);
    EXPECT_FALSE(problem.empty()) << host::opKindName(kind);
  }
}

} // namespace
