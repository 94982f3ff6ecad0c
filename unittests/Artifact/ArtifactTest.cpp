//===- ArtifactTest.cpp - .fleet files round trip and reject bad input ----===//

#include "fleet/Artifact/Artifact.h"
#include "fleet/Tools/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace {

constexpr const char *kModule = R"mlir(
module {
  util.global private @d = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.func public @f(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    util.return %arg0 : !hal.buffer_view
  }
}
)mlir";

class ArtifactTest : public ::testing::Test {
protected:
  ArtifactTest() {
    fleet::registerAllDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  std::string print(mlir::ModuleOp module) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    return text;
  }

  /// A written artifact of kModule and its text after the version stamps.
  std::pair<std::string, std::string> write() {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, context.get());
    EXPECT_TRUE(module);
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    EXPECT_TRUE(mlir::succeeded(fleet::writeArtifact(*module, os)));
    os.flush();
    return {bytes, print(*module)};
  }

  mlir::OwningOpRef<mlir::ModuleOp> read(llvm::StringRef bytes,
                                         std::string &error) {
    auto buffer = llvm::MemoryBuffer::getMemBuffer(bytes, "test.fleet",
                                                   /*RequiresNullTerminator=*/false);
    return fleet::readArtifact(buffer->getMemBufferRef(), context.get(), error);
  }

  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> context;
};

TEST_F(ArtifactTest, WrittenAndReadBackEqualsTheOriginal) {
  auto [bytes, text] = write();
  std::string error;
  auto module = read(bytes, error);
  ASSERT_TRUE(module) << error;
  EXPECT_EQ(print(*module), text);
  EXPECT_NE(text.find("fleet.artifact_version = 1"), std::string::npos);
}

TEST_F(ArtifactTest, RejectsTextInput) {
  std::string error;
  EXPECT_FALSE(read(kModule, error));
  EXPECT_NE(error.find("test.fleet: not a Fleet artifact"), std::string::npos)
      << error;
}

TEST_F(ArtifactTest, RejectsTruncatedFiles) {
  auto [bytes, text] = write();
  // Every prefix that keeps the magic number must be rejected cleanly.
  for (size_t length = 4; length < bytes.size(); length += 7) {
    std::string error;
    EXPECT_FALSE(read(llvm::StringRef(bytes).take_front(length), error))
        << "prefix of " << length << " bytes accepted";
    EXPECT_NE(error.find("test.fleet:"), std::string::npos) << error;
  }
}

TEST_F(ArtifactTest, RejectsCorruptBytes) {
  auto [bytes, text] = write();
  // Flip bytes after the header; reading may fail or (rarely) succeed with a
  // changed but valid module -- it must never crash.
  for (size_t pos = 8; pos < bytes.size(); pos += 13) {
    std::string corrupt = bytes;
    corrupt[pos] = static_cast<char>(corrupt[pos] ^ 0x5a);
    std::string error;
    auto module = read(corrupt, error);
    if (!module) {
      EXPECT_FALSE(error.empty());
    }
  }
}

TEST_F(ArtifactTest, ChecksumRejectsEveryChangedByte) {
  // The producer string carries the XXH3 hash of the rest (Artifact.h), so
  // any change after the header is caught before MLIR parses the bytecode.
  auto [bytes, text] = write();
  size_t producer = bytes.find("fleet xxh3=");
  ASSERT_NE(producer, std::string::npos);
  size_t payload = bytes.find('\0', producer) + 1;
  for (size_t pos = payload; pos < bytes.size(); pos += 3) {
    std::string corrupt = bytes;
    corrupt[pos] = static_cast<char>(corrupt[pos] ^ 0x01);
    std::string error;
    EXPECT_FALSE(read(corrupt, error)) << "byte " << pos;
    EXPECT_NE(error.find("test.fleet: corrupt artifact: checksum mismatch"),
              std::string::npos)
        << error;
  }
  std::string header = bytes;
  header[producer + 2] = 'X'; // "flXet": no longer a Fleet checksum header
  std::string error;
  EXPECT_TRUE(read(header, error)) << "bytecode of another producer: " << error;
  // Damaged producers starting with "fleet" are rejected, not parsed.
  for (const char *producerText : {"fleet xxh3=12", "fleetX", "fleet "}) {
    std::string shortened = bytes.substr(0, producer) + producerText +
                            bytes.substr(bytes.find('\0', producer));
    EXPECT_FALSE(read(shortened, error)) << producerText;
    EXPECT_NE(error.find("damaged header"), std::string::npos) << error;
  }
  std::string damaged = bytes;
  damaged[producer + 11] = 'z';
  EXPECT_FALSE(read(damaged, error));
  EXPECT_NE(error.find("checksum mismatch"), std::string::npos) << error;
}

TEST_F(ArtifactTest, RejectsOtherFormatVersions) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, context.get());
  ASSERT_TRUE(module);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  ASSERT_TRUE(mlir::succeeded(fleet::writeArtifact(*module, os)));
  // Rewrite the version as an older writer would have and write again
  // without re-stamping (write the bytecode directly).
  module->getOperation()->setAttr(
      "fleet.artifact_version",
      mlir::IntegerAttr::get(mlir::IntegerType::get(context.get(), 64), 99));
  std::string other;
  llvm::raw_string_ostream otherOs(other);
  ASSERT_TRUE(mlir::succeeded(mlir::writeBytecodeToFile(*module, otherOs)));
  otherOs.flush();
  std::string error;
  EXPECT_FALSE(read(other, error));
  EXPECT_NE(error.find("artifact format version 99 is not supported"),
            std::string::npos)
      << error;
}

} // namespace
