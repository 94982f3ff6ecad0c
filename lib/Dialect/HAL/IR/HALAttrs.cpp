//===- HALAttrs.cpp - hal attribute parsing, printing and queries ---------===//
//
// Text forms follow docs/ir-reference.md ("Attributes"); the
// semantics of affinities and topology links follow docs/design.md §3.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

#define GET_ATTRDEF_CLASSES
#include "fleet/Dialect/HAL/IR/HALAttrs.cpp.inc"

void HALDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fleet/Dialect/HAL/IR/HALAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Enum attributes: `#hal.<mnemonic><spelling>`
//===----------------------------------------------------------------------===//

#define FLEET_HAL_ENUM_ATTR_ASM(AttrT, EnumT)                                  \
  Attribute AttrT::parse(AsmParser &parser, Type) {                            \
    EnumT value;                                                               \
    if (failed(parser.parseLess()) ||                                          \
        failed(parseEnumValue(parser, value)) ||                               \
        failed(parser.parseGreater()))                                         \
      return {};                                                               \
    return AttrT::get(parser.getContext(), value);                             \
  }                                                                            \
  void AttrT::print(AsmPrinter &printer) const {                               \
    printer << '<';                                                            \
    printEnumValue(printer, getValue());                                       \
    printer << '>';                                                            \
  }

FLEET_HAL_ENUM_ATTR_ASM(MemoryTypeAttr, MemoryType)
FLEET_HAL_ENUM_ATTR_ASM(BufferUsageAttr, BufferUsage)
FLEET_HAL_ENUM_ATTR_ASM(AllocaFlagsAttr, AllocaFlags)
FLEET_HAL_ENUM_ATTR_ASM(DeallocaFlagsAttr, DeallocaFlags)
FLEET_HAL_ENUM_ATTR_ASM(CopyFlagsAttr, CopyFlags)
FLEET_HAL_ENUM_ATTR_ASM(FillFlagsAttr, FillFlags)
FLEET_HAL_ENUM_ATTR_ASM(UpdateFlagsAttr, UpdateFlags)
FLEET_HAL_ENUM_ATTR_ASM(ExecuteFlagsAttr, ExecuteFlags)
FLEET_HAL_ENUM_ATTR_ASM(FenceFlagsAttr, FenceFlags)
FLEET_HAL_ENUM_ATTR_ASM(WaitFlagsAttr, WaitFlags)
FLEET_HAL_ENUM_ATTR_ASM(DispatchFlagsAttr, DispatchFlags)
FLEET_HAL_ENUM_ATTR_ASM(ExecutionBarrierFlagsAttr, ExecutionBarrierFlags)
FLEET_HAL_ENUM_ATTR_ASM(CommandBufferModeAttr, CommandBufferMode)
FLEET_HAL_ENUM_ATTR_ASM(CommandCategoryAttr, CommandCategory)
FLEET_HAL_ENUM_ATTR_ASM(ExecutionStageAttr, ExecutionStage)
FLEET_HAL_ENUM_ATTR_ASM(ABIConventionAttr, ABIConvention)

#undef FLEET_HAL_ENUM_ATTR_ASM

//===----------------------------------------------------------------------===//
// Device initializers (typed: `... : !hal.device`)
//===----------------------------------------------------------------------===//

/// Device initializer attributes default to `!hal.device` when the text has
/// no `: type` suffix.
static Type deviceTypeOr(AsmParser &parser, Type type) {
  return type ? type : DeviceType::get(parser.getContext());
}

Attribute DeviceTargetAttr::parse(AsmParser &parser, Type type) {
  StringAttr deviceID;
  DictionaryAttr configuration;
  SmallVector<ExecutableTargetAttr> targets;
  if (failed(parser.parseLess()) || failed(parser.parseAttribute(deviceID)))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalLSquare())) {
      if (failed(parser.parseOptionalRSquare())) {
        auto parseTarget = [&]() -> ParseResult {
          ExecutableTargetAttr target;
          if (failed(parser.parseAttribute(target)))
            return failure();
          targets.push_back(target);
          return success();
        };
        if (failed(parser.parseCommaSeparatedList(parseTarget)) ||
            failed(parser.parseRSquare()))
          return {};
      }
      break; // the target list is last
    }
    if (configuration) {
      parser.emitError(parser.getCurrentLocation(),
                       "expected '[' executable targets after the config");
      return {};
    }
    if (failed(parser.parseAttribute(configuration)))
      return {};
  }
  if (failed(parser.parseGreater()))
    return {};
  if (configuration && configuration.empty())
    configuration = {};
  return DeviceTargetAttr::get(parser.getContext(), deviceTypeOr(parser, type),
                               deviceID, configuration, targets);
}

void DeviceTargetAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printAttribute(getDeviceID());
  if (getConfiguration() && !getConfiguration().empty()) {
    printer << ", ";
    printer.printAttribute(getConfiguration());
  }
  if (!getExecutableTargets().empty()) {
    printer << ", [";
    llvm::interleaveComma(getExecutableTargets(), printer,
                          [&](Attribute t) { printer.printAttribute(t); });
    printer << ']';
  }
  printer << '>';
}

int64_t DeviceTargetAttr::getOrdinal() const {
  if (auto config = getConfiguration())
    if (auto ordinal = config.getAs<IntegerAttr>("ordinal"))
      return ordinal.getInt();
  return 0;
}

bool DeviceTargetAttr::isDiscrete() const {
  if (auto config = getConfiguration())
    for (StringRef key : {"discrete", "remote"})
      if (auto flag = config.getAs<BoolAttr>(key); flag && flag.getValue())
        return true;
  return false;
}

bool DeviceTargetAttr::isRemote() const {
  if (auto config = getConfiguration())
    if (auto remote = config.getAs<BoolAttr>("remote"))
      return remote.getValue();
  return false;
}

Attribute DeviceOrdinalAttr::parse(AsmParser &parser, Type type) {
  int64_t ordinal;
  if (failed(parser.parseLess()) || failed(parser.parseInteger(ordinal)) ||
      failed(parser.parseGreater()))
    return {};
  return DeviceOrdinalAttr::get(parser.getContext(),
                                deviceTypeOr(parser, type), ordinal);
}

void DeviceOrdinalAttr::print(AsmPrinter &printer) const {
  printer << '<' << getOrdinal() << '>';
}

Attribute DeviceFallbackAttr::parse(AsmParser &parser, Type type) {
  StringAttr name;
  if (failed(parser.parseLess()) || failed(parser.parseSymbolName(name)) ||
      failed(parser.parseGreater()))
    return {};
  return DeviceFallbackAttr::get(parser.getContext(),
                                 deviceTypeOr(parser, type),
                                 FlatSymbolRefAttr::get(name));
}

void DeviceFallbackAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printSymbolName(getName().getValue());
  printer << '>';
}

Attribute DeviceSelectAttr::parse(AsmParser &parser, Type type) {
  ArrayAttr devices;
  if (failed(parser.parseLess()) || failed(parser.parseAttribute(devices)) ||
      failed(parser.parseGreater()))
    return {};
  return DeviceSelectAttr::get(parser.getContext(), deviceTypeOr(parser, type),
                               devices);
}

void DeviceSelectAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printAttribute(getDevices());
  printer << '>';
}

//===----------------------------------------------------------------------===//
// Affinities
//===----------------------------------------------------------------------===//

/// `, [0, 2]` after the device: queue bit positions, ascending. Absent = -1.
static ParseResult parseQueueMask(AsmParser &parser, int64_t &mask) {
  mask = -1;
  if (failed(parser.parseOptionalComma()))
    return success();
  mask = 0;
  SMLoc loc = parser.getCurrentLocation();
  auto parseBit = [&]() -> ParseResult {
    int64_t bit;
    if (failed(parser.parseInteger(bit)))
      return failure();
    if (bit < 0 || bit > 63)
      return parser.emitError(loc, "queue bit position ")
             << bit << " is outside 0..63";
    mask |= int64_t(uint64_t(1) << bit);
    return success();
  };
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseBit);
}

static void printQueueMask(AsmPrinter &printer, int64_t mask) {
  if (mask == -1)
    return;
  printer << ", [";
  bool first = true;
  for (int bit = 0; bit < 64; ++bit) {
    if (!(uint64_t(mask) & (uint64_t(1) << bit)))
      continue;
    if (!first)
      printer << ", ";
    printer << bit;
    first = false;
  }
  printer << ']';
}

/// Same device where one queue mask contains the other (docs/design.md §3).
static bool queueMasksCompatible(int64_t a, int64_t b) {
  uint64_t ua = a, ub = b;
  return (ua & ub) == ua || (ua & ub) == ub;
}

Attribute DeviceAffinityAttr::parse(AsmParser &parser, Type) {
  SymbolRefAttr device;
  int64_t mask;
  if (failed(parser.parseLess()) || failed(parser.parseAttribute(device)) ||
      failed(parseQueueMask(parser, mask)) || failed(parser.parseGreater()))
    return {};
  return DeviceAffinityAttr::get(parser.getContext(), device, mask);
}

void DeviceAffinityAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printAttribute(getDevice());
  printQueueMask(printer, getQueueMask());
  printer << '>';
}

StringRef DeviceAffinityAttr::getDeviceName() const {
  return getDevice().getRootReference().getValue();
}

bool DeviceAffinityAttr::isExecutableWith(Attribute other) const {
  if (!other || other == *this)
    return true;
  auto otherAffinity = dyn_cast<DeviceAffinityAttr>(other);
  if (!otherAffinity || otherAffinity.getDevice() != getDevice())
    return false;
  return queueMasksCompatible(getQueueMask(), otherAffinity.getQueueMask());
}

Attribute DevicePromiseAttr::parse(AsmParser &parser, Type) {
  StringAttr device;
  int64_t mask;
  if (failed(parser.parseLess()) || failed(parser.parseSymbolName(device)) ||
      failed(parseQueueMask(parser, mask)) || failed(parser.parseGreater()))
    return {};
  return DevicePromiseAttr::get(parser.getContext(), device, mask);
}

void DevicePromiseAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printSymbolName(getDevice().getValue());
  printQueueMask(printer, getQueueMask());
  printer << '>';
}

// A promise names a device that may not be declared yet: not a device to
// execute on until the compiler resolves it.
StringRef DevicePromiseAttr::getDeviceName() const { return {}; }

bool DevicePromiseAttr::isExecutableWith(Attribute other) const {
  if (!other || other == *this)
    return true;
  auto otherPromise = dyn_cast<DevicePromiseAttr>(other);
  if (!otherPromise || otherPromise.getDevice() != getDevice())
    return false;
  return queueMasksCompatible(getQueueMask(), otherPromise.getQueueMask());
}

Attribute DeviceOptimalAttr::parse(AsmParser &parser, Type) {
  SmallVector<Attribute> affinities;
  auto parseOne = [&]() -> ParseResult {
    Attribute attr;
    SMLoc loc = parser.getCurrentLocation();
    if (failed(parser.parseAttribute(attr)))
      return failure();
    if (!isa<stream::AffinityAttrInterface>(attr))
      return parser.emitError(loc, "expected an affinity attribute");
    affinities.push_back(attr);
    return success();
  };
  if (failed(parser.parseLess()) ||
      failed(parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                            parseOne)) ||
      failed(parser.parseGreater()))
    return {};
  return DeviceOptimalAttr::get(parser.getContext(), affinities);
}

void DeviceOptimalAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getAffinities(), printer,
                        [&](Attribute a) { printer.printAttribute(a); });
  printer << "]>";
}

StringRef DeviceOptimalAttr::getDeviceName() const { return {}; }

bool DeviceOptimalAttr::isExecutableWith(Attribute other) const {
  return !other || other == *this;
}

//===----------------------------------------------------------------------===//
// Topology
//===----------------------------------------------------------------------===//

bool DeviceLinkAttr::getExportImport() const {
  if (auto extra = getExtra())
    if (auto flag = extra.getAs<BoolAttr>("export_import"))
      return flag.getValue();
  return false;
}

bool DeviceLinkAttr::isAbsent() const {
  return !getUnifiedMemory() && !getTransparentAccess() && !getExportImport();
}

DeviceLinkAttr DeviceTopologyAttr::lookup(StringRef source,
                                          StringRef target) const {
  for (DeviceLinkAttr link : getLinks())
    if (link.getSource().getValue() == source &&
        link.getTarget().getValue() == target)
      return link;
  return {};
}

/// `(@x -> @y = {unified_memory = B, transparent_access = B} (, {extra})?)`
static FailureOr<DeviceLinkAttr> parseDeviceLink(AsmParser &parser) {
  StringAttr source, target;
  if (failed(parser.parseLParen()) || failed(parser.parseSymbolName(source)) ||
      failed(parser.parseArrow()) || failed(parser.parseSymbolName(target)) ||
      failed(parser.parseEqual()) || failed(parser.parseLBrace()))
    return failure();
  bool unified = false, transparent = false;
  if (failed(parser.parseOptionalRBrace())) {
    auto parseFlag = [&]() -> ParseResult {
      StringRef key;
      SMLoc loc = parser.getCurrentLocation();
      if (failed(parser.parseKeyword(&key)) || failed(parser.parseEqual()))
        return failure();
      bool *slot = key == "unified_memory"      ? &unified
                   : key == "transparent_access" ? &transparent
                                                 : nullptr;
      if (!slot)
        return parser.emitError(loc, "unknown link property '")
               << key << "' (expected unified_memory or transparent_access; "
               << "extension keys go in the second dictionary)";
      if (succeeded(parser.parseOptionalKeyword("true")))
        *slot = true;
      else if (succeeded(parser.parseOptionalKeyword("false")))
        *slot = false;
      else
        return parser.emitError(parser.getCurrentLocation(),
                                "expected 'true' or 'false'");
      return success();
    };
    if (failed(parser.parseCommaSeparatedList(parseFlag)) ||
        failed(parser.parseRBrace()))
      return failure();
  }
  DictionaryAttr extra;
  if (succeeded(parser.parseOptionalComma())) {
    if (failed(parser.parseAttribute(extra)))
      return failure();
    if (extra.empty())
      extra = {};
  }
  if (failed(parser.parseRParen()))
    return failure();
  return DeviceLinkAttr::get(parser.getContext(), FlatSymbolRefAttr::get(source),
                             FlatSymbolRefAttr::get(target), unified,
                             transparent, extra);
}

static void printDeviceLink(AsmPrinter &printer, DeviceLinkAttr link) {
  printer << '(';
  printer.printAttribute(link.getSource());
  printer << " -> ";
  printer.printAttribute(link.getTarget());
  printer << " = {";
  SmallVector<StringRef> flags;
  if (link.getUnifiedMemory())
    flags.push_back("unified_memory = true");
  if (link.getTransparentAccess())
    flags.push_back("transparent_access = true");
  llvm::interleaveComma(flags, printer);
  printer << '}';
  if (link.getExtra() && !link.getExtra().empty()) {
    printer << ", ";
    printer.printAttribute(link.getExtra());
  }
  printer << ')';
}

Attribute DeviceLinkAttr::parse(AsmParser &parser, Type) {
  if (failed(parser.parseLess()))
    return {};
  FailureOr<DeviceLinkAttr> link = parseDeviceLink(parser);
  if (failed(link) || failed(parser.parseGreater()))
    return {};
  return *link;
}

void DeviceLinkAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printDeviceLink(printer, *this);
  printer << '>';
}

Attribute DeviceTopologyAttr::parse(AsmParser &parser, Type) {
  SmallVector<DeviceLinkAttr> links;
  auto parseOne = [&]() -> ParseResult {
    FailureOr<DeviceLinkAttr> link = parseDeviceLink(parser);
    if (failed(link))
      return failure();
    links.push_back(*link);
    return success();
  };
  if (failed(parser.parseLess()) || failed(parser.parseKeyword("links")) ||
      failed(parser.parseEqual()) ||
      failed(parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                            parseOne)) ||
      failed(parser.parseGreater()))
    return {};
  return DeviceTopologyAttr::get(parser.getContext(), links);
}

void DeviceTopologyAttr::print(AsmPrinter &printer) const {
  printer << "<links = [";
  llvm::interleaveComma(getLinks(), printer, [&](DeviceLinkAttr link) {
    printDeviceLink(printer, link);
  });
  printer << "]>";
}

//===----------------------------------------------------------------------===//
// Executable layout
//===----------------------------------------------------------------------===//

Attribute PipelineBindingAttr::parse(AsmParser &parser, Type) {
  DescriptorType type;
  DescriptorFlags flags = DescriptorFlags::None;
  if (failed(parser.parseLess()) || failed(parseEnumValue(parser, type)))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      failed(parseEnumValue(parser, flags)))
    return {};
  if (failed(parser.parseGreater()))
    return {};
  return PipelineBindingAttr::get(parser.getContext(), type, flags);
}

void PipelineBindingAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printEnumValue(printer, getType());
  if (getFlags() != DescriptorFlags::None) {
    printer << ", ";
    printEnumValue(printer, getFlags());
  }
  printer << '>';
}

Attribute PipelineLayoutAttr::parse(AsmParser &parser, Type) {
  int64_t constants = 0;
  SmallVector<PipelineBindingAttr> bindings;
  PipelineLayoutFlags flags = PipelineLayoutFlags::None;
  if (failed(parser.parseLess()))
    return {};
  if (succeeded(parser.parseOptionalKeyword("constants"))) {
    if (failed(parser.parseEqual()) || failed(parser.parseInteger(constants)) ||
        failed(parser.parseComma()))
      return {};
  }
  auto parseBinding = [&]() -> ParseResult {
    PipelineBindingAttr binding;
    if (failed(parser.parseAttribute(binding)))
      return failure();
    bindings.push_back(binding);
    return success();
  };
  if (failed(parser.parseKeyword("bindings")) || failed(parser.parseEqual()) ||
      failed(parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                            parseBinding)))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (failed(parser.parseKeyword("flags")) || failed(parser.parseEqual()) ||
        failed(parseEnumValue(parser, flags)))
      return {};
  }
  if (failed(parser.parseGreater()))
    return {};
  return PipelineLayoutAttr::get(parser.getContext(), constants, bindings,
                                 flags);
}

void PipelineLayoutAttr::print(AsmPrinter &printer) const {
  printer << '<';
  if (getConstants() > 0)
    printer << "constants = " << getConstants() << ", ";
  printer << "bindings = [";
  llvm::interleaveComma(getBindings(), printer,
                        [&](Attribute b) { printer.printAttribute(b); });
  printer << ']';
  if (getFlags() != PipelineLayoutFlags::None) {
    printer << ", flags = ";
    printEnumValue(printer, getFlags());
  }
  printer << '>';
}
