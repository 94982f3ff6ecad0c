"""ONNX figures (issue 25; docs/onnx.md "Performance" and "Memory").

ONNX-<model> for the samples of samples/onnx/make_models.py (BERT-tiny,
the 2-layer GPT-2, ResNet-18): fleet-import and fleet-compile wall times,
and the latency of one call on one local-task device with one worker
(the makespan of the traced call after a warm-up call, best of 5) against
onnxruntime's CPU provider with one intra-op thread (best of 5 after a
warm-up, bench/onnx/ort_latency.py). The figure is onnxruntime's latency
over Fleet's (above 1: Fleet is faster); there is no goal yet, it is
reported (issue 28 owns kernel speed).

ONNX-MEM-import / ONNX-MEM-compile: peak RSS (GNU time's "Maximum resident
set size") of fleet-import and of fleet-compile on a 4-layer MatMul graph
with 100 MiB of weights minus the same step on the same graph with 1 KiB
of weights (bench/onnx/weights_model.py), over the weight bytes; goal
<= 3 for each step.
"""
import json
import os
import re
import shutil
import tempfile

MODELS = ("bert_tiny", "gpt2", "resnet18")
REPEATS = 5


def rows(Row):
    made = [Row(f"ONNX-{m}", f"{m}: onnxruntime / Fleet latency, 1 thread",
                "(reported)", None) for m in MODELS]
    made.append(Row("ONNX-MEM-import", "fleet-import peak RSS over weights, 100 MiB",
                    "<= 3.0", lambda v: v <= 3.0))
    made.append(Row("ONNX-MEM-compile", "fleet-compile peak RSS over weights, 100 MiB",
                    "<= 3.0", lambda v: v <= 3.0))
    return made


def _venv(root):
    return os.path.join(root, ".venv", "bin", "python")


def _timed(tools, command, work):
    """(exit code, output, seconds, peak RSS in bytes) of `command` under
    /usr/bin/time -v, holding the build lock."""
    log = os.path.join(work, "time.log")
    code, out = tools["capture"](tools["locked"](
        ["/usr/bin/time", "-v", "-o", log] + command))
    text = open(log).read() if os.path.exists(log) else ""
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", text)
    seconds = None
    if wall:
        h, m, s = wall.groups()
        seconds = int(h or 0) * 3600 + int(m) * 60 + float(s)
    return code, out, seconds, int(rss.group(1)) * 1024 if rss else None


def _fail(row, what, out):
    last = out.strip().splitlines()[-1] if out.strip() else ""
    row.note = f"{what} failed: {last}"[:120]


def _models(build, rows, tools, work):
    bin_ = os.path.join(build, "bin")
    code, out = tools["capture"]([_venv(tools["ROOT"]),
                                  os.path.join(tools["ROOT"], "samples", "onnx", "make_models.py"),
                                  work] + [m for m in MODELS if f"ONNX-{m}" in rows])
    if code != 0:
        for row in rows.values():
            _fail(row, "make_models.py", out)
        return
    for model in MODELS:
        row = rows.get(f"ONNX-{model}")
        if row is None:
            continue
        onnx_path = os.path.join(work, f"{model}.onnx")
        mlir = os.path.join(work, f"{model}.mlir")
        artifact = os.path.join(work, f"{model}.fleet")
        code, out, t_import, _ = _timed(tools, [os.path.join(bin_, "fleet-import"), onnx_path, "-o", mlir], work)
        if code != 0:
            _fail(row, "fleet-import", out)
            continue
        code, out, t_compile, _ = _timed(tools, [os.path.join(bin_, "fleet-compile"), mlir, "-o", artifact], work)
        if code != 0:
            _fail(row, "fleet-compile", out)
            continue
        code, out = tools["capture"](tools["locked"](
            [_venv(tools["ROOT"]), os.path.join(tools["HERE"], "onnx", "ort_latency.py"),
             onnx_path, "1", str(REPEATS)]))
        if code != 0:
            _fail(row, "onnxruntime", out)
            continue
        ort = json.loads(out.strip().splitlines()[-1])
        best = None
        for i in range(REPEATS):
            trace = os.path.join(work, f"{model}.{i}.json")
            code, out = tools["capture"](tools["locked"](
                [os.path.join(bin_, "fleet-run"), f"--module={artifact}", "--device=local-task",
                 "--task_topology_group_count=1", "--function=main", "--warmup_runs=1",
                 f"--trace={trace}", f"--expected_output=@{os.path.join(work, model + '.out.npy')}",
                 "--expected_f32_threshold=1e-3"] + [f"--input=@{p}" for p in ort["inputs"]]))
            if code != 0 or "[FAILED]" in out:
                break
            import sys
            sys.path.insert(0, tools["HERE"])
            import trace_report
            makespan = trace_report.analyze(trace)["makespan_us"] / 1000.0
            best = makespan if best is None else min(best, makespan)
        if best is None:
            _fail(row, "fleet-run", out)
            continue
        ratio = ort["ms"] / best
        row.set(ratio, text=f"{ratio:.2f}x",
                note=f"Fleet {best:.1f} ms vs onnxruntime {ort['ms']:.1f} ms (best of {REPEATS}); "
                f"import {t_import:.1f} s, compile {t_compile:.1f} s")


def _memory(build, rows, tools, work):
    bin_ = os.path.join(build, "bin")
    code, out = tools["capture"]([_venv(tools["ROOT"]),
                                  os.path.join(tools["HERE"], "onnx", "weights_model.py"), work])
    if code != 0:
        for row in rows.values():
            _fail(row, "weights_model.py", out)
        return
    weights = json.loads(out.strip().splitlines()[-1])
    peaks = {}
    for size in ("small", "big"):
        onnx_path = os.path.join(work, f"{size}.onnx")
        mlir = os.path.join(work, f"{size}.mlir")
        code, out, _, peak_import = _timed(tools, [os.path.join(bin_, "fleet-import"), onnx_path, "-o", mlir], work)
        if code != 0:
            for row in rows.values():
                _fail(row, "fleet-import", out)
            return
        code, out, _, peak_compile = _timed(tools, [os.path.join(bin_, "fleet-compile"), mlir, "-o",
                                                    os.path.join(work, f"{size}.fleet")], work)
        if code != 0:
            rows.get("ONNX-MEM-compile") and _fail(rows["ONNX-MEM-compile"], "fleet-compile", out)
            peak_compile = None
        peaks[size] = (peak_import, peak_compile)
    extra = weights["big"] - weights["small"]
    for key, index in (("ONNX-MEM-import", 0), ("ONNX-MEM-compile", 1)):
        row = rows.get(key)
        if row is None or peaks["big"][index] is None or peaks["small"][index] is None:
            continue
        ratio = (peaks["big"][index] - peaks["small"][index]) / extra
        row.set(ratio, text=f"{ratio:.2f}x",
                note=f"peak {peaks['big'][index] / 2**20:.0f} MiB with 100 MiB of weights, "
                f"{peaks['small'][index] / 2**20:.0f} MiB with 1 KiB")


def measure(build, rows, tools):
    if not os.path.exists(_venv(tools["ROOT"])):
        for row in rows.values():
            row.note = "the importer's environment .venv/ is missing (scripts/bootstrap)"
        return
    work = tempfile.mkdtemp(prefix="fleet-bench-onnx-")
    try:
        if any(k.startswith("ONNX-MEM") for k in rows):
            _memory(build, {k: v for k, v in rows.items() if k.startswith("ONNX-MEM")}, tools, work)
        if any(not k.startswith("ONNX-MEM") for k in rows):
            _models(build, {k: v for k, v in rows.items() if not k.startswith("ONNX-MEM")}, tools, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
