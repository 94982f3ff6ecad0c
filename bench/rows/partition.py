"""Automatic pipeline partitioning (issue 32; docs/partitioning.md).

  AP1  The batched transformer block (`transformer_block.py mlir --batched
       16`: one [16, 128, 256] input, two devices declared, nothing
       placed) compiled with `--partition=pipeline --micro-batches=16`: its
       speed-up over the same program compiled without partitioning (all on
       device A), over the hand-placed sample's speed-up (transformer_block
       .mlir over transformer_block_1dev.mlir, 16 micro-batches). Every
       program on two local-task devices with one worker each, the median
       of 10 timed calls after a warm-up call (`--timed_runs`), best of 5
       rounds alternating the four programs; each checked against the
       numpy reference first. Goal >= 0.95.
  AP2-<program>  Stage balance of the partitioned program: the busiest
       device's busy time over the mean busy time of the two devices, from
       the trace of a call after a warm-up call (bench/trace_report.py),
       best of 5. Programs: the transformer of AP1 and the imported models
       of samples/onnx/make_models.py with at least 4 partitionable layers
       (BERT-tiny, GPT-2; ResNet-18 when its import compiles), compiled with
       `--hal-target-device=local` twice and `--partition=pipeline` (one
       batch row: no micro-batches), checked against the model's reference
       output. Goal <= 1.15.
  AP3  Partitioning time over compile time at 10k dispatches: a chain of
       10,000 dependent 4x4 matmuls with no placement over two devices
       (bench/calibrate_cost_model.py's chain), `fleet-compile
       --partition=pipeline --mlir-timing`: flow-partition-pipeline's
       wall time over the whole compile's. Goal <= 0.10.
The runs hold /tmp/fleet-build.lock so builds do not run beside them.
"""
import os
import re
import subprocess
import sys
import tempfile

ROUNDS = 5
BATCH = 16
MODELS = ("bert_tiny", "gpt2", "resnet18")


def rows(Row):
    made = [
        Row("AP1", "auto-partitioned transformer speed-up / hand-placed",
            ">= 0.95", lambda v: v >= 0.95),
        Row("AP2-transformer", "stage balance, auto-partitioned transformer",
            "<= 1.15", lambda v: v <= 1.15),
    ]
    made += [Row(f"AP2-{m}", f"stage balance, auto-partitioned {m}",
                 "<= 1.15", lambda v: v <= 1.15) for m in MODELS]
    made.append(Row("AP3", "partitioning / compile time, 10k dispatches",
                    "<= 0.10", lambda v: v <= 0.10))
    return made


def _run(tools, command):
    return tools["capture"](tools["locked"](command))


def _median_ms(out):
    match = re.search(r"median ([0-9.]+) ms", out)
    return float(match.group(1)) if match else None


def _balance(trace_report, trace):
    busy = [d["busy_us"] for d in trace_report.analyze(trace)["devices"].values()]
    if len(busy) < 2 or not sum(busy):
        return None
    return max(busy) / (sum(busy) / len(busy))


def _transformer(build, rows, tools, work, trace_report):
    python = "/usr/bin/python3"
    gen = os.path.join(tools["ROOT"], "samples", "transformer_block",
                       "transformer_block.py")
    compile_ = os.path.join(build, "bin", "fleet-compile")
    run = os.path.join(build, "bin", "fleet-run")
    batched = os.path.join(work, "batched.mlir")
    with open(batched, "w") as f:
        subprocess.run([python, gen, "mlir", "--batched", str(BATCH)],
                       stdout=f, check=True)
    subprocess.run([python, gen, "data", "--batched", str(BATCH), "--out",
                    os.path.join(work, "bdata")], check=True,
                   capture_output=True)
    subprocess.run([python, gen, "data", "--micro-batches", str(BATCH),
                    "--out", os.path.join(work, "hdata")], check=True,
                   capture_output=True)
    sample = os.path.join(tools["ROOT"], "samples", "transformer_block")
    programs = {
        "auto1": (batched, [], "bdata"),
        "auto2": (batched, ["--partition=pipeline",
                            f"--micro-batches={BATCH}"], "bdata"),
        "hand1": (os.path.join(sample, "transformer_block_1dev.mlir"), [],
                  "hdata"),
        "hand2": (os.path.join(sample, "transformer_block.mlir"), [],
                  "hdata"),
    }
    artifacts = {}
    for name, (source, flags, _) in programs.items():
        artifacts[name] = os.path.join(work, name + ".fleet")
        code, out = tools["capture"]([compile_, source, "-o",
                                      artifacts[name]] + flags)
        if code != 0:
            raise RuntimeError(f"fleet-compile {name}: {out[-200:]}")
    devices = ["--device=local-task", "--device=local-task",
               "--task_topology_group_count=1"]
    for name, (_, _, data) in programs.items():
        code, out = _run(tools, [run, f"--module={artifacts[name]}"] +
                         devices + [f"@{os.path.join(work, data, 'run.rsp')}"])
        if code != 0 or "[SUCCESS]" not in out:
            raise RuntimeError(f"{name} does not match the reference: "
                               f"{out[-200:]}")
    best = {}
    balance = None
    for _ in range(ROUNDS):
        for name, (_, _, data) in programs.items():
            code, out = _run(tools, [
                run, f"--module={artifacts[name]}"] + devices + [
                f"@{os.path.join(work, data, 'inputs.rsp')}",
                "--warmup_runs=1", "--timed_runs=10", "--output=-",
                "--print_max_element_count=0"])
            ms = _median_ms(out)
            if code != 0 or ms is None:
                raise RuntimeError(f"fleet-run {name}: {out[-200:]}")
            best[name] = min(best.get(name, ms), ms)
        trace = os.path.join(work, "auto2.json")
        code, out = _run(tools, [
            run, f"--module={artifacts['auto2']}"] + devices + [
            f"@{os.path.join(work, 'bdata', 'inputs.rsp')}",
            "--warmup_runs=1", f"--trace={trace}", "--output=-",
            "--print_max_element_count=0"])
        if code == 0:
            b = _balance(trace_report, trace)
            if b is not None:
                balance = b if balance is None else min(balance, b)
    auto = best["auto1"] / best["auto2"]
    hand = best["hand1"] / best["hand2"]
    if "AP1" in rows:
        ratio = auto / hand
        rows["AP1"].set(ratio, text=f"{ratio:.2f}", note=(
            f"auto {best['auto1']:.1f} -> {best['auto2']:.1f} ms "
            f"({auto:.2f}x), hand-placed {best['hand1']:.1f} -> "
            f"{best['hand2']:.1f} ms ({hand:.2f}x); best of {ROUNDS}"))
    if "AP2-transformer" in rows and balance is not None:
        rows["AP2-transformer"].set(balance, text=f"{balance:.3f}",
                                    note=f"best of {ROUNDS} traced calls")


def _models(build, rows, tools, work, trace_report):
    wanted = [m for m in MODELS if f"AP2-{m}" in rows]
    if not wanted:
        return
    venv = os.path.join(tools["ROOT"], ".venv", "bin", "python")
    code, out = tools["capture"]([venv, os.path.join(
        tools["ROOT"], "samples", "onnx", "make_models.py"), work] + wanted)
    if code != 0:
        for m in wanted:
            rows[f"AP2-{m}"].note = f"make_models.py failed: {out[-120:]}"
        return
    bin_ = os.path.join(build, "bin")
    for model in wanted:
        row = rows[f"AP2-{model}"]
        mlir = os.path.join(work, model + ".mlir")
        artifact = os.path.join(work, model + ".fleet")
        code, out = tools["capture"]([os.path.join(bin_, "fleet-import"),
                                      os.path.join(work, model + ".onnx"),
                                      "-o", mlir])
        if code == 0:
            code, out = tools["capture"]([
                os.path.join(bin_, "fleet-compile"), mlir,
                "--hal-target-device=local", "--hal-target-device=local",
                "--partition=pipeline", "--explain-placement", "-o",
                artifact])
        if code != 0:
            row.note = f"compile failed: {out.strip().splitlines()[-1][:100]}"
            continue
        stages = re.findall(r"^stage \d+ on .*; (\d+) ops$", out, re.M)
        inputs = sorted(p for p in os.listdir(work)
                        if p.startswith(model + ".") and p.endswith(".npy")
                        and not p.endswith(".out.npy"))
        balance = None
        for i in range(ROUNDS):
            trace = os.path.join(work, f"{model}.{i}.json")
            code, out = _run(tools, [
                os.path.join(bin_, "fleet-run"), f"--module={artifact}",
                "--device=local-task", "--device=local-task",
                "--task_topology_group_count=1", "--function=main",
                "--warmup_runs=1", f"--trace={trace}",
                f"--expected_output=@{os.path.join(work, model + '.out.npy')}",
                "--expected_f32_threshold=1e-3"] +
                [f"--input=@{os.path.join(work, p)}" for p in inputs])
            if code != 0 or "[SUCCESS]" not in out:
                row.note = f"fleet-run failed: {out[-120:]}"
                balance = None
                break
            b = _balance(trace_report, trace)
            balance = b if balance is None else min(balance, b)
        if balance is not None:
            row.set(balance, text=f"{balance:.3f}",
                    note=f"ops per stage {' / '.join(stages)}; best of "
                    f"{ROUNDS} traced calls")


def _partition_time(build, rows, tools, work):
    row = rows.get("AP3")
    if row is None:
        return
    sys.path.insert(0, tools["HERE"])
    import calibrate_cost_model
    source = os.path.join(work, "chain10k.mlir")
    with open(source, "w") as f:
        f.write(calibrate_cost_model.chain(10000))
    code, out = _run(tools, [
        os.path.join(build, "bin", "fleet-compile"), source,
        "--partition=pipeline", "--mlir-timing", "-o",
        os.path.join(work, "chain10k.fleet")])
    total = re.search(r"Total Execution Time: ([0-9.]+) seconds", out)
    part = re.search(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+PartitionPipelinePass",
                     out, re.M)
    if code != 0 or not total or not part:
        row.note = f"fleet-compile failed: {out[-120:]}"
        return
    share = float(part.group(1)) / float(total.group(1))
    row.set(share, text=f"{share:.3f}", note=(
        f"{float(part.group(1)) * 1e3:.0f} ms of {float(total.group(1)):.1f}"
        " s (fleet-compile --mlir-timing)"))


def measure(build, rows, tools):
    sys.path.insert(0, tools["HERE"])
    import trace_report
    work = tempfile.mkdtemp(prefix="fleet-partition-bench-")
    try:
        if {"AP1", "AP2-transformer"} & set(rows):
            _transformer(build, rows, tools, work, trace_report)
        _models(build, rows, tools, work, trace_report)
        _partition_time(build, rows, tools, work)
    finally:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
