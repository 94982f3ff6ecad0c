#!/usr/bin/env python3
"""P3: fleet-compile time for 1k vs 10k dispatches alternating between two
devices (bench/gen_dispatch_chain.py), measured side by side in one run.

Prints the median of 3 runs for each size and their ratio; goal: ratio <= 11
and the 10k program under 10 s. Usage: compile_time.py BUILD_DIR [phase]
(phase: stream (default) or hal).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def time_compile(compiler, source, phase):
    samples = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([compiler, source, f"--compile-to={phase}", "-o",
                        os.devnull], check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    phase = sys.argv[2] if len(sys.argv) > 2 else "stream"
    compiler = os.path.join(build, "bin", "fleet-compile")
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (1000, 10000):
            path = os.path.join(tmp, f"chain{n}.mlir")
            with open(path, "w") as f:
                subprocess.run([sys.executable,
                                os.path.join(HERE, "gen_dispatch_chain.py"),
                                str(n)], stdout=f, check=True)
            times[n] = time_compile(compiler, path, phase)
    ratio = times[10000] / times[1000]
    print(f"P3 compile --compile-to={phase}: 1k dispatches {times[1000]:.3f} s, "
          f"10k dispatches {times[10000]:.3f} s, ratio {ratio:.2f} "
          f"(goal <= 11, 10k <= 10 s): "
          f"{'OK' if ratio <= 11 and times[10000] <= 10 else 'MISSED'}")


if __name__ == "__main__":
    main()
