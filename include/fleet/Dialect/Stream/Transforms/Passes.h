//===- Passes.h - stream passes ---------------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_STREAM_TRANSFORMS_PASSES_H
#define FLEET_DIALECT_STREAM_TRANSFORMS_PASSES_H

#include "fleet/Dialect/Stream/IR/StreamDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fleet::stream {

#define GEN_PASS_DECL
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"

} // namespace fleet::stream

#endif // FLEET_DIALECT_STREAM_TRANSFORMS_PASSES_H
