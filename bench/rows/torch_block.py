"""The transformer block sample on one device against PyTorch (issue 28).

  TB1  samples/transformer_block with 16 micro-batches on one local-task
       device, one worker: the warm call's makespan (bench/transformer_
       pipeline.py's one-device program and data, checked against numpy),
       against the same 16 blocks in PyTorch (Debian's python3-torch, which
       `make bench` installs) on one thread, the block `torch.jit.trace`d,
       one call per micro-batch, the weights the sample's. Best of 5
       alternating; ratio = PyTorch time / Fleet time (> 1: Fleet faster).
       Goal >= 1.0.
PyTorch runs in a subprocess of /usr/bin/python3 (where Debian's torch
lives) holding the build lock, like Fleet's runs. One thread means
OMP_NUM_THREADS=1 as well as `torch.set_num_threads(1)`: with the call
alone, Debian's torch 1.13 still ran its matmuls (oneDNN) on a second
OpenMP thread, 2.0 CPU seconds per second of the timed loop, 32.6-33.5 ms
against 48.1-49.0 ms on one core (`taskset -c 0` gave the same 48.8-49.0
ms; 2026-12-04). The row measures PyTorch's CPU time over its wall time
in the timed loop, prints it, and refuses a ratio above 1.1.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROUNDS = 5
MICRO_BATCHES = 16

TORCH_SCRIPT = r'''
import json, math, sys, time
import numpy as np
import torch
sys.path.insert(0, sys.argv[1])
import transformer_block as tb
torch.set_num_threads(1)
xs, weights = tb.make_data(int(sys.argv[2]), seed=0)
w = {k: torch.from_numpy(v) for k, v in weights.items()}

class Block(torch.nn.Module):
    def forward(self, x):
        h = torch.nn.functional.layer_norm(x, (tb.HIDDEN,), w["ln1_gamma"], w["ln1_beta"], tb.EPS)
        def heads(v):
            return v.reshape(tb.SEQ, tb.HEADS, tb.HEAD_DIM).transpose(0, 1)
        q = heads(h @ w["w_q"] + w["b_q"])
        k = heads(h @ w["w_k"] + w["b_k"])
        v = heads(h @ w["w_v"] + w["b_v"])
        scores = q @ k.transpose(1, 2) / math.sqrt(tb.HEAD_DIM)
        causal = torch.triu(torch.ones(tb.SEQ, tb.SEQ, dtype=torch.bool), 1)
        probs = torch.softmax(scores.masked_fill(causal, float("-inf")), -1)
        ctx = (probs @ v).transpose(0, 1).reshape(tb.SEQ, tb.HIDDEN)
        x1 = x + ctx @ w["w_o"] + w["b_o"]
        h = torch.nn.functional.layer_norm(x1, (tb.HIDDEN,), w["ln2_gamma"], w["ln2_beta"], tb.EPS)
        u = h @ w["w_fc"] + w["b_fc"]
        g = 0.5 * u * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * u ** 3)))
        return x1 + g @ w["w_proj"] + w["b_proj"]

inputs = [torch.from_numpy(x) for x in xs]
with torch.no_grad():
    block = torch.jit.trace(Block(), inputs[0])
    for x in inputs:
        block(x)
    error = max(float(np.abs(block(x).numpy() - tb.reference(x.numpy(), weights)).max())
                for x in inputs[:2])
    best = 1e30
    cpu_per_wall = 0.0
    for _ in range(3):
        start = time.perf_counter()
        cpu = time.process_time()
        for x in inputs:
            block(x)
        wall = time.perf_counter() - start
        cpu_per_wall = max(cpu_per_wall, (time.process_time() - cpu) / wall)
        best = min(best, wall)
print(json.dumps({"ms": best * 1e3, "max_error": error, "version": torch.__version__,
                  "cpu_per_wall": cpu_per_wall}))
'''


def rows(Row):
    return [Row("TB1", "transformer block, 1 device vs PyTorch 1 thread",
                ">= 1.00", lambda v: v >= 1.0)]


def measure(build, rows, tools):
    row = rows.get("TB1")
    if row is None:
        return
    probe = subprocess.run(["/usr/bin/python3", "-c", "import torch"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        row.note = "python3-torch is not installed (scripts/bootstrap --bench)"
        return
    bench = os.path.join(tools["ROOT"], "bench")
    sys.path.insert(0, bench)
    import transformer_pipeline as tp
    work = tempfile.mkdtemp(prefix="fleet-torch-bench-")
    try:
        artifacts = tp.prepare(build, work, MICRO_BATCHES)
        script = os.path.join(work, "torch_block.py")
        with open(script, "w") as f:
            f.write(TORCH_SCRIPT)
        sample = os.path.join(tools["ROOT"], "samples", "transformer_block")
        fleet_ms = torch_ms = 1e30
        info = {}
        cpu_per_wall = 0.0
        for _ in range(ROUNDS):
            report = tp.execute(build, work, artifacts["one"], tp.ONE_DEVICE,
                                os.path.join(work, "one.json"))
            fleet_ms = min(fleet_ms, report["makespan_us"] / 1000)
            code, out = tools["capture"](tools["locked"]([
                "env", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1",
                "/usr/bin/python3", script, sample, str(MICRO_BATCHES)]))
            if code != 0:
                row.note = "PyTorch run failed: " + out[-200:]
                return
            info = json.loads(out.strip().splitlines()[-1])
            torch_ms = min(torch_ms, info["ms"])
            cpu_per_wall = max(cpu_per_wall, info["cpu_per_wall"])
        if cpu_per_wall > 1.1:
            row.note = (f"PyTorch used {cpu_per_wall:.2f} CPU seconds per "
                        f"second, not one thread: no ratio")
            return
        ratio = torch_ms / fleet_ms
        row.set(ratio, f"{ratio:.2f}",
                f"Fleet {fleet_ms:.1f} ms, PyTorch {info['version']} "
                f"{torch_ms:.1f} ms on one thread ({cpu_per_wall:.2f} CPU s "
                f"per s; {MICRO_BATCHES} blocks; PyTorch's max error vs "
                f"numpy {info['max_error']:.1e}), Fleet matches numpy")
    except tp.Failure as failure:
        row.note = str(failure)[:200]
    finally:
        shutil.rmtree(work, ignore_errors=True)
