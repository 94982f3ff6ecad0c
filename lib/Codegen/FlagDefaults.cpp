//===- FlagDefaults.cpp - defaults the global flags set for codegen passes ===//

#include "fleet/Codegen/Passes.h"

fleet::codegen::FlagDefaults &fleet::codegen::getFlagDefaults() {
  static FlagDefaults defaults;
  return defaults;
}
