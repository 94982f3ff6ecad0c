//===- Signature.h - what an export expects -----------------------*- C++ -*-===//
//
// Recovers an export's FunctionSignature from its host IR: value types, the
// ABI convention (`hal.abi.convention`), and the tensors its buffer views
// hold — from `hal.buffer_view.assert` on arguments (StreamToHAL checks
// every imported view) and `hal.buffer_view.create` feeding `util.return`.
// Tools use it to check inputs before a call and to list the expected
// signature (fleet-run).
//
// Thread safety: reads the IR only. Failure behaviour: what cannot be
// recovered is left unknown.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_HOST_SIGNATURE_H
#define FLEET_RUNTIME_SRC_HOST_SIGNATURE_H

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "fleet/runtime/host/Context.h"

namespace fleet::runtime::host {

Convention conventionOf(::fleet::util::FuncOp func);
FunctionSignature analyzeSignature(::fleet::util::FuncOp func);

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_SRC_HOST_SIGNATURE_H
