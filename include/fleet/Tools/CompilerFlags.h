//===- CompilerFlags.h - IREE's compiler flags of the tools -----*- C++ -*-===//
//
// The global flags fleet-opt and fleet-compile share, each named as IREE's
// flag of the same meaning without the `iree-` prefix
// (docs/contributing.md "IREE flags"). They store into the flag defaults of
// the component whose passes read them (fleet::input::getFlagDefaults(),
// fleet::hal::getFlagDefaults(), fleet::codegen::getFlagDefaults()), so a
// pass run on its own in fleet-opt and the pipelines of fleet-compile see the
// same values; an option given to a pass explicitly wins.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_TOOLS_COMPILERFLAGS_H
#define FLEET_TOOLS_COMPILERFLAGS_H

#include "llvm/Support/CommandLine.h"

namespace fleet {

/// Registers the flags with the command-line parser. Call before parsing;
/// safe to call more than once.
void registerCompilerFlags();

/// The category the flags are listed under in --help.
llvm::cl::OptionCategory &getCompilerFlagsCategory();

} // namespace fleet

#endif // FLEET_TOOLS_COMPILERFLAGS_H
