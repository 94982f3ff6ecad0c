"""Pooling ops at odd sizes against numpy (docs/kernels.md "Pooling").

  pooling.py gen PREFIX    writes PREFIX.mlir (one function per case) and
                           the .npy inputs/outputs
  pooling.py run PREFIX TOOLS [FLEET-RUN FLAGS...]
                           runs each function of PREFIX.fleet; one line
                           per case, exit 1 on a failure

Cases (op, layout, H, W, C, window, stride, dilation): max, min and sum
pools in NCHW and NHWC at widths that leave a remainder after every vector
width (7, 13, 37, 114: 56 outputs, 3 x 16 + 8), strides 1-3, a dilation,
windows 1-3 and not square inputs. Each pool reads its input as given (a
padded input is the caller's pad).
"""
import sys

import numpy as np
from run_cases import run_cases

CASES = [
    ("max", "nchw", 114, 114, 64, 3, 2, 1),
    ("max", "nchw", 7, 13, 3, 2, 1, 1),
    ("max", "nhwc", 37, 13, 5, 3, 2, 1),
    ("max", "nhwc", 13, 37, 17, 3, 3, 2),
    ("min", "nhwc", 13, 7, 3, 2, 2, 1),
    ("sum", "nchw", 37, 37, 2, 3, 1, 1),
    ("sum", "nhwc", 9, 114, 3, 1, 2, 1),
    ("sum", "nchw", 13, 13, 1, 3, 1, 2),
]


def name(case):
    op, layout, h, w, c, k, s, d = case
    return f"{op}_{layout}_{h}x{w}x{c}_k{k}s{s}d{d}"


def out_size(n, k, s, d):
    return (n - d * (k - 1) - 1) // s + 1


def reference(x, op, k, s, d, oh, ow):
    """x in NHWC; returns NHWC."""
    combine = {"max": np.maximum, "min": np.minimum, "sum": np.add}[op]
    out = None
    for i in range(k):
        for j in range(k):
            win = x[:, i * d:i * d + (oh - 1) * s + 1:s,
                    j * d:j * d + (ow - 1) * s + 1:s, :].astype(np.float64)
            out = win if out is None else combine(out, win)
    return out


def gen(prefix):
    rng = np.random.default_rng(28)
    funcs = []
    for case in CASES:
        op, layout, h, w, c, k, s, d = case
        oh, ow = out_size(h, k, s, d), out_size(w, k, s, d)
        x = rng.standard_normal((1, h, w, c)).astype(np.float32)
        y = reference(x, op, k, s, d, oh, ow).astype(np.float32)
        if layout == "nchw":
            x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
            y = np.ascontiguousarray(y.transpose(0, 3, 1, 2))
        fn = name(case)
        np.save(f"{prefix}.{fn}.x.npy", x)
        np.save(f"{prefix}.{fn}.y.npy", y)
        X = "tensor<" + "x".join(map(str, x.shape)) + "xf32>"
        Y = "tensor<" + "x".join(map(str, y.shape)) + "xf32>"
        init = {"max": "0xFF800000", "min": "0x7F800000", "sum": "0.0"}[op]
        funcs.append(f"""func.func @{fn}(%x: {X}) -> {Y} {{
  %init = arith.constant {init} : f32
  %e = tensor.empty() : {Y}
  %f = linalg.fill ins(%init : f32) outs(%e : {Y}) -> {Y}
  %w = tensor.empty() : tensor<{k}x{k}xf32>
  %r = linalg.pooling_{layout}_{op} {{dilations = dense<{d}> : tensor<2xi64>, strides = dense<{s}> : tensor<2xi64>}} ins(%x, %w : {X}, tensor<{k}x{k}xf32>) outs(%f : {Y}) -> {Y}
  return %r : {Y}
}}""")
    with open(f"{prefix}.mlir", "w") as f:
        f.write("\n".join(funcs) + "\n")


def run(prefix, tools, extra):
    return run_cases(prefix, tools, extra, [
        (name(case), [f"{prefix}.{name(case)}.x.npy"],
         f"{prefix}.{name(case)}.y.npy", 1e-5) for case in CASES])


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(run(sys.argv[2], sys.argv[3], sys.argv[4:]))
