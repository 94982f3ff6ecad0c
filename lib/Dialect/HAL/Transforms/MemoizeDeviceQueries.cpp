//===- MemoizeDeviceQueries.cpp - ask each device question once -----------===//
//
// Invariant established: every hal.device.query and hal.device.query.link on
// devices read from immutable globals is asked once, in an initializer, and
// its answer read from globals everywhere else. Device configuration and
// topology do not change while a program runs, so this changes no result.
//
// Layout (IREE's, docs/pipeline.md "Memoized globals"): per device global
// @D, in declaration order, one util.initializer asks all of D's questions
// and stores each answer in two private globals named after the question's
// index among D's questions of its kind:
//   @__D_query_<i>_<category>_<key>(_ok)   hal.device.query on D
//   @__D_link_<i>_<T>_<key>(_ok)           hal.device.query.link D -> T
// (a name already starting with `__` is not prefixed again). The globals
// and the initializer follow D's global, the targets' globals and every
// initializer storing one of them; a question whose first user comes
// earlier stays where it is.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "InitializerHoisting.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-memoize-device-queries"

namespace fleet::hal {
#define GEN_PASS_DEF_MEMOIZEDEVICEQUERIESPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

/// Keeps `name` usable inside a symbol name.
std::string sanitize(StringRef name) {
  std::string result;
  for (char c : name)
    result.push_back(llvm::isAlnum(c) ? c : '_');
  return result;
}

/// The prefix of a device's globals: its name with a leading `__`.
std::string getDevicePrefix(util::GlobalOp device) {
  StringRef name = device.getSymName();
  if (name.starts_with("__"))
    return name.str();
  return "__" + name.str();
}

/// One unique question: its ops in first-use order.
struct Question {
  SmallVector<Operation *> ops;
  /// The device globals the question reads, in operand order.
  SmallVector<util::GlobalOp> devices;
  /// Earliest position of a top-level op using the question.
  unsigned firstUse = ~0u;
};

/// The questions asked of one device global, in first-use order.
struct DeviceQuestions {
  util::GlobalOp device;
  llvm::MapVector<Attribute, Question> questions;
};

struct MemoizeDeviceQueriesPass
    : public fleet::hal::impl::MemoizeDeviceQueriesPassBase<
          MemoizeDeviceQueriesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = module.getContext();
    InitializerHoister hoister(module);

    // Device global (first operand) → its questions.
    llvm::MapVector<Operation *, DeviceQuestions> perDevice;
    auto addQuestion = [&](Operation *op, ValueRange deviceValues,
                           ArrayRef<Attribute> what,
                           unsigned topLevelPosition) {
      SmallVector<util::GlobalOp> globals;
      SmallVector<Attribute> key = {op->getName().getIdentifier()};
      for (Value device : deviceValues) {
        auto load = device.getDefiningOp<util::GlobalLoadOp>();
        util::GlobalOp global = load ? hoister.getHoistableGlobal(load) : nullptr;
        if (!global) {
          LLVM_DEBUG(llvm::dbgs() << "skip: device of " << *op
                                  << " is not an immutable global\n");
          return;
        }
        globals.push_back(global);
        key.push_back(global.getSymNameAttr());
      }
      key.append(what.begin(), what.end());
      DeviceQuestions &device = perDevice[globals.front()];
      device.device = globals.front();
      Question &question = device.questions[ArrayAttr::get(context, key)];
      if (question.ops.empty())
        question.devices = std::move(globals);
      question.ops.push_back(op);
      question.firstUse = std::min(question.firstUse, topLevelPosition);
    };
    for (Operation &topLevel : module.getBody()->getOperations()) {
      if (!isa<util::FuncOp, util::InitializerOp>(topLevel))
        continue;
      unsigned position = hoister.getPosition(&topLevel);
      topLevel.walk([&](Operation *op) {
        auto defaultOf = [](TypedAttr attr) -> Attribute {
          return attr ? Attribute(attr) : UnitAttr();
        };
        if (auto query = dyn_cast<DeviceQueryOp>(op))
          addQuestion(op, query.getDevice(),
                      {query.getCategoryAttr(), query.getKeyAttr(),
                       defaultOf(query.getDefaultValueAttr())},
                      position);
        else if (auto link = dyn_cast<DeviceQueryLinkOp>(op))
          addQuestion(op, {link.getSourceDevice(), link.getTargetDevice()},
                      {link.getKeyAttr(),
                       defaultOf(link.getDefaultValueAttr())},
                      position);
      });
    }
    if (perDevice.empty()) {
      markAllAnalysesPreserved();
      return;
    }

    // Devices in declaration order, as IREE lays them out.
    SmallVector<DeviceQuestions *> devices;
    for (auto &entry : perDevice)
      devices.push_back(&entry.second);
    llvm::stable_sort(devices, [&](DeviceQuestions *a, DeviceQuestions *b) {
      return hoister.getPosition(a->device) < hoister.getPosition(b->device);
    });

    SmallVector<Operation *> topLevelOps = llvm::map_to_vector(
        module.getBody()->getOperations(), [](Operation &op) { return &op; });
    // Position → last op hoisted after it, so that devices sharing a
    // position keep declaration order.
    DenseMap<unsigned, Operation *> lastHoistedAfter;
    bool changed = false;
    for (DeviceQuestions *device : devices)
      changed |= memoize(*device, hoister, topLevelOps, lastHoistedAfter);
    if (!changed)
      markAllAnalysesPreserved();
  }

  /// Hoists the questions of one device; false when none could move.
  bool memoize(DeviceQuestions &device, InitializerHoister &hoister,
               ArrayRef<Operation *> topLevelOps,
               DenseMap<unsigned, Operation *> &lastHoistedAfter) {
    // After every device global the questions read and every initializer
    // storing one of them.
    unsigned after = 0;
    for (auto &[key, question] : device.questions)
      for (util::GlobalOp global : question.devices) {
        after = std::max(after, hoister.getPosition(global));
        if (std::optional<unsigned> store =
                hoister.getLastStorePosition(global))
          after = std::max(after, *store);
      }
    SmallVector<Question *> hoisted;
    for (auto &[key, question] : device.questions) {
      if (question.firstUse <= after) {
        LLVM_DEBUG(llvm::dbgs() << "skip: " << key
                                << " is used before its devices are set\n");
        continue;
      }
      hoisted.push_back(&question);
    }
    if (hoisted.empty())
      return false;

    std::string prefix = getDevicePrefix(device.device);
    SmallVector<std::string> names;
    SmallVector<Type> types;
    SmallVector<Location> locs;
    unsigned queries = 0, links = 0;
    for (Question *question : hoisted) {
      Operation *prototype = question->ops.front();
      std::string name;
      if (auto query = dyn_cast<DeviceQueryOp>(prototype)) {
        name = prefix + "_query_" + std::to_string(queries++) + "_" +
               sanitize(query.getCategory()) + "_" + sanitize(query.getKey());
      } else {
        auto link = cast<DeviceQueryLinkOp>(prototype);
        StringRef target = question->devices[1].getSymName();
        target = target.ltrim('_');
        name = prefix + "_link_" + std::to_string(links++) + "_" +
               sanitize(target) + "_" + sanitize(link.getKey());
      }
      names.push_back(name + "_ok");
      names.push_back(name);
      llvm::append_range(types, prototype->getResultTypes());
      locs.push_back(prototype->getLoc());
    }

    Operation *&tail = lastHoistedAfter[after];
    OpBuilder builder(device.device.getContext());
    builder.setInsertionPointAfter(tail ? tail : topLevelOps[after]);
    Location loc = FusedLoc::get(device.device.getContext(), locs);
    SmallVector<util::GlobalOp> globals = hoister.hoist(
        builder, loc, names, types,
        [&](OpBuilder &body, ArrayRef<util::GlobalOp> globals) {
          // Each device is loaded once; each question asked, then stored.
          DenseMap<Operation *, Value> loads;
          auto load = [&](util::GlobalOp global) -> Value {
            Value &value = loads[global];
            if (!value)
              value = util::GlobalLoadOp::create(body, loc, global);
            return value;
          };
          for (auto [index, question] : llvm::enumerate(hoisted)) {
            Operation *prototype = question->ops.front();
            IRMapping mapping;
            for (auto [operand, global] :
                 llvm::zip_equal(prototype->getOperands(), question->devices))
              mapping.map(operand, load(global));
            Operation *clone = body.clone(*prototype, mapping);
            for (auto [result, global] : llvm::zip_equal(
                     clone->getResults(), globals.slice(2 * index, 2)))
              util::GlobalStoreOp::create(
                  body, prototype->getLoc(), result,
                  util::GlobalOp(global).getSymName());
          }
        });
    tail = &*std::prev(builder.getInsertionPoint()); // the initializer

    for (auto [index, question] : llvm::enumerate(hoisted)) {
      ArrayRef<util::GlobalOp> answer = ArrayRef(globals).slice(2 * index, 2);
      for (Operation *op : question->ops) {
        OpBuilder replace(op);
        for (auto [result, global] : llvm::zip_equal(op->getResults(), answer))
          if (!result.use_empty())
            result.replaceAllUsesWith(util::GlobalLoadOp::create(
                replace, op->getLoc(), util::GlobalOp(global)));
        op->erase();
      }
    }
    return true;
  }
};

} // namespace
