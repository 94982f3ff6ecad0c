"""The fleet-run processes of a test's mpirun, read from /proc."""
import os

TICK = os.sysconf("SC_CLK_TCK")


def fleet_runs(rank0_flag):
    """pid -> (is a device server, CPU seconds used) of every fleet-run
    process that is a device server (--serve) or whose command line holds
    `rank0_flag` (bytes)."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if not cmd or not cmd[0].endswith(b"fleet-run"):
            continue
        serve = b"--serve" in cmd
        if not serve and rank0_flag not in cmd:
            continue
        # Fields after the name: state is [0]; utime [11], stime [12].
        found[int(pid)] = (serve, (int(fields[11]) + int(fields[12])) / TICK)
    return found
