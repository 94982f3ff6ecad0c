"""Devices in other MPI ranks (issue 31; docs/distributed.md).

  MP1  The transformer sample (16 micro-batches, MLP on device B) with B
       in rank 1 (`--remote-b`, `mpi://1/local-task`): its speed-up over
       the one-device sample (transformer_block_1dev.mlir), over the same
       program's speed-up with both devices local in one process. One
       worker per device, median of 10 timed calls after a warm-up call
       (`--timed_runs`), best of 3 rounds alternating the three runs; each
       checked against the numpy reference first. mpirun on loopback
       (test/MPI/Inputs/mpirun.sh). Goal >= 0.8.
  MP2  Bytes moved between ranks by one call of that run (the remote
       device's "bytes between devices") over the minimum: each micro-batch's
       activations once from A to B (16 x 128 x 256 f32), the MLP's
       weights once from rank 0, where the caller's inputs live, to B, and
       the outputs, which live on B, once back when fleet-run reads them.
       Goal 1.00.
  MP3-1MiB, MP3-64MiB  Transfer bandwidth into a remote device: a program
       whose only work is one transfer of 1 MiB (64 MiB) from rank 0's
       device to device B in rank 1, bytes over the median call time
       (`--timed_runs=20`, results not read back), over the one-way
       bandwidth of a plain MPI ping-pong of the same size between the same
       two ranks (bench/mpi/PingPong.c, its median round trip of 200 at 1
       MiB and 20 at 64 MiB: its best round trip swung between 1.8 and 22
       GB/s at 1 MiB from run to run, cache-hot), measured in the same run.
       Goal >= 0.8.
  MP4  Cross-rank wait latency: the round trip of a wait through a device
       in rank 1 (bench/mpi/WaitLatency.cpp), median of 1,000 rounds after
       100 untimed: rank 0's host signals a semaphore that a barrier on
       mpi://1/local-task waits on, and waits on the semaphore the barrier
       signals. Reported beside the same round trip through a local-task
       device in one process and a plain MPI ping-pong of 8 bytes (the
       floor: both sides spinning), and a chain of barriers on rank 1 and
       rank 2 (rank 2 waits on rank 1: a wait between two servers), same
       run. No goal (the issue asks for the figure).
Skipped, with the reason, when the build has no mpi driver or mpirun is
missing. The runs hold /tmp/fleet-build.lock so builds do not run beside
them.
"""
import os
import re
import shutil
import subprocess
import tempfile

ROUNDS = 3
MICRO_BATCHES = 16
SIZES = (("1MiB", 1 << 20), ("64MiB", 64 << 20))
# Round trips of the reference ping-pong per size (its median is used).
PINGPONG_ROUNDS = {"1MiB": 200, "64MiB": 20}

TRANSFER = """module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index, remote = true}> : !hal.device
  func.func @move(%x: tensor<Nxf32>) -> (tensor<Nxf32> {iree.abi.affinity = #hal.device.affinity<@device_b>}) {
    %t = flow.tensor.transfer %x : tensor<Nxf32> to #hal.device.affinity<@device_b>
    return %t : tensor<Nxf32>
  }
}
"""


def _bandwidth(build, rows, tools, work, mpirun, env_path):
    """MP3: the mpi driver's transfer bandwidth over MPI's own."""
    bin_ = os.path.join(build, "bin")
    pingpong = os.path.join(bin_, "fleet-mpi-pingpong")
    for name, size in SIZES:
        row = rows.get(f"MP3-{name}")
        if row is None:
            continue
        elements = size // 4
        source = os.path.join(work, f"move{name}.mlir")
        with open(source, "w") as f:
            f.write(TRANSFER.replace("N", str(elements)))
        artifact = os.path.join(work, f"move{name}.fleet")
        code, out = tools["capture"]([os.path.join(bin_, "fleet-compile"),
                                      source, "-o", artifact])
        if code != 0:
            raise RuntimeError(f"fleet-compile move{name}: {out[-200:]}")
        code, out = tools["capture"](tools["locked"](
            ["env", f"PATH={env_path}", mpirun, "2",
             os.path.join(bin_, "fleet-run"), f"--module={artifact}",
             "--function=move", "--device=local-task",
             "--device=mpi://1/local-task", f"--input={elements}xf32=1",
             "--warmup_runs=2", "--timed_runs=20", "--output=-",
             "--print_max_element_count=0"]))
        ms = _median_ms(out)
        if code != 0 or ms is None:
            raise RuntimeError(f"fleet-run move{name}: {out[-200:]}")
        code, out = tools["capture"](tools["locked"](
            _mpirun_flags() + ["-np", "2", pingpong, str(size),
                               str(PINGPONG_ROUNDS[name])]))
        match = re.search(r"pingpong \d+ bytes: [0-9.]+ GB/s best, "
                          r"([0-9.]+) GB/s median", out)
        if not match:
            raise RuntimeError(f"fleet-mpi-pingpong: {out[-200:]}")
        mpi_gbs = float(match.group(1))
        fleet_gbs = size / (ms / 1e3) / 1e9
        row.set(fleet_gbs / mpi_gbs, text=f"{fleet_gbs / mpi_gbs:.2f}",
                note=f"mpi driver {fleet_gbs:.2f} GB/s ({ms:.2f} ms per "
                     f"call), MPI ping-pong {mpi_gbs:.2f} GB/s")


def _mpirun_flags():
    """The flags of test/MPI/Inputs/mpirun.sh, for programs that are both
    ranks of one mpirun."""
    root = ["--allow-run-as-root"] if os.getuid() == 0 else []
    return ["timeout", "120", "mpirun"] + root + [
        "--oversubscribe", "--mca", "btl", "self,vader,tcp",
        "--mca", "btl_tcp_if_include", "lo",
        "--mca", "oob_tcp_if_include", "lo",
        "--mca", "btl_vader_single_copy_mechanism", "none"]


def _wait_latency(build, rows, tools, mpirun, env_path):
    """MP4: median round trip of a wait through a remote device."""
    row = rows.get("MP4")
    if row is None:
        return
    bin_ = os.path.join(build, "bin")
    probe = os.path.join(bin_, "fleet-mpi-wait-latency")
    pattern = r"wait round trip: median ([0-9.]+) us"
    code, out = tools["capture"](tools["locked"](
        ["env", f"PATH={env_path}", mpirun, "2", probe,
         "mpi://1/local-task", "1000"]))
    remote = re.search(pattern, out)
    code_local, out_local = tools["capture"](tools["locked"](
        [probe, "local-task", "1000"]))
    local = re.search(pattern, out_local)
    code_pp, out_pp = tools["capture"](tools["locked"](
        _mpirun_flags() + ["-np", "2", os.path.join(bin_,
                                                   "fleet-mpi-pingpong"),
                           "8", "1000"]))
    floor = re.search(r"round trip median ([0-9.]+) us", out_pp)
    code_chain, out_chain = tools["capture"](tools["locked"](
        ["env", f"PATH={env_path}", mpirun, "3", probe,
         "mpi://1/local-task", "mpi://2/local-task", "1000"]))
    chain = re.search(pattern, out_chain)
    if code or not remote or code_local or not local or code_pp or \
            not floor or code_chain or not chain:
        raise RuntimeError("wait latency: " +
                           (out + out_local + out_pp + out_chain)[-300:])
    us = float(remote.group(1))
    row.set(us, text=f"{us:.0f} us",
            note=f"local-task device in one process {float(local.group(1)):.0f}"
                 f" us; MPI ping-pong of 8 B {float(floor.group(1)):.1f} us;"
                 f" chain rank 1 -> rank 2 {float(chain.group(1)):.0f} us")


def rows(Row):
    return [
        Row("MP1", "2-rank transformer speed-up / 2 local devices",
            ">= 0.8", lambda v: v >= 0.8),
        Row("MP2", "bytes between ranks / minimum", "1.00",
            lambda v: abs(v - 1.0) < 1e-9),
    ] + [Row(f"MP3-{name}", f"transfer to rank 1, {name}, / MPI ping-pong",
             ">= 0.8", lambda v: v >= 0.8) for name, _ in SIZES] + [
        Row("MP4", "cross-rank wait round trip, median of 1,000",
            "reported", None),
    ]


def _median_ms(out):
    match = re.search(r"median ([0-9.]+) ms", out)
    return float(match.group(1)) if match else None


def _bytes_moved(stats):
    return sum(int(b) for b in re.findall(r"bytes between devices:\s+(\d+)",
                                          stats))


def _minimum_bytes(gen):
    """What must cross ranks per call of the remote-B sample."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("transformer_block", gen)
    sample = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sample)
    f32 = 4
    activation = sample.SEQ * sample.HIDDEN * f32
    weights = 0
    for _, shape, stage in sample.WEIGHTS:
        if stage == "mlp":
            size = f32
            for extent in shape:
                size *= extent
            weights += size
    # In: every micro-batch's activations; the MLP's weights; out: the
    # outputs (one activation-sized result per micro-batch).
    return MICRO_BATCHES * activation + weights + MICRO_BATCHES * activation


def measure(build, rows, tools):
    if shutil.which("mpirun") is None:
        for row in rows.values():
            row.note = "skipped: mpirun is missing (scripts/bootstrap)"
        return
    bin_ = os.path.join(build, "bin")
    run = os.path.join(bin_, "fleet-run")
    code, out = tools["capture"]([run, "--help"])
    if "--serve" not in out:
        for row in rows.values():
            row.note = "skipped: fleet-run built without the mpi driver"
        return
    python = "/usr/bin/python3"
    sample = os.path.join(tools["ROOT"], "samples", "transformer_block")
    gen = os.path.join(sample, "transformer_block.py")
    mpirun = os.path.join(tools["ROOT"], "test", "MPI", "Inputs",
                          "mpirun.sh")
    env_path = bin_ + os.pathsep + os.environ.get("PATH", "")
    work = tempfile.mkdtemp(prefix="fleet-mpi-bench-")
    try:
        sources = {
            "one": os.path.join(sample, "transformer_block_1dev.mlir"),
            "local": os.path.join(sample, "transformer_block.mlir"),
        }
        for name, flag in (("remote", "--remote-b"),):
            sources[name] = os.path.join(work, name + ".mlir")
            with open(sources[name], "w") as f:
                subprocess.run([python, gen, "mlir", "--devices", "2",
                                "--micro-batches", str(MICRO_BATCHES), flag],
                               stdout=f, check=True)
        data = os.path.join(work, "data")
        subprocess.run([python, gen, "data", "--micro-batches",
                        str(MICRO_BATCHES), "--out", data], check=True,
                       capture_output=True)
        artifacts = {}
        for name, source in sources.items():
            artifacts[name] = os.path.join(work, name + ".fleet")
            code, out = tools["capture"]([os.path.join(bin_, "fleet-compile"),
                                          source, "-o", artifacts[name]])
            if code != 0:
                raise RuntimeError(f"fleet-compile {name}: {out[-200:]}")
        one = ["--device=local-task"]
        two = ["--device=local-task", "--device=local-task"]
        commands = {
            "one": [run, f"--module={artifacts['one']}"] + one,
            "local": [run, f"--module={artifacts['local']}"] + two,
            "remote": ["env", f"PATH={env_path}", mpirun, "2", run,
                       f"--module={artifacts['remote']}",
                       "--device=local-task", "--device=mpi://1/local-task"],
        }
        common = ["--task_topology_group_count=1"]
        for name, command in commands.items():
            code, out = tools["capture"](tools["locked"](
                command + common + [f"@{os.path.join(data, 'run.rsp')}"]))
            if code != 0 or "[SUCCESS]" not in out:
                raise RuntimeError(f"{name} does not match the reference: "
                                   f"{out[-200:]}")
        best = {}
        for _ in range(ROUNDS):
            for name, command in commands.items():
                code, out = tools["capture"](tools["locked"](
                    command + common + [
                        f"@{os.path.join(data, 'inputs.rsp')}",
                        "--warmup_runs=1", "--timed_runs=10", "--output=-",
                        "--print_max_element_count=0"]))
                ms = _median_ms(out)
                if code != 0 or ms is None:
                    raise RuntimeError(f"fleet-run {name}: {out[-200:]}")
                best[name] = min(best.get(name, ms), ms)
        if "MP1" in rows:
            local = best["one"] / best["local"]
            remote = best["one"] / best["remote"]
            ratio = remote / local
            rows["MP1"].set(ratio, text=f"{ratio:.2f}", note=(
                f"1 device {best['one']:.1f} ms; 2 local {best['local']:.1f}"
                f" ms ({local:.2f}x); 2 ranks {best['remote']:.1f} ms "
                f"({remote:.2f}x); best of {ROUNDS}"))
        _bandwidth(build, rows, tools, work, mpirun, env_path)
        _wait_latency(build, rows, tools, mpirun, env_path)
        if "MP2" in rows:
            code, out = tools["capture"](tools["locked"](
                commands["remote"] + common + [
                    f"@{os.path.join(data, 'inputs.rsp')}", "--output=-",
                    "--print_max_element_count=0", "--print_statistics"]))
            moved = _bytes_moved(out)
            minimum = _minimum_bytes(gen)
            if minimum:
                rows["MP2"].set(moved / minimum,
                                text=f"{moved / minimum:.2f}",
                                note=f"{moved} B between ranks, minimum "
                                     f"{minimum} B")
    finally:
        shutil.rmtree(work, ignore_errors=True)
