// Host code on scalars, run with no --device (the module uses none):
// globals and initializers in order, calls, scf.for/if/while, cf branches
// with swapped block arguments, integer widths and float ops.

// RUN: fleet-compile %s --compile-from-host -o %t.fleet
// RUN: fleet-run --module=%t.fleet --function=add --input=i32=3 --input=4 | FileCheck %s --check-prefix=ADD
// ADD: EXEC @add
// ADD-NEXT: result[0]: i32=17
// RUN: fleet-run --module=%t.fleet --function=loops --input=index=10 | FileCheck %s --check-prefix=LOOPS
// LOOPS: result[0]: index=45
// LOOPS-NEXT: result[1]: f32=512
// LOOPS-NEXT: result[2]: i64=16
// RUN: fleet-run --module=%t.fleet --function=fib --input=10 | FileCheck %s --check-prefix=FIB
// FIB: result[0]: i64=55
// RUN: fleet-run --module=%t.fleet --function=widths --input=i8=-128 | FileCheck %s --check-prefix=WIDTHS
// WIDTHS: result[0]: i8=127
// WIDTHS-NEXT: result[1]: i32=-128
// WIDTHS-NEXT: result[2]: i32=128
// WIDTHS-NEXT: result[3]: i1=1
// WIDTHS-NEXT: result[4]: i16=-1
// RUN: fleet-run --module=%t.fleet --function=floats --input=f32=2.5 | FileCheck %s --check-prefix=FLOATS
// FLOATS: result[0]: f32=-2.5
// FLOATS-NEXT: result[1]: i32=2
// FLOATS-NEXT: result[2]: f64=6.25
// FLOATS-NEXT: result[3]: i1=1
// FLOATS-NEXT: result[4]: f32=2.5
// RUN: fleet-run --module=%t.fleet --function=pick --input=i1=1 --input=7 --input=9 | FileCheck %s --check-prefix=PICK1
// PICK1: result[0]: i32=7
// RUN: fleet-run --module=%t.fleet --function=pick --input=i1=0 --input=7 --input=9 | FileCheck %s --check-prefix=PICK0
// PICK0: result[0]: i32=9
// RUN: fleet-run --module=%t.fleet --function=indirect | FileCheck %s --check-prefix=INDIRECT
// INDIRECT: result[0]: i32=42

// Division by zero gives 0 and INT_MIN / -1 wraps (docs/kernels.md
// "Integer division"), never a trap or an error.
// RUN: fleet-run --module=%t.fleet --function=divide --input=1 --input=0 | FileCheck %s --check-prefix=DIV
// DIV: result[0]: i32=0
// DIV-NEXT: result[1]: i32=0
// DIV-NEXT: result[2]: i32=0
// RUN: fleet-run --module=%t.fleet --function=divide --input=-2147483648 --input=-1 | FileCheck %s --check-prefix=DIVMIN
// DIVMIN: result[0]: i32=-2147483648
// DIVMIN-NEXT: result[1]: i32=-2147483648
// DIVMIN-NEXT: result[2]: i32=0
// RUN: fleet-run --module=%t.fleet --function=divide --input=-7 --input=2 | FileCheck %s --check-prefix=DIVOK
// DIVOK: result[0]: i32=-3
// DIVOK-NEXT: result[1]: i32=-4
// DIVOK-NEXT: result[2]: i32=-1

module attributes {fleet.artifact_version = 1 : i64, fleet.kernel_abi_version = 2 : i64} {
  util.global private mutable @bias = 1 : i32
  util.global private mutable @cell = 0 : i32
  // Initializers run in module order: the second sees the first's store.
  util.initializer {
    %c5 = arith.constant 5 : i32
    util.global.store %c5, @bias : i32
    util.return
  }
  util.initializer {
    %b = util.global.load @bias : i32
    %c2 = arith.constant 2 : i32
    %r = arith.muli %b, %c2 : i32
    util.global.store %r, @bias : i32
    util.return
  }
  util.func public @add(%a: i32, %b: i32) -> i32 {
    %s = arith.addi %a, %b : i32
    %c = util.global.load @bias : i32
    %r = arith.addi %s, %c : i32
    util.return %r : i32
  }
  util.func public @loops(%n: index) -> (index, f32, i64) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %half = arith.constant 0.5 : f32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0, %f = %half) -> (index, f32) {
      %a = arith.addi %acc, %i : index
      %g = arith.addf %f, %f : f32
      scf.yield %a, %g : index, f32
    }
    // while x < 10: x = x * 2 (from 1: 16)
    %one = arith.constant 1 : i64
    %ten = arith.constant 10 : i64
    %w = scf.while (%x = %one) : (i64) -> i64 {
      %go = arith.cmpi slt, %x, %ten : i64
      scf.condition(%go) %x : i64
    } do {
    ^bb0(%y: i64):
      %two = arith.constant 2 : i64
      %z = arith.muli %y, %two : i64
      scf.yield %z : i64
    }
    util.return %r#0, %r#1, %w : index, f32, i64
  }
  // Fibonacci with cf branches whose block arguments swap places.
  util.func public @fib(%n: i64) -> i64 {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    cf.br ^loop(%c0, %c0, %c1 : i64, i64, i64)
  ^loop(%i: i64, %a: i64, %b: i64):
    %done = arith.cmpi sge, %i, %n : i64
    cf.cond_br %done, ^exit, ^body
  ^body:
    %next = arith.addi %a, %b : i64
    %i1 = arith.addi %i, %c1 : i64
    cf.br ^loop(%i1, %b, %next : i64, i64, i64)
  ^exit:
    util.return %a : i64
  }
  util.func public @widths(%x: i8) -> (i8, i32, i32, i1, i16) {
    %c1 = arith.constant 1 : i8
    %wrap = arith.subi %x, %c1 : i8
    %s = arith.extsi %x : i8 to i32
    %u = arith.extui %x : i8 to i32
    %neg = arith.cmpi slt, %x, %c1 : i8
    %m = arith.constant -1 : i32
    %t = arith.trunci %m : i32 to i16
    util.return %wrap, %s, %u, %neg, %t : i8, i32, i32, i1, i16
  }
  util.func public @floats(%x: f32) -> (f32, i32, f64, i1, f32) {
    %n = arith.negf %x : f32
    %i = arith.fptosi %x : f32 to i32
    %d = arith.extf %x : f32 to f64
    %sq = arith.mulf %d, %d : f64
    %gt = arith.cmpf ogt, %x, %n : f32
    %mx = arith.maximumf %x, %n : f32
    util.return %n, %i, %sq, %gt, %mx : f32, i32, f64, i1, f32
  }
  util.func public @pick(%c: i1, %a: i32, %b: i32) -> i32 {
    %r = scf.if %c -> i32 {
      scf.yield %a : i32
    } else {
      %s = arith.select %c, %b, %b : i32
      scf.yield %s : i32
    }
    util.return %r : i32
  }
  util.func public @indirect() -> i32 {
    %p = util.global.address @cell : !util.ptr<i32>
    %v = arith.constant 42 : i32
    util.global.store.indirect %v, %p : i32 -> !util.ptr<i32>
    %r = util.global.load.indirect %p : !util.ptr<i32> -> i32
    util.return %r : i32
  }
  util.func public @divide(%a: i32, %b: i32) -> (i32, i32, i32) {
    %q = arith.divsi %a, %b : i32
    %f = arith.floordivsi %a, %b : i32
    %r = arith.remsi %a, %b : i32
    util.return %q, %f, %r : i32, i32, i32
  }
}
