"""ends.py SECONDS COMMAND...: runs COMMAND, prints its output and
"exit N"; fails when it runs longer than SECONDS (then kills its process
group) or exits 0."""
import os
import signal
import subprocess
import sys

seconds = float(sys.argv[1])
proc = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, start_new_session=True)
try:
    out, _ = proc.communicate(timeout=seconds)
except subprocess.TimeoutExpired:
    os.killpg(proc.pid, signal.SIGKILL)
    sys.exit(f"still running after {seconds} s")
print(out.decode(errors="replace"))
print(f"exit {proc.returncode}")
if proc.returncode == 0:
    sys.exit("exited 0")
