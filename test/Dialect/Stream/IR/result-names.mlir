// Stream ops print IREE's default result names (docs/ir-reference.md
// "Result names"): `%empty` for stream.tensor.empty and `%cst` for
// stream.tensor.constant and stream.async.constant; the names survive a
// round trip. Ops IREE names nothing print %N (or their ODS result names
// when they have several results).
// RUN: fleet-stream-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @names
util.func public @names(%sz: index, %n: index) {
  // CHECK: %empty = stream.tensor.empty : tensor<?xf32>{%arg1} in !stream.resource<*>{%arg0}
  %e = stream.tensor.empty : tensor<?xf32>{%n} in !stream.resource<*>{%sz}
  // CHECK: %cst = stream.tensor.constant : tensor<2xi32> in !stream.resource<*> = dense<[1, 2]> : tensor<2xi32>
  %k = stream.tensor.constant : tensor<2xi32> in !stream.resource<*> = dense<[1, 2]> : tensor<2xi32>
  // CHECK: %cst_0 = stream.async.constant : !stream.resource<constant>{%arg0} = dense<[1, 2]> : tensor<2xi32>
  %c = stream.async.constant : !stream.resource<constant>{%sz} = dense<[1, 2]> : tensor<2xi32>
  // CHECK: %0 = stream.timepoint.immediate => !stream.timepoint
  %t = stream.timepoint.immediate => !stream.timepoint
  util.return
}
