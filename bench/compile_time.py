#!/usr/bin/env python3
"""P3: fleet-compile time for 1k vs 10k dispatches alternating between two
devices (bench/gen_dispatch_chain.py), measured side by side in one run.

Prints the best of 5 alternating runs for each size and their ratio; goal: ratio <= 11
and the 10k program under 10 s. Usage: compile_time.py BUILD_DIR [phase]
(phase: stream (default) or hal).
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def time_once(compiler, source, phase):
    start = time.perf_counter()
    subprocess.run([compiler, source, f"--compile-to={phase}", "-o",
                    os.devnull], check=True)
    return time.perf_counter() - start


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    phase = sys.argv[2] if len(sys.argv) > 2 else "stream"
    compiler = os.path.join(build, "bin", "fleet-compile")
    # Both sizes alternate, 5 rounds, best of each: load from elsewhere on
    # the shared machine hits both alike and the best run is the least
    # disturbed one.
    times = {1000: float("inf"), 10000: float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for n in times:
            paths[n] = os.path.join(tmp, f"chain{n}.mlir")
            with open(paths[n], "w") as f:
                subprocess.run([sys.executable,
                                os.path.join(HERE, "gen_dispatch_chain.py"),
                                str(n)], stdout=f, check=True)
        for _ in range(5):
            for n in times:
                times[n] = min(times[n], time_once(compiler, paths[n], phase))
    ratio = times[10000] / times[1000]
    print(f"P3 compile --compile-to={phase}: 1k dispatches {times[1000]:.3f} s, "
          f"10k dispatches {times[10000]:.3f} s, ratio {ratio:.2f} "
          f"(goal <= 11, 10k <= 10 s): "
          f"{'OK' if ratio <= 11 and times[10000] <= 10 else 'MISSED'}")


if __name__ == "__main__":
    main()
