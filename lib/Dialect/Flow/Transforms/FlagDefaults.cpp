//===- FlagDefaults.cpp - defaults the global flags set for flow passes ---===//

#include "fleet/Dialect/Flow/Transforms/Passes.h"

fleet::flow::FlagDefaults &fleet::flow::getFlagDefaults() {
  static FlagDefaults defaults;
  return defaults;
}
