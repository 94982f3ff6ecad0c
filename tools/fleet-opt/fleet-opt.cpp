//===- fleet-opt.cpp - Fleet's opt driver ---------------------------------===//
//
// Registers Fleet's dialects and passes plus the upstream ones Fleet uses,
// and the IREE-named compiler flags the passes default to
// (fleet/Tools/CompilerFlags.h), then hands over to MlirOptMain.
//
//===----------------------------------------------------------------------===//

#include "fleet/Tools/CompilerFlags.h"
#include "fleet/Tools/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  fleet::registerAllDialects(registry);
  fleet::registerAllPasses();
  fleet::registerCompilerFlags();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Fleet optimizer driver\n", registry));
}
