//===- HostLowering.cpp - registers, control flow, util and arith ops ----===//
//
// See HostLowering.h. The hal ops are in LowerHAL.cpp. (Moved from the
// runtime, where it ran at every module load, in issue 24.)
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

namespace fleet::artifact {

using namespace mlir;
namespace rh = ::fleet::runtime::host;
using rh::bitWidth;
using rh::isFloatType;
using rh::isHalfFloatType;
using rh::isReferenceType;
using rh::typeName;
namespace utilir = ::fleet::util;
namespace halir = ::fleet::hal;

std::optional<ValueType> classifyType(Type type) {
  if (type.isIndex())
    return ValueType::Index;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return ValueType::I1;
    case 8:
      return ValueType::I8;
    case 16:
      return ValueType::I16;
    case 32:
      return ValueType::I32;
    case 64:
      return ValueType::I64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF32())
    return ValueType::F32;
  if (type.isF64())
    return ValueType::F64;
  if (type.isF16())
    return ValueType::F16;
  if (type.isBF16())
    return ValueType::BF16;
  if (isa<utilir::PtrType>(type))
    return ValueType::Pointer;
  if (isa<utilir::BufferType>(type))
    return ValueType::HostBuffer;
  if (isa<halir::DeviceType>(type))
    return ValueType::Device;
  if (isa<halir::AllocatorType>(type))
    return ValueType::Allocator;
  if (isa<halir::BufferType>(type))
    return ValueType::Buffer;
  if (isa<halir::BufferViewType>(type))
    return ValueType::BufferView;
  if (isa<halir::FenceType>(type))
    return ValueType::Fence;
  if (isa<halir::CommandBufferType>(type))
    return ValueType::CommandBuffer;
  if (isa<halir::ExecutableType>(type))
    return ValueType::Executable;
  return std::nullopt;
}

namespace {

/// The first file:line:col location in `location` (pre-order), without
/// LocationAttr::walk's generic attribute walker: formatting a site for
/// every lowered op was a fifth of the module load (measured, issue 23).
FileLineColLoc findFileLocation(Location location) {
  if (auto file = dyn_cast<FileLineColLoc>(location))
    return file;
  if (auto name = dyn_cast<NameLoc>(location))
    return findFileLocation(name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(location)) {
    if (FileLineColLoc callee = findFileLocation(call.getCallee()))
      return callee;
    return findFileLocation(call.getCaller());
  }
  if (auto fused = dyn_cast<FusedLoc>(location)) {
    for (Location nested : fused.getLocations())
      if (FileLineColLoc file = findFileLocation(nested))
        return file;
    return {};
  }
  // Other location kinds: the generic walk.
  FileLineColLoc found;
  location->walk([&](Location nested) {
    if (auto file = dyn_cast<FileLineColLoc>(nested)) {
      found = file;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

} // namespace

std::string formatLocation(Location location) {
  FileLineColLoc file = findFileLocation(location);
  if (!file)
    return "unknown location";
  StringRef name = file.getFilename().getValue();
  std::string text;
  text.reserve(name.size() + 16);
  text.append(name.data(), name.size());
  text += ':';
  text += std::to_string(file.getLine());
  text += ':';
  text += std::to_string(file.getColumn());
  return text;
}

namespace {

uint64_t maskOf(unsigned width) {
  return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
}
int64_t shiftOf(unsigned width) { return width >= 64 ? 0 : 64 - width; }

/// The bits of a host constant of `type`, if the attribute is one.
std::optional<uint64_t> constantBits(Attribute attr, ValueType type) {
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    if (isFloatType(type))
      return std::nullopt;
    return integer.getValue().getZExtValue() & maskOf(bitWidth(type));
  }
  if (auto floating = dyn_cast<FloatAttr>(attr)) {
    if (type == ValueType::F32)
      return rh::Value::f32(floating.getValue().convertToFloat()).bits();
    if (type == ValueType::F64)
      return rh::Value::f64(floating.getValue().convertToDouble()).bits();
    if (isHalfFloatType(type))
      return floating.getValue().bitcastToAPInt().getZExtValue();
  }
  return std::nullopt;
}

} // namespace

FunctionLowering::FunctionLowering(LoweringEnv &env, EmittedFunction &code)
    : env_(env), code_(code) {}

bool FunctionLowering::error(Operation *op, const Twine &message) {
  env_.errors.push_back((formatLocation(op->getLoc()) + ": in @" +
                         code_.displayName + ": " + message)
                            .str());
  failed_ = true;
  return false;
}

// ---- registers -------------------------------------------------------------

uint32_t FunctionLowering::slot(mlir::Value value) const {
  auto it = slots_.find(value);
  // The pre-pass assigns every value of a supported op; an unassigned one
  // belongs to an op that was already reported.
  return it == slots_.end() ? 0 : it->second;
}

ValueType FunctionLowering::typeOf(mlir::Value value) const {
  return classifyType(value.getType()).value_or(ValueType::I64);
}

uint32_t FunctionLowering::newSlot(ValueType type) {
  if (isReferenceType(type)) {
    code_.refTypes.push_back(uint8_t(type));
    return uint32_t(code_.refTypes.size() - 1) | kRefSlot;
  }
  code_.scalarTemplate.push_back(0);
  code_.scalarTypes.push_back(uint8_t(type));
  return uint32_t(code_.scalarTypes.size() - 1);
}

ValueType FunctionLowering::slotType(uint32_t tagged) const {
  return isRefSlot(tagged) ? ValueType(code_.refTypes[slotIndex(tagged)])
                           : ValueType(code_.scalarTypes[tagged]);
}

bool FunctionLowering::assign(mlir::Value value) {
  std::optional<ValueType> type = classifyType(value.getType());
  if (!type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << value.getType();
    std::string message =
        "the host-program executor cannot hold values of type " + text;
    // An op result is reported when the op itself is lowered (an
    // unsupported op is reported as such instead); block arguments now.
    if (Operation *op = value.getDefiningOp()) {
      typeErrors_.try_emplace(op, message);
      failed_ = true;
      return false;
    }
    return error(value.getParentRegion()->getParentOp(), message);
  }
  slots_[value] = newSlot(*type);
  return true;
}

bool FunctionLowering::alias(mlir::Value value, uint32_t existing) {
  slots_[value] = existing;
  return true;
}

bool FunctionLowering::assignConstant(Operation *op) {
  mlir::Value result = op->getResult(0);
  std::optional<ValueType> type = classifyType(result.getType());
  if (!type)
    return error(op, "'" + op->getName().getStringRef() +
                         "' is not a scalar constant the host-program "
                         "executor supports (integers, index, f32, f64)");
  if (isReferenceType(*type)) {
    // util.null of a reference type: a register that stays null.
    slots_[result] = newSlot(*type);
    return true;
  }
  uint64_t bits = 0;
  std::optional<EmittedFixup> fixup;
  if (auto address = dyn_cast<utilir::GlobalAddressOp>(op)) {
    auto it = env_.globals.find(address.getGlobal());
    if (it == env_.globals.end())
      return error(op, "unknown global @" + address.getGlobal());
    fixup = EmittedFixup{0, 0, it->second.index};
  } else if (isa<halir::DevicesCountOp>(op)) {
    fixup = EmittedFixup{0, 1, 0};
  } else if (!isa<utilir::NullOp>(op)) {
    Attribute attr;
    std::optional<uint64_t> value;
    if (matchPattern(result, m_Constant(&attr)))
      value = constantBits(attr, *type);
    if (!value)
      return error(op, "'" + op->getName().getStringRef() +
                           "' is not a scalar constant the host-program "
                           "executor supports (integers, index, f32, f64)");
    bits = *value;
  }
  uint32_t index = newSlot(*type);
  code_.scalarTemplate[index] = bits;
  if (fixup) {
    fixup->slot = index;
    code_.fixups.push_back(*fixup);
  }
  slots_[result] = index;
  return true;
}

/// Ops whose value the lowering knows at load time: they get a register in
/// the frame template and no record.
static bool isLoadTimeConstant(Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  return op->hasTrait<OpTrait::ConstantLike>() ||
         isa<utilir::NullOp, utilir::GlobalAddressOp, halir::DevicesCountOp>(
             op);
}

bool FunctionLowering::assignOp(Operation *op) {
  if (isLoadTimeConstant(op))
    return assignConstant(op);
  bool ok = true;
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    ok &= assign(forOp.getInductionVar());
    for (auto [arg, result] :
         llvm::zip(forOp.getRegionIterArgs(), forOp.getResults())) {
      ok &= assign(arg);
      alias(result, slot(arg));
    }
    return assignRegion(forOp.getRegion()) && ok;
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    for (BlockArgument arg : whileOp.getBeforeArguments())
      ok &= assign(arg);
    for (auto [arg, result] :
         llvm::zip(whileOp.getAfterArguments(), whileOp.getResults())) {
      ok &= assign(arg);
      alias(result, slot(arg));
    }
    ok &= assignRegion(whileOp.getBefore());
    return assignRegion(whileOp.getAfter()) && ok;
  }
  for (mlir::Value result : op->getResults())
    ok &= assign(result);
  if (isa<scf::IfOp>(op))
    for (Region &region : op->getRegions())
      ok &= assignRegion(region);
  return ok;
}

bool FunctionLowering::assignRegion(Region &region) {
  bool ok = true;
  for (Block &block : region) {
    for (BlockArgument arg : block.getArguments())
      if (!slots_.count(arg))
        ok &= assign(arg);
    for (Operation &op : block)
      ok &= assignOp(&op);
  }
  return ok;
}

// ---- records ---------------------------------------------------------------

FunctionLowering::Label FunctionLowering::newLabel() {
  labelPositions_.push_back(SIZE_MAX);
  return Label(labelPositions_.size() - 1);
}

void FunctionLowering::bind(Label label) {
  labelPositions_[label] = code_.records.size();
}

uint32_t FunctionLowering::siteOf(Operation *op) {
  auto [it, inserted] = siteIndex_.try_emplace(op, code_.sites.size());
  if (inserted)
    code_.sites.emplace_back(op->getName().getStringRef().str(),
                             formatLocation(op->getLoc()));
  return it->second;
}

uint32_t FunctionLowering::addString(std::string text) {
  env_.strings.push_back(std::move(text));
  return uint32_t(env_.strings.size() - 1);
}

size_t FunctionLowering::emit(Operation *op, OpKind kind,
                              ArrayRef<uint32_t> slots, int64_t imm,
                              int64_t imm2, uint32_t data, Label target) {
  EmittedRecord record;
  record.kind = kind;
  record.data = data;
  record.imm = imm;
  record.imm2 = imm2;
  record.site = siteOf(op);
  record.target = target;
  record.slotOffset = uint32_t(code_.slots.size());
  record.slotCount = uint32_t(slots.size());
  code_.slots.insert(code_.slots.end(), slots.begin(), slots.end());
  code_.records.push_back(record);
  return code_.records.size() - 1;
}

void FunctionLowering::emitMoves(Operation *op, ArrayRef<uint32_t> sources,
                                 ArrayRef<uint32_t> targets) {
  SmallVector<uint32_t> from, to;
  for (auto [source, target] : llvm::zip(sources, targets)) {
    if (source != target) {
      from.push_back(source);
      to.push_back(target);
    }
  }
  if (from.empty())
    return;
  llvm::DenseSet<uint32_t> sourceSet(from.begin(), from.end());
  bool overlaps = llvm::any_of(to, [&](uint32_t t) { return sourceSet.count(t); });
  auto moveRecord = [&](ArrayRef<uint32_t> a, ArrayRef<uint32_t> b) {
    SmallVector<uint32_t> pairs;
    for (auto [x, y] : llvm::zip(a, b)) {
      pairs.push_back(x);
      pairs.push_back(y);
    }
    emit(op, OpKind::Move, pairs, int64_t(a.size()));
  };
  if (!overlaps) {
    moveRecord(from, to);
    return;
  }
  // A target is also a source (e.g. swapped loop-carried values): copy all
  // sources to fresh registers first so every move reads the old values.
  SmallVector<uint32_t> temps;
  for (uint32_t target : to)
    temps.push_back(newSlot(slotType(target)));
  moveRecord(from, temps);
  moveRecord(temps, to);
}

void FunctionLowering::emitMoves(Operation *op, ValueRange sources,
                                 ValueRange targets) {
  SmallVector<uint32_t> from, to;
  for (mlir::Value v : sources)
    from.push_back(slot(v));
  for (mlir::Value v : targets)
    to.push_back(slot(v));
  emitMoves(op, from, to);
}

void FunctionLowering::finalize() {
  // A trailing record catches control falling off the end (and gives labels
  // bound at the end something to point at).
  code_.sites.emplace_back("end of function", "unknown location");
  EmittedRecord end;
  end.kind = OpKind::Unreachable;
  end.site = uint32_t(code_.sites.size() - 1);
  end.slotOffset = uint32_t(code_.slots.size());
  code_.records.push_back(end);
  runtime::host::RegisterTypes types{
      code_.scalarTypes.data(), uint32_t(code_.scalarTypes.size()),
      code_.refTypes.data(), uint32_t(code_.refTypes.size())};
  for (EmittedRecord &record : code_.records) {
    record.target = record.target >= 0
                        ? int64_t(labelPositions_[record.target])
                        : int64_t(kNoIndex);
    // The loader's own check (ArtifactFormat.h): what the emitter writes
    // is what the op table says.
    std::string problem = runtime::host::checkRecord(
        record.kind, code_.slots.data() + record.slotOffset, record.slotCount,
        record.imm, record.imm2, types);
    if (!problem.empty())
      env_.errors.push_back(code_.sites[record.site].second + ": in @" +
                            code_.displayName + ": internal error: " +
                            code_.sites[record.site].first + " record (" +
                            runtime::host::opKindName(record.kind) +
                            ") does not match the op table: " + problem);
  }
}

// ---- functions and blocks --------------------------------------------------

bool FunctionLowering::lower(Region &body) {
  Block &entry = body.front();
  for (BlockArgument arg : entry.getArguments()) {
    if (!assign(arg))
      continue;
    code_.argumentSlots.push_back(slot(arg));
  }
  assignRegion(body);
  for (Block &block : body)
    blockLabels_[&block] = newLabel();
  for (Block &block : body) {
    bind(blockLabels_[&block]);
    lowerBlock(block, RegionExit{});
  }
  if (failed_)
    return false;
  finalize();
  return true;
}

bool FunctionLowering::lowerBlock(Block &block, const RegionExit &exit) {
  bool ok = true;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      ok &= lowerTerminator(&op, exit);
    else
      ok &= lowerOp(&op, exit);
  }
  return ok;
}

bool FunctionLowering::lowerTerminator(Operation *op, const RegionExit &exit) {
  if (auto ret = dyn_cast<utilir::ReturnOp>(op)) {
    SmallVector<uint32_t> slots;
    for (mlir::Value v : ret.getOperands())
      slots.push_back(slot(v));
    emit(op, OpKind::Return, slots);
    return true;
  }
  if (auto yield = dyn_cast<scf::YieldOp>(op)) {
    if (exit.kind != RegionExit::Yield)
      return error(op, "scf.yield outside scf.for/if/while");
    SmallVector<uint32_t> from;
    for (mlir::Value v : yield.getOperands())
      from.push_back(slot(v));
    emitMoves(op, from, exit.targets);
    if (exit.label >= 0)
      emit(op, OpKind::Jump, {}, 0, 0, 0, exit.label);
    return true;
  }
  if (auto condition = dyn_cast<scf::ConditionOp>(op)) {
    SmallVector<uint32_t> from;
    for (mlir::Value v : condition.getArgs())
      from.push_back(slot(v));
    emitMoves(op, from, exit.targets);
    emit(op, OpKind::BranchIfFalse, {plain(condition.getCondition())}, 0, 0,
         0, exit.label);
    return true;
  }
  if (auto branch = dyn_cast<cf::BranchOp>(op)) {
    emitMoves(op, branch.getDestOperands(), branch.getDest()->getArguments());
    emit(op, OpKind::Jump, {}, 0, 0, 0, blockLabels_[branch.getDest()]);
    return true;
  }
  if (auto branch = dyn_cast<cf::CondBranchOp>(op)) {
    Label falseLabel = newLabel();
    emit(op, OpKind::BranchIfFalse, {plain(branch.getCondition())}, 0, 0,
         0, falseLabel);
    emitMoves(op, branch.getTrueDestOperands(),
              branch.getTrueDest()->getArguments());
    emit(op, OpKind::Jump, {}, 0, 0, 0,
         blockLabels_[branch.getTrueDest()]);
    bind(falseLabel);
    emitMoves(op, branch.getFalseDestOperands(),
              branch.getFalseDest()->getArguments());
    emit(op, OpKind::Jump, {}, 0, 0, 0,
         blockLabels_[branch.getFalseDest()]);
    return true;
  }
  return error(op, "unsupported terminator '" + op->getName().getStringRef() +
                       "'");
}

bool FunctionLowering::lowerOp(Operation *op, const RegionExit &exit) {
  bool ok = true;
  StringRef dialect = op->getName().getDialectNamespace();
  if (isLoadTimeConstant(op))
    ok = true; // a register of the frame template (assignConstant)
  else if (dialect == "scf")
    ok = lowerStructured(op);
  else if (dialect == "util")
    ok = lowerUtil(op);
  else if (dialect == "arith")
    ok = lowerArith(op);
  else if (dialect == "hal")
    ok = lowerHAL(op);
  else
    ok = error(op, "unsupported op '" + op->getName().getStringRef() +
                       "' (the host-program executor runs util, hal, arith, "
                       "scf and cf ops)");
  auto typeError = typeErrors_.find(op);
  if (ok && typeError != typeErrors_.end())
    return error(op, typeError->second);
  return ok;
}

// ---- scf -------------------------------------------------------------------

bool FunctionLowering::lowerStructured(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    uint32_t iv = plain(forOp.getInductionVar());
    unsigned width = bitWidth(typeOf(forOp.getInductionVar()));
    int64_t mode = shiftOf(width) | (forOp.getUnsignedCmp() ? 0x100 : 0);
    SmallVector<uint32_t> from = {slot(forOp.getLowerBound())};
    SmallVector<uint32_t> to = {iv};
    for (auto [init, arg] :
         llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs())) {
      from.push_back(slot(init));
      to.push_back(slot(arg));
    }
    emitMoves(op, from, to);
    Label exitLabel = newLabel(), bodyLabel = newLabel();
    emit(op, OpKind::ForEnter, {iv, plain(forOp.getUpperBound())},
         int64_t(maskOf(width)), mode, 0, exitLabel);
    bind(bodyLabel);
    RegionExit yield;
    yield.kind = RegionExit::Yield;
    for (BlockArgument arg : forOp.getRegionIterArgs())
      yield.targets.push_back(slot(arg));
    bool ok = lowerBlock(*forOp.getBody(), yield);
    emit(op, OpKind::ForNext,
         {iv, plain(forOp.getStep()), plain(forOp.getUpperBound())},
         int64_t(maskOf(width)), mode, 0, bodyLabel);
    bind(exitLabel);
    return ok;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    Label elseLabel = newLabel(), endLabel = newLabel();
    emit(op, OpKind::BranchIfFalse, {plain(ifOp.getCondition())}, 0, 0,
         0, elseLabel);
    RegionExit yield;
    yield.kind = RegionExit::Yield;
    for (mlir::Value result : ifOp.getResults())
      yield.targets.push_back(slot(result));
    yield.label = endLabel;
    bool ok = lowerBlock(ifOp.getThenRegion().front(), yield);
    bind(elseLabel);
    if (!ifOp.getElseRegion().empty()) {
      yield.label = -1;
      ok &= lowerBlock(ifOp.getElseRegion().front(), yield);
    }
    bind(endLabel);
    return ok;
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    emitMoves(op, whileOp.getInits(), whileOp.getBeforeArguments());
    Label beforeLabel = newLabel(), exitLabel = newLabel();
    bind(beforeLabel);
    RegionExit condition;
    condition.kind = RegionExit::Condition;
    for (BlockArgument arg : whileOp.getAfterArguments())
      condition.targets.push_back(slot(arg));
    condition.label = exitLabel;
    bool ok = lowerBlock(whileOp.getBefore().front(), condition);
    RegionExit yield;
    yield.kind = RegionExit::Yield;
    for (BlockArgument arg : whileOp.getBeforeArguments())
      yield.targets.push_back(slot(arg));
    yield.label = beforeLabel;
    ok &= lowerBlock(whileOp.getAfter().front(), yield);
    bind(exitLabel);
    return ok;
  }
  return error(op, "unsupported op '" + op->getName().getStringRef() +
                       "' (supported scf ops: for, if, while)");
}

// ---- util ------------------------------------------------------------------

/// The bytes of a util.buffer.constant value (dense elements, stored as in
/// memory; strings; dense resources).
/// The bytes of a util.buffer.constant value in `constant`: a view of the
/// attribute's storage where it holds them as stored, else a copy.
static bool constantBytes(Attribute value, EmittedConstant &constant) {
  auto view = [&](ArrayRef<char> data) {
    constant.bytes = ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(data.data()), data.size());
    return true;
  };
  auto own = [&](std::vector<uint8_t> data) {
    constant.owned = std::move(data);
    constant.bytes = constant.owned;
    return true;
  };
  if (auto text = dyn_cast<StringAttr>(value))
    return view(ArrayRef<char>(text.getValue().data(), text.getValue().size()));
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    Type element = dense.getElementType();
    if (!element.isIntOrIndexOrFloat() || element.getIntOrFloatBitWidth() % 8)
      return false; // i1 and sub-byte types are bit-packed in MLIR
    ArrayRef<char> raw = dense.getRawData();
    size_t count = size_t(dense.getNumElements());
    size_t elementBytes = element.getIntOrFloatBitWidth() / 8;
    if (dense.isSplat()) {
      std::vector<uint8_t> bytes(count * elementBytes);
      for (size_t i = 0; i < count; ++i)
        std::memcpy(bytes.data() + i * elementBytes, raw.data(), elementBytes);
      return own(std::move(bytes));
    }
    if (raw.size() != count * elementBytes)
      return false;
    return view(raw);
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return false;
    return view(blob->getData());
  }
  return false;
}

bool FunctionLowering::lowerUtil(Operation *op) {
  auto globalOf = [&](StringRef name) -> const GlobalInfo * {
    auto it = env_.globals.find(name);
    if (it == env_.globals.end()) {
      error(op, "unknown global @" + name);
      return nullptr;
    }
    return &it->second;
  };
  if (auto load = dyn_cast<utilir::GlobalLoadOp>(op)) {
    const GlobalInfo *global = globalOf(load.getGlobal());
    if (!global)
      return false;
    emit(op,
         isReferenceType(global->type) ? OpKind::GlobalLoadRef
                                       : OpKind::GlobalLoadScalar,
         {plain(load.getResult())}, 0, 0, global->index);
    return true;
  }
  if (auto store = dyn_cast<utilir::GlobalStoreOp>(op)) {
    const GlobalInfo *global = globalOf(store.getGlobal());
    if (!global)
      return false;
    emit(op,
         isReferenceType(global->type) ? OpKind::GlobalStoreRef
                                       : OpKind::GlobalStoreScalar,
         {plain(store.getValue())}, 0, 0, global->index);
    return true;
  }
  if (auto load = dyn_cast<utilir::GlobalLoadIndirectOp>(op)) {
    emit(op,
         isReferenceType(typeOf(load.getResult()))
             ? OpKind::IndirectLoadRef
             : OpKind::IndirectLoadScalar,
         {plain(load.getGlobal()), plain(load.getResult())});
    return true;
  }
  if (auto store = dyn_cast<utilir::GlobalStoreIndirectOp>(op)) {
    emit(op,
         isReferenceType(typeOf(store.getValue()))
             ? OpKind::IndirectStoreRef
             : OpKind::IndirectStoreScalar,
         {plain(store.getValue()), plain(store.getGlobal())});
    return true;
  }
  if (auto constant = dyn_cast<utilir::BufferConstantOp>(op)) {
    EmittedConstant emitted;
    if (!constantBytes(constant.getValue(), emitted))
      return error(op, "util.buffer.constant value is not a byte-addressable "
                       "dense elements, string or resource attribute");
    size_t alignment = 64;
    if (auto align = constant.getAlignment())
      alignment = size_t(align->getZExtValue());
    if (alignment == 0 || (alignment & (alignment - 1)) || alignment > 4096)
      return error(op, "util.buffer.constant alignment must be a power of "
                       "two up to 4096");
    emitted.alignment = uint32_t(alignment);
    env_.constants.push_back(std::move(emitted));
    emit(op, OpKind::ConstantRef, {plain(constant.getResult())}, 0, 0,
         uint32_t(env_.constants.size() - 1));
    return true;
  }
  if (auto check = dyn_cast<utilir::StatusCheckOkOp>(op)) {
    uint32_t message = addString(
        check.getMessage() ? check.getMessage()->str() : std::string());
    emit(op, OpKind::StatusCheckOk, {plain(check.getStatus())}, 0, 0,
         message);
    return true;
  }
  if (auto call = dyn_cast<utilir::CallOp>(op)) {
    auto it = env_.functions.find(call.getCallee());
    if (it == env_.functions.end())
      return error(op, "call to unknown function @" + call.getCallee());
    uint32_t callee = it->second;
    SmallVector<uint32_t> slots;
    for (mlir::Value v : call.getArguments())
      slots.push_back(slot(v));
    for (mlir::Value v : call.getResults())
      slots.push_back(slot(v));
    emit(op, OpKind::Call, slots, int64_t(call.getArguments().size()), 0,
         callee);
    return true;
  }
  return error(op, "unsupported op '" + op->getName().getStringRef() + "'");
}

// ---- arith -----------------------------------------------------------------

namespace {

/// The record kind of a binary (or negf) arith op; `floatWidth` is 32 or 64
/// for float ops, 0 for integer ops.
std::optional<OpKind> arithKind(StringRef name, unsigned floatWidth) {
  static const llvm::StringMap<OpKind> integer = {
      {"arith.addi", OpKind::AddI},           {"arith.subi", OpKind::SubI},
      {"arith.muli", OpKind::MulI},           {"arith.andi", OpKind::AndI},
      {"arith.ori", OpKind::OrI},             {"arith.xori", OpKind::XOrI},
      {"arith.maxsi", OpKind::MaxSI},         {"arith.minsi", OpKind::MinSI},
      {"arith.maxui", OpKind::MaxUI},         {"arith.minui", OpKind::MinUI},
      {"arith.shli", OpKind::ShLI},           {"arith.shrui", OpKind::ShRUI},
      {"arith.shrsi", OpKind::ShRSI},         {"arith.divsi", OpKind::DivSI},
      {"arith.remsi", OpKind::RemSI},         {"arith.divui", OpKind::DivUI},
      {"arith.remui", OpKind::RemUI},         {"arith.floordivsi", OpKind::FloorDivSI},
      {"arith.ceildivsi", OpKind::CeilDivSI}, {"arith.ceildivui", OpKind::CeilDivUI},
  };
  // f32 kinds; the f64 kind of each is at the same distance from AddF64.
  static const llvm::StringMap<OpKind> floating = {
      {"arith.addf", OpKind::AddF32},         {"arith.subf", OpKind::SubF32},
      {"arith.mulf", OpKind::MulF32},         {"arith.divf", OpKind::DivF32},
      {"arith.remf", OpKind::RemF32},         {"arith.maximumf", OpKind::MaximumF32},
      {"arith.minimumf", OpKind::MinimumF32}, {"arith.maxnumf", OpKind::MaxNumF32},
      {"arith.minnumf", OpKind::MinNumF32},   {"arith.negf", OpKind::NegF32},
  };
  const llvm::StringMap<OpKind> &table = floatWidth ? floating : integer;
  auto it = table.find(name);
  if (it == table.end() || (floatWidth != 0 && floatWidth != 32 &&
                            floatWidth != 64))
    return std::nullopt;
  if (floatWidth == 64)
    return OpKind(unsigned(it->second) - unsigned(OpKind::AddF32) +
                  unsigned(OpKind::AddF64));
  return it->second;
}

/// The record kind of a cast between scalar types; nullopt when unsupported.
std::optional<OpKind> castKind(StringRef name, ValueType from, ValueType to) {
  bool fromFloat = isFloatType(from), toFloat = isFloatType(to);
  bool from64 = from == ValueType::F64, to64 = to == ValueType::F64;
  if (name == "arith.index_cast" || name == "arith.extsi")
    return !fromFloat && !toFloat ? std::optional(OpKind::CastSignExtend)
                                  : std::nullopt;
  if (name == "arith.index_castui" || name == "arith.extui" ||
      name == "arith.trunci")
    return !fromFloat && !toFloat ? std::optional(OpKind::CastZeroExtend)
                                  : std::nullopt;
  if (name == "arith.bitcast")
    return bitWidth(from) == bitWidth(to) ? std::optional(OpKind::CastZeroExtend)
                                          : std::nullopt;
  if (name == "arith.sitofp" && !fromFloat && toFloat)
    return to64 ? OpKind::SIToF64 : OpKind::SIToF32;
  if (name == "arith.uitofp" && !fromFloat && toFloat)
    return to64 ? OpKind::UIToF64 : OpKind::UIToF32;
  if (name == "arith.fptosi" && fromFloat && !toFloat)
    return from64 ? OpKind::F64ToSI : OpKind::F32ToSI;
  if (name == "arith.fptoui" && fromFloat && !toFloat)
    return from64 ? OpKind::F64ToUI : OpKind::F32ToUI;
  if (isHalfFloatType(from) && toFloat && name == "arith.extf") {
    bool bf = from == ValueType::BF16;
    return to64 ? (bf ? OpKind::BF16ToF64 : OpKind::F16ToF64)
                : (bf ? OpKind::BF16ToF32 : OpKind::F16ToF32);
  }
  if (fromFloat && isHalfFloatType(to) && name == "arith.truncf") {
    bool bf = to == ValueType::BF16;
    return from64 ? (bf ? OpKind::F64ToBF16 : OpKind::F64ToF16)
                  : (bf ? OpKind::F32ToBF16 : OpKind::F32ToF16);
  }
  if (isHalfFloatType(from) || isHalfFloatType(to))
    return std::nullopt;
  if (name == "arith.extf" && !from64 && to64)
    return OpKind::F32ToF64;
  if (name == "arith.truncf" && from64 && !to64)
    return OpKind::F64ToF32;
  return std::nullopt;
}

} // namespace

bool FunctionLowering::lowerArith(Operation *op) {
  std::string name = op->getName().getStringRef().str();
  for (mlir::Value v : op->getOperands())
    if (!classifyType(v.getType()))
      return error(op, "'" + name + "' on unsupported operand type");
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    if (!select.getCondition().getType().isInteger(1))
      return error(op, "arith.select needs a scalar i1 condition");
    emit(op,
         isReferenceType(typeOf(select.getResult())) ? OpKind::SelectRef
                                                     : OpKind::SelectScalar,
         {plain(select.getCondition()), plain(select.getTrueValue()),
          plain(select.getFalseValue()), plain(select.getResult())});
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    unsigned predicate = unsigned(cmp.getPredicate());
    if (predicate >= 10)
      return error(op, "unsupported arith.cmpi predicate");
    emit(op, OpKind(unsigned(OpKind::CmpIEq) + predicate), {plain(cmp.getLhs()), plain(cmp.getRhs()),
                       plain(cmp.getResult())},
         0, shiftOf(bitWidth(typeOf(cmp.getLhs()))));
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    ValueType operand = typeOf(cmp.getLhs());
    if (operand != ValueType::F32 && operand != ValueType::F64)
      return error(op, "arith.cmpf on unsupported type");
    emit(op, operand == ValueType::F32 ? OpKind::CmpF32 : OpKind::CmpF64, {plain(cmp.getLhs()), plain(cmp.getRhs()),
                       plain(cmp.getResult())},
         0, int64_t(cmp.getPredicate()));
    return true;
  }
  if (op->getNumResults() != 1)
    return error(op, "unsupported op '" + name + "'");
  ValueType resultType = typeOf(op->getResult(0));
  if (op->getNumOperands() == 1) {
    ValueType operandType = typeOf(op->getOperand(0));
    if (std::optional<OpKind> kind = castKind(name, operandType, resultType)) {
      emit(op, *kind, {plain(op->getOperand(0)), plain(op->getResult(0))},
           int64_t(maskOf(bitWidth(resultType))),
           shiftOf(bitWidth(operandType)));
      return true;
    }
  }
  if (isHalfFloatType(resultType) ||
      llvm::any_of(op->getOperands(), [&](mlir::Value operand) {
        return isHalfFloatType(typeOf(operand));
      }))
    return error(op, "'" + name + "' computes with " +
                         typeName(isHalfFloatType(resultType)
                                      ? resultType
                                      : typeOf(op->getOperand(0))) +
                         "; the host-program executor holds f16/bf16 "
                         "values but computes only with f32/f64 (extend "
                         "with arith.extf, or compute in a dispatch)");
  unsigned floatWidth = isFloatType(resultType) ? bitWidth(resultType) : 0;
  if (std::optional<OpKind> kind = arithKind(name, floatWidth)) {
    if (isReferenceType(resultType) || resultType == ValueType::Pointer)
      return error(op, "'" + name + "' on unsupported type");
    SmallVector<uint32_t> slots;
    for (mlir::Value v : op->getOperands())
      slots.push_back(plain(v));
    slots.push_back(plain(op->getResult(0)));
    emit(op, *kind, slots, int64_t(maskOf(bitWidth(resultType))),
         shiftOf(bitWidth(resultType)));
    return true;
  }
  return error(op, "unsupported op '" + name + "'");
}

} // namespace fleet::artifact
