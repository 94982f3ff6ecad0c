//===- DeviceTopology.h - device identity and links for stream passes -*- C++ -*-===//
//
// The questions Stream's passes ask about devices that need the whole module:
// are two affinities the same device, can a consumer read a producer's memory
// without a copy, and which affinity stands for a set of devices. Stream
// knows no device dialect: the dialect that defines an affinity attribute
// answers through DeviceTopologyDialectInterface (HAL attaches its answer from
// lib/Dialect/HAL/Analysis/DeviceTopologyModel.cpp, following IREE's habit of
// keeping Stream free of HAL; docs/design.md §3 holds the rules). Stream
// itself answers for `#stream.test.affinity`.
//
// Thread-safety: a DeviceTopology is built once per module by one pass
// instance and read-only afterwards; models are built lazily on first use, so
// one instance must not be shared by threads.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_STREAM_IR_DEVICETOPOLOGY_H
#define FLEET_DIALECT_STREAM_IR_DEVICETOPOLOGY_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectInterface.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>

namespace fleet::stream {

/// One dialect's answers for the affinities it defines, for one module.
class DeviceTopologyModel {
public:
  virtual ~DeviceTopologyModel();

  /// True when `a` and `b` (both of this dialect, both naming one device)
  /// execute on the same device.
  virtual bool isSameDevice(mlir::Attribute a, mlir::Attribute b) const = 0;

  /// True when work on `consumer` reads memory of `producer` in place (the
  /// same device, unified memory or transparent access): a transfer between
  /// them moves no bytes.
  virtual bool hasDirectAccess(mlir::Attribute consumer,
                               mlir::Attribute producer) const = 0;

  /// The affinity standing for `devices` (≥ 2 distinct single devices of
  /// this dialect), in the module's canonical device order.
  virtual mlir::Attribute
  getSetAffinity(llvm::ArrayRef<mlir::Attribute> devices) const = 0;

  /// The single-device affinity of the device `promise` promises a value
  /// lives on (a promise names its device but is no device to execute on),
  /// or null when `promise` is no promise of this dialect. Stream's own
  /// affinities have none.
  virtual mlir::Attribute getPromisedDevice(mlir::Attribute promise) const {
    return {};
  }
};

/// Implemented by a dialect defining affinity attributes.
class DeviceTopologyDialectInterface
    : public mlir::DialectInterface::Base<DeviceTopologyDialectInterface> {
public:
  DeviceTopologyDialectInterface(mlir::Dialect *dialect) : Base(dialect) {}

  /// Reads the module's device declarations and links once.
  virtual std::unique_ptr<DeviceTopologyModel>
  buildModel(mlir::ModuleOp module) const = 0;
};

/// The facade the passes use: routes each question to the dialect of the
/// affinities involved. Affinities of different dialects are different
/// devices without direct access.
class DeviceTopology {
public:
  explicit DeviceTopology(mlir::ModuleOp module) : module(module) {}

  /// Equal attributes, or two single devices the owning dialect identifies.
  bool isSameDevice(mlir::Attribute a, mlir::Attribute b);

  /// See DeviceTopologyModel::hasDirectAccess; false when either affinity
  /// names no single device.
  bool hasDirectAccess(mlir::Attribute consumer, mlir::Attribute producer);

  /// `affinities` without repeats of one device; the one left when a single
  /// device remains, else the owning dialect's set affinity. Null when empty
  /// or when they come from several dialects.
  mlir::Attribute getJoinedAffinity(llvm::ArrayRef<mlir::Attribute> affinities);

  /// Where a value with placement `affinity` lives, as an affinity naming one
  /// device: `affinity` itself when it names one, the promised device's
  /// affinity for a promise (DeviceTopologyModel::getPromisedDevice), else
  /// null (no affinity, a set of candidates).
  mlir::Attribute getPlacementDevice(mlir::Attribute affinity);

private:
  DeviceTopologyModel *getModel(mlir::Attribute affinity);

  mlir::ModuleOp module;
  llvm::DenseMap<mlir::Dialect *, std::unique_ptr<DeviceTopologyModel>> models;
};

/// The default-affinity rule (docs/design.md §3), its one owner: the
/// `stream.affinity` of `op` or of its innermost ancestor carrying one, else
/// the enclosing module's `stream.affinity.default`; null when none.
mlir::Attribute getDefaultAffinity(mlir::Operation *op);

/// Registers Stream's own answers (for #stream.test.affinity).
void registerTestDeviceTopology(mlir::Dialect *streamDialect);

} // namespace fleet::stream

#endif // FLEET_DIALECT_STREAM_IR_DEVICETOPOLOGY_H
