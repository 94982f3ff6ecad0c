#!/usr/bin/python3
"""`make bench`: one table of Fleet's performance figures, each with its goal.

  bench_table.py BUILD [P1 P3 ...]

With row keys after BUILD only those figures are measured (the others
print as "n/a"): `scripts/bench build P3` runs just the compile-time row.

Every figure is measured in this run, side by side (never copied from an
earlier run):
  P1 overlap efficiency of the transformer pipeline on two local-task
     devices with one worker each (busiest device's busy time / makespan,
     both from the trace) — bench/transformer_pipeline.py;
  P2 instructions per dispatch on local-sync, counted by callgrind as the
     difference of two loop lengths — scripts/host-bench (the host-program
     executor), or the runtime's dispatch loop where that is missing;
  P3 `fleet-compile --compile-to=hal` time t(n) of 1k, 5k and 10k
     dispatches: the marginal cost per dispatch from 5k to 10k over that
     from 1k to 5k — bench/compile_time.py;
  P4 f32 matmul 512^3, one thread, vs OpenBLAS — bench/kernels.sh;
  P5 bytes moved between devices / minimum with device B discrete —
     bench/transformer_pipeline.py;
  P6 speed-up of the transformer on two devices over one device —
     bench/transformer_pipeline.py;
  P7a/b speed-up of a 2048^3 matmul split by columns over two devices (one
     worker each) over the unsplit one on one device, with A's or B's work
     written first; met only with an overlap efficiency >= 0.9 too —
     bench/tensor_parallel.py;
  P8 module load of the two-device transformer sample
     (samples/transformer_block): the median of 20 loads in one process
     (artifact read, host-program lowering, kernel library dlopen,
     initializers) — fleet-host-bench --load.
Further figures live in bench/rows/*.py, one module per area: each
defines `rows(Row)` returning its Row objects (keys unique over the
table) and `measure(build, rows, tools)`, where `tools` holds this
module's `capture`, `locked`, `HERE`, `ROOT` and `explicit` (the figures
named on the command line, or all with --full: a module runs its long,
bench-full rows only when they are explicit); it fills the rows it
owns that are wanted (`rows` maps key -> Row and holds only wanted keys
of that module). A module's docstring says how its figures are measured.
A figure whose benchmark cannot run here is reported as "n/a" with the
reason; the exit status is 0 either way (the table is the result).
On a machine shared with builds, each measurement holds
/tmp/fleet-build.lock (the lock every build takes) so builds do not run
beside it.
"""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LOCK = "/tmp/fleet-build.lock"


def locked(command):
    """Runs `command` holding the build lock when flock exists."""
    if shutil.which("flock"):
        return ["flock", LOCK] + command
    return command


def capture(command, timeout=1800):
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            timeout=timeout)
    return result.returncode, result.stdout


class Row:
    def __init__(self, key, figure, goal_text, check):
        self.key, self.figure = key, figure
        self.goal_text, self.check = goal_text, check
        self.value, self.text, self.note = None, "n/a", ""

    def set(self, value, text=None, note=""):
        self.value = value
        self.text = text if text is not None else f"{value:.2f}"
        self.note = note

    def status(self):
        if self.value is None:
            return "n/a"
        if self.check is None:  # a figure reported without a goal
            return "info"
        return "met" if self.check(self.value) else "MISSED"


def transformer(build, rows):
    code, out = capture(locked(["/usr/bin/python3",
                                os.path.join(HERE, "transformer_pipeline.py"),
                                "bench", build, "--repeats", "5"]))
    if code != 0:
        for key in ("P1", "P5", "P6"):
            rows[key].note = "transformer run failed: " + \
                out.strip().splitlines()[-1][:100] if out.strip() else ""
        return out
    m = json.loads(out.strip().splitlines()[-1])
    busy = ", ".join(f"{us / 1000:.1f}" for us in m["devices"].values())
    rows["P1"].set(m["overlap"], note=f"busy {busy} ms, makespan "
                   f"{m['makespan_two_us'] / 1000:.1f} ms (median of "
                   f"{m['repeats']})")
    rows["P5"].set(m["bytes_ratio"],
                   note=f"{m['bytes_moved_discrete']} / {m['bytes_minimum']}"
                   f" bytes, B discrete")
    rows["P6"].set(m["speedup"], text=f"{m['speedup']:.2f}x",
                   note=f"makespan {m['makespan_one_us'] / 1000:.1f} -> "
                   f"{m['makespan_two_us'] / 1000:.1f} ms after a warm-up "
                   f"call; first call "
                   f"{m['cold_makespan_one_us'] / 1000:.1f} -> "
                   f"{m['cold_makespan_two_us'] / 1000:.1f} ms")
    return ""


def tensor_parallel(build, rows):
    code, out = capture(locked(["/usr/bin/python3",
                                os.path.join(HERE, "tensor_parallel.py"),
                                "bench", build, "--size", "2048",
                                "--repeats", "5"]))
    if code != 0:
        for key in ("P7a", "P7b"):
            rows[key].note = "tensor-parallel run failed: " + \
                (out.strip().splitlines()[-1][:100] if out.strip() else "")
        return
    m = json.loads(out.strip().splitlines()[-1])
    for key, order in (("P7a", "a-first"), ("P7b", "b-first")):
        r = m[order]
        # Met only when the overlap goal holds too.
        value = r["speedup"] if r["overlap"] >= 0.9 else 0.0
        rows[key].set(value, text=f"{r['speedup']:.2f}x",
                      note=f"overlap {r['overlap']:.2f} (goal >= 0.90); "
                      f"makespan {m['makespan_one_us'] / 1000:.0f} -> "
                      f"{r['makespan_us'] / 1000:.0f} ms, median of "
                      f"{m['repeats']}")


def dispatch_instructions(build, rows):
    """P2 through the host-program executor (scripts/host-bench) when it is
    there, else the runtime's host-program-shaped dispatch loop."""
    host_bench = os.path.join(ROOT, "scripts", "host-bench")
    if os.path.exists(host_bench):
        code, out = capture(["bash", host_bench, build])
        match = re.search(r"^\s*local-sync\s+(\d+)\s+(\d+)", out, re.M)
        if code != 0 or not match:
            rows["P2"].note = "scripts/host-bench failed"
            return
        per = int(match.group(1))
        rows["P2"].set(per, text=f"{per:,}",
                       note=f"host executor loop, {match.group(2)} "
                       f"ns/dispatch (scripts/host-bench)")
        return
    bench = os.path.join(build, "bench", "runtime", "fleet-runtime-bench")
    if not os.path.exists(bench):
        rows["P2"].note = f"{bench} not built"
        return
    if not shutil.which("valgrind"):
        rows["P2"].note = "valgrind not installed"
        return

    def count(n):
        code, out = capture(locked(["valgrind", "--tool=callgrind",
                                    "--callgrind-out-file=/dev/null", bench,
                                    f"--dispatch-loop={n}"]))
        match = re.search(r"Collected : (\d+)", out)
        return int(match.group(1)) if code == 0 and match else None

    small, large = count(1000), count(11000)
    if small is None or large is None:
        rows["P2"].note = "callgrind run failed"
        return
    per = (large - small) / 10000
    rows["P2"].set(per, text=f"{per:,.0f}",
                   note="runtime dispatch loop (fleet-runtime-bench)")


def compile_time(build, rows):
    code, out = capture(locked(["/usr/bin/python3",
                                os.path.join(HERE, "compile_time.py"), build,
                                "hal"]))
    match = re.search(r"t\(1k\) ([\d.]+) s, t\(5k\) ([\d.]+) s, "
                      r"t\(10k\) ([\d.]+) s; marginal (\d+) us/dispatch "
                      r"\(1k-5k\), (\d+) us/dispatch \(5k-10k\), "
                      r"ratio ([\d.]+)", out)
    if code != 0 or not match:
        rows["P3"].note = "compile_time.py failed"
        return
    t1, t5, t10, early, late, ratio = match.groups()
    rows["P3"].set(float(ratio),
                   note=f"CPU t(1k) {t1} s, t(5k) {t5} s, t(10k) {t10} s; "
                   f"{early} -> {late} us/dispatch")


def matmul_vs_openblas(build, rows):
    script = os.path.join(HERE, "kernels.sh")
    code, out = capture(["bash", script, build])
    match = re.search(r"matmul 512\^3 f32, 1 thread \(vs OpenBLAS\)\s+"
                      r"([\d.]+)\s+([\d.]+)\s+GFLOP/s\s+([\d.]+)", out)
    core = re.search(r"OpenBLAS core: (\S+)", out)
    if code != 0 or not match:
        rows["P4"].note = "bench/kernels.sh failed"
        return
    rows["P4"].set(float(match.group(3)),
                   note=f"{match.group(1)} vs {match.group(2)} GFLOP/s"
                   f" (OpenBLAS {core.group(1) if core else '?'})")


def module_load(build, rows):
    bench = os.path.join(build, "bench", "host", "fleet-host-bench")
    if not os.path.exists(bench):
        rows["P8"].note = f"{bench} not built"
        return
    work = tempfile.mkdtemp(prefix="fleet-load-")
    try:
        artifact = os.path.join(work, "transformer_block.fleet")
        code, out = capture([os.path.join(build, "bin", "fleet-compile"),
                             os.path.join(ROOT, "samples", "transformer_block",
                                          "transformer_block.mlir"),
                             "-o", artifact])
        if code != 0:
            rows["P8"].note = "fleet-compile of the sample failed"
            return
        device = "local-task?task_topology_group_count=1"
        code, out = capture(locked([bench, "--load", artifact, "20", device,
                                    device]))
        match = re.search(r"load_median_ns=(\d+) load_min_ns=(\d+)", out)
        if code != 0 or not match:
            rows["P8"].note = "fleet-host-bench --load failed: " + \
                (out.strip().splitlines()[-1][:100] if out.strip() else "")
            return
        median, best = int(match.group(1)) / 1e6, int(match.group(2)) / 1e6
        rows["P8"].set(median, text=f"{median:.2f} ms",
                       note=f"median of 20 in-process loads (min "
                       f"{best:.2f} ms), 2 local-task devices")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def plugin_modules():
    """bench/rows/*.py in name order, imported by path."""
    folder = os.path.join(HERE, "rows")
    if not os.path.isdir(folder):
        return []
    modules = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py") or name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(
            "fleet_bench_" + name[:-3], os.path.join(folder, name))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    return modules


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    rows = {r.key: r for r in (
        Row("P1", "overlap efficiency, transformer, 2 devices", ">= 0.95",
            lambda v: v >= 0.95),
        Row("P2", "instructions per dispatch, local-sync", "<= 5,000",
            lambda v: v <= 5000),
        Row("P3", "compile --compile-to=hal, marginal 5k-10k/1k-5k",
            "<= 1.2", lambda v: v <= 1.2),
        Row("P4", "f32 matmul 512^3 vs OpenBLAS, 1 thread", ">= 0.90",
            lambda v: v >= 0.9),
        Row("P5", "bytes moved between devices / minimum", "1.00 +- 0.01",
            lambda v: abs(v - 1.0) <= 0.01),
        Row("P6", "speed-up, transformer 2 devices vs 1", ">= 1.5x",
            lambda v: v >= 1.5),
        Row("P7a", "speed-up, 2048^3 tensor parallel, A first", ">= 1.8x",
            lambda v: v >= 1.8),
        Row("P7b", "speed-up, 2048^3 tensor parallel, B first", ">= 1.8x",
            lambda v: v >= 1.8),
        Row("P8", "module load, transformer 2 devices (median)", "<= 10 ms",
            lambda v: v <= 10.0),
    )}
    plugins = []
    for module in plugin_modules():
        owned = module.rows(Row)
        for row in owned:
            if row.key in rows:
                sys.exit(f"bench_table.py: figure {row.key} of "
                         f"{module.__name__} is defined twice")
            rows[row.key] = row
        plugins.append((module, [row.key for row in owned]))
    # --full (make bench-full): every row, the long ones (bench-full rows
    # of the modules, e.g. MM4096) included; they run otherwise only when
    # named.
    args = sys.argv[2:]
    full = "--full" in args
    args = [a for a in args if a != "--full"]
    explicit = set(rows) if full else set(args)
    wanted = set(args) or set(rows)
    if "P7" in wanted:
        wanted |= {"P7a", "P7b"}
        wanted.discard("P7")
    unknown = wanted - set(rows)
    if unknown:
        sys.exit(f"bench_table.py: unknown figure {', '.join(sorted(unknown))}"
                 f" (expected {', '.join(rows)})")
    log = ""
    if wanted & {"P1", "P5", "P6"}:
        log = transformer(build, rows)
    if "P2" in wanted:
        dispatch_instructions(build, rows)
    if "P3" in wanted:
        compile_time(build, rows)
    if "P4" in wanted:
        matmul_vs_openblas(build, rows)
    if wanted & {"P7", "P7a", "P7b"}:
        tensor_parallel(build, rows)
    if "P8" in wanted:
        module_load(build, rows)
    tools = {"capture": capture, "locked": locked, "HERE": HERE,
             "ROOT": ROOT, "explicit": explicit}
    for module, keys in plugins:
        mine = {key: rows[key] for key in keys if key in wanted}
        if not mine:
            continue
        try:
            module.measure(build, mine, tools)
        except Exception as error:  # one broken benchmark leaves the table
            for row in mine.values():
                if row.value is None:
                    row.note = f"benchmark failed: {error}"[:120]
    for key, row in rows.items():
        if key not in wanted:
            row.note = "not measured in this run"

    width = max(3, max(len(key) for key in rows))
    print(f"{'':{width}} {'figure':48} {'measured':>10}  {'goal':13} status  "
          f"details")
    for row in rows.values():
        print(f"{row.key:{width}} {row.figure:48} {row.text:>10}  "
              f"{row.goal_text:13} {row.status():6}  {row.note}")
    if log:
        print("\ntransformer run output:\n" + log[-2000:])


if __name__ == "__main__":
    main()
