//===- Utils.h - shared pieces of the stream → hal conversion ---*- C++ -*-===//
//
// What every StreamToHAL pattern needs: the conversion state (device set,
// symbol table, type converter), turning an affinity into a device and queue
// mask, allocation targets (resolve_memory_properties + allocator.select) and
// the fences queue ops wait on and signal (docs/design.md §3–§4).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_CONVERSION_STREAMTOHAL_UTILS_H
#define FLEET_LIB_CONVERSION_STREAMTOHAL_UTILS_H

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace fleet::stream_to_hal {

/// Read-only state shared by all patterns of one run of the pass.
struct ConversionState {
  explicit ConversionState(mlir::ModuleOp module)
      : module(module), devices(module), symbols(module) {}

  mlir::ModuleOp module;
  hal::DeviceSet devices;
  mlir::SymbolTable symbols;
};


/// The affinity `op` runs on: its own `on(...)` when it has one, else the
/// nearest `stream.affinity` of an ancestor, else the module's
/// `stream.affinity.default`, else the only declared device. Null when none
/// applies.
mlir::Attribute lookupAffinity(mlir::Operation *op, mlir::Attribute own,
                               const ConversionState &state);

/// A device value and an `i64` queue mask (-1 = any queue).
struct DeviceQueue {
  mlir::Value device;
  mlir::Value queueAffinity;
};

/// `util.global.load immutable @d` and the mask of a single
/// `#hal.device.affinity`. Emits an error at `op` for anything else.
mlir::FailureOr<DeviceQueue> buildDeviceQueue(mlir::OpBuilder &builder,
                                              mlir::Operation *op,
                                              mlir::Attribute affinity,
                                              const ConversionState &state);

/// Device, queue and memory bits for a new allocation on `affinity`.
struct AllocationTarget {
  DeviceQueue deviceQueue;
  mlir::Value memoryTypes;
  mlir::Value bufferUsage;
};

/// `hal.allocator.resolve_memory_properties for(affinity) lifetime(L)` for
/// every allocation (single affinities too: the resolve pass folds them);
/// for `#hal.device.optimal` also `hal.allocator.select` among the members in
/// declaration order, consuming those bits (docs/design.md §3).
mlir::FailureOr<AllocationTarget>
buildAllocationTarget(mlir::OpBuilder &builder, mlir::Operation *op,
                      mlir::Attribute affinity, stream::Lifetime lifetime,
                      const ConversionState &state);

/// The fence a queue op waits on: the converted timepoint, or a null fence
/// when the op awaits nothing.
mlir::Value getWaitFence(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value timepointFence);

/// A fresh fence on `device` for a queue op to signal.
mlir::Value createSignalFence(mlir::OpBuilder &builder, mlir::Location loc,
                              mlir::Value device);

/// `hal.fence.await` with no timeout followed by `util.status.check_ok`
/// whose message names the enclosing function.
void buildHostWait(mlir::OpBuilder &builder, mlir::Location loc,
                   mlir::ValueRange fences, mlir::Operation *anchor);

mlir::Value buildIndex(mlir::OpBuilder &builder, mlir::Location loc,
                       int64_t value);
mlir::Value buildI64(mlir::OpBuilder &builder, mlir::Location loc,
                     int64_t value);
mlir::Value buildI32(mlir::OpBuilder &builder, mlir::Location loc,
                     int64_t value);

/// The lifetime of a `!stream.resource` type (Unknown for other types).
stream::Lifetime getLifetime(mlir::Type type);

//===----------------------------------------------------------------------===//
// Pattern sets (one file each)
//===----------------------------------------------------------------------===//

/// Rewrites every stream.executable into a hal.executable (before the
/// dialect conversion, so dispatches can read the exports' count regions).
mlir::LogicalResult convertExecutables(ConversionState &state);

/// Replaces every stream.resource.size with the size value that travels
/// with the resource (before the conversion; fails when none is known).
mlir::LogicalResult resolveResourceSizes(mlir::ModuleOp module);

/// util.func/call/return/global and scf/cf structure with converted types.
void populateStructuralPatterns(const mlir::TypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns,
                                mlir::ConversionTarget &target);
void populateResourcePatterns(const mlir::TypeConverter &typeConverter,
                              const ConversionState &state,
                              mlir::RewritePatternSet &patterns);
void populateTimepointPatterns(const mlir::TypeConverter &typeConverter,
                               const ConversionState &state,
                               mlir::RewritePatternSet &patterns);
void populateCmdPatterns(const mlir::TypeConverter &typeConverter,
                         const ConversionState &state,
                         mlir::RewritePatternSet &patterns);
void populateTensorPatterns(const mlir::TypeConverter &typeConverter,
                            const ConversionState &state,
                            mlir::RewritePatternSet &patterns);

/// A conversion pattern of `OpT` that reads the pass's shared state.
template <typename OpT>
struct StatefulPattern : mlir::OpConversionPattern<OpT> {
  StatefulPattern(const mlir::TypeConverter &typeConverter,
                  mlir::MLIRContext *context, const ConversionState &state)
      : mlir::OpConversionPattern<OpT>(typeConverter, context),
        state(state) {}

  /// The device and queue `op` runs on (lookupAffinity of its own affinity).
  mlir::FailureOr<DeviceQueue> buildOwnDeviceQueue(mlir::OpBuilder &builder,
                                                   OpT op) const {
    return buildDeviceQueue(
        builder, op, lookupAffinity(op, op.getAffinityAttr(), state), state);
  }

  /// buildAllocationTarget for `op`'s result, at `op`'s affinity.
  mlir::FailureOr<AllocationTarget>
  buildResultAllocationTarget(mlir::OpBuilder &builder, OpT op) const {
    return buildAllocationTarget(
        builder, op, lookupAffinity(op, op.getAffinityAttr(), state),
        getLifetime(op.getResult().getType()), state);
  }

  const ConversionState &state;
};

} // namespace fleet::stream_to_hal

#endif // FLEET_LIB_CONVERSION_STREAMTOHAL_UTILS_H
