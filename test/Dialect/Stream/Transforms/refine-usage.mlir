// RUN: fleet-stream-opt %s --stream-refine-usage | FileCheck %s

stream.executable private @ex {
  stream.executable.export public @f workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @f(%arg0: !stream.binding, %arg1: !stream.binding) {
      return
    }
  }
}

// A value that only flows into an export is produced as external; other
// unknown lifetimes become transient; transfers that change nothing vanish.
// CHECK-LABEL: @refine
util.func public @refine(%x: !stream.resource<external>, %sz: index) -> !util.buffer {
  %c0 = arith.constant 0 : index
  // CHECK: %[[A:.+]] = stream.async.dispatch {{.+}} -> !stream.resource<transient>{%arg1}
  %a = stream.async.dispatch on(#stream.test.affinity<"d">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<*>{%sz}
  // CHECK: %[[B:.+]] = stream.async.dispatch {{.+}}(%[[A]][{{.+}}]) : (!stream.resource<transient>{%arg1}) -> !stream.resource<external>{%arg1}
  %b = stream.async.dispatch on(#stream.test.affinity<"d">) @ex::@f(%a[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> !stream.resource<*>{%sz}
  // CHECK-NOT: stream.async.transfer
  %e = stream.async.transfer %b : !stream.resource<*>{%sz} from(#stream.test.affinity<"d">) -> to(#stream.test.affinity<"d">) !stream.resource<external>{%sz}
  // CHECK: stream.tensor.export on(#stream.test.affinity<"d">) %[[B]]
  %v = stream.tensor.export on(#stream.test.affinity<"d">) %e : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v : !util.buffer
}

// A coarse-fences export signals its fence with a barrier on the result: the
// producer still makes the external value, the barrier carries it, and the
// export needs no copy (which would run after the signal, under a host wait).
// CHECK-LABEL: @refine_through_barrier
util.func public @refine_through_barrier(%x: !stream.resource<external>, %sz: index, %fence: !stream.test.fence) -> !util.buffer {
  %c0 = arith.constant 0 : index
  // CHECK: %[[A:.+]] = stream.async.dispatch {{.+}} -> !stream.resource<external>{%arg1}
  %a = stream.async.dispatch on(#stream.test.affinity<"d">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<*>{%sz}
  // CHECK: %[[R:.+]], %[[T:.+]] = stream.timepoint.barrier on(#stream.test.affinity<"d">) %[[A]] : !stream.resource<external>{%arg1}
  %r, %t = stream.timepoint.barrier on(#stream.test.affinity<"d">) %a : !stream.resource<*>{%sz} => !stream.timepoint
  stream.timepoint.chain_external %t => (%fence : !stream.test.fence)
  // CHECK-NOT: stream.async.transfer
  %e = stream.async.transfer %r : !stream.resource<*>{%sz} from(#stream.test.affinity<"d">) -> to(#stream.test.affinity<"d">) !stream.resource<external>{%sz}
  // CHECK: stream.tensor.export on(#stream.test.affinity<"d">) %[[R]]
  %v = stream.tensor.export on(#stream.test.affinity<"d">) %e : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v : !util.buffer
}
