#!/usr/bin/python3
"""The main job: the transformer_block sample on two devices, measured.

  transformer_pipeline.py demo BUILD [--micro-batches N] [--repeats R]
  transformer_pipeline.py bench BUILD [--micro-batches N] [--repeats R]

Both compile samples/transformer_block for one device, for two devices and
for two devices with B discrete, generate the fixed-seed inputs and the
numpy reference, and run:

- the two-device program on two local-task devices with one worker each
  (`--task_topology_group_count=1`), checked against the reference: overlap
  efficiency (P1) and per-device busy time from its trace;
- the one-device program on one such device, alternating with the
  two-device runs (R each), so both makespans are measured side by side
  under the same machine load: speed-up = median one-device makespan /
  median two-device makespan (P6). Each measured run is the call after one
  untraced warm-up call in the same process (fleet-run --warmup_runs=1):
  the steady state, where the allocator reuses freed memory; the first
  call of a fresh process (every allocation is new memory, page faults
  dominate the one-device program) is reported too;
- the discrete program with `--device=local-task?discrete=true` for B:
  bytes moved between devices from its trace / the minimum (P5). The
  minimum counts each value once per device that consumes it away from
  where it was produced: each micro-batch's attention output
  (seq x hidden f32) crosses from A to B once; inputs and weights are
  imported where they are used and results stay on B.

`demo` prints the report of `make demo`; `bench` prints one JSON object
with the P1/P5/P6 figures for scripts/bench. Work files go to BUILD/demo
(the trace of the last two-device run is BUILD/demo/transformer_block.trace.json).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SAMPLE = os.path.join(ROOT, "samples", "transformer_block")
sys.path.insert(0, HERE)
sys.path.insert(0, SAMPLE)

import trace_report  # noqa: E402
import transformer_block  # noqa: E402

TWO_DEVICES = ["--device=local-task", "--device=local-task"]
DISCRETE = ["--device=local-task", "--device=local-task?discrete=true"]
ONE_DEVICE = ["--device=local-task"]
WORKERS = ["--task_topology_group_count=1"]


class Failure(Exception):
    pass


def run(command, what):
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise Failure(f"{what} failed (exit {result.returncode}):\n"
                      f"  {' '.join(command)}\n{result.stdout[-4000:]}")
    return result.stdout


def prepare(build, work, micro_batches):
    """Programs, artifacts and data; returns the artifact paths."""
    os.makedirs(work, exist_ok=True)
    compiler = os.path.join(build, "bin", "fleet-compile")
    artifacts = {}
    for name, devices, discrete in (("one", 1, False), ("two", 2, False),
                                    ("discrete", 2, True)):
        source = os.path.join(work, f"transformer_block_{name}.mlir")
        with open(source, "w") as f:
            transformer_block.emit_mlir(devices, micro_batches, f, discrete)
        artifact = os.path.join(work, f"transformer_block_{name}.fleet")
        run([compiler, source, "-o", artifact], f"fleet-compile ({name})")
        artifacts[name] = artifact
    transformer_block.write_data(micro_batches, os.path.join(work, "data"),
                                 seed=0)
    return artifacts


def execute(build, work, artifact, devices, trace, warmup=1):
    """Runs the program against the reference; returns the trace analysis
    of the call after `warmup` untraced warm-up calls."""
    runner = os.path.join(build, "bin", "fleet-run")
    data = os.path.join(work, "data")
    output = run([runner, f"--module={artifact}", *devices, *WORKERS,
                  "@" + os.path.join(data, "run.rsp"), f"--trace={trace}",
                  f"--warmup_runs={warmup}"],
                 "fleet-run")
    if "[SUCCESS]" not in output or "[FAILED]" in output:
        raise Failure("the result does not match the numpy reference:\n" +
                      output[-4000:])
    return trace_report.analyze(trace)


def measure(build, micro_batches, repeats):
    work = os.path.join(build, "demo")
    artifacts = prepare(build, work, micro_batches)
    trace = os.path.join(work, "transformer_block.trace.json")
    one_trace = os.path.join(work, "transformer_block_one.trace.json")
    twos, ones = [], []
    for _ in range(repeats):
        ones.append(execute(build, work, artifacts["one"], ONE_DEVICE,
                            one_trace))
        twos.append(execute(build, work, artifacts["two"], TWO_DEVICES,
                            trace))
    # First calls of fresh processes: every allocation is fresh memory
    # (page faults), reported next to the steady-state figures.
    cold_one = execute(build, work, artifacts["one"], ONE_DEVICE, one_trace,
                       warmup=0)
    cold_two = execute(build, work, artifacts["two"], TWO_DEVICES,
                       os.path.join(work, "transformer_block_cold.trace.json"),
                       warmup=0)
    discrete = execute(build, work, artifacts["discrete"], DISCRETE,
                       os.path.join(work, "transformer_block_discrete"
                                          ".trace.json"))
    two_makespan = statistics.median(r["makespan_us"] for r in twos)
    one_makespan = statistics.median(r["makespan_us"] for r in ones)
    # The two-device run whose makespan is the median represents the run.
    typical = sorted(twos, key=lambda r: r["makespan_us"])[len(twos) // 2]
    minimum = transformer_block.minimum_bytes(micro_batches)
    return {
        "micro_batches": micro_batches,
        "repeats": repeats,
        "match": True,
        "devices": {name: d["busy_us"] for name, d in
                    typical["devices"].items()},
        "overlap": statistics.median(r["overlap"] for r in twos),
        "makespan_two_us": two_makespan,
        "makespan_one_us": one_makespan,
        "speedup": one_makespan / two_makespan if two_makespan else 0.0,
        "cold_makespan_one_us": cold_one["makespan_us"],
        "cold_makespan_two_us": cold_two["makespan_us"],
        "bytes_moved_unified": typical["bytes_moved"],
        "bytes_moved_discrete": discrete["bytes_moved"],
        "bytes_minimum": minimum,
        "bytes_ratio": discrete["bytes_moved"] / minimum,
        "trace": trace,
    }


def print_demo(m):
    print(f"demo: result matches the numpy reference "
          f"({m['micro_batches']} micro-batches, 2 local-task devices "
          f"with 1 worker each)")
    busy = ", ".join(f"{name} {us / 1000:.1f} ms"
                     for name, us in m["devices"].items())
    print(f"demo: device busy time      {busy}")
    print(f"demo: overlap efficiency    {m['overlap']:.2f}  (busiest "
          f"device's busy time / makespan; goal >= 0.95)")
    print(f"demo: speed-up              {m['speedup']:.2f}x over the same "
          f"block on one device (makespan {m['makespan_one_us'] / 1000:.1f}"
          f" ms vs {m['makespan_two_us'] / 1000:.1f} ms, median of "
          f"{m['repeats']}, each after one warm-up call)")
    print(f"demo: first call            "
          f"{m['cold_makespan_one_us'] / 1000:.1f} ms on one device, "
          f"{m['cold_makespan_two_us'] / 1000:.1f} ms on two (fresh "
          f"processes: every allocation is new memory)")
    print(f"demo: bytes moved           {m['bytes_moved_unified']} between "
          f"the devices as run (they share memory: B reads A's buffers "
          f"in place); {m['bytes_moved_discrete']} with B discrete "
          f"(minimum {m['bytes_minimum']})")
    print(f"demo: trace                 {m['trace']}  (open in "
          f"ui.perfetto.dev)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("demo", "bench"))
    parser.add_argument("build")
    parser.add_argument("--micro-batches", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    try:
        m = measure(os.path.abspath(args.build), args.micro_batches,
                    args.repeats)
    except Failure as failure:
        print(f"{args.mode}: {failure}", file=sys.stderr)
        sys.exit(1)
    if args.mode == "demo":
        print_demo(m)
    else:
        json.dump(m, sys.stdout)
        print()


if __name__ == "__main__":
    main()
