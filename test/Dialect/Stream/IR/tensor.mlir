// Round trip of the stream tensor-boundary and tensor-phase ops, each
// optional part included: custom form printed twice (identical text), the
// generic form back to custom, and FileCheck on the printed form.
// RUN: fleet-stream-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-stream-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1


stream.executable private @ex {
  stream.executable.export public @entry workgroups(%x: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %x, %c1, %c1 : index, index, index
  }
  stream.executable.export public @plain
  builtin.module {
    func.func @entry(%in: !stream.binding, %acc: !stream.binding, %k: i32) {
      return
    }
    func.func @plain() {
      return
    }
  }
}

// CHECK-LABEL: util.func private @boundary
// CHECK-SAME: (%arg0: !util.buffer, %arg1: !util.buffer, %arg2: index, %arg3: index, %arg4: index)
util.func private @boundary(%view: !util.buffer, %hb: !util.buffer, %n: index, %sz: index, %c32: index) {
  // CHECK: %[[R:.+]] = stream.tensor.import on(#stream.test.affinity<"gpu0">) %arg0 : !util.buffer -> tensor<?x16xf32>{%arg2} in !stream.resource<external>{%arg3}
  %r = stream.tensor.import on(#stream.test.affinity<"gpu0">) %view : !util.buffer -> tensor<?x16xf32>{%n} in !stream.resource<external>{%sz}
  // `consume` without `on`; a static encoding has no dims.
  // CHECK: stream.tensor.import consume %arg1 : !util.buffer -> tensor<8xi32> in !stream.resource<external>{%arg4}
  %r2 = stream.tensor.import consume %hb : !util.buffer -> tensor<8xi32> in !stream.resource<external>{%c32}
  // Both, in the reference's order (on, consume), with attributes at the end.
  // CHECK: stream.tensor.import on(#stream.test.affinity<"gpu0">) consume %arg0 : !util.buffer -> tensor<4xf32> in !stream.resource<staging>{%arg3} attributes {a.b = 1 : i32}
  %r3 = stream.tensor.import on(#stream.test.affinity<"gpu0">) consume %view : !util.buffer -> tensor<4xf32> in !stream.resource<staging>{%sz} attributes {a.b = 1 : i32}
  // CHECK: stream.tensor.export on(#stream.test.affinity<"gpu0">) %[[R]] : tensor<?x16xf32>{%arg2} in !stream.resource<external>{%arg3} -> !util.buffer
  %v = stream.tensor.export on(#stream.test.affinity<"gpu0">) %r : tensor<?x16xf32>{%n} in !stream.resource<external>{%sz} -> !util.buffer
  // CHECK: stream.tensor.export %[[R]] : tensor<?x16xf32>{%arg2} in !stream.resource<external>{%arg3} -> !util.buffer attributes {x}
  %v2 = stream.tensor.export %r : tensor<?x16xf32>{%n} in !stream.resource<external>{%sz} -> !util.buffer attributes {x}
  util.return
}

// CHECK-LABEL: util.func private @tensor_phase
// CHECK-SAME: (%arg0: index, %arg1: index, %arg2: index, %arg3: f32, %arg4: !stream.resource<*>, %arg5: index, %arg6: index, %arg7: index, %arg8: index)
util.func private @tensor_phase(%n: index, %m: index, %sz: index, %f: f32, %r: !stream.resource<*>, %c0: index, %c4: index, %c8: index, %ssz: index) {
  // CHECK: stream.tensor.sizeof on(#stream.test.affinity<"gpu0">) tensor<?x16xf32>{%arg0} : index
  %s0 = stream.tensor.sizeof on(#stream.test.affinity<"gpu0">) tensor<?x16xf32>{%n} : index
  // Attributes go before `:`; after a static encoding `{` opens them.
  // CHECK: stream.tensor.sizeof tensor<4xf32> {a, b = 2 : i32} : index
  %s1 = stream.tensor.sizeof tensor<4xf32> {a, b = 2 : i32} : index
  // CHECK: stream.tensor.sizeof tensor<?x?xf32>{%arg0, %arg1} {c} : index
  %s2 = stream.tensor.sizeof tensor<?x?xf32>{%n, %m} {c} : index
  // CHECK: stream.tensor.empty on(#stream.test.affinity<"gpu0">) : tensor<?x0xf32>{%arg0} in !stream.resource<*>{%arg2}
  %e = stream.tensor.empty on(#stream.test.affinity<"gpu0">) : tensor<?x0xf32>{%n} in !stream.resource<*>{%sz}
  // CHECK: stream.tensor.empty : tensor<0xf32> in !stream.resource<transient>{%arg2} attributes {e}
  %e2 = stream.tensor.empty : tensor<0xf32> in !stream.resource<transient>{%sz} attributes {e}
  // The constant's resource has no size; a static value may fill a dynamic encoding.
  // CHECK: stream.tensor.constant on(#stream.test.affinity<"gpu0">) : tensor<?x16xf32>{%arg0} in !stream.resource<constant> = dense<1.000000e+00> : tensor<2x16xf32>
  %k = stream.tensor.constant on(#stream.test.affinity<"gpu0">) : tensor<?x16xf32>{%n} in !stream.resource<constant> = dense<1.0> : tensor<2x16xf32>
  // CHECK: stream.tensor.constant : tensor<2xi32> in !stream.resource<*> = dense<[1, 2]> : tensor<2xi32> attributes {k}
  %k2 = stream.tensor.constant : tensor<2xi32> in !stream.resource<*> = dense<[1, 2]> : tensor<2xi32> attributes {k}
  // CHECK: stream.tensor.splat on(#stream.test.affinity<"gpu0">) %arg3 : f32 -> tensor<?x16xf32>{%arg0} in !stream.resource<*>{%arg2}
  %sp = stream.tensor.splat on(#stream.test.affinity<"gpu0">) %f : f32 -> tensor<?x16xf32>{%n} in !stream.resource<*>{%sz}
  // CHECK: stream.tensor.splat %arg0 : index -> tensor<4xindex> in !stream.resource<transient>{%arg2}
  %sp2 = stream.tensor.splat %n : index -> tensor<4xindex> in !stream.resource<transient>{%sz}
  // CHECK: stream.tensor.clone on(#stream.test.affinity<"gpu0">) %arg4 : tensor<?x16xf32>{%arg0} in !stream.resource<*>{%arg2} -> tensor<?x16xf32>{%arg0} in !stream.resource<*>{%arg2}
  %c = stream.tensor.clone on(#stream.test.affinity<"gpu0">) %r : tensor<?x16xf32>{%n} in !stream.resource<*>{%sz} -> tensor<?x16xf32>{%n} in !stream.resource<*>{%sz}
  // Shape and element type may change across a clone.
  // CHECK: stream.tensor.clone %arg4 : tensor<?x16xf32>{%arg0} in !stream.resource<*>{%arg2} -> tensor<16x?xi32>{%arg1} in !stream.resource<transient>{%arg2} attributes {c}
  %c2 = stream.tensor.clone %r : tensor<?x16xf32>{%n} in !stream.resource<*>{%sz} -> tensor<16x?xi32>{%m} in !stream.resource<transient>{%sz} attributes {c}
  // CHECK: stream.tensor.slice on(#stream.test.affinity<"gpu0">) %arg4[%arg5, %arg6 for %arg1, %arg7] : tensor<?x16xf32>{%arg0} in !stream.resource<*>{%arg2} -> tensor<?x8xf32>{%arg1} in !stream.resource<*>{%arg8}
  %sl = stream.tensor.slice on(#stream.test.affinity<"gpu0">) %r[%c0, %c4 for %m, %c8] : tensor<?x16xf32>{%n} in !stream.resource<*>{%sz} -> tensor<?x8xf32>{%m} in !stream.resource<*>{%ssz}
  // CHECK: stream.tensor.slice %arg4[%arg5 for %arg6] : tensor<16xf32> in !stream.resource<*>{%arg2} -> tensor<4xf32> in !stream.resource<*>{%arg8} attributes {s}
  %sl2 = stream.tensor.slice %r[%c0 for %c4] : tensor<16xf32> in !stream.resource<*>{%sz} -> tensor<4xf32> in !stream.resource<*>{%ssz} attributes {s}
  util.return
}

// CHECK-LABEL: util.func private @tied_and_host
// CHECK-SAME: (%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: f32, %arg5: !stream.resource<*>, %arg6: !stream.resource<*>, %arg7: index, %arg8: !stream.resource<staging>, %arg9: index, %arg10: index)
util.func private @tied_and_host(%n: index, %m: index, %sz: index, %psz: index, %v: f32, %r: !stream.resource<*>, %part: !stream.resource<*>, %c0: index, %st: !stream.resource<staging>, %i: index, %j: index) {
  // CHECK: stream.tensor.fill on(#stream.test.affinity<"gpu0">) %arg4, %arg5[%arg7, %arg7 for %arg1, %arg0] : f32 -> tensor<?x16xf32>{%arg0} in %arg5 as !stream.resource<*>{%arg2}
  %f = stream.tensor.fill on(#stream.test.affinity<"gpu0">) %v, %r[%c0, %c0 for %m, %n] : f32 -> tensor<?x16xf32>{%n} in %r as !stream.resource<*>{%sz}
  // The `[...]` is optional (whole tensor); so is `%name as` on parse.
  // CHECK: stream.tensor.fill %arg4, %arg5 : f32 -> tensor<4xf32> in %arg5 as !stream.resource<*>{%arg2} attributes {f}
  %f2 = stream.tensor.fill %v, %r : f32 -> tensor<4xf32> in !stream.resource<*>{%sz} attributes {f}
  // CHECK: stream.tensor.update on(#stream.test.affinity<"gpu0">) %arg6, %arg5[%arg7, %arg7] : tensor<2x16xf32> in !stream.resource<*>{%arg3} -> tensor<?x16xf32>{%arg0} in %arg5 as !stream.resource<*>{%arg2}
  %u = stream.tensor.update on(#stream.test.affinity<"gpu0">) %part, %r[%c0, %c0] : tensor<2x16xf32> in !stream.resource<*>{%psz} -> tensor<?x16xf32>{%n} in %r as !stream.resource<*>{%sz}
  // Rank 0 takes `[]`; the tied name on parse is not checked.
  // CHECK: stream.tensor.update %arg6, %arg5[] : tensor<f32> in !stream.resource<*>{%arg3} -> tensor<f32> in %arg5 as !stream.resource<*>{%arg2} attributes {u}
  %u2 = stream.tensor.update %part, %r[] : tensor<f32> in !stream.resource<*>{%psz} -> tensor<f32> in %anything as !stream.resource<*>{%sz} attributes {u}
  // CHECK: stream.tensor.load %arg8[%arg9, %arg10] : tensor<?x16xf32>{%arg0} in !stream.resource<staging>{%arg2} -> f32
  %x = stream.tensor.load %st[%i, %j] : tensor<?x16xf32>{%n} in !stream.resource<staging>{%sz} -> f32
  // Rank 0 leaves the `[...]` out; vectors load too.
  // CHECK: stream.tensor.load %arg8 : tensor<vector<4xf32>> in !stream.resource<staging>{%arg2} -> vector<4xf32> attributes {l}
  %x2 = stream.tensor.load %st : tensor<vector<4xf32>> in !stream.resource<staging>{%sz} -> vector<4xf32> attributes {l}
  // CHECK: stream.tensor.store %arg4, %arg8[%arg9, %arg10] : f32 -> tensor<?x16xf32>{%arg0} in %arg8 as !stream.resource<staging>{%arg2}
  %st2 = stream.tensor.store %v, %st[%i, %j] : f32 -> tensor<?x16xf32>{%n} in %st as !stream.resource<staging>{%sz}
  // CHECK: stream.tensor.store %arg4, %arg8 : f32 -> tensor<f32> in %arg8 as !stream.resource<staging>{%arg2} attributes {s}
  %st3 = stream.tensor.store %v, %st : f32 -> tensor<f32> in !stream.resource<staging>{%sz} attributes {s}
  util.return
}

// CHECK-LABEL: util.func private @dispatch
// CHECK-SAME: (%arg0: index, %arg1: !stream.resource<*>, %arg2: !stream.resource<*>, %arg3: i32, %arg4: index, %arg5: index)
util.func private @dispatch(%n: index, %in: !stream.resource<*>, %acc: !stream.resource<*>, %k: i32, %isz: index, %asz: index) {
  // The reference example: workload, a primitive operand, a tied result.
  // CHECK: stream.tensor.dispatch on(#stream.test.affinity<"gpu0">) @ex::@entry[%arg0](%arg1, %arg2, %arg3) : (tensor<?x16xf32>{%arg0} in !stream.resource<*>{%arg4}, tensor<16xf32> in !stream.resource<*>{%arg5}, i32) -> tensor<16xf32> in %arg2{%arg5}
  %o = stream.tensor.dispatch on(#stream.test.affinity<"gpu0">) @ex::@entry[%n](%in, %acc, %k) : (tensor<?x16xf32>{%n} in !stream.resource<*>{%isz}, tensor<16xf32> in !stream.resource<*>{%asz}, i32) -> tensor<16xf32> in %acc{%asz}
  // Several entry points, several results: untied, tied with a new type, attributes before `:`.
  // CHECK: stream.tensor.dispatch {@ex::@entry, @ex::@plain}[%arg0](%arg1) {d} : (tensor<?xf32>{%arg0} in !stream.resource<*>{%arg4}) -> (tensor<4xf32> in !stream.resource<transient>{%arg5}, tensor<?xf32>{%arg0} in %arg1 as !stream.resource<transient>{%arg4})
  %o2:2 = stream.tensor.dispatch {@ex::@entry, @ex::@plain}[%n](%in) {d} : (tensor<?xf32>{%n} in !stream.resource<*>{%isz}) -> (tensor<4xf32> in !stream.resource<transient>{%asz}, tensor<?xf32>{%n} in %in as !stream.resource<transient>{%isz})
  // No workload (the export has no workgroups region), no results.
  // CHECK: stream.tensor.dispatch @ex::@plain(%arg3) : (i32) -> ()
  stream.tensor.dispatch @ex::@plain(%k) : (i32) -> ()
  util.return
}
