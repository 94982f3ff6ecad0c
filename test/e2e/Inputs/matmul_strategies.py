"""Matmuls through every kernel strategy at odd sizes, against numpy
(issue 28's tests; docs/kernels.md "Data tiling").

  matmul_strategies.py gen PREFIX    writes PREFIX.mlir (one function per
                                     case) and the .npy inputs/outputs
  matmul_strategies.py run PREFIX TOOLS [FLEET-RUN FLAGS...]
                                     runs each function of PREFIX.fleet;
                                     one line per case, exit 1 on a failure

Cases (M x K x N, sizes 1, 7, 37, 129, 257 and 1025: none a multiple of a
register or workgroup tile; K = 1024, 1536 and 2048 are walked in blocks of
256 steps, docs/kernels.md "Register tiles"; short A against B's rows copies
B in blocks, "B blocks"):
  - `plain`: runtime operands the data-tiling rule leaves unpacked;
  - `packed`: runtime operands it packs (M, N >= 64, B > 1 MiB), so the
    pack/unpack transposes pad the edges;
  - `epi`: `plain` with a bias + relu epilogue, which joins the
    product's dispatch;
  - `weight`: B a constant global (packed at compile time, N >= 32),
    with a bias + relu epilogue after the product;
  - `conv`: NHWC convolutions (H x C -> F, K x K, stride S) through
    im2col + matmul, the filter a runtime input or (`convw`) a constant
    global packed at compile time; at output widths 14 and 7 the window
    copy writes A packed itself (7-row tiles, no padding);
  - `nchw` / `nchww`: the same in NCHW / FCHW (ONNX's layout), filter x
    im2col, the filter runtime or constant (then A, packed at compile
    time when F >= 8 and OH*OW >= 32); with F a multiple of 32 computed
    transposed (im2col x filter^T, transposed back: the window copy A,
    written packed at output widths 14 and 7 with AVX-512); `nchwb` adds a
    constant per-channel bias as the convolution's init (ONNX's Conv with
    B), broadcast into the packed accumulator when F is a multiple of the
    packed B's column tile.
Products are checked in float64 against f32 results with a tolerance
scaled by sqrt(K).
"""
import sys

import numpy as np
from run_cases import run_cases

CASES = [
    ("plain", 1, 1, 1), ("plain", 7, 37, 129), ("plain", 129, 7, 37),
    ("plain", 37, 257, 7),
    # Reductions walked in blocks of 256 (K = 1024, 1536, 2048; the second
    # also keeps all 33 rows in each workgroup: 4 x 33 <= 257 columns).
    ("plain", 37, 1024, 7), ("plain", 33, 1536, 257),
    # B copied in blocks (docs/kernels.md "B blocks"): all workgroups of
    # static shape (8 rows: two 4-row register tiles), a last workgroup
    # of 1 column (the temporary sized for the widest), blocks of 8 steps
    # (K = 1032 = 8 x 129). 14 rows: 5 + 5 + 4-row register tiles.
    ("plain", 8, 1024, 512), ("plain", 7, 1032, 129), ("plain", 14, 37, 129),
    # More register tile rows than 3 (24 and 25 rows with AVX2: the block
    # is copied; read in place with AVX-512), each tile prefetching the
    # next block; the last block's prefetches clamped to B's last row, and
    # (4100 columns) the ragged workgroups' to its last column.
    ("plain", 24, 1024, 512), ("plain", 1, 1024, 4100),
    # The same with a bias + relu epilogue in the product's dispatch
    # (docs/kernels.md "Epilogues"): fused into the register tiles, or
    # after a product walked in reduction blocks (K = 1024, with and
    # without B blocks).
    ("epi", 7, 37, 129), ("epi", 129, 7, 37), ("epi", 37, 1024, 7),
    ("epi", 8, 1024, 512), ("epi", 7, 1032, 129), ("epi", 129, 1024, 37),
    ("epi", 25, 1032, 129),
    ("packed", 129, 1025, 257), ("packed", 257, 1025, 65),
    ("packed", 65, 2049, 129), ("packed", 67, 2048, 129),
    ("weight", 1, 7, 37), ("weight", 7, 129, 257), ("weight", 37, 37, 129),
    ("weight", 129, 257, 33),
    # (kind, H, C, F, K, S): padded input H x H x C.
    ("conv", 9, 3, 5, 3, 2), ("conv", 7, 37, 7, 1, 1), ("conv", 8, 7, 65, 1, 2),
    ("convw", 13, 8, 40, 3, 1), ("convw", 12, 3, 37, 7, 2),
    # Output widths 14 and 7: the window copy writes A packed (M0 = 7 with
    # AVX-512; AVX2's M0 = 6 keeps the pack). Width 12: M0 = 6 on both.
    ("convw", 16, 5, 33, 3, 1), ("convw", 15, 3, 40, 3, 2),
    ("conv", 16, 64, 513, 3, 1),
    ("convw", 14, 5, 33, 3, 1), ("conv", 14, 64, 513, 3, 1),
    # The same as NCHW (ONNX's layout): filter x im2col.
    ("nchw", 9, 3, 5, 3, 2), ("nchw", 7, 37, 7, 1, 1), ("nchw", 8, 7, 65, 1, 2),
    ("nchww", 12, 3, 37, 7, 2), ("nchww", 13, 8, 40, 3, 1),
    # NCHW computed transposed (F = 32, 64): unpacked (a runtime filter at
    # 4 x 4 outputs), packed by the window copy (widths 14 and 7) with the
    # product unpacked by one transpose, and width 10 (no row tile with
    # AVX-512's M0 = 8: A padded, the unpack and the transpose back stay).
    # F = 48 keeps filter x im2col, with a bias.
    ("nchw", 9, 3, 32, 3, 2), ("nchww", 16, 5, 32, 3, 1),
    ("nchwb", 15, 3, 64, 3, 2), ("nchwb", 12, 8, 32, 3, 1),
    ("nchwb", 16, 7, 32, 3, 1), ("nchwb", 12, 8, 48, 3, 1),
]
CONV_KINDS = ("conv", "convw", "nchw", "nchww", "nchwb")
WEIGHT_KINDS = ("weight", "convw", "nchww", "nchwb")
EPILOGUE_KINDS = ("weight", "epi")


def name(case):
    return case[0] + "_" + "x".join(map(str, case[1:]))


def tensor(*shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def dense(array):
    rows = ", ".join("[" + ", ".join(f"{v:.8e}" for v in row) + "]"
                     for row in array)
    return f"dense<[{rows}]>"


def gen(prefix):
    rng = np.random.default_rng(28)
    globals_, funcs = [], []
    for case in CASES:
        if case[0] in CONV_KINDS:
            conv_case(prefix, case, rng, globals_, funcs)
            continue
        kind, m, k, n = case
        fn = name(case)
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        expected = a.astype(np.float64) @ b.astype(np.float64)
        A, B, C = tensor(m, k), tensor(k, n), tensor(m, n)
        args = f"%a: {A}"
        body = []
        if kind == "weight":
            globals_.append(f"util.global private @w_{fn} = {dense(b)} : {B}")
            body.append(f"%b = util.global.load @w_{fn} : {B}")
        else:
            args += f", %b: {B}"
            np.save(f"{prefix}.{fn}.b.npy", b)
        if kind in EPILOGUE_KINDS:
            bias = rng.standard_normal((n,)).astype(np.float32)
            globals_.append(
                f"util.global private @bias_{fn} = dense<[{', '.join(f'{v:.8e}' for v in bias)}]> : {tensor(n)}")
            body.append(f"%bias = util.global.load @bias_{fn} : {tensor(n)}")
            expected = np.maximum(expected + bias, 0.0)
        np.save(f"{prefix}.{fn}.a.npy", a)
        np.save(f"{prefix}.{fn}.c.npy", expected.astype(np.float32))
        body += [
            "%zero = arith.constant 0.0 : f32",
            f"%e = tensor.empty() : {C}",
            f"%f = linalg.fill ins(%zero : f32) outs(%e : {C}) -> {C}",
            f"%r = linalg.matmul ins(%a, %b : {A}, {B}) outs(%f : {C}) -> {C}",
        ]
        result = "%r"
        if kind in EPILOGUE_KINDS:
            body += [
                f"%y = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]}} ins(%r, %bias : {C}, {tensor(n)}) outs(%e : {C}) {{",
                "^bb0(%x: f32, %y0: f32, %o: f32):",
                "  %s = arith.addf %x, %y0 : f32",
                "  %z = arith.maximumf %s, %zero : f32",
                "  linalg.yield %z : f32",
                f"}} -> {C}",
            ]
            result = "%y"
        funcs.append(f"func.func @{fn}({args}) -> {C} {{\n  " +
                     "\n  ".join(body) + f"\n  return {result} : {C}\n}}")
    with open(prefix + ".mlir", "w") as f:
        f.write("module {\n" + "\n".join(globals_) + "\n" +
                "\n".join(funcs) + "\n}\n")


def conv_case(prefix, case, rng, globals_, funcs):
    kind, h, c, f, k, stride = case
    fn = name(case)
    o = (h - k) // stride + 1
    x = rng.standard_normal((1, h, h, c)).astype(np.float32)
    w = rng.standard_normal((k, k, c, f)).astype(np.float32)
    cols = np.empty((o, o, k, k, c))
    for i in range(k):
        for j in range(k):
            cols[:, :, i, j, :] = x[0, i:i + stride * (o - 1) + 1:stride,
                                    j:j + stride * (o - 1) + 1:stride, :]
    expected = (cols.reshape(o * o, -1) @ w.reshape(-1, f).astype(np.float64))
    expected = expected.reshape(1, o, o, f)
    nchw = kind.startswith("nchw")
    if nchw:
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
        w = np.ascontiguousarray(w.transpose(3, 2, 0, 1))
        expected = expected.transpose(0, 3, 1, 2)
    bias = None
    if kind == "nchwb":
        bias = rng.standard_normal(f).astype(np.float32)
        expected = expected + bias.reshape(1, f, 1, 1).astype(np.float64)
    np.save(f"{prefix}.{fn}.a.npy", x)
    np.save(f"{prefix}.{fn}.c.npy", expected.astype(np.float32))
    X, W, O = (tensor(*x.shape), tensor(*w.shape),
               tensor(1, f, o, o) if nchw else tensor(1, o, o, f))
    args, body = f"%x: {X}", []
    if kind in WEIGHT_KINDS:
        values = ", ".join(f"{v:.8e}" for v in w.reshape(-1))
        globals_.append(f"util.global private @w_{fn} = dense<[{values}]> : tensor<{w.size}xf32>")
        body.append(f"%wf = util.global.load @w_{fn} : tensor<{w.size}xf32>")
        shape = ", ".join(map(str, w.shape))
        body.append(f"%w = tensor.expand_shape %wf [[0, 1, 2, 3]] output_shape [{shape}] : tensor<{w.size}xf32> into {W}")
    else:
        args += f", %w: {W}"
        np.save(f"{prefix}.{fn}.b.npy", w)
    op = "conv_2d_nchw_fchw" if nchw else "conv_2d_nhwc_hwcf"
    if bias is not None:
        values = ", ".join(f"{v:.8e}" for v in bias)
        globals_.append(f"util.global private @b_{fn} = dense<[{values}]> : tensor<{f}xf32>")
        init = [f"%bias = util.global.load @b_{fn} : tensor<{f}xf32>",
                f"%e = tensor.empty() : {O}",
                f"%i = linalg.broadcast ins(%bias : tensor<{f}xf32>) outs(%e : {O}) dimensions = [0, 2, 3]"]
    else:
        init = ["%zero = arith.constant 0.0 : f32",
                f"%e = tensor.empty() : {O}",
                f"%i = linalg.fill ins(%zero : f32) outs(%e : {O}) -> {O}"]
    body += init + [
        f"%r = linalg.{op} {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}} ins(%x, %w : {X}, {W}) outs(%i : {O}) -> {O}",
    ]
    funcs.append(f"func.func @{fn}({args}) -> {O} {{\n  " + "\n  ".join(body) +
                 f"\n  return %r : {O}\n}}")


def run(prefix, tools, extra):
    cases = []
    for case in CASES:
        kind = case[0]
        k = case[2] if kind not in CONV_KINDS else case[2] * case[4] ** 2
        fn = name(case)
        inputs = [f"{prefix}.{fn}.a.npy"]
        if kind not in WEIGHT_KINDS:
            inputs.append(f"{prefix}.{fn}.b.npy")
        cases.append((fn, inputs, f"{prefix}.{fn}.c.npy",
                      1e-5 * max(8, k) ** 0.5 * 8))
    return run_cases(prefix, tools, extra, cases)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(run(sys.argv[2], sys.argv[3], sys.argv[4:]))
