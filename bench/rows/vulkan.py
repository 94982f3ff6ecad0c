"""Host cost of a dispatch on the vulkan driver (issue 29: "per-dispatch
host cost on vulkan (instructions, callgrind) vs local-task").

  VKD  instructions per dispatch of the runtime's dispatch loop
       (fleet-runtime-bench --dispatch-loop=N: fence, one-shot command
       buffer with one dispatch, queue_execute chained on the previous
       fence) on vulkan over the same on local-task, each the difference of
       two callgrind runs (200 and 1,200 dispatches) so start-up cancels
       out. The vulkan count is every thread's: Fleet's bridge thread,
       lavapipe's command recording and its execution of the 64-invocation
       abs kernel (the driver test's abs.spv). The note adds wall time per
       dispatch of 2,000 chained dispatches on each. Reported, no goal.
  VKK  kernel speed from sharing a workgroup tile over invocations: a
       256x256x256 matmul and a 256x1024 softmax compiled for vulkan with
       the default workgroup_size (64 invocations) and with
       workgroup_size = 1, each run by fleet-run (one warm-up call, the
       measured call's makespan from its trace, checked against numpy),
       best of 3 alternating; the ratio is time(1) / time(64) of the
       matmul, the note has both programs. Reported, no goal.
  VKM  the transformer block with attention on local-task (A) and the MLP
       on vulkan (B) (samples/transformer_block, --vulkan-b, 4
       micro-batches, one worker): bytes moved between the two devices'
       memories (trace, cross-device copies) with the links asked of the
       runtime and declared statically (--links), against the minimum,
       which is 0: each device reaches the other's buffers (B imports A's,
       A maps B's), so nothing needs to move. Goal: equal in both modes.
  VKS  the same program's speed-up over the one-device program on one
       local-task device, and its overlap (busiest device's busy time /
       makespan), medians of 3 alternating runs (the call after one
       warm-up). lavapipe's scalar SPIR-V shares the two cores with the
       local device, so there is no speed goal.
Runs on Mesa's lavapipe (VK_ICD_FILENAMES pinned, LP_NUM_THREADS=2), under
/tmp/fleet-build.lock.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

LVP_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"


def rows(Row):
    return [Row("VKD", "instructions per dispatch, vulkan / local-task",
                "report", None),
            Row("VKK", "vulkan kernel speed, 64 invocations / 1", "report",
                None),
            Row("VKM", "bytes moved local<->vulkan - minimum (0)",
                "= 0, 2 modes", lambda v: v == 0),
            Row("VKS", "speed-up, transformer local+vulkan vs local",
                "report", None)]


def measure(build, rows, tools):
    if not os.path.exists(LVP_ICD):
        for row in rows.values():
            row.note = (f"{LVP_ICD} missing (scripts/bootstrap installs "
                        "lavapipe)")
        return
    os.environ.update(VK_ICD_FILENAMES=LVP_ICD, LP_NUM_THREADS="2",
                      XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR",
                                                     "/tmp"))
    if "VKD" in rows:
        dispatch_cost(build, rows["VKD"], tools)
    if "VKK" in rows:
        kernel_speed(build, rows["VKK"], tools)
    if "VKM" in rows or "VKS" in rows:
        mixed_transformer(build, rows, tools)


def mixed_transformer(build, rows, tools):
    sys.path.insert(0, os.path.join(tools["ROOT"], "bench"))
    import statistics
    import trace_report
    sample = os.path.join(tools["ROOT"], "samples", "transformer_block",
                          "transformer_block.py")
    python = "/usr/bin/python3"
    micro = "4"
    with tempfile.TemporaryDirectory(prefix="fleet-vkm-") as work:
        data = os.path.join(work, "data")
        subprocess.run([python, sample, "data", "--micro-batches", micro,
                        "--out", data], check=True, capture_output=True)
        programs = {"one": ["--devices", "1"],
                    "query": ["--vulkan-b"],
                    "static": ["--vulkan-b", "--links"]}
        runs = {}
        for name, flags in programs.items():
            mlir = os.path.join(work, name + ".mlir")
            with open(mlir, "w") as f:
                subprocess.run([python, sample, "mlir", "--micro-batches",
                                micro, *flags], check=True, stdout=f)
            artifact = os.path.join(work, name + ".fleet")
            r = subprocess.run([os.path.join(build, "bin", "fleet-compile"),
                                mlir, "-o", artifact], capture_output=True,
                               text=True)
            if r.returncode != 0:
                for row in rows.values():
                    row.note = f"fleet-compile {name}: {r.stderr[-120:]}"
                return
            devices = (["--device=local-task"] if name == "one" else
                       ["--device=local-task", "--device=vulkan"])
            runs[name] = [os.path.join(build, "bin", "fleet-run"),
                          f"--module={artifact}", *devices,
                          "--task_topology_group_count=1",
                          "@" + os.path.join(data, "run.rsp"),
                          "--warmup_runs=1",
                          f"--trace={os.path.join(work, name)}.json"]
        results = {name: [] for name in runs}
        for _ in range(3):
            for name, command in runs.items():
                code, text = tools["capture"](tools["locked"](command))
                if code != 0 or "[SUCCESS]" not in text:
                    for row in rows.values():
                        row.note = f"fleet-run {name}: {text[-120:]}"
                    return
                results[name].append(
                    trace_report.analyze(command[-1].split("=", 1)[1]))
    moved = {name: max(r["cross_device_bytes"] for r in results[name])
             for name in ("query", "static")}
    if "VKM" in rows:
        worst = max(moved.values())
        rows["VKM"].set(worst, f"{worst:,}",
                        f"runtime link queries {moved['query']:,} bytes, "
                        f"static topology {moved['static']:,} bytes, "
                        "minimum 0 (vulkan imports local buffers, local "
                        "maps vulkan ones)")
    if "VKS" in rows:
        span = {name: statistics.median(r["makespan_us"] for r in runs_)
                for name, runs_ in results.items()}
        overlap = statistics.median(r["overlap"] for r in results["query"])
        busy = results["query"][-1]["devices"]
        speedup = span["one"] / span["query"]
        rows["VKS"].set(speedup, f"{speedup:.2f}x",
                        f"one local-task device {span['one'] / 1000:.1f} ms, "
                        f"local-task + vulkan {span['query'] / 1000:.1f} ms "
                        f"(overlap {overlap:.2f}; busy " +
                        ", ".join(f"{d} {v['busy_us'] / 1000:.1f} ms"
                                  for d, v in busy.items()) +
                        f"), {micro} micro-batches")


DEVICE = ('#hal.device.target<"vulkan", {ordinal = 0 : index}'
          '{targets}>')
MATMUL = """
util.global private @device = DEVICE : !hal.device
func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
"""
SOFTMAX = """
util.global private @device = DEVICE : !hal.device
func.func @main(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %e = tensor.empty() : tensor<256x1024xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}
"""


def kernel_speed(build, row, tools):
    sys.path.insert(0, os.path.join(tools["ROOT"], "bench"))
    import trace_report
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    b = rng.standard_normal((256, 256)).astype(np.float32)
    x = rng.standard_normal((256, 1024)).astype(np.float32)
    shifted = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    programs = {
        "matmul": (MATMUL, [a, b], (a.astype(np.float64) @ b), 1e-3),
        "softmax": (SOFTMAX, [x], shifted / shifted.sum(1, keepdims=True),
                    1e-5),
    }
    sizes = {64: "", 1: ', [#hal.executable.target<"vulkan-spirv", '
             '"vulkan-spirv", {workgroup_size = 1 : i64}>]'}
    best = {}
    with tempfile.TemporaryDirectory(prefix="fleet-vkk-") as work:
        runs = []
        for name, (source, inputs, expected, threshold) in programs.items():
            args = []
            for i, array in enumerate(inputs):
                path = os.path.join(work, f"{name}.in{i}.npy")
                np.save(path, array)
                args.append(f"--input=@{path}")
            out = os.path.join(work, f"{name}.out.npy")
            np.save(out, expected.astype(np.float32))
            for size, targets in sizes.items():
                mlir = os.path.join(work, f"{name}{size}.mlir")
                with open(mlir, "w") as f:
                    f.write(source.replace(
                        "DEVICE", DEVICE.replace("{targets}", targets)))
                artifact = mlir[:-5] + ".fleet"
                r = subprocess.run([os.path.join(build, "bin",
                                                 "fleet-compile"), mlir,
                                    "-o", artifact],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    row.note = f"fleet-compile {name}: {r.stderr[-120:]}"
                    return
                runs.append((name, size, [
                    os.path.join(build, "bin", "fleet-run"),
                    f"--module={artifact}", "--function=main",
                    "--device=vulkan", *args, f"--expected_output=@{out}",
                    f"--expected_f32_threshold={threshold:g}",
                    "--warmup_runs=1",
                    f"--trace={artifact[:-6]}.json"]))
        for _ in range(3):
            for name, size, command in runs:
                code, text = tools["capture"](tools["locked"](command))
                if code != 0 or "[SUCCESS]" not in text:
                    row.note = f"fleet-run {name} ({size}): {text[-120:]}"
                    return
                trace = command[-1].split("=", 1)[1]
                ms = trace_report.analyze(trace)["makespan_us"] / 1000
                best[name, size] = min(best.get((name, size), 1e30), ms)
    ratio = best["matmul", 1] / best["matmul", 64]
    row.set(ratio, f"{ratio:.1f}x",
            "; ".join(f"{name} {best[name, 1]:.1f} ms with 1 invocation, "
                      f"{best[name, 64]:.1f} ms with 64"
                      for name in programs) +
            " (lavapipe, LP_NUM_THREADS=2)")


def dispatch_cost(build, row, tools):
    bench = os.path.join(build, "bench", "runtime", "fleet-runtime-bench")
    if not os.path.exists(bench):
        row.note = f"{bench} not built"
        return
    if not shutil.which("valgrind"):
        row.note = "valgrind not installed"
        return

    def count(device, n):
        code, out = tools["capture"](tools["locked"]([
            "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
            bench, f"--dispatch-loop={n}", f"--device={device}"]))
        match = re.search(r"Collected : (\d+)", out)
        return int(match.group(1)) if code == 0 and match else None

    def wall(device):
        code, out = tools["capture"](tools["locked"]([
            bench, "--dispatch-loop=2000", f"--device={device}"]))
        match = re.search(r"([\d.]+) us per dispatch", out)
        return float(match.group(1)) if code == 0 and match else None

    per = {}
    for device in ("vulkan", "local-task"):
        small, large = count(device, 200), count(device, 1200)
        if small is None or large is None:
            row.note = f"callgrind run on {device} failed"
            return
        per[device] = (large - small) / 1000
    ratio = per["vulkan"] / per["local-task"]
    times = {device: wall(device) for device in ("vulkan", "local-task")}
    timing = ", ".join(f"{d} {t:.1f} us" for d, t in times.items()
                       if t is not None)
    row.set(ratio, f"{ratio:.1f}x",
            f"{per['vulkan']:,.0f} vs {per['local-task']:,.0f} "
            f"instructions per dispatch (callgrind, all threads); "
            f"wall per chained dispatch: {timing}")
