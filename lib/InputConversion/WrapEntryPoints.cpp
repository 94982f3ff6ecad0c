//===- WrapEntryPoints.cpp - the buffer-view ABI of exports and imports ---===//
//
// Invariant established: every public function with a body (an export) and
// every external declaration (an import) speaks the runtime ABI: tensors
// cross the boundary as `!hal.buffer_view`; coarse-fences functions take a
// wait and a signal fence last and carry `hal.abi.convention =
// #hal.abi.convention<coarse_fences>`, as do the calls to them
// (docs/design.md §4, docs/ir-reference.md "iree.abi.*"). The tensor-typed
// originals survive only as private functions and shims that inlining folds
// away.
//
//===----------------------------------------------------------------------===//

#include "fleet/InputConversion/Passes.h"

#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Stream/IR/DeviceTopology.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

#include <optional>

#define DEBUG_TYPE "abi-wrap-entry-points"

namespace fleet::input {
#define GEN_PASS_DEF_WRAPENTRYPOINTSPASS
#include "fleet/InputConversion/Passes.h.inc"
} // namespace fleet::input

using namespace mlir;
using namespace fleet;

namespace {

constexpr StringLiteral kAffinityAttr = "iree.abi.affinity";
constexpr StringLiteral kModelAttr = "iree.abi.model";
constexpr StringLiteral kOutputAttr = "iree.abi.output";
constexpr StringLiteral kStubAttr = "iree.abi.stub";
constexpr StringLiteral kConventionAttr = "hal.abi.convention";

bool isCoarseFences(Operation *func) {
  auto model = func->getAttrOfType<StringAttr>(kModelAttr);
  return model && model.getValue() == "coarse-fences";
}

Type abiType(Type type) {
  return isa<RankedTensorType>(type) ? hal::BufferViewType::get(type.getContext())
                                     : type;
}

Attribute getArgAttr(util::FuncOp func, unsigned i, StringRef name) {
  if (ArrayAttr attrs = func.getArgAttrsAttr())
    if (auto dict = dyn_cast_or_null<DictionaryAttr>(attrs[i]))
      return dict.get(name);
  return {};
}

Attribute getResultAttr(util::FuncOp func, unsigned i, StringRef name) {
  if (ArrayAttr attrs = func.getResAttrsAttr())
    if (auto dict = dyn_cast_or_null<DictionaryAttr>(attrs[i]))
      return dict.get(name);
  return {};
}

hal::ABIConventionAttr coarseFencesAttr(MLIRContext *context) {
  return hal::ABIConventionAttr::get(context, hal::ABIConvention::CoarseFences);
}

/// The device global that backs `affinity` (or the module default), loaded
/// at the builder's position; fences of input-level shims are created on it.
FailureOr<Value> loadDevice(OpBuilder &builder, Location loc, ModuleOp module,
                            Attribute affinity) {
  if (!affinity)
    affinity = stream::getDefaultAffinity(module);
  auto deviceAffinity = dyn_cast_or_null<hal::DeviceAffinityAttr>(affinity);
  if (!deviceAffinity)
    return emitError(loc) << "a coarse-fences import needs a device: give the "
                             "function iree.abi.affinity or declare a device";
  return util::GlobalLoadOp::create(
             builder, loc, hal::DeviceType::get(builder.getContext()),
             deviceAffinity.getDevice().getRootReference().getValue(),
             /*is_immutable=*/true)
      .getResult();
}

/// Gives `func` the ABI form of `type`: tensors become buffer views and, for
/// coarse fences, a wait and a signal fence are appended (with empty argument
/// attributes) and the convention is recorded. Returns the argument types.
SmallVector<Type> setABISignature(util::FuncOp func, FunctionType type,
                                  bool coarseFences) {
  MLIRContext *context = func.getContext();
  SmallVector<Type> argTypes, resultTypes;
  for (Type t : type.getInputs())
    argTypes.push_back(abiType(t));
  for (Type t : type.getResults())
    resultTypes.push_back(abiType(t));
  if (coarseFences) {
    auto fenceType = hal::FenceType::get(context);
    argTypes.push_back(fenceType);
    argTypes.push_back(fenceType);
    if (ArrayAttr argAttrs = func.getArgAttrsAttr()) {
      SmallVector<Attribute> attrs(argAttrs.begin(), argAttrs.end());
      attrs.append(2, DictionaryAttr::get(context));
      func.setArgAttrsAttr(ArrayAttr::get(context, attrs));
    }
    func->setAttr(kConventionAttr, coarseFencesAttr(context));
  }
  func.setFunctionTypeAttr(
      TypeAttr::get(FunctionType::get(context, argTypes, resultTypes)));
  return argTypes;
}

//===----------------------------------------------------------------------===//
// Exports
//===----------------------------------------------------------------------===//

/// The affinity of the device a host buffer view for `affinity` is imported
/// on: itself, or for a device declared `remote = true` (in another process,
/// docs/distributed.md) the first device global that is not remote.
Attribute getHostSide(Attribute affinity, ModuleOp module) {
  auto device = dyn_cast_or_null<hal::DeviceAffinityAttr>(affinity);
  if (!device)
    return affinity;
  auto targetOf = [](util::GlobalOp global) {
    return dyn_cast_or_null<hal::DeviceTargetAttr>(
        global.getInitialValue().value_or(Attribute()));
  };
  auto global = dyn_cast_or_null<util::GlobalOp>(
      SymbolTable::lookupSymbolIn(module, device.getDevice()));
  if (!global || !targetOf(global) || !targetOf(global).isRemote())
    return affinity;
  for (auto candidate : module.getOps<util::GlobalOp>())
    if (hal::DeviceTargetAttr target = targetOf(candidate);
        target && !target.isRemote())
      return hal::DeviceAffinityAttr::get(
          module.getContext(),
          FlatSymbolRefAttr::get(candidate.getSymNameAttr()), -1);
  return affinity;
}

LogicalResult wrapExport(util::FuncOp func, bool asyncExternal) {
  MLIRContext *context = func.getContext();
  Location loc = func.getLoc();
  bool coarseFences = asyncExternal || isCoarseFences(func);
  std::string publicName = func.getSymName().str();
  FunctionType type = func.getFunctionType();
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] export @" << publicName << ": "
                          << (coarseFences ? "coarse-fences" : "sync")
                          << " wrapper, body moves to @_" << publicName
                          << "\n");

  // The original keeps the body under a private name; calls inside the
  // module follow it (they pass tensors), external callers get the wrapper.
  auto internalName = StringAttr::get(context, "_" + publicName);
  if (failed(SymbolTable::replaceAllSymbolUses(func.getOperation(),
                                               internalName,
                                               func->getParentOp())))
    return func.emitError() << "cannot redirect the module's calls of @"
                            << publicName << " to @" << internalName.getValue();
  OpBuilder builder(func);
  auto wrapper =
      cast<util::FuncOp>(builder.cloneWithoutRegions(*func.getOperation()));
  func.setSymName(internalName);
  func.setPrivate();
  func.removeArgAttrsAttr();
  func.removeResAttrsAttr();
  for (StringRef name : {kModelAttr.data(), kAffinityAttr.data()})
    func->removeAttr(name);
  Attribute defaultAffinity = wrapper->getAttr(kAffinityAttr);
  if (defaultAffinity)
    func->setAttr("stream.affinity", defaultAffinity);

  SmallVector<Type> argTypes = setABISignature(wrapper, type, coarseFences);
  wrapper->removeAttr(kModelAttr);
  wrapper->setAttr(kStubAttr, UnitAttr::get(context));

  Block *entry = wrapper.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  Value waitFence, signalFence;
  if (coarseFences) {
    waitFence = entry->getArgument(argTypes.size() - 2);
    signalFence = entry->getArgument(argTypes.size() - 1);
  }

  SmallVector<Value> callArgs;
  DenseMap<int64_t, Value> outputStorage;
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    Value arg = entry->getArgument(i);
    auto tensorType = dyn_cast<RankedTensorType>(t);
    if (!tensorType) {
      callArgs.push_back(arg);
      continue;
    }
    Attribute affinity = getArgAttr(wrapper, i, kAffinityAttr);
    if (!affinity)
      affinity = defaultAffinity;
    if (auto output = dyn_cast_or_null<IntegerAttr>(
            getArgAttr(wrapper, i, kOutputAttr))) {
      if (output.getInt() < 0 ||
          output.getInt() >= static_cast<int64_t>(type.getNumResults()))
        return func.emitError() << "iree.abi.output = " << output.getInt()
                                << " on argument " << i
                                << " names no result";
      outputStorage[output.getInt()] = arg;
    }
    // A buffer view lives in the host's process: one meant for a remote
    // device is imported on a local one and transferred (docs/distributed.md).
    Attribute importAffinity =
        getHostSide(affinity, func->getParentOfType<ModuleOp>());
    auto import = hal::TensorImportOp::create(
        b, loc, tensorType, importAffinity, waitFence, /*consume=*/false, arg,
        /*source_offset=*/Value{}, b.getStringAttr("input" + Twine(i)),
        tensorType, ValueRange{});
    Value value = import.getResult();
    if (importAffinity != affinity)
      value = flow::TensorTransferOp::create(b, loc, tensorType, value,
                                             ValueRange{}, affinity);
    callArgs.push_back(value);
  }
  auto call = util::CallOp::create(b, loc, func, callArgs);

  SmallVector<Value> results(call.getResults().begin(),
                             call.getResults().end());
  // Results written into caller-provided storage.
  for (auto [index, storage] : outputStorage) {
    Value &result = results[index];
    Attribute affinity = getResultAttr(wrapper, index, kAffinityAttr);
    if (!affinity)
      affinity = defaultAffinity;
    result = hal::TensorAliasOp::create(b, loc, result.getType(), affinity,
                                        waitFence, result, ValueRange{},
                                        storage)
                 .getResult();
  }
  if (coarseFences) {
    SmallVector<Value> tensors;
    SmallVector<unsigned> positions;
    for (auto [i, r] : llvm::enumerate(results))
      if (isa<RankedTensorType>(r.getType())) {
        tensors.push_back(r);
        positions.push_back(i);
      }
    if (tensors.empty()) {
      hal::FenceSignalOp::create(b, loc, signalFence);
    } else {
      auto barrier = hal::TensorBarrierOp::create(
          b, loc, ValueRange(tensors).getTypes(), tensors, signalFence);
      for (auto [k, pos] : llvm::enumerate(positions))
        results[pos] = barrier.getResult(k);
    }
  }
  SmallVector<Value> returned;
  for (auto [i, r] : llvm::enumerate(results)) {
    if (!isa<RankedTensorType>(r.getType())) {
      returned.push_back(r);
      continue;
    }
    Attribute affinity = getResultAttr(wrapper, i, kAffinityAttr);
    if (!affinity)
      affinity = defaultAffinity;
    returned.push_back(hal::TensorExportOp::create(
                           b, loc, hal::BufferViewType::get(context), affinity,
                           r, b.getStringAttr("output" + Twine(i)),
                           TypeAttr::get(r.getType()), ValueRange{})
                           .getResult());
  }
  util::ReturnOp::create(b, loc, returned);
  return success();
}

//===----------------------------------------------------------------------===//
// Imports
//===----------------------------------------------------------------------===//

LogicalResult wrapImport(ModuleOp module, util::FuncOp decl,
                         SymbolTable &symbolTable) {
  MLIRContext *context = decl.getContext();
  Location loc = decl.getLoc();
  bool coarseFences = isCoarseFences(decl);
  FunctionType type = decl.getFunctionType();
  std::string importName = decl.getSymName().str();
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] import @" << importName << ": "
                          << (coarseFences ? "coarse-fences" : "sync")
                          << " shim @_" << importName
                          << " keeps the tensor signature\n");

  // The shim keeps the tensor signature; calls move to it.
  OpBuilder builder(decl);
  auto shim = cast<util::FuncOp>(builder.clone(*decl.getOperation()));
  shim.setSymName("_" + importName);
  shim.setPrivate();
  shim.removeArgAttrsAttr();
  shim.removeResAttrsAttr();
  shim->removeAttr(kModelAttr);
  symbolTable.insert(shim);
  if (failed(SymbolTable::replaceAllSymbolUses(
          decl.getSymNameAttr(), shim.getSymNameAttr(), module)))
    return decl.emitError() << "cannot redirect calls to the import shim";

  setABISignature(decl, type, coarseFences);
  auto fenceType = hal::FenceType::get(context);

  Block *entry = shim.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  Attribute affinity = decl->getAttr(kAffinityAttr);
  Value waitFence, signalFence;
  SmallVector<Value> tensorArgs;
  for (BlockArgument arg : entry->getArguments())
    if (isa<RankedTensorType>(arg.getType()))
      tensorArgs.push_back(arg);
  SmallVector<Value> exportedSources(entry->getArguments().begin(),
                                     entry->getArguments().end());
  if (coarseFences) {
    FailureOr<Value> device = loadDevice(b, loc, module, affinity);
    if (failed(device))
      return failure();
    auto flags =
        hal::FenceFlagsAttr::get(context, hal::FenceFlags::None);
    waitFence = hal::FenceCreateOp::create(b, loc, fenceType, *device, flags);
    signalFence = hal::FenceCreateOp::create(b, loc, fenceType, *device, flags);
    // The wait fence is reached when the arguments are ready.
    if (!tensorArgs.empty()) {
      auto barrier = hal::TensorBarrierOp::create(
          b, loc, ValueRange(tensorArgs).getTypes(), tensorArgs, waitFence);
      unsigned k = 0;
      for (Value &source : exportedSources)
        if (isa<RankedTensorType>(source.getType()))
          source = barrier.getResult(k++);
    } else {
      hal::FenceSignalOp::create(b, loc, waitFence);
    }
  }
  SmallVector<Value> callArgs;
  for (auto [i, source] : llvm::enumerate(exportedSources)) {
    if (!isa<RankedTensorType>(source.getType())) {
      callArgs.push_back(source);
      continue;
    }
    Attribute argAffinity = getArgAttr(decl, i, kAffinityAttr);
    callArgs.push_back(hal::TensorExportOp::create(
                           b, loc, hal::BufferViewType::get(context),
                           argAffinity ? argAffinity : affinity, source,
                           b.getStringAttr("arg" + Twine(i)),
                           TypeAttr::get(source.getType()), ValueRange{})
                           .getResult());
  }
  if (coarseFences) {
    callArgs.push_back(waitFence);
    callArgs.push_back(signalFence);
  }
  auto call = util::CallOp::create(b, loc, decl, callArgs);
  if (coarseFences)
    call->setAttr(kConventionAttr, coarseFencesAttr(context));
  SmallVector<Value> results;
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    Value result = call.getResult(i);
    auto tensorType = dyn_cast<RankedTensorType>(t);
    if (!tensorType) {
      results.push_back(result);
      continue;
    }
    Attribute resultAffinity = getResultAttr(decl, i, kAffinityAttr);
    results.push_back(hal::TensorImportOp::create(
                          b, loc, tensorType,
                          resultAffinity ? resultAffinity : affinity,
                          signalFence, /*consume=*/false, result,
                          /*source_offset=*/Value{},
                          b.getStringAttr("result" + Twine(i)), tensorType,
                          ValueRange{})
                          .getResult());
  }
  util::ReturnOp::create(b, loc, results);
  return success();
}

bool hasTensors(FunctionType type) {
  return llvm::any_of(type.getInputs(), llvm::IsaPred<RankedTensorType>) ||
         llvm::any_of(type.getResults(), llvm::IsaPred<RankedTensorType>);
}

/// Buffer views at the ABI carry static shapes only: a dynamic dimension on
/// an argument or result is an error naming it (instead of a mismatch
/// deep in the wrapped code).
static LogicalResult verifyStaticShapes(util::FuncOp func) {
  FunctionType type = func.getFunctionType();
  auto check = [&](Type t, StringRef what, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if ((tensor && tensor.hasStaticShape()) || !isa<TensorType>(t))
      return success();
    return func.emitError()
           << what << " " << index << " of @" << func.getSymName()
           << " has the dynamically shaped type " << t
           << "; Fleet supports static shapes only";
  };
  for (auto [index, t] : llvm::enumerate(type.getInputs()))
    if (failed(check(t, "argument", index)))
      return failure();
  for (auto [index, t] : llvm::enumerate(type.getResults()))
    if (failed(check(t, "result", index)))
      return failure();
  return success();
}

struct WrapEntryPointsPass
    : public fleet::input::impl::WrapEntryPointsPassBase<WrapEntryPointsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // IREE's invocation-model and Fleet's older executionModel select the
    // same thing; given both, they must agree.
    // Neither given: the global --execution-model (fleet-opt and
    // fleet-compile; docs/contributing.md "IREE flags").
    std::string model = executionModel;
    if (invocationModel.empty() && model.empty())
      model = input::getFlagDefaults().executionModel;
    std::optional<bool> coarseFences, fromExecutionModel;
    if (!invocationModel.empty()) {
      if (invocationModel != "sync" && invocationModel != "coarse-fences") {
        module.emitError() << "unknown invocation model '" << invocationModel
                           << "' (expected sync or coarse-fences)";
        return signalPassFailure();
      }
      coarseFences = invocationModel == "coarse-fences";
    }
    if (!model.empty()) {
      if (model != "async-internal" && model != "async-external") {
        module.emitError() << "unknown execution model '" << model
                           << "' (expected async-internal or async-external)";
        return signalPassFailure();
      }
      fromExecutionModel = model == "async-external";
    }
    if (coarseFences && fromExecutionModel &&
        *coarseFences != *fromExecutionModel) {
      module.emitError() << "invocation-model=" << invocationModel
                         << " and executionModel=" << executionModel
                         << " disagree";
      return signalPassFailure();
    }
    bool asyncExternal =
        coarseFences.value_or(fromExecutionModel.value_or(false));
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] exports default to "
                            << (asyncExternal ? "coarse-fences" : "sync")
                            << "\n");
    SymbolTable symbolTable(module);
    SmallVector<util::FuncOp> exports, imports;
    for (auto func : module.getOps<util::FuncOp>()) {
      if (func->hasAttr(kStubAttr))
        continue;
      if (func.isExternal()) {
        if (hasTensors(func.getFunctionType()) || isCoarseFences(func))
          imports.push_back(func);
      } else if (func.isPublic()) {
        exports.push_back(func);
      }
    }
    for (util::FuncOp func : llvm::concat<util::FuncOp>(imports, exports))
      if (failed(verifyStaticShapes(func)))
        return signalPassFailure();
    for (util::FuncOp func : imports)
      if (failed(wrapImport(module, func, symbolTable)))
        return signalPassFailure();
    for (util::FuncOp func : exports)
      if (failed(wrapExport(func, asyncExternal)))
        return signalPassFailure();
  }
};

} // namespace
