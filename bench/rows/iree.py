"""IREE next to Fleet on the same work (issue 33).

IREE is IREE's pip packages pinned in bench/requirements-bench.txt
(iree-base-compiler, iree-base-runtime), which `make bench` installs into
.venv/ (scripts/bootstrap --bench). Its real tools are used, not the Python
wrappers: iree-compile, and iree-run-module / iree-benchmark-module from
iree/_runtime_libs. Both compilers target this machine's CPU (IREE:
--iree-hal-local-target-device-backends=llvm-cpu
--iree-llvmcpu-target-cpu=host). Every value is IREE's figure over Fleet's
from this run (> 1: Fleet is faster or cheaper); the status says "ahead"
above 1.05, "behind" below 0.95, "even" between.

What changed in the input for IREE: each device global
`#hal.device.target<"local", {ordinal = N : index}>` becomes
`#hal.device.alias<"local"[N]>` (IREE gives such an alias its executable
targets from the flags above; `discrete = true` has no IREE equivalent and
is dropped), and entry arguments without `iree.abi.affinity` get device A's
(IREE's compiler otherwise fails to place their first dispatch:
"analysis failed on device").

  IRT, IRP, IR3  samples/transformer_block (16 micro-batches),
       tensor_parallel_matmul and three_devices on their 2 or 3 local-task
       devices, one worker each: median time of a call after a warm-up call
       (Fleet: fleet-run --warmup_runs=1 --timed_runs=20, each call until
       every device is idle; IREE: iree-benchmark-module, median of 5
       repetitions of 20 calls), best of 2 alternating rounds. The note has
       each tool's speed-up over its own one-device program (all devices
       folded onto device A) and its first call (Fleet: the first call of
       the process; IREE: one benchmark iteration after loading). Both
       results are checked against the numpy reference first.
  IRD  host instructions per step (one dispatch and one cross-device
       transfer) of a chain alternating between two local-sync devices, a
       loop of N iterations of two steps each (LOOP below), callgrind over
       fleet-run and iree-run-module: (instructions at N = 1,000 - at
       N = 200) / 1,600 steps; both compiled for x86-64-v3 (valgrind runs
       no AVX-512). IREE's runtime under valgrind sometimes deadlocks (its
       io_uring completion thread and the main thread both asleep), the
       more often the longer it runs, which is why the chains are 400 and
       2k steps rather than 1k and 10k: a stuck run is killed after 60 s
       and run again, up to 5 times.
  IRM512, IRM2048  f32 matmul 512^3 and 2048^3 on one local-task device
       with one worker, timed as IRT; the OpenBLAS rows are MM512/MM2048.
  IRO-<model>  the imported models of samples/onnx/make_models.py (the
       onnxruntime rows are ONNX-<model>): Fleet through fleet-import +
       fleet-compile, IREE through its ONNX importer (iree-import-onnx) +
       iree-compile, both on one local-task device with one worker, timed
       as IRT, both checked against the model's reference output (1e-3).
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

MODELS = ("bert_tiny", "gpt2", "resnet18")
KEYS = ("IRT", "IRP", "IR3", "IRD", "IRM512", "IRM2048") + tuple(
    f"IRO-{m}" for m in MODELS)


def rows(Row):
    class PeerRow(Row):
        def status(self):
            if self.value is None:
                return "n/a"
            if self.value > 1.05:
                return "ahead"
            return "behind" if self.value < 0.95 else "even"

    figures = {
        "IRT": "transformer 2 devices, IREE time / Fleet",
        "IRP": "tensor-parallel matmul 2 dev, IREE / Fleet",
        "IR3": "three_devices, IREE time / Fleet",
        "IRD": "host instr per chain step, IREE / Fleet",
        "IRM512": "matmul 512^3 1 thread, IREE time / Fleet",
        "IRM2048": "matmul 2048^3 1 thread, IREE time / Fleet",
    }
    for m in MODELS:
        figures[f"IRO-{m}"] = f"ONNX {m} 1 thread, IREE time / Fleet"
    return [PeerRow(key, figures[key], "peer", None) for key in KEYS]


def to_iree(text, pin_arguments_of=None):
    """The input changes the module docstring lists."""
    text = re.sub(r'#hal\.device\.target<"local", \{(?:discrete = true, )?'
                  r'ordinal = (\d+) : index\}>',
                  r'#hal.device.alias<"local"[\1]>', text)
    if pin_arguments_of:
        # Arguments `%name: tensor<...>` without attributes get device A's.
        device = re.search(r"util\.global private (@\w+) = ", text).group(1)
        header = re.search(r"func\.func @" + pin_arguments_of +
                           r"\((.*?)\)\s*\n?\s*->", text, re.S)
        fixed = re.sub(r"(%\w+: tensor<[^>]*>)(?!\s*\{)",
                       r"\1 {iree.abi.affinity = #hal.device.affinity<" +
                       device + ">}", header.group(1))
        text = text[:header.start(1)] + fixed + text[header.end(1):]
    return text


def one_device(text):
    """Every device folded onto device A (ordinal 0, not discrete)."""
    return re.sub(r'#hal\.device\.target<"local", \{(?:discrete = true, )?'
                  r'ordinal = \d+ : index\}>',
                  '#hal.device.target<"local", {ordinal = 0 : index}>', text)


class Tools:
    def __init__(self, build, root, tools):
        self.build, self.root, self.tools = build, root, tools
        venv = os.path.join(root, ".venv")
        self.compile = os.path.join(venv, "bin", "iree-compile")
        libs = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages",
                                      "iree", "_runtime_libs"))
        self.libs = libs[0] if libs else ""
        self.run = os.path.join(self.libs, "iree-run-module")
        self.benchmark = os.path.join(self.libs, "iree-benchmark-module")

    def missing(self):
        for path in (self.compile, self.run, self.benchmark):
            if not os.path.exists(path):
                return (f"{path} missing: bench/requirements-bench.txt is "
                        "installed by scripts/bootstrap --bench (make bench)")
        return None

    def capture(self, command):
        return self.tools["capture"](self.tools["locked"](command))

    def fleet_compile(self, source, artifact, cpu=None):
        r = subprocess.run([os.path.join(self.build, "bin", "fleet-compile"),
                            source, "-o", artifact,
                            *([f"--llvmcpu-target-cpu={cpu}"] if cpu else [])],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("fleet-compile: " + r.stderr[-150:])

    def iree_compile(self, source, artifact, extra=(), cpu="host"):
        r = subprocess.run([self.compile, source,
                            "--iree-hal-local-target-device-backends=llvm-cpu",
                            f"--iree-llvmcpu-target-cpu={cpu}", *extra,
                            "-o", artifact], capture_output=True, text=True)
        if r.returncode != 0:
            tail = [line for line in r.stderr.splitlines()
                    if not line.lstrip().startswith("#")]
            raise RuntimeError("iree-compile: " + " ".join(tail)[-150:])

    def fleet_time(self, artifact, devices, args, calls=20):
        """(median ms, first call ms) of fleet-run --timed_runs."""
        code, out = self.capture([
            os.path.join(self.build, "bin", "fleet-run"),
            f"--module={artifact}", *devices, "--task_topology_group_count=1",
            *args, "--warmup_runs=1", f"--timed_runs={calls}"])
        if code != 0 or "[FAILED]" in out:
            raise RuntimeError("fleet-run: " + out[-150:])
        m = re.search(r"first ([\d.]+) ms; \d+ timed calls: median ([\d.]+)",
                      out)
        return float(m.group(2)), float(m.group(1))

    def iree_check(self, vmfb, devices, args):
        code, out = self.capture([self.run, f"--module={vmfb}", *devices,
                                  "--task_topology_group_count=1", *args])
        if code != 0 or ("--expected_output" in " ".join(args) and
                         "[SUCCESS]" not in out):
            raise RuntimeError("iree-run-module: " + out[-150:])

    def iree_time(self, vmfb, devices, args, calls=20):
        """(median ms, first call ms) from iree-benchmark-module."""
        args = [a for a in args if not a.startswith("--expected_output")]

        def bench(extra):
            code, out = self.capture([self.benchmark, f"--module={vmfb}",
                                      *devices,
                                      "--task_topology_group_count=1", *args,
                                      *extra])
            if code != 0:
                raise RuntimeError("iree-benchmark-module: " + out[-150:])
            return out

        out = bench(["--benchmark_repetitions=5",
                     f"--benchmark_min_time={calls}x"])
        median = parse_benchmark(out, "_median")
        first = parse_benchmark(bench(["--benchmark_repetitions=1",
                                       "--benchmark_min_time=1x"]), "")
        return median, first


def parse_benchmark(out, suffix):
    """Milliseconds of the first BM_... real_time{suffix} line."""
    for line in out.splitlines():
        m = re.match(r"BM_\S+/real_time" + re.escape(suffix) +
                     r"\s+([\d.]+) (ns|us|ms|s)\b", line)
        if m:
            scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]
            return float(m.group(1)) * scale
    raise RuntimeError("no real_time" + suffix + " in iree-benchmark-module")


def samples(root, work):
    """(key, entry function, two-device source, device count, fleet-run
    arguments) of the multi-device rows."""
    python = "/usr/bin/python3"
    tb = os.path.join(root, "samples", "transformer_block")
    subprocess.run([python, os.path.join(tb, "transformer_block.py"), "data",
                    "--out", os.path.join(work, "tb")], check=True,
                   capture_output=True)
    tp = os.path.join(root, "samples", "tensor_parallel_matmul")
    subprocess.run([python, os.path.join(tp, "reference.py"), "--out",
                    os.path.join(work, "tp")], check=True, capture_output=True)

    def rsp(name):
        with open(os.path.join(work, name, "run.rsp")) as f:
            return [line.strip() for line in f
                    if line.strip() and not line.startswith("--function")]

    x = "8xf32=0,1,2,3,-1,-2,0.5,4"
    three = [f"--input={x}", "--input=8xf32=1,1,1,1,1,1,1,1",
             "--expected_output=8xf32=1,9,25,49,1,9,4,81"]
    return [
        ("IRT", "forward", os.path.join(tb, "transformer_block.mlir"), 2,
         rsp("tb")),
        ("IRP", "matmul", os.path.join(tp, "tensor_parallel_matmul.mlir"), 2,
         rsp("tp")),
        ("IR3", "three", os.path.join(root, "samples", "three_devices",
                                      "three_devices.mlir"), 3, three),
    ]


def multi_device(t, rows, work):
    for key, function, source, count, args in samples(t.root, work):
        if key not in rows:
            continue
        row = rows[key]
        try:
            with open(source) as f:
                text = f.read()
            programs = {}
            for devices, variant in ((count, text), (1, one_device(text))):
                base = os.path.join(work, f"{key}{devices}")
                with open(base + ".mlir", "w") as f:
                    f.write(variant)
                with open(base + ".iree.mlir", "w") as f:
                    f.write(to_iree(variant, function))
                t.fleet_compile(base + ".mlir", base + ".fleet")
                t.iree_compile(base + ".iree.mlir", base + ".vmfb")
                flags = ["--device=local-task"] * devices
                call = [f"--function={function}", *args]
                t.iree_check(base + ".vmfb", flags, call)
                programs[devices] = (base, flags, call)
            best = {}
            for _ in range(2):
                for devices, (base, flags, call) in programs.items():
                    for tool, measure, artifact in (
                            ("fleet", t.fleet_time, base + ".fleet"),
                            ("iree", t.iree_time, base + ".vmfb")):
                        median, first = measure(artifact, flags, call)
                        old = best.get((tool, devices), (1e30, 1e30))
                        best[tool, devices] = (min(old[0], median),
                                               min(old[1], first))
        except (RuntimeError, subprocess.CalledProcessError) as error:
            row.note = str(error)[:160]
            continue
        fleet, iree = best["fleet", count], best["iree", count]
        ratio = iree[0] / fleet[0]

        def speedup(tool):
            return best[tool, 1][0] / best[tool, count][0]

        row.set(ratio, f"{ratio:.2f}",
                f"Fleet {fleet[0]:.2f} ms ({speedup('fleet'):.2f}x its 1 "
                f"device, first call {fleet[1]:.1f} ms), IREE "
                f"{iree[0]:.2f} ms ({speedup('iree'):.2f}x, first "
                f"{iree[1]:.1f} ms); {count} local-task devices, 1 worker")


def matmul(t, rows, work):
    for key, n in (("IRM512", 512), ("IRM2048", 2048)):
        if key not in rows:
            continue
        row = rows[key]
        source = os.path.join(work, f"mm{n}.mlir")
        with open(source, "w") as f:
            f.write(f"""func.func @main(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{n}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) outs(%f : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  return %r : tensor<{n}x{n}xf32>
}}
""")
        rng = np.random.default_rng(n)
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        paths = []
        for name, array in (("a", a), ("b", b)):
            paths.append(os.path.join(work, f"mm{n}.{name}.npy"))
            np.save(paths[-1], array)
        expected = os.path.join(work, f"mm{n}.c.npy")
        np.save(expected, (a.astype(np.float64) @ b).astype(np.float32))
        args = ["--function=main", *(f"--input=@{p}" for p in paths),
                f"--expected_output=@{expected}",
                "--expected_f32_threshold=0.01"]
        calls = 10 if n <= 512 else 3
        try:
            t.fleet_compile(source, source[:-5] + ".fleet")
            t.iree_compile(source, source[:-5] + ".vmfb",
                           ["--iree-hal-target-device=local"])
            flags = ["--device=local-task"]
            t.iree_check(source[:-5] + ".vmfb", flags, args)
            best = {"fleet": 1e30, "iree": 1e30}
            for _ in range(2):
                best["fleet"] = min(best["fleet"], t.fleet_time(
                    source[:-5] + ".fleet", flags, args, calls)[0])
                best["iree"] = min(best["iree"], t.iree_time(
                    source[:-5] + ".vmfb", flags, args, calls)[0])
        except (RuntimeError, subprocess.CalledProcessError) as error:
            row.note = str(error)[:160]
            continue
        ratio = best["iree"] / best["fleet"]
        flops = 2 * n ** 3 / 1e6
        row.set(ratio, f"{ratio:.2f}",
                f"Fleet {best['fleet']:.1f} ms "
                f"({flops / best['fleet']:.0f} GFLOP/s), IREE "
                f"{best['iree']:.1f} ms ({flops / best['iree']:.0f} "
                f"GFLOP/s); one local-task worker, median of {calls} calls")


def models(t, rows, work):
    wanted = [m for m in MODELS if f"IRO-{m}" in rows]
    if not wanted:
        return
    folder = os.path.join(work, "models")
    venv = os.path.join(t.root, ".venv", "bin")
    r = subprocess.run([os.path.join(venv, "python"),
                        os.path.join(t.root, "samples", "onnx",
                                     "make_models.py"), folder, *wanted],
                       capture_output=True, text=True)
    if r.returncode != 0:
        for m in wanted:
            rows[f"IRO-{m}"].note = "make_models.py: " + r.stderr[-120:]
        return
    for m in wanted:
        row = rows[f"IRO-{m}"]
        stem = os.path.join(folder, m)
        try:
            r = subprocess.run([os.path.join(venv, "python"),
                                os.path.join(t.root, "bench", "onnx",
                                             "ort_latency.py"),
                                stem + ".onnx", "1", "1"],
                               capture_output=True, text=True, check=True)
            inputs = json.loads(r.stdout.strip().splitlines()[-1])["inputs"]
            check = [*(f"--input=@{p}" for p in inputs),
                     f"--expected_output=@{stem}.out.npy",
                     "--expected_f32_threshold=1e-3"]
            r = subprocess.run([os.path.join(t.build, "bin", "fleet-import"),
                                stem + ".onnx", "-o", stem + ".mlir"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError("fleet-import: " + r.stderr[-150:])
            t.fleet_compile(stem + ".mlir", stem + ".fleet")
            r = subprocess.run([os.path.join(venv, "iree-import-onnx"),
                                stem + ".onnx", "-o", stem + ".iree.mlir"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError("iree-import-onnx: " + r.stderr[-150:])
            with open(stem + ".iree.mlir") as f:
                entry = re.search(r"func\.func @(\w+)", f.read()).group(1)
            t.iree_compile(stem + ".iree.mlir", stem + ".vmfb",
                           ["--iree-hal-target-device=local"])
            flags = ["--device=local-task"]
            t.iree_check(stem + ".vmfb", flags, [f"--function={entry}",
                                                   *check])
            best = {"fleet": 1e30, "iree": 1e30}
            for _ in range(2):
                best["fleet"] = min(best["fleet"], t.fleet_time(
                    stem + ".fleet", flags, ["--function=main", *check],
                    5)[0])
                best["iree"] = min(best["iree"], t.iree_time(
                    stem + ".vmfb", flags, [f"--function={entry}", *check],
                    5)[0])
        except (RuntimeError, subprocess.CalledProcessError) as error:
            row.note = str(error)[:160]
            continue
        ratio = best["iree"] / best["fleet"]
        row.set(ratio, f"{ratio:.2f}",
                f"Fleet {best['fleet']:.1f} ms, IREE {best['iree']:.1f} ms; "
                "one local-task worker, median of 5 calls")


LOOP = """module {
  util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  func.func @chain(%x: tensor<64xf32> {iree.abi.affinity = #hal.device.affinity<@a>}, %n: index) -> (tensor<64xf32> {iree.abi.affinity = #hal.device.affinity<@a>}) {
    %two = arith.constant dense<2.0> : tensor<64xf32>
    %half = arith.constant dense<0.5> : tensor<64xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> (tensor<64xf32>) {
      %a = arith.mulf %v, %two : tensor<64xf32>
      %t = flow.tensor.transfer %a : tensor<64xf32> to #hal.device.affinity<@b>
      %b = arith.mulf %t, %half : tensor<64xf32>
      %back = flow.tensor.transfer %b : tensor<64xf32> to #hal.device.affinity<@a>
      scf.yield %back : tensor<64xf32>
    }
    return %r : tensor<64xf32>
  }
}
"""


# Loop iterations (2 steps each) of the short and the long chain. Not 1k
# and 10k steps as planned: IREE's run under valgrind deadlocks more often
# the longer it runs (5k iterations: every time; 2k: every time once in a
# full `make bench`), see callgrind().
ITERATIONS = (200, 1000)


def callgrind(command, what, attempts=5, timeout=60):
    """Instructions callgrind counts for `command`, under the build lock.
    IREE's runtime waits for io_uring completions on a thread of its own,
    and under valgrind that now and then deadlocks (both threads asleep);
    such a run is killed after `timeout` s and tried again."""
    import signal
    last = ""
    for _ in range(attempts):
        process = subprocess.Popen(
            ["flock", "/tmp/fleet-build.lock", "valgrind", "--tool=callgrind",
             "--callgrind-out-file=/dev/null", *command],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            last = f"timed out after {timeout} s"
            continue
        match = re.search(r"Collected : (\d+)", out)
        if process.returncode == 0 and match and "64xf32=3 3 3" in out:
            return int(match.group(1))
        last = out[-120:]
    raise RuntimeError(f"callgrind {what}: {last}")


def dispatch_cost(t, row, work):
    """IRD on LOOP: 2 dispatches and 2 transfers per iteration; a chain of
    200 or 1,000 iterations is the same program with another %n (IREE 3.13
    does not compile a straight-line chain of 10k steps: "maximum iteration
    count exceeded in fixed point pipeline")."""
    import shutil
    if not shutil.which("valgrind"):
        row.note = "valgrind not installed"
        return
    base = os.path.join(work, "loop")
    counts = {}
    try:
        with open(base + ".mlir", "w") as f:
            f.write(LOOP)
        with open(base + ".iree.mlir", "w") as f:
            f.write(to_iree(LOOP))
        # valgrind runs no AVX-512 (nor fsgsbase): both for x86-64-v3.
        t.fleet_compile(base + ".mlir", base + ".fleet", cpu="x86-64-v3")
        t.iree_compile(base + ".iree.mlir", base + ".vmfb", cpu="x86-64-v3")
        for n in ITERATIONS:
            for tool, command in (
                    ("fleet", [os.path.join(t.build, "bin", "fleet-run"),
                               f"--module={base}.fleet"]),
                    ("iree", [t.run, f"--module={base}.vmfb"])):
                counts[tool, n] = callgrind([
                    *command, "--device=local-sync", "--device=local-sync",
                    "--function=chain", "--input=64xf32=3", f"--input={n}"],
                    f"{tool} {n}")
    except (RuntimeError, subprocess.CalledProcessError) as error:
        row.note = str(error)[:160]
        return
    small, large = ITERATIONS
    steps = 2 * (large - small)
    per = {tool: (counts[tool, large] - counts[tool, small]) / steps
           for tool in ("fleet", "iree")}
    ratio = per["iree"] / per["fleet"]
    row.set(ratio, f"{ratio:.2f}",
            f"Fleet {per['fleet']:,.0f}, IREE {per['iree']:,.0f} "
            "instructions per step (one dispatch + one transfer; "
            "local-sync, callgrind, all threads)")


def measure(build, rows, tools):
    t = Tools(build, tools["ROOT"], tools)
    problem = t.missing()
    if problem:
        for row in rows.values():
            row.note = problem
        return
    with tempfile.TemporaryDirectory(prefix="fleet-iree-") as work:
        multi_device(t, rows, work)
        if "IRD" in rows:
            dispatch_cost(t, rows["IRD"], work)
        matmul(t, rows, work)
        models(t, rows, work)
