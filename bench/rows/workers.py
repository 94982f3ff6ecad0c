"""One device, two workers (issue 28 item 5: "one device with 2 workers
keeps both cores busy").

  W2  a 2048^3 f32 matmul on one local-task device: best makespan with one
      worker over the best with two (`--task_topology_group_count=1|2`),
      5 rounds alternating, each call after one warm-up call in the same
      process (`--warmup_runs=1`), makespan from the trace
      (bench/trace_report.py); every call is checked against numpy
      (float64 product, f32 tolerance scaled with K as bench/tensor_parallel
      does). Goal >= 1.7x.
The workers of a device are pinned to different CPUs (docs/runtime.md
"Workers"). The runs hold /tmp/fleet-build.lock so builds do not run beside
them.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matmul import matmul_source  # noqa: E402  (bench/rows/matmul.py)

SIZE = 2048
ROUNDS = 5



def rows(Row):
    return [
        Row("W2", "2048^3 matmul, 2 workers vs 1, one device", ">= 1.7x",
            lambda v: v >= 1.7),
    ]


def measure(build, rows, tools):
    row = rows.get("W2")
    if row is None:
        return
    sys.path.insert(0, os.path.join(tools["ROOT"], "bench"))
    import trace_report
    try:
        import numpy as np
    except ImportError:
        row.note = "numpy is missing (python3-numpy)"
        return
    compile_ = os.path.join(build, "bin", "fleet-compile")
    run = os.path.join(build, "bin", "fleet-run")
    work = tempfile.mkdtemp(prefix="fleet-workers-bench-")
    try:
        source = os.path.join(work, "mm.mlir")
        with open(source, "w") as f:
            f.write(matmul_source(SIZE, SIZE, SIZE))
        artifact = os.path.join(work, "mm.fleet")
        subprocess.run([compile_, source, "-o", artifact], check=True,
                       capture_output=True)
        rng = np.random.default_rng(28)
        a = rng.standard_normal((SIZE, SIZE)).astype(np.float32)
        b = rng.standard_normal((SIZE, SIZE)).astype(np.float32)
        paths = {name: os.path.join(work, name + ".npy")
                 for name in ("a", "b", "c")}
        np.save(paths["a"], a)
        np.save(paths["b"], b)
        np.save(paths["c"], (a.astype(np.float64) @ b).astype(np.float32))
        best = {}
        for _ in range(ROUNDS):
            for workers in (1, 2):
                trace = os.path.join(work, f"w{workers}.json")
                code, out = tools["capture"](tools["locked"]([
                    run, f"--module={artifact}", "--function=main",
                    "--device=local-task",
                    f"--task_topology_group_count={workers}",
                    f"--input=@{paths['a']}", f"--input=@{paths['b']}",
                    f"--expected_output=@{paths['c']}",
                    f"--expected_f32_threshold={1e-3 * SIZE / 64:g}",
                    "--warmup_runs=1", f"--trace={trace}"]))
                if code != 0 or "[SUCCESS]" not in out:
                    row.note = f"fleet-run failed: {out[-300:]}"
                    return
                makespan = trace_report.analyze(trace)["makespan_us"] / 1000
                best[workers] = min(best.get(workers, makespan), makespan)
        ratio = best[1] / best[2]
        row.set(ratio, f"{ratio:.2f}x",
                f"makespan {best[1]:.0f} -> {best[2]:.0f} ms, best of "
                f"{ROUNDS} alternating, matches numpy")
    finally:
        shutil.rmtree(work, ignore_errors=True)
