// Round trip of the stream timepoint ops, each optional part included.
// RUN: fleet-stream-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-stream-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1


// CHECK-LABEL: util.func private @timepoints
// CHECK-SAME: (%arg0: !stream.timepoint, %arg1: !stream.timepoint, %arg2: !stream.resource<external>, %arg3: index, %arg4: !stream.resource<staging>, %arg5: index, %arg6: !stream.test.fence, %arg7: !stream.test.fence)
util.func private @timepoints(%tp0: !stream.timepoint, %tp1: !stream.timepoint, %a: !stream.resource<external>, %as: index, %b: !stream.resource<staging>, %bs: index, %f: !stream.test.fence, %tf: !stream.test.fence) {
  // Attributes go before `=>`.
  // CHECK: stream.timepoint.immediate => !stream.timepoint
  %i = stream.timepoint.immediate => !stream.timepoint
  // CHECK: stream.timepoint.immediate {x} => !stream.timepoint
  %i2 = stream.timepoint.immediate {x} => !stream.timepoint
  // CHECK: stream.timepoint.await %arg0 => %arg2 : !stream.resource<external>{%arg3}
  %r2 = stream.timepoint.await %tp0 => %a : !stream.resource<external>{%as}
  // CHECK: stream.timepoint.await sync %arg0 => %arg2, %arg4 : !stream.resource<external>{%arg3}, !stream.resource<staging>{%arg5} attributes {w}
  %a2, %b2 = stream.timepoint.await sync %tp0 => %a, %b : !stream.resource<external>{%as}, !stream.resource<staging>{%bs} attributes {w}
  // CHECK: stream.timepoint.join max(%arg0, %arg1) => !stream.timepoint
  %j = stream.timepoint.join max(%tp0, %tp1) => !stream.timepoint
  // CHECK: stream.timepoint.join max(%arg0, %arg1) => !stream.timepoint attributes {j}
  %j2 = stream.timepoint.join max(%tp0, %tp1) => !stream.timepoint attributes {j}
  // CHECK: stream.timepoint.barrier on(#stream.test.affinity<"gpu0">) %arg2 : !stream.resource<external>{%arg3} => !stream.timepoint
  %r3, %tpr = stream.timepoint.barrier on(#stream.test.affinity<"gpu0">) %a : !stream.resource<external>{%as} => !stream.timepoint
  // CHECK: stream.timepoint.barrier %arg4 : !stream.resource<staging>{%arg5} => !stream.timepoint attributes {b}
  %r4, %tpr2 = stream.timepoint.barrier %b : !stream.resource<staging>{%bs} => !stream.timepoint attributes {b}
  // CHECK: stream.timepoint.export on(#stream.test.affinity<"gpu0">) %arg0 => (!stream.test.fence)
  %f2 = stream.timepoint.export on(#stream.test.affinity<"gpu0">) %tp0 => (!stream.test.fence)
  // CHECK: stream.timepoint.export %arg1 => (!stream.test.fence) attributes {e}
  %f3 = stream.timepoint.export %tp1 => (!stream.test.fence) attributes {e}
  // CHECK: stream.timepoint.import on(#stream.test.affinity<"gpu0">) %arg6 : (!stream.test.fence) => !stream.timepoint
  %tp2 = stream.timepoint.import on(#stream.test.affinity<"gpu0">) %f : (!stream.test.fence) => !stream.timepoint
  // CHECK: stream.timepoint.import %arg7 : (!stream.test.fence) => !stream.timepoint attributes {i}
  %tp3 = stream.timepoint.import %tf : (!stream.test.fence) => !stream.timepoint attributes {i}
  // CHECK: stream.timepoint.chain_external on(#stream.test.affinity<"gpu0">) %arg0 => (%arg6 : !stream.test.fence)
  stream.timepoint.chain_external on(#stream.test.affinity<"gpu0">) %tp0 => (%f : !stream.test.fence)
  // CHECK: stream.timepoint.chain_external %arg1 => (%arg7 : !stream.test.fence) attributes {c}
  stream.timepoint.chain_external %tp1 => (%tf : !stream.test.fence) attributes {c}
  util.return
}
