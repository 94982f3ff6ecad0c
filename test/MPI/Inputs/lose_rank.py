"""lose_rank.py MPIRUN_SH MODULE DATA_RSP stop|kill: a device server lost.

Runs the module many times (--timed_runs) with device B in rank 1, then
after the run got going stops rank 1 (SIGSTOP) or kills it (SIGKILL):
- stop: rank 0 must report `device mpi://1 did not answer within T s (op
  ...)` and the job must end non-zero within T + 5 s (T =
  FLEET_MPI_TIMEOUT_S, set to 3 here);
- kill: the job must end non-zero within T s (mpirun's own abort counts).
No fleet-run process may be left running.
"""
import os
import signal
import subprocess
import sys
import time

from ranks import fleet_runs

mpirun_sh, module, rsp, mode = sys.argv[1:5]
T = 3
env = dict(os.environ, FLEET_MPI_TIMEOUT_S=str(T))
proc = subprocess.Popen(
    [mpirun_sh, "2", "fleet-run", f"--module={module}", "--device=local-task",
     "--device=mpi://1/local-task", f"@{rsp}", "--timed_runs=100000"],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    start_new_session=True)


def servers_and_rank0():
    return {pid: serve for pid, (serve, _) in
            fleet_runs(f"--module={module}".encode()).items()}


deadline = time.time() + 30
while len(servers_and_rank0()) < 2 and time.time() < deadline:
    time.sleep(0.1)
time.sleep(2.0)  # Module loaded, calls running.
servers = [pid for pid, serve in servers_and_rank0().items() if serve]
if not servers:
    sys.exit("no device server found")
start = time.time()
os.kill(servers[0], signal.SIGSTOP if mode == "stop" else signal.SIGKILL)
try:
    out, _ = proc.communicate(timeout=T + 30)
except subprocess.TimeoutExpired:
    os.killpg(proc.pid, signal.SIGKILL)
    sys.exit("the job did not end")
elapsed = time.time() - start
print(out.decode(errors="replace"))
time.sleep(0.5)
left = servers_and_rank0()
print(f"exit {proc.returncode} after {elapsed:.1f} s; "
      f"{len(left)} fleet-run processes left")
limit = T + 5 if mode == "stop" else T
if proc.returncode == 0:
    sys.exit("the job ended with exit 0")
if elapsed > limit:
    sys.exit(f"took {elapsed:.1f} s, more than {limit} s")
if left:
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    sys.exit("fleet-run processes were left running")
print("ended in time")
