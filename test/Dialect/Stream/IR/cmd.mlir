// Round trip of the explicit command ops (stream.cmd.*), each optional part
// included, and the reference's cmd.execute example.
// RUN: fleet-stream-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-stream-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1


stream.executable private @ex {
  stream.executable.export public @a workgroups(%x: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %x, %c1, %c1 : index, index, index
  }
  stream.executable.export public @b
  stream.executable.export public @c
  builtin.module {
    func.func @a(%n: index, %in: !stream.binding, %k: i32, %out: !stream.binding) {
      return
    }
    func.func @b(%in: !stream.binding, %out: !stream.binding, %n: index, %k: i32) {
      return
    }
    func.func @c(%out: !stream.binding, %in: !stream.binding) {
      return
    }
  }
}

// A resource argument stands for (resource, offset, length).
// CHECK: stream.cmd.func private @ext(%arg0[%arg1 for %arg2]: !stream.resource<*>, %arg3: i32)
stream.cmd.func private @ext(%r[%o for %l]: !stream.resource<*>, %k: i32)
// CHECK: stream.cmd.func public @ext_results(%arg0: i32 {a.b}, %arg1[%arg2 for %arg3]: !stream.resource<external> {c.d}) -> (i32, f32 {e.f}) attributes {g}
stream.cmd.func @ext_results(%k: i32 {a.b}, %r[%o for %l]: !stream.resource<external> {c.d}) -> (i32, f32 {e.f}) attributes {g}
// CHECK: stream.cmd.func private @ext_one() -> index{{$}}
stream.cmd.func private @ext_one() -> index

// CHECK-LABEL: util.func private @reference_example
util.func private @reference_example(%tp: !stream.timepoint, %in: !stream.resource<external>, %isz: index, %tmp: !stream.resource<transient>, %tsz: index, %off: index, %n: index, %k: i32) {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  // CHECK:      %{{.+}} = stream.cmd.execute once on(#stream.test.affinity<"gpu0">) await(%arg0) => with(%arg1 as %[[CI:.+]]: !stream.resource<external>{%arg2}, %arg3 as %[[CT:.+]]: !stream.resource<transient>{%arg4}) {
  // CHECK-NEXT:   stream.cmd.concurrent {
  // CHECK-NEXT:     stream.cmd.fill %c0_i32, %[[CT]][%c0 for %arg4] : i32 -> !stream.resource<transient>{%arg4}
  // CHECK-NEXT:     stream.cmd.copy %[[CI]][%c0], %[[CT]][%arg5], %arg2 : !stream.resource<external>{%arg2} -> !stream.resource<transient>{%arg4}
  // CHECK-NEXT:   }
  // CHECK-NEXT:   stream.cmd.serial {
  // CHECK-NEXT:     stream.cmd.dispatch {@ex::@a, @ex::@b}[%arg6](%arg6, %arg7 : index, i32) {
  // CHECK-NEXT:       ro %[[CI]][%c0 for %arg2] : !stream.resource<external>{%arg2},
  // CHECK-NEXT:       rw %[[CT]][%c0 for %arg4] : !stream.resource<transient>{%arg4}
  // CHECK-NEXT:     }
  // CHECK-NEXT:   }
  // CHECK-NEXT:   stream.cmd.flush to(#stream.test.affinity<"cpu">) %[[CT]][%c0 for %arg4] : !stream.resource<transient>{%arg4}
  // CHECK-NEXT:   stream.cmd.invalidate from(#stream.test.affinity<"gpu1">) %[[CT]][%c0 for %arg4] : !stream.resource<transient>{%arg4}
  // CHECK-NEXT:   stream.cmd.discard %[[CT]][%c0 for %arg4] : !stream.resource<transient>{%arg4}
  // CHECK-NEXT: } => !stream.timepoint
  %done = stream.cmd.execute once on(#stream.test.affinity<"gpu0">) await(%tp) => with(%in as %ci: !stream.resource<external>{%isz}, %tmp as %ct: !stream.resource<transient>{%tsz}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c0_i32, %ct[%c0 for %tsz] : i32 -> !stream.resource<transient>{%tsz}
      stream.cmd.copy %ci[%c0], %ct[%off], %isz : !stream.resource<external>{%isz} -> !stream.resource<transient>{%tsz}
    }
    stream.cmd.serial {
      stream.cmd.dispatch {@ex::@a, @ex::@b}[%n](%n, %k : index, i32) {
        ro %ci[%c0 for %isz] : !stream.resource<external>{%isz},
        rw %ct[%c0 for %tsz] : !stream.resource<transient>{%tsz}
      }
    }
    stream.cmd.flush to(#stream.test.affinity<"cpu">) %ct[%c0 for %tsz] : !stream.resource<transient>{%tsz}
    stream.cmd.invalidate from(#stream.test.affinity<"gpu1">) %ct[%c0 for %tsz] : !stream.resource<transient>{%tsz}
    stream.cmd.discard %ct[%c0 for %tsz] : !stream.resource<transient>{%tsz}
  } => !stream.timepoint
  util.return
}

// CHECK-LABEL: util.func private @optional_parts
util.func private @optional_parts(%r: !stream.resource<transient>, %sz: index, %e: !stream.resource<external>, %esz: index, %n: index, %k: i32) {
  %c0 = arith.constant 0 : index
  %c1_i8 = arith.constant 1 : i8
  // Empty captures, no once/on/await; the implicit yield is not printed.
  // CHECK:      stream.cmd.execute with() {
  // CHECK-NEXT: } => !stream.timepoint attributes {x}
  %t0 = stream.cmd.execute with() {
  } => !stream.timepoint attributes {x}
  // CHECK: stream.cmd.execute on(#stream.test.affinity<"gpu1">) with(%arg0 as %[[R:.+]]: !stream.resource<transient>{%arg1}, %arg2 as %[[E:.+]]: !stream.resource<external>{%arg3}) {
  %t1 = stream.cmd.execute on(#stream.test.affinity<"gpu1">) with(%r as %cr: !stream.resource<transient>{%sz}, %e as %ce: !stream.resource<external>{%esz}) {
    // Nesting and attributes after the region.
    // CHECK:      stream.cmd.serial {
    // CHECK-NEXT:   stream.cmd.concurrent {
    // CHECK-NEXT:   } attributes {inner}
    // CHECK-NEXT: } attributes {outer}
    stream.cmd.serial {
      stream.cmd.concurrent {
      } attributes {inner}
    } attributes {outer}
    // Single entry point, no workload, no uniforms; `wo` access; attributes at the end.
    // CHECK:      stream.cmd.dispatch @ex::@c {
    // CHECK-NEXT:   wo %[[R]][%c0 for %arg1] : !stream.resource<transient>{%arg1},
    // CHECK-NEXT:   ro %[[E]][%c0 for %arg3] : !stream.resource<external>{%arg3}
    // CHECK-NEXT: } attributes {d}
    stream.cmd.dispatch @ex::@c {
      wo %cr[%c0 for %sz] : !stream.resource<transient>{%sz},
      ro %ce[%c0 for %esz] : !stream.resource<external>{%esz}
    } attributes {d}
    // CHECK: stream.cmd.call @ext(ro %[[R]][%c0 for %arg1], %arg5) : (!stream.resource<transient>{%arg1}, i32) -> ()
    stream.cmd.call @ext(ro %cr[%c0 for %sz], %k) : (!stream.resource<transient>{%sz}, i32) -> ()
    // Results are primitives; attributes go before `:`.
    // CHECK: %{{.+}}:2 = stream.cmd.call @ext_results(%arg5, rw %[[E]][%c0 for %arg3]) {c} : (i32, !stream.resource<external>{%arg3}) -> (i32, f32)
    %x:2 = stream.cmd.call @ext_results(%k, rw %ce[%c0 for %esz]) {c} : (i32, !stream.resource<external>{%esz}) -> (i32, f32)
    // CHECK: stream.cmd.call @ext(wo %[[R]][%c0 for %arg1], %arg5) : (!stream.resource<transient>{%arg1}, i32) -> ()
    stream.cmd.call @ext(wo %cr[%c0 for %sz], %k) : (!stream.resource<transient>{%sz}, i32) -> ()
    // CHECK: stream.cmd.copy %[[E]][%c0], %[[R]][%c0], %arg1 : !stream.resource<external>{%arg3} -> !stream.resource<transient>{%arg1} attributes {c}
    stream.cmd.copy %ce[%c0], %cr[%c0], %sz : !stream.resource<external>{%esz} -> !stream.resource<transient>{%sz} attributes {c}
    // CHECK: stream.cmd.fill %c1_i8, %[[R]][%c0 for %arg1] : i8 -> !stream.resource<transient>{%arg1} attributes {f}
    stream.cmd.fill %c1_i8, %cr[%c0 for %sz] : i8 -> !stream.resource<transient>{%sz} attributes {f}
    // CHECK: stream.cmd.flush %[[E]][%c0 for %arg3] : !stream.resource<external>{%arg3} attributes {f}
    stream.cmd.flush %ce[%c0 for %esz] : !stream.resource<external>{%esz} attributes {f}
    // CHECK: stream.cmd.invalidate %[[E]][%c0 for %arg3] : !stream.resource<external>{%arg3} attributes {i}
    stream.cmd.invalidate %ce[%c0 for %esz] : !stream.resource<external>{%esz} attributes {i}
    // CHECK: stream.cmd.discard %[[R]][%c0 for %arg1] : !stream.resource<transient>{%arg1} attributes {d}
    stream.cmd.discard %cr[%c0 for %sz] : !stream.resource<transient>{%sz} attributes {d}
  } => !stream.timepoint
  util.return
}
