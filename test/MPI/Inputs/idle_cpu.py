"""idle_cpu.py MPIRUN_SH MODULE: CPU use of every rank while idle.

Starts rank 0 (fleet-run reading its module from stdin) with one device
server (rank 1, mpi://1/local-task). Rank 0 creates the remote device, then
blocks reading stdin; for 2 s nobody has work. The CPU time each fleet-run
process used in that window (utime + stime from /proc/PID/stat) must stay
under 5% of one core, then the module is sent and the run must succeed.
"""
import os
import re
import subprocess
import sys
import time

from ranks import fleet_runs

mpirun_sh, module = sys.argv[1], sys.argv[2]
proc = subprocess.Popen(
    [mpirun_sh, "2", "fleet-run", "--module=-", "--function=mul",
     "--device=local-task", "--device=mpi://1/local-task",
     "--input=4xf32=1 2 3 4", "--input=4xf32=1 2 3 4"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def ranks():
    """fleet-run processes of this mpirun (pid -> cpu seconds)."""
    return {pid: cpu for pid, (_, cpu) in fleet_runs(b"--module=-").items()}


def transport_slices(pids):
    """Scheduler slices (ns) of the ranks' transport threads (fleet-mpi-*),
    from /proc/PID/task/TID/sched; None where the kernel shows none."""
    slices = []
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    name = f.read().strip()
                with open(f"/proc/{pid}/task/{tid}/sched") as f:
                    sched = f.read()
            except OSError:
                continue
            if name.startswith("fleet-mpi-"):
                match = re.search(r"^se\.slice\s*:\s*(\d+)", sched, re.M)
                slices.append(int(match.group(1)) if match else None)
    return slices


deadline = time.time() + 30
while len(ranks()) < 2 and time.time() < deadline:
    time.sleep(0.1)
time.sleep(1.0)  # Device creation done: rank 0 now waits on stdin.
before = ranks()
slices = transport_slices(before)
time.sleep(2.0)
after = ranks()
with open(module, "rb") as f:
    out, _ = proc.communicate(f.read(), timeout=60)
text = out.decode(errors="replace")
print(text)
if len(before) < 2:
    sys.exit(f"expected 2 fleet-run ranks, found {len(before)}")
worst = 0.0
for pid, start in before.items():
    used = after.get(pid, start) - start
    share = used / 2.0
    worst = max(worst, share)
    print(f"rank process {pid}: {used:.3f} s CPU in 2 s idle ({share:.1%})")
print(f"idle CPU: worst rank {worst:.1%} of a core")
# Each rank's sender and progress threads ask for a 100 us slice
# (MpiTransport.cpp configureThread), where the kernel shows slices.
shown = [s for s in slices if s is not None]
print(f"transport threads: {len(slices)}, slices "
      f"{sorted(set(shown)) if shown else 'not shown by this kernel'}")
if len(slices) < 4:
    sys.exit("expected a sender and a progress thread in each rank")
if shown and set(shown) != {100000}:
    sys.exit("a transport thread's slice is not 100 us")
if worst >= 0.05:
    sys.exit("a rank used 5% of a core or more while idle")
if proc.returncode != 0:
    sys.exit(f"the run failed (exit {proc.returncode})")
