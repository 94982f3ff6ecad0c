"""ResNet-18's convolutions (issue 28 item 3): NHWC, batch 1, f32, each
layer shape as a whole Fleet program (im2col + matmul after
preprocessing-convert-conv2d-to-img2col) against im2col + one-thread
OpenBLAS sgemm, the im2col copy included (`fleet-kernel-bench --conv`).
Inputs are given already padded (the pad is the model's own op), the
filter as a runtime input. bench/rows/_programs.py: one worker, a warm
call's makespan, checked against numpy; best of 5 alternating. Goal >= 0.8.

  CV1            7x7/2, 3 -> 64 channels, 224x224 (padded 230x230)
  CV64..CV512    3x3/1 at 64 (56x56), 128 (28), 256 (14), 512 (7)
  CVd128..512    3x3/2 downsampling into 128, 256, 512 channels
  CVp128..512    1x1/2 projections into 128, 256, 512 channels
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _programs  # noqa: E402

ROUNDS = 5
# key: (padded H = W, C, F, K, stride)
LAYERS = {
    "CV1": (230, 3, 64, 7, 2),
    "CV64": (58, 64, 64, 3, 1),
    "CV128": (30, 128, 128, 3, 1),
    "CV256": (16, 256, 256, 3, 1),
    "CV512": (9, 512, 512, 3, 1),
    "CVd128": (58, 64, 128, 3, 2),
    "CVd256": (30, 128, 256, 3, 2),
    "CVd512": (16, 256, 512, 3, 2),
    "CVp128": (56, 64, 128, 1, 2),
    "CVp256": (28, 128, 256, 1, 2),
    "CVp512": (14, 256, 512, 1, 2),
}

SOURCE = """func.func @main(%x: tensor<1x{h}x{h}x{c}xf32>, %w: tensor<{k}x{k}x{c}x{f}xf32>) -> tensor<1x{o}x{o}x{f}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x{o}x{o}x{f}xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x{o}x{o}x{f}xf32>) -> tensor<1x{o}x{o}x{f}xf32>
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<{s}> : tensor<2xi64>}} ins(%x, %w : tensor<1x{h}x{h}x{c}xf32>, tensor<{k}x{k}x{c}x{f}xf32>) outs(%i : tensor<1x{o}x{o}x{f}xf32>) -> tensor<1x{o}x{o}x{f}xf32>
  return %r : tensor<1x{o}x{o}x{f}xf32>
}}
"""


def rows(Row):
    out = []
    for key, (h, c, f, k, s) in LAYERS.items():
        o = (h - k) // s + 1
        out.append(Row(key, f"conv {k}x{k}/{s} {c}->{f} at {o}x{o} vs im2col+sgemm",
                       ">= 0.80", lambda v: v >= 0.8))
    return out


def reference_conv(x, w, s):
    """NHWC conv of a padded input by im2col in numpy (float64)."""
    import numpy as np
    _, h, _, c = x.shape
    k, _, _, f = w.shape
    o = (h - k) // s + 1
    cols = np.empty((o, o, k, k, c))
    for i in range(k):
        for j in range(k):
            cols[:, :, i, j, :] = x[0, i:i + s * (o - 1) + 1:s,
                                    j:j + s * (o - 1) + 1:s, :]
    return (cols.reshape(o * o, -1) @ w.reshape(-1, f).astype(np.float64)
            ).reshape(1, o, o, f)


def measure(build, rows, tools):
    wanted = [key for key in LAYERS if key in rows]
    if not wanted:
        return
    import numpy as np
    bench = _programs.build_reference(build, rows, wanted, tools)
    if bench is None:
        return
    env, core = _programs.openblas_env(bench)
    work = tempfile.mkdtemp(prefix="fleet-conv-bench-")
    try:
        for key in wanted:
            h, c, f, k, s = LAYERS[key]
            o = (h - k) // s + 1
            rng = np.random.default_rng(28)
            x = rng.standard_normal((1, h, h, c)).astype(np.float32)
            w = rng.standard_normal((k, k, c, f)).astype(np.float32)
            case = _programs.Case(
                SOURCE.format(h=h, c=c, f=f, k=k, s=s, o=o), [x, w],
                reference_conv(x.astype(np.float64), w, s).astype(np.float32),
                ["--conv", str(h), str(h), str(c), str(f), str(k), str(s),
                 "3"], 1e-3 * max(k * k * c, 64) / 64)
            try:
                fleet_ms, ref_ms, _ = _programs.compare(
                    build, tools, work, key, case, env, ROUNDS)
            except RuntimeError as error:
                rows[key].note = str(error)
                continue
            flops = 2.0 * o * o * f * k * k * c
            ratio = ref_ms / fleet_ms
            rows[key].set(ratio, f"{ratio:.2f}",
                          f"Fleet {fleet_ms:.3f} ms "
                          f"({flops / fleet_ms / 1e6:.0f} GFLOP/s), im2col+"
                          f"sgemm ({core}) {ref_ms:.3f} ms, matches numpy")
    finally:
        shutil.rmtree(work, ignore_errors=True)
