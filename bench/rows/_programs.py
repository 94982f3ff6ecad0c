"""Shared by the kernel rows (matmul.py, streams.py): a whole Fleet program
timed against a reference command, best of N rounds alternating.

Fleet side: `fleet-compile` (its wall time is the case's compile time), then
`fleet-run` on one local-task device with one worker, one warm-up call, the
measured call's makespan from its trace (every dispatch of the program,
packing included), checked against the numpy reference. Reference side:
`fleet-kernel-bench --sgemm|--memcpy ...` (one thread, OpenBLAS with the
core bench/kernels.sh picks), which prints its best time in ms.
"""
import os
import subprocess
import time

import numpy as np


def openblas_env(bench, coretype=None):
    """The environment and core name for the reference: OpenBLAS detects
    the core itself unless it misdetects an AVX-512 CPU (then SkylakeX), or
    `coretype` pins one (e.g. Haswell)."""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    core = subprocess.run([bench, "--corename"], capture_output=True,
                          text=True, env=env).stdout.strip()
    if not coretype:
        with open("/proc/cpuinfo") as f:
            avx512 = "avx512f" in f.read()
        if avx512 and core not in ("SkylakeX", "Cooperlake", "SapphireRapids"):
            env["OPENBLAS_CORETYPE"] = "SkylakeX"
            core = subprocess.run([bench, "--corename"], capture_output=True,
                                  text=True, env=env).stdout.strip()
    return env, core


def build_reference(build, rows, wanted, tools):
    """Builds fleet-kernel-bench and makes bench/ importable (trace_report);
    the binary's path, or None after noting on each wanted row why not."""
    import sys
    sys.path.insert(0, os.path.join(tools["ROOT"], "bench"))
    code, _ = tools["capture"](["flock", "/tmp/fleet-build.lock", "ninja",
                                "-C", build, "-j2", "fleet-kernel-bench"])
    bench = os.path.join(build, "bench", "fleet-kernel-bench")
    if code == 0 and os.path.exists(bench):
        return bench
    for key in wanted:
        rows[key].note = "fleet-kernel-bench did not build (libopenblas-dev)"
    return None


class Case:
    """One program: `source` (MLIR with `func.func @main`), `inputs` (numpy
    arrays), `expected` (numpy array, compared with `threshold`),
    `reference` (fleet-kernel-bench arguments after the binary),
    `compile_flags` (extra fleet-compile flags)."""

    def __init__(self, source, inputs, expected, reference, threshold,
                 compile_flags=()):
        self.source, self.inputs, self.expected = source, inputs, expected
        self.reference, self.threshold = reference, threshold
        self.compile_flags = list(compile_flags)


def compare(build, tools, work, key, case, env, rounds):
    """Returns (fleet_ms, reference_ms, compile_s) or raises RuntimeError."""
    import trace_report
    source = os.path.join(work, key + ".mlir")
    with open(source, "w") as f:
        f.write(case.source)
    artifact = os.path.join(work, key + ".fleet")
    start = time.perf_counter()
    r = subprocess.run([os.path.join(build, "bin", "fleet-compile"), source,
                        "-o", artifact, *case.compile_flags],
                       capture_output=True, text=True)
    compile_s = time.perf_counter() - start
    if r.returncode != 0:
        raise RuntimeError("fleet-compile failed: " + r.stderr[-200:])
    args = []
    for i, array in enumerate(case.inputs):
        path = os.path.join(work, f"{key}.in{i}.npy")
        np.save(path, array)
        args.append(f"--input=@{path}")
    expected = os.path.join(work, f"{key}.out.npy")
    np.save(expected, case.expected)
    bench = os.path.join(build, "bench", "fleet-kernel-bench")
    trace = os.path.join(work, key + ".json")
    fleet_ms = reference_ms = 1e30
    for _ in range(rounds):
        code, out = tools["capture"](tools["locked"]([
            os.path.join(build, "bin", "fleet-run"), f"--module={artifact}",
            "--function=main", "--device=local-task",
            "--task_topology_group_count=1", *args,
            f"--expected_output=@{expected}",
            f"--expected_f32_threshold={case.threshold:g}",
            "--warmup_runs=1", f"--trace={trace}"]))
        if code != 0 or "[SUCCESS]" not in out:
            raise RuntimeError("fleet-run failed: " + out[-200:])
        fleet_ms = min(fleet_ms,
                       trace_report.analyze(trace)["makespan_us"] / 1000)
        r = subprocess.run(tools["locked"]([bench, *case.reference]),
                           capture_output=True, text=True, env=env)
        reference_ms = min(reference_ms, float(r.stdout.strip()))
    for name in os.listdir(work):
        if name.startswith(key + "."):
            os.remove(os.path.join(work, name))
    return fleet_ms, reference_ms, compile_s
