// Round trip of the stream resource ops, each optional part included.
// RUN: fleet-stream-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-stream-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1


// CHECK-LABEL: util.func private @resources
// CHECK-SAME: (%arg0: index, %arg1: !stream.timepoint, %arg2: !stream.resource<transient>, %arg3: index, %arg4: index, %arg5: !stream.resource<staging>, %arg6: i32, %arg7: !util.buffer)
util.func private @resources(%sz: index, %tp: !stream.timepoint, %r: !stream.resource<transient>, %off: index, %len: index, %st: !stream.resource<staging>, %x: i32, %hb: !util.buffer) {
  // CHECK: stream.resource.alloca uninitialized on(#stream.test.affinity<"gpu0">) await(%arg1) => !stream.resource<transient>{%arg0} => !stream.timepoint
  %a, %tpa = stream.resource.alloca uninitialized on(#stream.test.affinity<"gpu0">) await(%tp) => !stream.resource<transient>{%sz} => !stream.timepoint
  // Without `await` a `:` comes first; attributes go between it and the type.
  // CHECK: stream.resource.alloca uninitialized indeterminate on(#stream.test.affinity<"gpu0">) : !stream.resource<transient>{%arg0} => !stream.timepoint
  %a2, %tpb = stream.resource.alloca uninitialized indeterminate on(#stream.test.affinity<"gpu0">) : !stream.resource<transient>{%sz} => !stream.timepoint
  // CHECK: stream.resource.alloca uninitialized : {x} !stream.resource<*>{%arg0} => !stream.timepoint
  %a3, %tpc = stream.resource.alloca uninitialized : {x} !stream.resource<*>{%sz} => !stream.timepoint
  // CHECK: stream.resource.alloca uninitialized await(%arg1) => {y} !stream.resource<external>{%arg0} => !stream.timepoint
  %a4, %tpd = stream.resource.alloca uninitialized await(%tp) => {y} !stream.resource<external>{%sz} => !stream.timepoint
  // CHECK: stream.resource.dealloca origin on(#stream.test.affinity<"gpu0">) await(%arg1) => %arg2 : !stream.resource<transient>{%arg0} => !stream.timepoint
  %tpe = stream.resource.dealloca origin on(#stream.test.affinity<"gpu0">) await(%tp) => %r : !stream.resource<transient>{%sz} => !stream.timepoint
  // Attributes at the end, bare.
  // CHECK: stream.resource.dealloca %arg2 : !stream.resource<transient>{%arg0} => !stream.timepoint {z}
  %tpf = stream.resource.dealloca %r : !stream.resource<transient>{%sz} => !stream.timepoint {z}
  // CHECK: stream.resource.size %arg2 : !stream.resource<transient>
  %s = stream.resource.size %r : !stream.resource<transient>
  // The affinity of resource.size is an inherent attribute in the dictionary.
  // CHECK: stream.resource.size %arg2 {affinity = #stream.test.affinity<"gpu0">} : !stream.resource<transient>
  %s2 = stream.resource.size %r {affinity = #stream.test.affinity<"gpu0">} : !stream.resource<transient>
  // CHECK: stream.resource.alloc uninitialized on(#stream.test.affinity<"gpu0">) : !stream.resource<external>{%arg0}
  %b = stream.resource.alloc uninitialized on(#stream.test.affinity<"gpu0">) : !stream.resource<external>{%sz}
  // CHECK: stream.resource.alloc {w} : !stream.resource<variable>{%arg0}
  %b2 = stream.resource.alloc {w} : !stream.resource<variable>{%sz}
  // CHECK: stream.resource.subview %arg2[%arg3] : !stream.resource<transient>{%arg0} -> !stream.resource<transient>{%arg4}
  %v = stream.resource.subview %r[%off] : !stream.resource<transient>{%sz} -> !stream.resource<transient>{%len}
  // CHECK: stream.resource.subview %arg5[%arg3] : !stream.resource<staging>{%arg0} -> !stream.resource<staging>{%arg4} attributes {v}
  %v2 = stream.resource.subview %st[%off] : !stream.resource<staging>{%sz} -> !stream.resource<staging>{%len} attributes {v}
  // CHECK: stream.resource.load %arg5[%arg3] : !stream.resource<staging>{%arg0} -> i32
  %l = stream.resource.load %st[%off] : !stream.resource<staging>{%sz} -> i32
  // CHECK: stream.resource.load %arg5[%arg3] : !stream.resource<staging>{%arg0} -> vector<2xf16> attributes {l}
  %l2 = stream.resource.load %st[%off] : !stream.resource<staging>{%sz} -> vector<2xf16> attributes {l}
  // CHECK: stream.resource.store %arg6, %arg5[%arg3] : i32 -> !stream.resource<staging>{%arg0}
  stream.resource.store %x, %st[%off] : i32 -> !stream.resource<staging>{%sz}
  // CHECK: stream.resource.store %arg6, %arg5[%arg3] : i32 -> !stream.resource<staging>{%arg0} attributes {s}
  stream.resource.store %x, %st[%off] : i32 -> !stream.resource<staging>{%sz} attributes {s}
  // CHECK: stream.resource.try_map on(#stream.test.affinity<"gpu0">) %arg7[%arg3] : !util.buffer -> i1, !stream.resource<constant>{%arg0}
  %ok, %m = stream.resource.try_map on(#stream.test.affinity<"gpu0">) %hb[%off] : !util.buffer -> i1, !stream.resource<constant>{%sz}
  // CHECK: stream.resource.try_map %arg7[%arg3] : !util.buffer -> i1, !stream.resource<external>{%arg0} attributes {t}
  %ok2, %m2 = stream.resource.try_map %hb[%off] : !util.buffer -> i1, !stream.resource<external>{%sz} attributes {t}
  util.return
}

// CHECK-LABEL: util.func private @pack
util.func private @pack(%base: index, %s0: index, %s1: index) {
  // The printer puts each slice on its own line.
  // CHECK:      stream.resource.pack on(#stream.test.affinity<"gpu0">) offset(%arg0) slices({
  // CHECK-NEXT:   [0, 4] = %arg1,
  // CHECK-NEXT:   [2, 7] = %arg2
  // CHECK-NEXT: }) : index
  %total, %o0, %o1 = stream.resource.pack on(#stream.test.affinity<"gpu0">) offset(%base) slices({
    [0, 4] = %s0,
    [2, 7] = %s1
  }) : index
  // A trailing comma parses; attributes go at the end.
  // CHECK:      stream.resource.pack slices({
  // CHECK-NEXT:   [1, 1] = %arg1
  // CHECK-NEXT: }) : index attributes {p}
  %total2, %o2 = stream.resource.pack slices({[1, 1] = %s0,}) : index attributes {p}
  // An empty list.
  // CHECK: stream.resource.pack slices({}) : index
  %total3 = stream.resource.pack slices({}) : index
  util.return
}
