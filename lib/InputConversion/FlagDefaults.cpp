//===- FlagDefaults.cpp - defaults the global flags set for input passes --===//

#include "fleet/InputConversion/Passes.h"

fleet::input::FlagDefaults &fleet::input::getFlagDefaults() {
  static FlagDefaults defaults;
  return defaults;
}
