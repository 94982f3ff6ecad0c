//===- FlagDefaults.cpp - defaults the global flags set for hal passes ----===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

fleet::hal::FlagDefaults &fleet::hal::getFlagDefaults() {
  static FlagDefaults defaults;
  return defaults;
}
