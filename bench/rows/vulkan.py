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
Runs on Mesa's lavapipe (VK_ICD_FILENAMES pinned, LP_NUM_THREADS=2), under
/tmp/fleet-build.lock.
"""
import os
import re
import shutil

LVP_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"


def rows(Row):
    return [Row("VKD", "instructions per dispatch, vulkan / local-task",
                "report", None)]


def measure(build, rows, tools):
    row = rows.get("VKD")
    if row is None:
        return
    bench = os.path.join(build, "bench", "runtime", "fleet-runtime-bench")
    if not os.path.exists(bench):
        row.note = f"{bench} not built"
        return
    if not shutil.which("valgrind"):
        row.note = "valgrind not installed"
        return
    if not os.path.exists(LVP_ICD):
        row.note = f"{LVP_ICD} missing (scripts/bootstrap installs lavapipe)"
        return
    os.environ.update(VK_ICD_FILENAMES=LVP_ICD, LP_NUM_THREADS="2",
                      XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR",
                                                     "/tmp"))

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
