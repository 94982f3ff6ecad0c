#!/usr/bin/python3
"""MLP pipeline rows of `make bench` (issue 21.3): samples/mlp_pipeline.

  pipeline.py bench BUILD [--micro-batches 4 8] [--repeats R] [--width W]
                          [--rows N] [--fleet-tools DIR]

For each micro-batch count n, the sample (4 layers W x W + bias + ReLU,
N rows per micro-batch; layers 1-2 on device A, 3-4 on device B) is
generated for one and for two devices and compiled; then R rounds run,
alternating the one-device program (1 local-task device, 1 worker) and
the two-device program (2 local-task devices x 1 worker,
`--task_topology_group_count=1`), each call after one warm-up call in the
same process (`--warmup_runs=1`) and checked against the float64 numpy
reference. Every figure comes from the traces (bench/trace_report.py):

- makespan: first to last device slice; the best (smallest) of the R
  runs of each program is kept, so a run disturbed by other processes on
  a shared machine does not count;
- a, b: the per-micro-batch busy times of the two stages, busy time of
  device A and of device B in the best two-device run divided by n
  (b the larger);
- overlap efficiency: busiest device's busy time / makespan of that run;
  goal >= 0.9 * n*b / (a + n*b) (a perfect pipeline's makespan is
  a + n*b);
- speed-up: best one-device makespan / best two-device makespan; goal
  >= 0.9 * (a+b)*n / (a + n*b);
- stalled while ready (per device, bench/pipeline_trace.py): time the best
  two-device run's devices had runnable work and did not run it (no CPU
  for their worker), and the cores other processes kept busy meanwhile
  (/proc/stat minus this script and its children): the pipeline needs one
  free core per device worker.
Both are always printed together (overlap alone rewards a slower busiest
device).

As a bench/rows module (bench/bench_table.py) it owns rows PIPE4o, PIPE4s
(n = 4) and PIPE8o, PIPE8s (n = 8); the measurement runs as this script
under /tmp/fleet-build.lock, so builds do not run beside it. `bench`
prints one JSON object per line, one per n.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "samples", "mlp_pipeline"))

WORKERS = ["--task_topology_group_count=1"]
COUNTS = (4, 8)


def run(command):
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if (result.returncode != 0 or "[FAILED]" in result.stdout):
        sys.exit("pipeline.py: " + " ".join(command[:3]) + " failed:\n" +
                 result.stdout[-3000:])
    return result.stdout


def cpu_snapshot():
    """(wall s, machine busy CPU s, CPU s of this process and its children)."""
    import time
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    ticks = os.sysconf("SC_CLK_TCK")
    busy = (sum(fields) - fields[3] - fields[4]) / ticks  # minus idle, iowait
    times = os.times()
    return (time.monotonic(), busy, times.user + times.system +
            times.children_user + times.children_system)


def other_load(before, after):
    """Cores other processes kept busy on average between two snapshots: the
    pipeline needs two free cores, so a figure measured beside a busy core
    says little (docs: samples/mlp_pipeline/README.md)."""
    wall = after[0] - before[0]
    if wall <= 0:
        return 0.0
    return max(0.0, ((after[1] - before[1]) - (after[2] - before[2])) / wall)


def bench_one(work, tools, n, width, rows, repeats):
    import mlp_pipeline
    import pipeline_trace
    import trace_report
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "data")
    mlp_pipeline.write_data(n, width, rows, data, seed=0)
    artifacts = {}
    for devices in (1, 2):
        source = os.path.join(work, f"mlp_{devices}dev.mlir")
        with open(source, "w") as f:
            mlp_pipeline.emit_mlir(devices, n, width, rows, f)
        artifacts[devices] = os.path.join(work, f"mlp_{devices}dev.fleet")
        run([os.path.join(tools, "fleet-compile"), source, "-o",
             artifacts[devices]])
    results = {1: [], 2: []}
    before = cpu_snapshot()
    for i in range(repeats):
        for devices in (1, 2):
            trace = os.path.join(work, f"mlp_{devices}dev.{i}.trace.json")
            output = run([os.path.join(tools, "fleet-run"),
                          f"--module={artifacts[devices]}",
                          *["--device=local-task"] * devices, *WORKERS,
                          "@" + os.path.join(data, "run.rsp"),
                          "--warmup_runs=1", f"--trace={trace}"])
            if "[SUCCESS]" not in output:
                sys.exit("pipeline.py: no [SUCCESS] from fleet-run:\n" +
                         output[-3000:])
            report = trace_report.analyze(trace)
            report["trace"] = trace
            results[devices].append(report)
    other_cores = other_load(before, cpu_snapshot())
    one = min(results[1], key=lambda r: r["makespan_us"])
    two = min(results[2], key=lambda r: r["makespan_us"])
    busy = sorted(d["busy_us"] / n for d in two["devices"].values())
    if len(busy) != 2:
        sys.exit(f"pipeline.py: the two-device trace has {len(busy)} "
                 f"devices")
    a, b = busy
    # Why the devices idled in that run (bench/pipeline_trace.py).
    stalls = {name: d["stalled_us"] for name, d in
              pipeline_trace.analyze(two["trace"]).items()}
    ideal = a + n * b
    speedup = one["makespan_us"] / two["makespan_us"]
    return {
        "micro_batches": n, "width": width, "rows": rows,
        "repeats": repeats, "a_us": a, "b_us": b,
        "makespan_one_us": one["makespan_us"],
        "makespan_two_us": two["makespan_us"],
        "overlap": two["overlap"],
        "overlap_goal": 0.9 * n * b / ideal,
        "speedup": speedup,
        "speedup_goal": 0.9 * (a + b) * n / ideal,
        "other_cores": other_cores,
        "stalled_while_ready_us": stalls,
        "makespans_two_us": [r["makespan_us"] for r in results[2]],
        "makespans_one_us": [r["makespan_us"] for r in results[1]],
    }


# ---- bench/rows module interface ------------------------------------------

def rows(Row):
    owned = []
    for n in COUNTS:
        owned.append(Row(f"PIPE{n}o", f"overlap, MLP pipeline n={n}, 2 devices",
                         "see details", lambda v: v >= 1.0))
        owned.append(Row(f"PIPE{n}s", f"speed-up, MLP pipeline n={n} vs 1 dev",
                         "see details", lambda v: v >= 1.0))
    return owned


def measure(build, wanted, tools):
    counts = [n for n in COUNTS
              if f"PIPE{n}o" in wanted or f"PIPE{n}s" in wanted]
    code, out = tools["capture"](tools["locked"](
        ["/usr/bin/python3", os.path.abspath(__file__), "bench", build,
         "--micro-batches", *map(str, counts), "--repeats", "5"]))
    lines = [l for l in out.strip().splitlines() if l.startswith("{")]
    if code != 0 or len(lines) != len(counts):
        for row in wanted.values():
            row.note = "pipeline run failed: " + \
                (out.strip().splitlines()[-1][:100] if out.strip() else "")
        return
    for line in lines:
        m = json.loads(line)
        n = m["micro_batches"]
        both = (f"a {m['a_us'] / 1000:.2f} ms, b {m['b_us'] / 1000:.2f} ms;"
                f" overlap {m['overlap']:.2f} (goal >= "
                f"{m['overlap_goal']:.2f}), speed-up {m['speedup']:.2f}x "
                f"(goal >= {m['speedup_goal']:.2f}x); makespan "
                f"{m['makespan_one_us'] / 1000:.2f} -> "
                f"{m['makespan_two_us'] / 1000:.2f} ms, best of "
                f"{m['repeats']}; stalled while ready "
                f"{'/'.join(f'{v / 1000:.2f}' for v in m['stalled_while_ready_us'].values())}"
                f" ms; other processes busy {m['other_cores']:.1f} cores")
        # The value is the figure / its goal, so the row is met at >= 1.
        if f"PIPE{n}o" in wanted:
            row = wanted[f"PIPE{n}o"]
            row.set(m["overlap"] / m["overlap_goal"],
                    text=f"{m['overlap']:.2f}", note=both)
            row.goal_text = f">= {m['overlap_goal']:.2f}"
        if f"PIPE{n}s" in wanted:
            row = wanted[f"PIPE{n}s"]
            row.set(m["speedup"] / m["speedup_goal"],
                    text=f"{m['speedup']:.2f}x", note=both)
            row.goal_text = f">= {m['speedup_goal']:.2f}x"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["bench"])
    parser.add_argument("build")
    parser.add_argument("--micro-batches", type=int, nargs="+",
                        default=list(COUNTS))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--rows", type=int, default=32)
    parser.add_argument("--fleet-tools",
                        help="directory of fleet-compile and fleet-run "
                             "(default BUILD/bin)")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    tools = args.fleet_tools or os.path.join(build, "bin")
    for n in args.micro_batches:
        work = os.path.join(build, "bench", "mlp_pipeline", f"n{n}")
        print(json.dumps(bench_one(work, tools, n, args.width, args.rows,
                                   args.repeats)), flush=True)


if __name__ == "__main__":
    main()
