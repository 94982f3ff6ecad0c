// configure-workgroups accepts dispatches whose export is not in the module
// (docs/ir-reference.md "Unresolved dispatches"); the input is Stream's test
// of the same rule for every stream pass.

// RUN: fleet-opt --codegen-configure-workgroups %S/../Dialect/Stream/Transforms/unresolved-dispatch.mlir | FileCheck %S/../Dialect/Stream/Transforms/unresolved-dispatch.mlir --check-prefix=KEEP
