"""The op families models lower to, in dispatches (docs/kernels.md "Ops in
kernels"): MLIR programs at odd sizes and their numpy references.

  ops.py gen FAMILY PREFIX     writes PREFIX.mlir and the .npy inputs and
                               expected outputs of every function
  ops.py run PREFIX TOOLS [URI...]
                               runs every function with fleet-run
                               (PREFIX.fleet) against its expected output;
                               prints one line per function and exits 1 if
                               one fails. URIs: the --device flags instead
                               of the local ones (test/Vulkan runs the
                               module with device A on vulkan)

Every family is built at the sizes 1, 7, 37 and 129 (none a multiple of a
workgroup or register tile) in three variants: `unfused` (the op alone),
`fused` (an elementwise producer before it and an elementwise consumer after
it, which dispatch formation may fuse with it) and `two` (the op on device
B, the consumer on device A, fleet-run given two devices).
"""
import json
import math
import subprocess
import sys

import numpy as np

SIZES = [1, 7, 37, 129]
MLIR_TYPES = {
    np.float32: "f32", np.float16: "f16", np.int64: "i64", np.int32: "i32",
    np.int8: "i8", np.bool_: "i1",
}


def mlir_type(shape, dtype):
    element = MLIR_TYPES[np.dtype(dtype).type]
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def bf16_round(x):
    """x (float32) rounded to bfloat16 (nearest even), as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


class Family:
    """inputs(n, rng) -> list of arrays; body(n, args, t) -> (lines, result
    SSA name, result type); reference(n, *inputs) -> array (float64 math
    allowed; cast to the result dtype)."""

    def __init__(self, name, inputs, body, reference, dtype=np.float32,
                 rtol=1e-5, atol=1e-5):
        self.name, self.inputs, self.body = name, inputs, body
        self.reference, self.dtype = reference, dtype
        self.rtol, self.atol = rtol, atol


def f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


FAMILIES = {}


def family(name, **kw):
    def register(fn):
        inputs, body, reference = fn()
        FAMILIES[name] = Family(name, inputs, body, reference, **kw)
        return fn
    return register


@family("pad")
def _pad():
    # A constant pad (host copy when small and alone, kernel when fused or
    # more than 4,096 runs: n x 37 rows) and a pad whose value depends on
    # the index (never a host copy).
    def inputs(n, rng):
        return [f32(rng, n, 37, 7)]

    def body(n, a, t):
        out = f"tensor<{n}x40x8xf32>"
        return [
            "%pv = arith.constant -1.5 : f32",
            f"%p = tensor.pad {a[0]} low[0, 1, 1] high[0, 2, 0] {{",
            "^bb0(%i: index, %j: index, %k: index):",
            "  tensor.yield %pv : f32",
            f"}} : {t[0]} to {out}",
            f"%r = tensor.pad %p low[1, 0, 0] high[0, 0, 0] {{",
            "^bb0(%i: index, %j: index, %k: index):",
            "  %s = arith.addi %j, %k : index",
            "  %si = arith.index_cast %s : index to i32",
            "  %sf = arith.sitofp %si : i32 to f32",
            "  tensor.yield %sf : f32",
            f"}} : {out} to tensor<{n + 1}x40x8xf32>",
        ], "%r", f"tensor<{n + 1}x40x8xf32>"

    def reference(n, x):
        p = np.pad(x, ((0, 0), (1, 2), (1, 0)), constant_values=-1.5)
        j, k = np.meshgrid(np.arange(40), np.arange(8), indexing="ij")
        return np.concatenate([(j + k)[None].astype(np.float32), p], axis=0)
    return inputs, body, reference


@family("concat")
def _concat():
    def inputs(n, rng):
        return [f32(rng, n, 3), f32(rng, n, 4)]

    def body(n, a, t):
        return [f"%c = tensor.concat dim(1) {a[0]}, {a[1]} : ({t[0]}, {t[1]}) -> tensor<{n}x7xf32>",
                f"%r = tensor.concat dim(0) %c, %c : (tensor<{n}x7xf32>, tensor<{n}x7xf32>) -> tensor<{2 * n}x7xf32>"], \
            "%r", f"tensor<{2 * n}x7xf32>"

    def reference(n, x, y):
        c = np.concatenate([x, y], axis=1)
        return np.concatenate([c, c], axis=0)
    return inputs, body, reference


@family("slice")
def _slice():
    # A strided extract_slice (a kernel), a unit-stride one (a host copy)
    # and a strided insert_slice (a kernel).
    def inputs(n, rng):
        return [f32(rng, 2 * n + 1, 9), f32(rng, n, 3)]

    def body(n, a, t):
        return [
            f"%s = tensor.extract_slice {a[0]}[1, 2] [{n}, 3] [2, 3] : {t[0]} to tensor<{n}x3xf32>",
            f"%u = tensor.extract_slice {a[0]}[0, 1] [{n}, 3] [1, 1] : {t[0]} to tensor<{n}x3xf32>",
            f"%su = arith.addf %s, %u : tensor<{n}x3xf32>",
            f"%d = arith.mulf %su, {a[1]} : tensor<{n}x3xf32>",
            f"%r = tensor.insert_slice %d into {a[0]}[0, 0] [{n}, 3] [2, 4] : tensor<{n}x3xf32> into {t[0]}",
        ], "%r", t[0]

    def reference(n, x, y):
        s = x[1:1 + 2 * n:2, 2:9:3]
        u = x[0:n, 1:4]
        r = x.copy()
        r[0:2 * n:2, 0:9:4] = (s + u) * y
        return r
    return inputs, body, reference


@family("reshape")
def _reshape():
    def inputs(n, rng):
        return [f32(rng, n, 6)]

    def body(n, a, t):
        return [
            f"%c = tensor.collapse_shape {a[0]} [[0, 1]] : {t[0]} into tensor<{6 * n}xf32>",
            f"%e = math.exp %c : tensor<{6 * n}xf32>",
            f"%r = tensor.expand_shape %e [[0, 1, 2]] output_shape [{n}, 3, 2] : tensor<{6 * n}xf32> into tensor<{n}x3x2xf32>",
        ], "%r", f"tensor<{n}x3x2xf32>"

    def reference(n, x):
        return np.exp(x.astype(np.float64)).reshape(n, 3, 2)
    return inputs, body, reference


@family("broadcast")
def _broadcast():
    def inputs(n, rng):
        return [f32(rng, n), f32(rng, 5, n)]

    def body(n, a, t):
        return [
            f"%e = tensor.empty() : tensor<{n}x5xf32>",
            f"%b = linalg.broadcast ins({a[0]} : {t[0]}) outs(%e : tensor<{n}x5xf32>) dimensions = [1]",
            f"%e2 = tensor.empty() : tensor<{n}x5xf32>",
            f"%t = linalg.transpose ins({a[1]} : {t[1]}) outs(%e2 : tensor<{n}x5xf32>) permutation = [1, 0]",
            f"%r = arith.subf %b, %t : tensor<{n}x5xf32>",
        ], "%r", f"tensor<{n}x5xf32>"

    def reference(n, x, y):
        return x[:, None] - y.T
    return inputs, body, reference


def softmax_body(n, a, t):
    return [f"%e = tensor.empty() : {t[0]}",
            f"%r = linalg.softmax dimension(1) ins({a[0]} : {t[0]}) outs(%e : {t[0]}) -> {t[0]}"], \
        "%r", t[0]


def softmax_rows(n, x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@family("softmax")
def _softmax():
    def inputs(n, rng):
        # Besides normal rows: one spanning exps that underflow (arguments
        # below ln(FLT_MIN) = -87.3 after the row's max is subtracted) and
        # large ones, one with -inf (masked) entries; the f32 exp is
        # expanded for arguments <= 0 (TensorOpsToLinalg.cpp).
        x = f32(rng, n, 37) * 4
        if n >= 2:
            x[0] = np.linspace(-150, 60, 37, dtype=np.float32)
            x[1, ::3] = -np.inf
        return [x]

    return inputs, softmax_body, softmax_rows


@family("softmax_exp", rtol=2e-6, atol=0)
def _softmax_exp():
    # The expanded exp at ulp scale: softmax of [0, a] is e^a / (1 + e^a),
    # a from -87 (just above ln(FLT_MIN)) to 0; 2e-6 relative catches a
    # coefficient wrong in its 4th digit.
    def inputs(n, rng):
        x = np.zeros((n, 2), np.float32)
        x[:, 1] = np.linspace(-87, 0, n, dtype=np.float32)
        return [x]

    return inputs, softmax_body, softmax_rows


@family("gather")
def _gather():
    # An embedding lookup with i64 indices, boundary ones included: -1, 37
    # and 1000 are out of range and read the nearest row (clamped).
    def inputs(n, rng):
        table = f32(rng, 37, 5)
        idx = rng.integers(0, 37, n).astype(np.int64)
        boundary = np.array([36, 0, -1, 37, 1000, -1000], np.int64)
        idx[:min(n, 6)] = boundary[:min(n, 6)]
        return [table, idx]

    def body(n, a, t):
        return [
            f"%e = tensor.empty() : tensor<{n}x5xf32>",
            f"%r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}} ins({a[1]} : {t[1]}) outs(%e : tensor<{n}x5xf32>) {{",
            "^bb0(%i: i64, %o: f32):",
            "  %row = arith.index_cast %i : i64 to index",
            "  %col = linalg.index 1 : index",
            f"  %v = tensor.extract {a[0]}[%row, %col] : {t[0]}",
            "  linalg.yield %v : f32",
            f"}} -> tensor<{n}x5xf32>",
        ], "%r", f"tensor<{n}x5xf32>"

    def reference(n, table, idx):
        return table[np.clip(idx, 0, 36)]
    return inputs, body, reference


@family("select")
def _select():
    def inputs(n, rng):
        return [f32(rng, n, 5), f32(rng, n, 5), rng.random((n, 5)) < 0.5]

    def body(n, a, t):
        return [
            f"%gt = arith.cmpf ogt, {a[0]}, {a[1]} : {t[0]}",
            f"%both = arith.andi %gt, {a[2]} : {t[2]}",
            f"%r = arith.select %both, {a[0]}, {a[1]} : {t[2]}, {t[0]}",
        ], "%r", t[0]

    def reference(n, x, y, m):
        return np.where((x > y) & m, x, y)
    return inputs, body, reference


@family("math", rtol=1e-4, atol=1e-4)
def _math():
    # The math ops torch-mlir emits (erf, tanh, exp, log, sqrt, rsqrt, sin,
    # cos, floor, roundeven, powf, fpowi with an i64 exponent) and gelu's
    # tanh form.
    def inputs(n, rng):
        return [f32(rng, n, 11) * 3]

    def body(n, a, t):
        T = t[0]
        x = a[0]
        lines = [f"%ax = math.absf {x} : {T}",
                 f"%one = arith.constant dense<1.0> : {T}",
                 f"%half = arith.constant dense<0.5> : {T}",
                 f"%pos = arith.addf %ax, %one : {T}"]
        terms = []
        for i, op in enumerate(["math.erf", "math.tanh", "math.sin", "math.cos",
                                "math.floor", "math.roundeven"]):
            lines.append(f"%u{i} = {op} {x} : {T}")
            terms.append(f"%u{i}")
        for i, op in enumerate(["math.log", "math.sqrt", "math.rsqrt"]):
            lines.append(f"%v{i} = {op} %pos : {T}")
            terms.append(f"%v{i}")
        lines += [f"%sm = arith.mulf {x}, %half : {T}",
                  f"%ex = math.exp %sm : {T}",
                  f"%pw = math.powf %pos, %half : {T}",
                  f"%e3 = arith.constant dense<3> : {T[:-4]}i64>",
                  f"%pi = math.fpowi %sm, %e3 : {T}, {T[:-4]}i64>",
                  # gelu (tanh form): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
                  f"%k = arith.constant dense<0.7978845608> : {T}",
                  f"%c3 = arith.constant dense<0.044715> : {T}",
                  f"%x2 = arith.mulf {x}, {x} : {T}",
                  f"%x3 = arith.mulf %x2, {x} : {T}",
                  f"%cx3 = arith.mulf %x3, %c3 : {T}",
                  f"%in = arith.addf {x}, %cx3 : {T}",
                  f"%kin = arith.mulf %in, %k : {T}",
                  f"%th = math.tanh %kin : {T}",
                  f"%th1 = arith.addf %th, %one : {T}",
                  f"%hx = arith.mulf {x}, %half : {T}",
                  f"%gelu = arith.mulf %hx, %th1 : {T}"]
        terms += ["%ex", "%pw", "%pi", "%gelu"]
        acc = terms[0]
        for i, term in enumerate(terms[1:]):
            # alternate weights keep every term visible in the sum
            lines.append(f"%w{i} = arith.constant dense<{1.0 + 0.25 * (i + 1)}> : {T}")
            lines.append(f"%m{i} = arith.mulf {term}, %w{i} : {T}")
            lines.append(f"%s{i} = arith.addf {acc}, %m{i} : {T}")
            acc = f"%s{i}"
        return lines, acc, T

    def reference(n, x):
        x64 = x.astype(np.float64)
        pos = np.abs(x64) + 1
        erf = np.vectorize(math.erf)
        gelu = 0.5 * x64 * (1 + np.tanh(0.7978845608 * (x64 + 0.044715 * x64 ** 3)))
        terms = [erf(x64), np.tanh(x64), np.sin(x64), np.cos(x64),
                 np.floor(x), np.round(x).astype(np.float64), np.log(pos),
                 np.sqrt(pos), 1 / np.sqrt(pos), np.exp(x64 * 0.5),
                 pos ** 0.5, (x64 * 0.5) ** 3, gelu]
        acc = terms[0]
        for i, term in enumerate(terms[1:]):
            acc = acc + term * (1.0 + 0.25 * (i + 1))
        return acc
    return inputs, body, reference


@family("casts", rtol=0, atol=0)
def _casts():
    # f32 -> i32 (toward zero) -> f32, i64 -> f32, unsigned i8 -> f32,
    # f32 -> f16 / bf16 -> f32 (nearest even), summed.
    def inputs(n, rng):
        return [f32(rng, n, 9) * 100, rng.integers(-2**40, 2**40, (n, 9)).astype(np.int64),
                rng.integers(-128, 128, (n, 9)).astype(np.int8)]

    def body(n, a, t):
        T = f"tensor<{n}x9xf32>"
        return [
            f"%i = arith.fptosi {a[0]} : {t[0]} to tensor<{n}x9xi32>",
            f"%f = arith.sitofp %i : tensor<{n}x9xi32> to {T}",
            f"%g = arith.sitofp {a[1]} : {t[1]} to {T}",
            f"%u = arith.uitofp {a[2]} : {t[2]} to {T}",
            f"%h = arith.truncf {a[0]} : {t[0]} to tensor<{n}x9xf16>",
            f"%hf = arith.extf %h : tensor<{n}x9xf16> to {T}",
            f"%b = arith.truncf {a[0]} : {t[0]} to tensor<{n}x9xbf16>",
            f"%bf = arith.extf %b : tensor<{n}x9xbf16> to {T}",
            f"%small = arith.constant dense<1.0e-12> : {T}",
            f"%gs = arith.mulf %g, %small : {T}",
            f"%s0 = arith.addf %f, %u : {T}",
            f"%s1 = arith.subf %hf, %bf : {T}",
            f"%s2 = arith.mulf %s1, %gs : {T}",
            f"%r = arith.addf %s0, %s2 : {T}",
        ], "%r", T

    def reference(n, x, big, small):
        f = np.trunc(x).astype(np.int32).astype(np.float32)
        u = small.view(np.uint8).astype(np.float32)
        g = big.astype(np.float32) * np.float32(1e-12)
        d = x.astype(np.float16).astype(np.float32) - bf16_round(x)
        return (f + u) + d * g
    return inputs, body, reference


@family("matmul_half", rtol=1e-4, atol=1e-4)
def _matmul_half():
    # f16 x f16 and bf16 x bf16 (truncated in the kernel) accumulated in f32.
    def inputs(n, rng):
        return [f32(rng, n, 37).astype(np.float16), f32(rng, 37, 13).astype(np.float16),
                f32(rng, n, 37)]

    def body(n, a, t):
        R = f"tensor<{n}x13xf32>"
        return [
            "%z = arith.constant 0.0 : f32",
            f"%e = tensor.empty() : {R}",
            f"%f = linalg.fill ins(%z : f32) outs(%e : {R}) -> {R}",
            f"%m = linalg.matmul ins({a[0]}, {a[1]} : {t[0]}, {t[1]}) outs(%f : {R}) -> {R}",
            f"%ab = arith.truncf {a[2]} : {t[2]} to tensor<{n}x37xbf16>",
            f"%bb = arith.extf {a[1]} : {t[1]} to tensor<37x13xf32>",
            f"%bbb = arith.truncf %bb : tensor<37x13xf32> to tensor<37x13xbf16>",
            f"%e2 = tensor.empty() : {R}",
            f"%f2 = linalg.fill ins(%z : f32) outs(%e2 : {R}) -> {R}",
            f"%m2 = linalg.matmul ins(%ab, %bbb : tensor<{n}x37xbf16>, tensor<37x13xbf16>) outs(%f2 : {R}) -> {R}",
            f"%r = arith.addf %m, %m2 : {R}",
        ], "%r", R

    def reference(n, a, b, c):
        a32, b32 = a.astype(np.float64), b.astype(np.float64)
        bb = bf16_round(b.astype(np.float32)).astype(np.float64)
        return a32 @ b32 + bf16_round(c).astype(np.float64) @ bb
    return inputs, body, reference


@family("int64", dtype=np.int64, rtol=0, atol=0)
def _int64():
    def inputs(n, rng):
        a = rng.integers(-2**40, 2**40, (n, 5)).astype(np.int64)
        b = rng.integers(-1000, 1000, (n, 5)).astype(np.int64)
        b[0, 0] = 0
        return [a, b]

    def body(n, a, t):
        T = t[0]
        return [
            f"%m = arith.muli {a[0]}, {a[1]} : {T}",
            f"%d = arith.divsi {a[0]}, {a[1]} : {T}",
            f"%x = arith.xori %m, %d : {T}",
            f"%c3 = arith.constant dense<3> : {T}",
            f"%sh = arith.shrsi {a[0]}, %c3 : {T}",
            f"%mx = arith.maxsi %x, %sh : {T}",
            f"%r = arith.addi %mx, {a[1]} : {T}",
        ], "%r", T

    def reference(n, a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            safe = np.where(b == 0, 1, b)
            q = np.where(b == 0, 0, np.trunc(a / safe).astype(np.int64))
            # exact truncating division for large a
            q = np.where(b == 0, 0, np.sign(a) * np.sign(safe) * (np.abs(a) // np.abs(safe)))
        return np.maximum((a * b) ^ q, a >> 3) + b
    return inputs, body, reference


@family("dynamic")
def _dynamic():
    # A slice and a pad whose offsets are run-time values (ONNX Slice/Pad
    # with starts/pads as inputs): gathers with clamped indices.
    def inputs(n, rng):
        return [f32(rng, n + 3, 9), rng.integers(0, 4, 2).astype(np.int64)]

    def body(n, a, t):
        return [
            "%c0 = arith.constant 0 : index",
            "%c1 = arith.constant 1 : index",
            "%c3 = arith.constant 3 : index",
            f"%o0 = tensor.extract {a[1]}[%c0] : {t[1]}",
            f"%o1 = tensor.extract {a[1]}[%c1] : {t[1]}",
            "%i0 = arith.index_cast %o0 : i64 to index",
            "%i1 = arith.index_cast %o1 : i64 to index",
            "%h1 = arith.subi %c3, %i1 : index",
            f"%s = tensor.extract_slice {a[0]}[%i0, 2] [{n}, 4] [1, 2] : {t[0]} to tensor<{n}x4xf32>",
            "%pv = arith.constant 0.25 : f32",
            "%r = tensor.pad %s low[%i1, 1] high[%h1, 0] {",
            "^bb0(%i: index, %j: index):",
            "  tensor.yield %pv : f32",
            f"}} : tensor<{n}x4xf32> to tensor<{n + 3}x5xf32>",
        ], "%r", f"tensor<{n + 3}x5xf32>"

    def reference(n, x, offs):
        o0, o1 = int(offs[0]), int(offs[1])
        s = x[o0:o0 + n, 2:9:2]
        return np.pad(s, ((o1, 3 - o1), (1, 0)), constant_values=0.25)
    return inputs, body, reference


def float_pre_post(dtype):
    return np.dtype(dtype).kind == "f"


def emit(fam, n, variant, inputs, lines_out):
    types = [mlir_type(x.shape, x.dtype) for x in inputs]
    args = [f"%a{i}" for i in range(len(inputs))]
    header = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
    pre, post = [], []
    used = list(args)
    if variant == "two":
        for i, (a, t) in enumerate(zip(args, types)):
            pre.append(f"%b{i} = flow.tensor.transfer {a} : {t} to #hal.device.affinity<@device_b>")
            used[i] = f"%b{i}"
    if variant == "fused" and float_pre_post(inputs[0].dtype) and inputs[0].dtype == np.float32:
        pre += [f"%pre_c = arith.constant dense<0.5> : {types[0]}",
                f"%pre = arith.mulf {used[0]}, %pre_c : {types[0]}"]
        used[0] = "%pre"
    body, result, rtype = fam.body(n, used, types)
    final = result
    if variant in ("fused", "two"):
        if variant == "two":
            post.append(f"%ra = flow.tensor.transfer {result} : {rtype} to #hal.device.affinity<@device_a>")
            result = "%ra"
        if np.dtype(fam.dtype).kind == "f":
            post += [f"%post_c = arith.constant dense<2.0> : {rtype}",
                     f"%post_d = arith.constant dense<1.0> : {rtype}",
                     f"%post_m = arith.mulf {result}, %post_c : {rtype}",
                     f"%post = arith.addf %post_m, %post_d : {rtype}"]
        else:
            post += [f"%post_c = arith.constant dense<3> : {rtype}",
                     f"%post_m = arith.muli {result}, %post_c : {rtype}",
                     f"%post = arith.addi %post_m, %post_c : {rtype}"]
        final = "%post"
    attr = " {iree.abi.affinity = #hal.device.affinity<@device_a>}" if variant == "two" else ""
    name = f"{fam.name}_{n}_{variant}"
    lines_out.append(f"  func.func @{name}({header}) -> ({rtype}{attr}) {{")
    for line in pre + body + post:
        lines_out.append("    " + line)
    lines_out.append(f"    return {final} : {rtype}")
    lines_out.append("  }")
    return name


def expected(fam, n, variant, inputs):
    xs = list(inputs)
    if variant == "fused" and xs[0].dtype == np.float32:
        xs[0] = xs[0] * np.float32(0.5)
    y = np.asarray(fam.reference(n, *xs))
    if variant in ("fused", "two"):
        y = y * 2 + 1 if np.dtype(fam.dtype).kind == "f" else y * 3 + 3
    return y.astype(fam.dtype)


def gen(name, prefix):
    fam = FAMILIES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    lines = ["module {",
             '  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device',
             '  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device']
    manifest = []
    for n in SIZES:
        inputs = fam.inputs(n, rng)
        for variant in ("unfused", "fused", "two"):
            fn = emit(fam, n, variant, inputs, lines)
            files = []
            for i, x in enumerate(inputs):
                path = f"{prefix}.{fn}.in{i}.npy"
                np.save(path, x)
                files.append(path)
            out = f"{prefix}.{fn}.out.npy"
            np.save(out, expected(fam, n, variant, inputs))
            manifest.append({"function": fn, "inputs": files, "expected": out,
                             "devices": 2 if variant == "two" else 1,
                             "rtol": fam.rtol, "atol": fam.atol})
    lines.append("}")
    with open(prefix + ".mlir", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(prefix + ".json", "w") as f:
        json.dump(manifest, f)


def run(prefix, tools, uris=None):
    with open(prefix + ".json") as f:
        manifest = json.load(f)
    failed = 0
    for entry in manifest:
        out = f"{prefix}.{entry['function']}.actual.npy"
        # Every module declares two devices; `two` functions use both.
        devices = ["--device=local-task", "--device=local-task"]
        if entry["devices"] == 2:
            devices = ["--device=local-sync", "--device=local-task"]
        if uris:
            devices = [f"--device={uri}" for uri in uris]
        cmd = [f"{tools}/fleet-run", f"--module={prefix}.fleet",
               f"--function={entry['function']}", *devices,
               *[f"--input=@{p}" for p in entry["inputs"]], f"--output=@{out}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{entry['function']}: FAIL fleet-run (exit {r.returncode}): {(r.stderr or r.stdout).strip().splitlines()[0][:300]}")
            failed += 1
            continue
        if "vulkan validation" in r.stderr:
            print(f"{entry['function']}: FAIL validation layer: {r.stderr.strip().splitlines()[0][:300]}")
            failed += 1
            continue
        actual, want = np.load(out), np.load(entry["expected"])
        if actual.shape != want.shape or actual.dtype != want.dtype:
            print(f"{entry['function']}: FAIL {actual.dtype}{actual.shape} vs {want.dtype}{want.shape}")
            failed += 1
        elif not np.allclose(actual, want, rtol=entry["rtol"], atol=entry["atol"]):
            bad = np.argwhere(~np.isclose(actual, want, rtol=entry["rtol"], atol=entry["atol"]))
            i = tuple(bad[0])
            print(f"{entry['function']}: FAIL {len(bad)} elements differ, first at {i}: {actual[i]} vs {want[i]}")
            failed += 1
        else:
            print(f"{entry['function']}: ok")
    print(f"{len(manifest) - failed} of {len(manifest)} ok")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "run":
        sys.exit(run(sys.argv[2], sys.argv[3], sys.argv[4:]))
    else:
        sys.exit(f"usage: {sys.argv[0]} gen FAMILY PREFIX | run PREFIX TOOLS [URI...]")
