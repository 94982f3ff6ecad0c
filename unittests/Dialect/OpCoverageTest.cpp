//===- OpCoverageTest.cpp - every registered op has a round-trip case -----===//
//
// Walks the operations the four Fleet dialects register in an MLIRContext
// and fails for any op whose name appears in no round-trip file under
// test/Dialect/<D>/IR/ (files whose name does not start with "invalid"), so
// test coverage cannot silently lag behind the dialects (Fleet issue 4).
//
//===----------------------------------------------------------------------===//

#include "fleet/Tools/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

/// Concatenated text of the round-trip files of every dialect.
std::string readRoundTripFiles(std::string &listing) {
  std::string text;
  std::filesystem::path root(FLEET_SOURCE_DIR "/test/Dialect");
  for (const auto &dialect : std::filesystem::directory_iterator(root)) {
    std::filesystem::path ir = dialect.path() / "IR";
    if (!std::filesystem::is_directory(ir))
      continue;
    for (const auto &file : std::filesystem::directory_iterator(ir)) {
      std::string name = file.path().filename().string();
      if (file.path().extension() != ".mlir" || name.rfind("invalid", 0) == 0)
        continue;
      std::ifstream in(file.path());
      std::stringstream buffer;
      buffer << in.rdbuf();
      text += buffer.str();
      listing += "  " + file.path().string() + "\n";
    }
  }
  return text;
}

TEST(OpCoverage, EveryOpHasARoundTripCase) {
  mlir::DialectRegistry registry;
  fleet::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string listing;
  std::string text = readRoundTripFiles(listing);
  ASSERT_FALSE(text.empty()) << "no round-trip files found under "
                             << FLEET_SOURCE_DIR "/test/Dialect";

  unsigned checked = 0;
  for (mlir::RegisteredOperationName op :
       context.getRegisteredOperations()) {
    llvm::StringRef ns = op.getDialectNamespace();
    if (ns != "util" && ns != "flow" && ns != "stream" && ns != "hal")
      continue;
    ++checked;
    // Match the op name followed by a character that cannot continue it
    // (so `stream.async.call` is not satisfied by `stream.async.call_x`).
    std::string name = op.getStringRef().str();
    bool found = false;
    for (size_t pos = text.find(name); pos != std::string::npos;
         pos = text.find(name, pos + 1)) {
      char next = pos + name.size() < text.size() ? text[pos + name.size()] : ' ';
      if (!(std::isalnum(static_cast<unsigned char>(next)) || next == '_' ||
            next == '.')) {
        found = true;
        break;
      }
    }
    EXPECT_TRUE(found) << "op '" << name
                       << "' has no round-trip case in:\n"
                       << listing;
  }
  // util, flow, stream and hal together register well over 100 ops.
  EXPECT_GT(checked, 100u);
}

} // namespace
