"""Matmul programs against OpenBLAS (issue 28's measures; docs/kernels.md
"Data tiling" and "Measurements").

  MM512, MM2048     C = A B, f32 square (MM4096 in bench-full: FIGURES=MM4096)
  MMs1/8/32         M = 1, 8, 32 with K = N = 4096 (tokens times a weight)
  MMe512            512^3 with a bias + relu epilogue, vs sgemm alone
  MMh512, MMh2048   compiled with --llvmcpu-target-cpu=haswell, against
  MMhs1/8/32        OpenBLAS with OPENBLAS_CORETYPE=Haswell (goal >= 0.85)
  BMMqk128/512      12 heads, Q K^T: [12,S,64] x [12,S,64]^T, S = 128, 512
  BMMpv128/512      12 heads, P V:   [12,S,S] x [12,S,64]
                    (goal >= 0.85 of a loop of 12 sgemm calls)
  CT                the longest fleet-compile of these programs (an upper
                    bound of each of its kernels' compile time), <= 1 s
Each: bench/rows/_programs.py (one worker, makespan of a warm call with
every dispatch, checked against numpy; the reference one-thread OpenBLAS),
best of 5 alternating; ratio = reference time / Fleet time.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _programs  # noqa: E402

ROUNDS = 5

SOURCE = """func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""

EPILOGUE = """func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>, %bias: tensor<{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %y = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins(%r, %bias : tensor<{m}x{n}xf32>, tensor<{n}xf32>) outs(%e : tensor<{m}x{n}xf32>) {{
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  }} -> tensor<{m}x{n}xf32>
  return %y : tensor<{m}x{n}xf32>
}}
"""

BATCH = """func.func @main(%a: tensor<{h}x{m}x{k}xf32>, %b: tensor<{h}x{bshape}xf32>) -> tensor<{h}x{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{h}x{m}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{h}x{m}x{n}xf32>) -> tensor<{h}x{m}x{n}xf32>
  %r = linalg.batch_matmul {maps} ins(%a, %b : tensor<{h}x{m}x{k}xf32>, tensor<{h}x{bshape}xf32>) outs(%f : tensor<{h}x{m}x{n}xf32>) -> tensor<{h}x{m}x{n}xf32>
  return %r : tensor<{h}x{m}x{n}xf32>
}}
"""
TRANSPOSED_B = ("indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, "
                "affine_map<(b, m, n, k) -> (b, n, k)>, "
                "affine_map<(b, m, n, k) -> (b, m, n)>]")


def matmul_source(m, k, n):
    """`func.func @main(A: MxK, B: KxN) -> MxN`, f32 (bench/rows/workers.py
    too)."""
    return SOURCE.format(m=m, k=k, n=n)


# key: (figure, goal, kind, shape, options)
CASES = {
    "MM512": ("f32 matmul 512^3 vs OpenBLAS sgemm", 0.9, "mm", (512, 512, 512), {}),
    "MM2048": ("f32 matmul 2048^3 vs OpenBLAS sgemm", 0.9, "mm", (2048, 2048, 2048), {}),
    "MMs1": ("f32 matmul 1x4096x4096 vs sgemm", 0.9, "mm", (1, 4096, 4096), {}),
    "MMs8": ("f32 matmul 8x4096x4096 vs sgemm", 0.9, "mm", (8, 4096, 4096), {}),
    "MMs32": ("f32 matmul 32x4096x4096 vs sgemm", 0.9, "mm", (32, 4096, 4096), {}),
    "MMe512": ("matmul 512^3 + bias + relu vs sgemm", 0.9, "epilogue", (512, 512, 512), {}),
    "MMh512": ("haswell: matmul 512^3 vs Haswell sgemm", 0.85, "mm", (512, 512, 512), {"haswell": True}),
    "MMh2048": ("haswell: matmul 2048^3 vs Haswell sgemm", 0.85, "mm", (2048, 2048, 2048), {"haswell": True}),
    "MMhs1": ("haswell: matmul 1x4096x4096 vs Haswell sgemm", 0.85, "mm", (1, 4096, 4096), {"haswell": True}),
    "MMhs8": ("haswell: matmul 8x4096x4096 vs Haswell sgemm", 0.85, "mm", (8, 4096, 4096), {"haswell": True}),
    "MMhs32": ("haswell: matmul 32x4096x4096 vs Haswell sgemm", 0.85, "mm", (32, 4096, 4096), {"haswell": True}),
    "BMMqk128": ("batch_matmul 12x128x64 Q.K^T vs 12 sgemm", 0.85, "qk", (12, 128, 64), {}),
    "BMMpv128": ("batch_matmul 12x128x64 P.V vs 12 sgemm", 0.85, "pv", (12, 128, 64), {}),
    "BMMqk512": ("batch_matmul 12x512x64 Q.K^T vs 12 sgemm", 0.85, "qk", (12, 512, 64), {}),
    "BMMpv512": ("batch_matmul 12x512x64 P.V vs 12 sgemm", 0.85, "pv", (12, 512, 64), {}),
    "MM4096": ("f32 matmul 4096^3 vs OpenBLAS sgemm (bench-full)", 0.9, "mm", (4096, 4096, 4096), {"full": True}),
}


def rows(Row):
    out = [Row(key, figure, f">= {goal:.2f}", lambda v, g=goal: v >= g)
           for key, (figure, goal, _, _, _) in CASES.items()]
    out.append(Row("CT", "longest fleet-compile of the kernel rows", "<= 1 s",
                   lambda v: v <= 1.0))
    return out


def make_case(kind, shape, options, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    flags = ["--llvmcpu-target-cpu=haswell"] if options.get("haswell") else []
    if kind in ("mm", "epilogue"):
        m, k, n = shape
        a, b = f32(m, k), f32(k, n)
        expected = a.astype(np.float64) @ b
        inputs = [a, b]
        source = SOURCE.format(m=m, k=k, n=n)
        if kind == "epilogue":
            bias = f32(n)
            inputs.append(bias)
            expected = np.maximum(expected + bias, 0)
            source = EPILOGUE.format(m=m, k=k, n=n)
        reference = ["--sgemm", str(m), str(n), str(k), "3"]
        return _programs.Case(source, inputs, expected.astype(np.float32),
                              reference, 1e-3 * max(k, 64) / 64, flags)
    h, s, d = shape
    if kind == "qk":  # [h,s,d] x [h,s,d]^T -> [h,s,s]
        a, b = f32(h, s, d), f32(h, s, d)
        expected = np.einsum("hmk,hnk->hmn", a.astype(np.float64), b)
        source = BATCH.format(h=h, m=s, k=d, n=s, bshape=f"{s}x{d}",
                              maps=TRANSPOSED_B)
        reference = ["--sgemm", str(s), str(s), str(d), "3", str(h), "t"]
        k = d
    else:  # [h,s,s] x [h,s,d] -> [h,s,d]
        a, b = f32(h, s, s), f32(h, s, d)
        expected = np.einsum("hmk,hkn->hmn", a.astype(np.float64), b)
        source = BATCH.format(h=h, m=s, k=s, n=d, bshape=f"{s}x{d}", maps="")
        reference = ["--sgemm", str(s), str(d), str(s), "3", str(h)]
        k = s
    return _programs.Case(source, [a, b], expected.astype(np.float32),
                          reference, 1e-3 * max(k, 64) / 64, flags)


def measure(build, rows, tools):
    explicit = set(tools.get("explicit", ()))
    for key in rows:
        if key in CASES and CASES[key][4].get("full") and key not in explicit:
            rows[key].note = "make bench-full (or name it) runs it"
    wanted = [key for key in CASES if key in rows and
              (not CASES[key][4].get("full") or key in explicit)]
    if not wanted:
        return
    global np
    import numpy as np
    bench = _programs.build_reference(build, rows, wanted, tools)
    if bench is None:
        return
    envs = {}
    work = tempfile.mkdtemp(prefix="fleet-matmul-bench-")
    longest = (0.0, "")
    try:
        for key in wanted:
            figure, goal, kind, shape, options = CASES[key]
            coretype = "Haswell" if options.get("haswell") else None
            if coretype not in envs:
                envs[coretype] = _programs.openblas_env(bench, coretype)
            env, core = envs[coretype]
            case = make_case(kind, shape, options, np.random.default_rng(28))
            try:
                fleet_ms, blas_ms, compile_s = _programs.compare(
                    build, tools, work, key, case, env, ROUNDS)
            except RuntimeError as error:
                rows[key].note = str(error)
                continue
            longest = max(longest, (compile_s, key))
            if kind in ("mm", "epilogue"):
                m, k, n = shape
                flops = 2.0 * m * n * k
            else:
                h, s, d = shape
                flops = 2.0 * h * s * s * d
            ratio = blas_ms / fleet_ms
            rows[key].set(ratio, f"{ratio:.2f}",
                          f"Fleet {fleet_ms:.2f} ms "
                          f"({flops / fleet_ms / 1e6:.0f} GFLOP/s), OpenBLAS "
                          f"{core} {blas_ms:.2f} ms "
                          f"({flops / blas_ms / 1e6:.0f}), compile "
                          f"{compile_s:.2f} s, matches numpy")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if "CT" in rows and longest[1]:
        rows["CT"].set(longest[0], f"{longest[0]:.2f} s",
                       f"{longest[1]}'s program (all its kernels)")
