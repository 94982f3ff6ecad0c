"""Whole matmul programs against OpenBLAS (issue 28's measures; docs/kernels.md
"Data tiling").

  MM512, MM2048   C = A B, f32, square; MMs1/8/32: M = 1, 8, 32 with
                  K = N = 4096 (skinny, a batch of tokens times a weight)
Fleet: `fleet-compile` then `fleet-run` on one local-task device with one
worker, one warm-up call, the call's makespan from its trace (packing and
unpacking dispatches included), checked against numpy (float64 product).
OpenBLAS: `fleet-kernel-bench --sgemm` (cblas_sgemm, one thread, the core
bench/kernels.sh picks). Best of 5 rounds alternating the two; the ratio is
OpenBLAS time / Fleet time (> 1: Fleet faster). Goal >= 0.9 each.
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROUNDS = 5
SHAPES = {  # key: (M, K, N)
    "MM512": (512, 512, 512),
    "MM2048": (2048, 2048, 2048),
    "MMs1": (1, 4096, 4096),
    "MMs8": (8, 4096, 4096),
    "MMs32": (32, 4096, 4096),
}

SOURCE = """func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def rows(Row):
    out = []
    for key, (m, k, n) in SHAPES.items():
        out.append(Row(key, f"f32 matmul {m}x{k}x{n} vs OpenBLAS, 1 thread",
                       ">= 0.90", lambda v: v >= 0.9))
    return out


def openblas_env(bench):
    """bench/kernels.sh's rule: OpenBLAS detects the core itself unless it
    misdetects an AVX-512 CPU, then SkylakeX."""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    core = subprocess.run([bench, "--corename"], capture_output=True,
                          text=True, env=env).stdout.strip()
    with open("/proc/cpuinfo") as f:
        avx512 = "avx512f" in f.read()
    if avx512 and core not in ("SkylakeX", "Cooperlake", "SapphireRapids"):
        env["OPENBLAS_CORETYPE"] = "SkylakeX"
        core = "SkylakeX (pinned)"
    return env, core


def measure(build, rows, tools):
    wanted = [key for key in SHAPES if key in rows]
    if not wanted:
        return
    sys.path.insert(0, os.path.join(tools["ROOT"], "bench"))
    import trace_report
    import numpy as np
    code, out = tools["capture"](["flock", "/tmp/fleet-build.lock", "ninja",
                                  "-C", build, "-j2", "fleet-kernel-bench"])
    bench = os.path.join(build, "bench", "fleet-kernel-bench")
    if code != 0 or not os.path.exists(bench):
        for key in wanted:
            rows[key].note = "fleet-kernel-bench did not build (libopenblas-dev)"
        return
    env, core = openblas_env(bench)
    compile_ = os.path.join(build, "bin", "fleet-compile")
    run = os.path.join(build, "bin", "fleet-run")
    work = tempfile.mkdtemp(prefix="fleet-matmul-bench-")
    try:
        for key in wanted:
            m, k, n = SHAPES[key]
            row = rows[key]
            source = os.path.join(work, key + ".mlir")
            with open(source, "w") as f:
                f.write(SOURCE.format(m=m, k=k, n=n))
            artifact = os.path.join(work, key + ".fleet")
            subprocess.run([compile_, source, "-o", artifact], check=True,
                           capture_output=True)
            rng = np.random.default_rng(28)
            a = rng.standard_normal((m, k)).astype(np.float32)
            b = rng.standard_normal((k, n)).astype(np.float32)
            paths = {name: os.path.join(work, f"{key}.{name}.npy")
                     for name in ("a", "b", "c")}
            np.save(paths["a"], a)
            np.save(paths["b"], b)
            np.save(paths["c"], (a.astype(np.float64) @ b).astype(np.float32))
            del a, b
            fleet_ms, blas_ms = 1e30, 1e30
            trace = os.path.join(work, key + ".json")
            for _ in range(ROUNDS):
                code, out = tools["capture"](tools["locked"]([
                    run, f"--module={artifact}", "--function=mm",
                    "--device=local-task", "--task_topology_group_count=1",
                    f"--input=@{paths['a']}", f"--input=@{paths['b']}",
                    f"--expected_output=@{paths['c']}",
                    f"--expected_f32_threshold={1e-3 * max(k, 64) / 64:g}",
                    "--warmup_runs=1", f"--trace={trace}"]))
                if code != 0 or "[SUCCESS]" not in out:
                    row.note = f"fleet-run failed: {out[-200:]}"
                    break
                fleet_ms = min(fleet_ms,
                               trace_report.analyze(trace)["makespan_us"] / 1000)
                r = subprocess.run(tools["locked"]([bench, "--sgemm", str(m),
                                                    str(n), str(k), "3"]),
                                   capture_output=True, text=True, env=env)
                blas_ms = min(blas_ms, float(r.stdout.strip()))
            else:
                ratio = blas_ms / fleet_ms
                gflops = 2.0 * m * n * k / 1e6
                row.set(ratio, f"{ratio:.2f}",
                        f"Fleet {fleet_ms:.2f} ms ({gflops / fleet_ms:.0f} "
                        f"GFLOP/s), OpenBLAS {core} {blas_ms:.2f} ms "
                        f"({gflops / blas_ms:.0f}), matches numpy")
    finally:
        shutil.rmtree(work, ignore_errors=True)
