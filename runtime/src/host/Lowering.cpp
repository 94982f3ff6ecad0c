//===- Lowering.cpp - registers, control flow, util and arith ops --------===//
//
// See Lowering.h. The hal ops are in LowerHAL.cpp.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

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

namespace fleet::runtime::host {

using namespace mlir;
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
      return Value::f32(floating.getValue().convertToFloat()).bits();
    if (type == ValueType::F64)
      return Value::f64(floating.getValue().convertToDouble()).bits();
    if (isHalfFloatType(type))
      return floating.getValue().bitcastToAPInt().getZExtValue();
  }
  return std::nullopt;
}

} // namespace

FunctionLowering::FunctionLowering(LoweringEnv &env, FunctionCode &code)
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
  if (isReferenceType(type))
    return refCount_++ | kRefSlot;
  code_.scalarTemplate.push_back(0);
  return scalarCount_++;
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
  if (auto address = dyn_cast<utilir::GlobalAddressOp>(op)) {
    auto it = env_.globals.find(address.getGlobal());
    if (it == env_.globals.end())
      return error(op, "unknown global @" + address.getGlobal());
    bits = uint64_t(uintptr_t(it->second.storage));
  } else if (isa<halir::DevicesCountOp>(op)) {
    bits = env_.context->devices().size();
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
  labelPositions_[label] = code_.code.size();
}

uint32_t FunctionLowering::siteOf(Operation *op) {
  auto [it, inserted] = siteIndex_.try_emplace(op, code_.sites.size());
  if (inserted)
    code_.sites.push_back(Site{op->getName().getStringRef().str(),
                               formatLocation(op->getLoc())});
  return it->second;
}

size_t FunctionLowering::emit(Operation *op, Handler handler,
                              ArrayRef<uint32_t> slots, int64_t imm,
                              int64_t imm2, const void *data, Label target) {
  Instr instr;
  instr.handler = handler;
  instr.data = data;
  instr.imm = imm;
  instr.imm2 = imm2;
  instr.site = siteOf(op);
  instr.slotCount = uint32_t(slots.size());
  pending_.emplace_back(code_.slotTable.size(), target);
  code_.slotTable.insert(code_.slotTable.end(), slots.begin(), slots.end());
  code_.code.push_back(instr);
  ++env_.opRecords;
  return code_.code.size() - 1;
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
    emit(op, &handlers::move, pairs, int64_t(a.size()));
  };
  if (!overlaps) {
    moveRecord(from, to);
    return;
  }
  // A target is also a source (e.g. swapped loop-carried values): copy all
  // sources to fresh registers first so every move reads the old values.
  SmallVector<uint32_t> temps;
  for (uint32_t target : to)
    temps.push_back(isRefSlot(target) ? newSlot(ValueType::Buffer)
                                      : newSlot(ValueType::I64));
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
  code_.sites.push_back(Site{"end of function", "unknown location"});
  Instr end;
  end.handler = &handlers::unreachable;
  end.site = uint32_t(code_.sites.size() - 1);
  pending_.emplace_back(code_.slotTable.size(), -1);
  code_.code.push_back(end);
  code_.refCount = refCount_;
  for (size_t i = 0; i < code_.code.size(); ++i) {
    Instr &instr = code_.code[i];
    instr.slots = code_.slotTable.data() + pending_[i].first;
    Label target = pending_[i].second;
    instr.target = target >= 0 ? &code_.code[labelPositions_[target]] : nullptr;
  }
}

// ---- functions and blocks --------------------------------------------------

bool FunctionLowering::lower(Region &body) {
  Block &entry = body.front();
  for (BlockArgument arg : entry.getArguments()) {
    if (!assign(arg))
      continue;
    code_.argumentSlots.push_back(slot(arg));
    code_.argumentTypes.push_back(typeOf(arg));
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
    emit(op, &handlers::returnOp, slots);
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
      emit(op, &handlers::jump, {}, 0, 0, nullptr, exit.label);
    return true;
  }
  if (auto condition = dyn_cast<scf::ConditionOp>(op)) {
    SmallVector<uint32_t> from;
    for (mlir::Value v : condition.getArgs())
      from.push_back(slot(v));
    emitMoves(op, from, exit.targets);
    emit(op, &handlers::branchIfFalse, {plain(condition.getCondition())}, 0, 0,
         nullptr, exit.label);
    return true;
  }
  if (auto branch = dyn_cast<cf::BranchOp>(op)) {
    emitMoves(op, branch.getDestOperands(), branch.getDest()->getArguments());
    emit(op, &handlers::jump, {}, 0, 0, nullptr, blockLabels_[branch.getDest()]);
    return true;
  }
  if (auto branch = dyn_cast<cf::CondBranchOp>(op)) {
    Label falseLabel = newLabel();
    emit(op, &handlers::branchIfFalse, {plain(branch.getCondition())}, 0, 0,
         nullptr, falseLabel);
    emitMoves(op, branch.getTrueDestOperands(),
              branch.getTrueDest()->getArguments());
    emit(op, &handlers::jump, {}, 0, 0, nullptr,
         blockLabels_[branch.getTrueDest()]);
    bind(falseLabel);
    emitMoves(op, branch.getFalseDestOperands(),
              branch.getFalseDest()->getArguments());
    emit(op, &handlers::jump, {}, 0, 0, nullptr,
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
    emit(op, &handlers::forEnter, {iv, plain(forOp.getUpperBound())},
         int64_t(maskOf(width)), mode, nullptr, exitLabel);
    bind(bodyLabel);
    RegionExit yield;
    yield.kind = RegionExit::Yield;
    for (BlockArgument arg : forOp.getRegionIterArgs())
      yield.targets.push_back(slot(arg));
    bool ok = lowerBlock(*forOp.getBody(), yield);
    emit(op, &handlers::forNext,
         {iv, plain(forOp.getStep()), plain(forOp.getUpperBound())},
         int64_t(maskOf(width)), mode, nullptr, bodyLabel);
    bind(exitLabel);
    return ok;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    Label elseLabel = newLabel(), endLabel = newLabel();
    emit(op, &handlers::branchIfFalse, {plain(ifOp.getCondition())}, 0, 0,
         nullptr, elseLabel);
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
static std::optional<std::vector<uint8_t>> constantBytes(Attribute value) {
  if (auto text = dyn_cast<StringAttr>(value))
    return std::vector<uint8_t>(text.getValue().begin(), text.getValue().end());
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    Type element = dense.getElementType();
    if (!element.isIntOrIndexOrFloat() || element.getIntOrFloatBitWidth() % 8)
      return std::nullopt; // i1 and sub-byte types are bit-packed in MLIR
    ArrayRef<char> raw = dense.getRawData();
    size_t count = size_t(dense.getNumElements());
    size_t elementBytes = element.getIntOrFloatBitWidth() / 8;
    std::vector<uint8_t> bytes(count * elementBytes);
    if (dense.isSplat()) {
      for (size_t i = 0; i < count; ++i)
        std::memcpy(bytes.data() + i * elementBytes, raw.data(), elementBytes);
    } else if (raw.size() == bytes.size()) {
      std::memcpy(bytes.data(), raw.data(), bytes.size());
    } else {
      return std::nullopt;
    }
    return bytes;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    return std::vector<uint8_t>(data.begin(), data.end());
  }
  return std::nullopt;
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
         isReferenceType(global->type) ? &handlers::globalLoadRef
                                       : &handlers::globalLoadScalar,
         {plain(load.getResult())}, 0, 0, global->storage);
    return true;
  }
  if (auto store = dyn_cast<utilir::GlobalStoreOp>(op)) {
    const GlobalInfo *global = globalOf(store.getGlobal());
    if (!global)
      return false;
    emit(op,
         isReferenceType(global->type) ? &handlers::globalStoreRef
                                       : &handlers::globalStoreScalar,
         {plain(store.getValue())}, 0, 0, global->storage);
    return true;
  }
  if (auto load = dyn_cast<utilir::GlobalLoadIndirectOp>(op)) {
    emit(op,
         isReferenceType(typeOf(load.getResult()))
             ? &handlers::indirectLoadRef
             : &handlers::indirectLoadScalar,
         {plain(load.getGlobal()), plain(load.getResult())});
    return true;
  }
  if (auto store = dyn_cast<utilir::GlobalStoreIndirectOp>(op)) {
    emit(op,
         isReferenceType(typeOf(store.getValue()))
             ? &handlers::indirectStoreRef
             : &handlers::indirectStoreScalar,
         {plain(store.getValue()), plain(store.getGlobal())});
    return true;
  }
  if (auto constant = dyn_cast<utilir::BufferConstantOp>(op)) {
    std::optional<std::vector<uint8_t>> bytes =
        constantBytes(constant.getValue());
    if (!bytes)
      return error(op, "util.buffer.constant value is not a byte-addressable "
                       "dense elements, string or resource attribute");
    size_t alignment = 64;
    if (auto align = constant.getAlignment())
      alignment = size_t(align->getZExtValue());
    hal::Ref<HostBuffer> buffer =
        HostBuffer::create(bytes->data(), bytes->size(), alignment);
    const void *data = buffer.get();
    env_.constants->push_back(hal::Ref<hal::RefCounted>(std::move(buffer)));
    emit(op, &handlers::constantRef, {plain(constant.getResult())}, 0, 0,
         data);
    return true;
  }
  if (auto check = dyn_cast<utilir::StatusCheckOkOp>(op)) {
    const std::string *message =
        code_.addData(check.getMessage() ? check.getMessage()->str()
                                         : std::string());
    emit(op, &handlers::statusCheckOk, {plain(check.getStatus())}, 0, 0,
         message);
    return true;
  }
  if (auto call = dyn_cast<utilir::CallOp>(op)) {
    auto it = env_.functions.find(call.getCallee());
    if (it == env_.functions.end())
      return error(op, "call to unknown function @" + call.getCallee());
    const FunctionCode *callee = it->second;
    if (callee->isDeclaration && !callee->import)
      return error(op, "call to unresolved import @" + call.getCallee());
    if (callee->isDeclaration)
      callee = callee->import;
    SmallVector<uint32_t> slots;
    for (mlir::Value v : call.getArguments())
      slots.push_back(slot(v));
    for (mlir::Value v : call.getResults())
      slots.push_back(slot(v));
    emit(op, &handlers::call, slots, int64_t(call.getArguments().size()), 0,
         callee);
    return true;
  }
  return error(op, "unsupported op '" + op->getName().getStringRef() + "'");
}

// ---- arith -----------------------------------------------------------------

bool FunctionLowering::lowerArith(Operation *op) {
  std::string name = op->getName().getStringRef().str();
  for (mlir::Value v : op->getOperands())
    if (!classifyType(v.getType()))
      return error(op, "'" + name + "' on unsupported operand type");
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    if (!select.getCondition().getType().isInteger(1))
      return error(op, "arith.select needs a scalar i1 condition");
    emit(op,
         isReferenceType(typeOf(select.getResult())) ? &handlers::selectRef
                                                     : &handlers::selectScalar,
         {plain(select.getCondition()), plain(select.getTrueValue()),
          plain(select.getFalseValue()), plain(select.getResult())});
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    Handler handler = lookupCmpIHandler(unsigned(cmp.getPredicate()));
    if (!handler)
      return error(op, "unsupported arith.cmpi predicate");
    emit(op, handler, {plain(cmp.getLhs()), plain(cmp.getRhs()),
                       plain(cmp.getResult())},
         0, shiftOf(bitWidth(typeOf(cmp.getLhs()))));
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    Handler handler = lookupCmpFHandler(bitWidth(typeOf(cmp.getLhs())));
    if (!handler)
      return error(op, "arith.cmpf on unsupported type");
    emit(op, handler, {plain(cmp.getLhs()), plain(cmp.getRhs()),
                       plain(cmp.getResult())},
         0, int64_t(cmp.getPredicate()));
    return true;
  }
  if (op->getNumResults() != 1)
    return error(op, "unsupported op '" + name + "'");
  ValueType resultType = typeOf(op->getResult(0));
  if (op->getNumOperands() == 1) {
    ValueType operandType = typeOf(op->getOperand(0));
    if (Handler handler = lookupCastHandler(name, operandType, resultType)) {
      emit(op, handler, {plain(op->getOperand(0)), plain(op->getResult(0))},
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
  if (Handler handler = lookupArithHandler(name, floatWidth)) {
    if (isReferenceType(resultType) || resultType == ValueType::Pointer)
      return error(op, "'" + name + "' on unsupported type");
    SmallVector<uint32_t> slots;
    for (mlir::Value v : op->getOperands())
      slots.push_back(plain(v));
    slots.push_back(plain(op->getResult(0)));
    emit(op, handler, slots, int64_t(maskOf(bitWidth(resultType))),
         shiftOf(bitWidth(resultType)));
    return true;
  }
  return error(op, "unsupported op '" + name + "'");
}

} // namespace fleet::runtime::host
