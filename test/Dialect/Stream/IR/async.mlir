// Round trip of the stream async (value-semantics) ops, execution regions
// and stream.yield, each optional part included.
// RUN: fleet-stream-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-stream-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1


stream.executable private @ex {
  stream.executable.export public @entry workgroups(%x: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %x, %c1, %c1 : index, index, index
  }
  stream.executable.export public @other
  builtin.module {
    func.func @entry(%in: !stream.binding, %acc: !stream.binding, %n: index) {
      return
    }
    func.func @other(%in: !stream.binding) {
      return
    }
  }
}

// Declarations: tied result, tied with a new type, several results, none.
// CHECK: stream.async.func private @ext(%arg0: !stream.resource<*>, %arg1: index) -> %arg0
stream.async.func private @ext(%arg0: !stream.resource<*>, %arg1: index) -> %arg0
// CHECK: stream.async.func private @ext_as(%arg0: !stream.resource<*>) -> %arg0 as !stream.resource<transient>
stream.async.func private @ext_as(%r: !stream.resource<*>) -> %r as !stream.resource<transient>
// CHECK: stream.async.func public @ext_many(%arg0: !stream.resource<external> {a.b}) -> (!stream.resource<*>, %arg0) attributes {c}
stream.async.func @ext_many(%x: !stream.resource<external> {a.b}) -> (!stream.resource<*>, %x) attributes {c}
// CHECK: stream.async.func nested @ext_none(){{$}}
stream.async.func nested @ext_none()

// CHECK-LABEL: util.func private @simple
// CHECK-SAME: (%arg0: index, %arg1: !stream.timepoint, %arg2: i32, %arg3: !stream.resource<*>, %arg4: index, %arg5: index, %arg6: index, %arg7: !stream.resource<*>, %arg8: index)
util.func private @simple(%sz: index, %tp: !stream.timepoint, %c0_i32: i32, %a: !stream.resource<*>, %off: index, %end: index, %len: index, %dst: !stream.resource<*>, %dsz: index) {
  // CHECK: stream.async.alloca on(#stream.test.affinity<"gpu0">) : !stream.resource<transient>{%arg0}
  %0 = stream.async.alloca on(#stream.test.affinity<"gpu0">) : !stream.resource<transient>{%sz}
  // Attributes go before `:`.
  // CHECK: stream.async.alloca {x} : !stream.resource<*>{%arg0}
  %1 = stream.async.alloca {x} : !stream.resource<*>{%sz}
  // CHECK: stream.async.splat on(#stream.test.affinity<"gpu0">) await(%arg1) %arg2 : i32 -> !stream.resource<transient>{%arg0}
  %2 = stream.async.splat on(#stream.test.affinity<"gpu0">) await(%tp) %c0_i32 : i32 -> !stream.resource<transient>{%sz}
  // CHECK: stream.async.splat %{{.+}} : i8 -> !stream.resource<*>{%arg0} attributes {s}
  %c1_i8 = arith.constant 1 : i8
  %3 = stream.async.splat %c1_i8 : i8 -> !stream.resource<*>{%sz} attributes {s}
  // CHECK: stream.async.clone on(#stream.test.affinity<"gpu0">) %arg3 : !stream.resource<*>{%arg0} -> !stream.resource<variable>{%arg0}
  %4 = stream.async.clone on(#stream.test.affinity<"gpu0">) %a : !stream.resource<*>{%sz} -> !stream.resource<variable>{%sz}
  // CHECK: stream.async.clone %arg3 : !stream.resource<*>{%arg0} -> !stream.resource<*>{%arg0} attributes {c}
  %5 = stream.async.clone %a : !stream.resource<*>{%sz} -> !stream.resource<*>{%sz} attributes {c}
  // CHECK: stream.async.slice %arg3[%arg4 to %arg5] : !stream.resource<*>{%arg0} -> !stream.resource<*>{%arg6}
  %6 = stream.async.slice %a[%off to %end] : !stream.resource<*>{%sz} -> !stream.resource<*>{%len}
  // CHECK: stream.async.slice on(#stream.test.affinity<"gpu1">) %arg3[%arg4 to %arg5] : !stream.resource<*>{%arg0} -> !stream.resource<*>{%arg6} attributes {s}
  %7 = stream.async.slice on(#stream.test.affinity<"gpu1">) %a[%off to %end] : !stream.resource<*>{%sz} -> !stream.resource<*>{%len} attributes {s}
  // CHECK: stream.async.update %arg3, %arg7[%arg4 to %arg5] : !stream.resource<*>{%arg0} -> %arg7 as !stream.resource<*>{%arg8}
  %8 = stream.async.update %a, %dst[%off to %end] : !stream.resource<*>{%sz} -> %dst as !stream.resource<*>{%dsz}
  // `%name as` may be left out on parse; `on` first.
  // CHECK: stream.async.update on(#stream.test.affinity<"gpu0">) %arg3, %arg7[%arg4 to %arg5] : !stream.resource<*>{%arg0} -> %arg7 as !stream.resource<*>{%arg8} attributes {u}
  %9 = stream.async.update on(#stream.test.affinity<"gpu0">) %a, %dst[%off to %end] : !stream.resource<*>{%sz} -> !stream.resource<*>{%dsz} attributes {u}
  // CHECK: stream.async.copy %arg3[%arg4 to %arg6], %arg7[%arg4 to %arg5], %arg6 : !stream.resource<*>{%arg0} -> %arg7 as !stream.resource<*>{%arg8}
  %10 = stream.async.copy %a[%off to %len], %dst[%off to %end], %len : !stream.resource<*>{%sz} -> %dst as !stream.resource<*>{%dsz}
  // CHECK: stream.async.copy on(#stream.test.affinity<"gpu0">) %arg3[%arg4 to %arg6], %arg7[%arg4 to %arg5], %arg6 : !stream.resource<*>{%arg0} -> %arg7 as !stream.resource<*>{%arg8} attributes {c}
  %11 = stream.async.copy on(#stream.test.affinity<"gpu0">) %a[%off to %len], %dst[%off to %end], %len : !stream.resource<*>{%sz} -> !stream.resource<*>{%dsz} attributes {c}
  // CHECK: stream.async.fill %arg2, %arg7[%arg4 to %arg5 for %arg6] : i32 -> %arg7 as !stream.resource<*>{%arg8}
  %12 = stream.async.fill %c0_i32, %dst[%off to %end for %len] : i32 -> %dst as !stream.resource<*>{%dsz}
  // CHECK: stream.async.fill on(#stream.test.affinity<"gpu0">) %{{.+}}, %arg7[%arg4 to %arg5 for %arg6] : i64 -> %arg7 as !stream.resource<*>{%arg8} attributes {f}
  %c7_i64 = arith.constant 7 : i64
  %13 = stream.async.fill on(#stream.test.affinity<"gpu0">) %c7_i64, %dst[%off to %end for %len] : i64 -> !stream.resource<*>{%dsz} attributes {f}
  // CHECK: stream.async.constant on(#stream.test.affinity<"gpu0">) await(%arg1) : !stream.resource<constant>{%arg0} = dense<[1, 2]> : tensor<2xi32>
  %14 = stream.async.constant on(#stream.test.affinity<"gpu0">) await(%tp) : !stream.resource<constant>{%sz} = dense<[1, 2]> : tensor<2xi32>
  // CHECK: stream.async.constant : !stream.resource<*>{%arg0} = "bytes" attributes {k}
  %15 = stream.async.constant : !stream.resource<*>{%sz} = "bytes" attributes {k}
  // CHECK: stream.async.barrier on(#stream.test.affinity<"gpu1">) %arg3 : !stream.resource<*>{%arg0}
  %16 = stream.async.barrier on(#stream.test.affinity<"gpu1">) %a : !stream.resource<*>{%sz}
  // CHECK: stream.async.barrier %arg3 : !stream.resource<*>{%arg0} attributes {b}
  %17 = stream.async.barrier %a : !stream.resource<*>{%sz} attributes {b}
  util.return
}

// CHECK-LABEL: util.func private @staging
util.func private @staging(%st: !stream.resource<staging>, %sz: index, %off: index, %x: f32) {
  // CHECK: stream.async.load %arg0[%arg2] : !stream.resource<staging>{%arg1} -> f32
  %0 = stream.async.load %st[%off] : !stream.resource<staging>{%sz} -> f32
  // CHECK: stream.async.load %arg0[%arg2] : !stream.resource<staging>{%arg1} -> vector<4xi8> attributes {l}
  %1 = stream.async.load %st[%off] : !stream.resource<staging>{%sz} -> vector<4xi8> attributes {l}
  // CHECK: stream.async.store %arg3, %arg0[%arg2] : f32 -> %arg0 as !stream.resource<staging>{%arg1}
  %2 = stream.async.store %x, %st[%off] : f32 -> %st as !stream.resource<staging>{%sz}
  // CHECK: stream.async.store %arg3, %arg0[%arg2] : f32 -> %arg0 as !stream.resource<staging>{%arg1} attributes {s}
  %3 = stream.async.store %x, %st[%off] : f32 -> !stream.resource<staging>{%sz} attributes {s}
  util.return
}

// CHECK-LABEL: util.func private @dispatch_and_call
// CHECK-SAME: (%arg0: index, %arg1: !stream.resource<*>, %arg2: !stream.resource<*>, %arg3: index, %arg4: index, %arg5: index)
util.func private @dispatch_and_call(%n: index, %in: !stream.resource<*>, %acc: !stream.resource<*>, %isz: index, %asz: index, %c0: index) {
  // The reference example: no space before `(`, ranges on resources only.
  // CHECK: stream.async.dispatch on(#stream.test.affinity<"gpu0">) @ex::@entry[%arg0](%arg1[%arg5 to %arg3 for %arg3], %arg2[%arg5 to %arg4 for %arg4], %arg0) : (!stream.resource<*>{%arg3}, !stream.resource<*>{%arg4}, index) -> %arg2{%arg4}
  %0 = stream.async.dispatch on(#stream.test.affinity<"gpu0">) @ex::@entry[%n](%in[%c0 to %isz for %isz], %acc[%c0 to %asz for %asz], %n) : (!stream.resource<*>{%isz}, !stream.resource<*>{%asz}, index) -> %acc{%asz}
  // Several entry points and results; a tied result with a new type; attributes before `:`.
  // CHECK: stream.async.dispatch {@ex::@entry, @ex::@other}[%arg0](%arg1[%arg5 to %arg3 for %arg3]) {d} : (!stream.resource<*>{%arg3}) -> (%arg1 as !stream.resource<transient>{%arg3}, !stream.resource<transient>{%arg4})
  %1:2 = stream.async.dispatch {@ex::@entry, @ex::@other}[%n](%in[%c0 to %isz for %isz]) {d} : (!stream.resource<*>{%isz}) -> (%in as !stream.resource<transient>{%isz}, !stream.resource<transient>{%asz})
  // No workload, no results.
  // CHECK: stream.async.dispatch @ex::@other(%arg1[%arg5 to %arg3 for %arg3]) : (!stream.resource<*>{%arg3}) -> ()
  stream.async.dispatch @ex::@other(%in[%c0 to %isz for %isz]) : (!stream.resource<*>{%isz}) -> ()
  // The callee's `!stream.resource<*>` accepts any lifetime.
  // CHECK: stream.async.call on(#stream.test.affinity<"gpu0">) @ext(%arg1[%arg5 to %arg3 for %arg3], %arg0) : (!stream.resource<*>{%arg3}, index) -> %arg1{%arg3}
  %2 = stream.async.call on(#stream.test.affinity<"gpu0">) @ext(%in[%c0 to %isz for %isz], %n) : (!stream.resource<*>{%isz}, index) -> %in{%isz}
  // A tied result with a new type keeps `as`; attributes go before `:`.
  // CHECK: stream.async.call @ext_as(%arg1[%arg5 to %arg3 for %arg3]) {c} : (!stream.resource<*>{%arg3}) -> %arg1 as !stream.resource<transient>{%arg3}
  %3 = stream.async.call @ext_as(%in[%c0 to %isz for %isz]) {c} : (!stream.resource<*>{%isz}) -> %in as !stream.resource<transient>{%isz}
  // `as` with the operand's own type is dropped.
  %t = stream.async.alloca : !stream.resource<transient>{%isz}
  // CHECK: stream.async.call @ext_as(%[[T:.+]][%arg5 to %arg3 for %arg3]) : (!stream.resource<transient>{%arg3}) -> %[[T]]{%arg3}
  %4 = stream.async.call @ext_as(%t[%c0 to %isz for %isz]) : (!stream.resource<transient>{%isz}) -> %t as !stream.resource<transient>{%isz}
  // CHECK: stream.async.call @ext_none() : () -> ()
  stream.async.call @ext_none() : () -> ()
  util.return
}

// CHECK-LABEL: util.func private @transfer
// CHECK-SAME: (%arg0: !stream.resource<transient>, %arg1: index, %arg2: !stream.resource<staging>)
util.func private @transfer(%a: !stream.resource<transient>, %sz: index, %st: !stream.resource<staging>) {
  // CHECK: stream.async.transfer on(#stream.test.affinity<"gpu1">) %arg0 : !stream.resource<transient>{%arg1} from(#stream.test.affinity<"gpu0">) -> to(#stream.test.affinity<"gpu1">) !stream.resource<transient>{%arg1}
  %0 = stream.async.transfer on(#stream.test.affinity<"gpu1">) %a : !stream.resource<transient>{%sz} from(#stream.test.affinity<"gpu0">) -> to(#stream.test.affinity<"gpu1">) !stream.resource<transient>{%sz}
  // CHECK: stream.async.transfer %arg0 : !stream.resource<transient>{%arg1} -> !stream.resource<staging>{%arg1}
  %1 = stream.async.transfer %a : !stream.resource<transient>{%sz} -> !stream.resource<staging>{%sz}
  // CHECK: stream.async.transfer %arg2 : !stream.resource<staging>{%arg1} from(#stream.test.affinity<"gpu0">) -> !stream.resource<external>{%arg1} attributes {t}
  %2 = stream.async.transfer %st : !stream.resource<staging>{%sz} from(#stream.test.affinity<"gpu0">) -> !stream.resource<external>{%sz} attributes {t}
  // CHECK: stream.async.transfer %arg2 : !stream.resource<staging>{%arg1} -> to(#stream.test.affinity<"gpu0", "gpu1">) !stream.resource<staging>{%arg1}
  %3 = stream.async.transfer %st : !stream.resource<staging>{%sz} -> to(#stream.test.affinity<"gpu0", "gpu1">) !stream.resource<staging>{%sz}
  util.return
}

// CHECK-LABEL: util.func private @execute
// CHECK-SAME: (%arg0: !stream.timepoint, %arg1: !stream.resource<external>, %arg2: index, %arg3: !stream.resource<transient>, %arg4: index, %arg5: index, %arg6: index)
util.func private @execute(%tp0: !stream.timepoint, %in: !stream.resource<external>, %isz: index, %acc: !stream.resource<transient>, %asz: index, %osz: index, %c0: index) {
  // The reference example: a single result written in parentheses prints
  // without them.
  // CHECK: %[[OUT:.+]], %[[TP1:.+]] = stream.async.execute on(#stream.test.affinity<"gpu0">) await(%arg0) => with(%arg1 as %[[CIN:.+]]: !stream.resource<external>{%arg2}, %arg3 as %[[CACC:.+]]: !stream.resource<transient>{%arg4}) -> !stream.resource<transient>{%arg5} {
  // CHECK-NEXT:   %[[X:.+]] = stream.async.dispatch @ex::@other(%[[CIN]][%arg6 to %arg2 for %arg2]) : (!stream.resource<external>{%arg2}) -> !stream.resource<transient>{%arg5}
  // CHECK-NEXT:   stream.yield %[[X]] : !stream.resource<transient>{%arg5}
  // CHECK-NEXT: } => !stream.timepoint
  %out, %tp1 = stream.async.execute on(#stream.test.affinity<"gpu0">) await(%tp0) => with(%in as %cin: !stream.resource<external>{%isz}, %acc as %cacc: !stream.resource<transient>{%asz}) -> (!stream.resource<transient>{%osz}) {
    %x = stream.async.dispatch @ex::@other(%cin[%c0 to %isz for %isz]) : (!stream.resource<external>{%isz}) -> !stream.resource<transient>{%osz}
    stream.yield %x : !stream.resource<transient>{%osz}
  } => !stream.timepoint
  // No await, empty captures, no results: yield printed anyway; attributes at the end.
  // CHECK: stream.async.execute with() {
  // CHECK-NEXT:   stream.yield
  // CHECK-NEXT: } => !stream.timepoint attributes {e}
  %tp2 = stream.async.execute with() {
    stream.yield
  } => !stream.timepoint attributes {e}
  // Results tied to captures (by outer name), one with a new type; nested
  // concurrent regions; yield attributes go first.
  // CHECK: %{{.+}}:3, %{{.+}} = stream.async.execute await(%[[TP1]]) => with(%arg1 as %[[I:.+]]: !stream.resource<external>{%arg2}, %arg3 as %[[J:.+]]: !stream.resource<transient>{%arg4}) -> (%arg3{%arg4}, %arg1 as !stream.resource<*>{%arg2}, !stream.resource<transient>{%arg5}) {
  // CHECK:   %{{.+}}:2 = stream.async.concurrent on(#stream.test.affinity<"gpu0">) with(%[[I]] as %[[CI:.+]]: !stream.resource<external>{%arg2}) -> (!stream.resource<transient>{%arg5}, !stream.resource<transient>{%arg5}) {
  // CHECK:     stream.async.concurrent with() {
  // CHECK-NEXT:  stream.yield
  // CHECK-NEXT: }
  // CHECK:     stream.yield %{{.+}}, %{{.+}} : !stream.resource<transient>{%arg5}, !stream.resource<transient>{%arg5}
  // CHECK:   } attributes {c}
  // CHECK:   stream.yield {y} %[[J]], %{{.+}}, %{{.+}} : !stream.resource<transient>{%arg4}, !stream.resource<*>{%arg2}, !stream.resource<transient>{%arg5}
  // CHECK: } => !stream.timepoint
  %r:3, %tp3 = stream.async.execute await(%tp1) => with(%in as %i: !stream.resource<external>{%isz}, %acc as %j: !stream.resource<transient>{%asz}) -> (%acc{%asz}, %in as !stream.resource<*>{%isz}, !stream.resource<transient>{%osz}) {
    %z = stream.async.clone %i : !stream.resource<external>{%isz} -> !stream.resource<*>{%isz}
    %p:2 = stream.async.concurrent on(#stream.test.affinity<"gpu0">) with(%i as %ci: !stream.resource<external>{%isz}) -> (!stream.resource<transient>{%osz}, !stream.resource<transient>{%osz}) {
      stream.async.concurrent with() {
        stream.yield
      }
      %y0 = stream.async.clone %ci : !stream.resource<external>{%isz} -> !stream.resource<transient>{%osz}
      %y1 = stream.async.clone %ci : !stream.resource<external>{%isz} -> !stream.resource<transient>{%osz}
      stream.yield %y0, %y1 : !stream.resource<transient>{%osz}, !stream.resource<transient>{%osz}
    } attributes {c}
    stream.yield {y} %j, %z, %p#0 : !stream.resource<transient>{%asz}, !stream.resource<*>{%isz}, !stream.resource<transient>{%osz}
  } => !stream.timepoint
  util.return
}
