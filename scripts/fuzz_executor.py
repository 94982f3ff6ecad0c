#!/usr/bin/env python3
"""Robustness test of the host-program executor and fleet-run.

A fixed-seed generator mutates the hand-written host programs of
test/tools/fleet-run (and bench/host) — changed numbers and types, swapped
SSA names, dropped, duplicated and swapped lines — keeps the variants that
fleet-opt still verifies (so they are valid host IR the executor must load
or reject cleanly), and runs each with fleet-run on local devices. It also
flips bytes of fleet-compile artifacts (their checksum must reject them)
and truncates hand-written ones (bytecode without a checksum: MLIR's reader
must reject the prefix). Any run that ends by a signal, prints an
assertion failure or stack dump is a failure; error messages and exit code
1 are the expected outcome of a bad variant. Host waits are bounded
(--host_wait_timeout_ms), so a variant that waits on a fence nothing
signals ends with DEADLINE_EXCEEDED; a run that still does not finish in
time is a host loop that never ends (a mutated bound: valid IR that runs
forever), counted and reported but not a failure.

Exit status: 0 when no run failed, 1 otherwise (failing inputs are saved
under --out).
"""
import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import time

CRASH_MARKERS = ("Assertion", "Stack dump", "PLEASE submit a bug report",
                 "LLVM ERROR", "UNREACHABLE executed", "Segmentation fault",
                 "AddressSanitizer", "runtime error:")
NUMBERS = ["0", "1", "2", "3", "4", "7", "16", "-1", "-2", "64", "4096"]
TYPES = ["i1", "i8", "i32", "i64", "index", "f32", "f64"]

# (program, [(function, inputs, devices)]); programs with @OBJECT@ get the
# test kernels embedded.
CASES = [
    ("test/tools/fleet-run/abs.mlir", [
        ("abs", ["4xf32=-1,2,-3,4"], ["local-sync"]),
        ("abs2d", ["2x2xf32=1"], ["local-task"]),
        ("both", ["4xf32=1"], ["local-sync"]),
    ]),
    ("test/tools/fleet-run/scalars.mlir", [
        ("add", ["3", "4"], []),
        ("loops", ["10"], []),
        ("fib", ["10"], []),
        ("widths", ["i8=-128"], []),
        ("floats", ["f32=2.5"], []),
        ("pick", ["i1=1", "7", "9"], []),
        ("indirect", [], []),
        ("divide", ["7", "2"], []),
    ]),
    ("test/tools/fleet-run/two-devices.mlir", [
        ("mul", ["4xf32=1,2,3,4", "4xf32=1"],
         ["local-task", "local-task?discrete=true"]),
        ("mul", ["4xf32=1,2,3,4", "4xf32=1"], ["local-sync", "local-sync"]),
        ("topology", [], ["local-sync", "local-task?discrete=true"]),
    ]),
    ("test/tools/fleet-run/device-failure.mlir", [
        ("run_kernel", ["i64=4"], ["local-sync"]),
        ("run_kernel", ["i64=5"], ["local-task"]),
        ("host_fail", [], ["local-sync"]),
    ]),
    ("bench/host/dispatch_chain.mlir", [
        ("chain", ["20"], ["local-task"]),
        ("chain", ["20"], ["local-sync"]),
    ]),
]


def strip_comments(text):
    return "\n".join(l for l in text.splitlines()
                     if not l.lstrip().startswith("//")) + "\n"


def mutate(rng, text):
    lines = text.splitlines()
    body = [i for i, l in enumerate(lines)
            if l.strip() and not l.strip().startswith(("module", "}"))]
    kind = rng.randrange(7)
    if kind == 0:  # a number
        spots = list(re.finditer(r"(?<![\w%@#])-?\d+(?![\w.])", text))
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + rng.choice(NUMBERS) + text[m.end():]
    if kind == 1:  # a type
        spots = list(re.finditer(r"\b(i1|i8|i16|i32|i64|index|f32|f64)\b",
                                 text))
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + rng.choice(TYPES) + text[m.end():]
    if kind == 2:  # an SSA use replaced by another name
        names = sorted(set(re.findall(r"%[\w#]+", text)))
        spots = list(re.finditer(r"%[\w#]+", text))
        if names and spots:
            m = rng.choice(spots)
            return text[:m.start()] + rng.choice(names) + text[m.end():]
    if body and kind == 3:  # drop a line
        del lines[rng.choice(body)]
    elif body and kind == 4:  # duplicate a line
        i = rng.choice(body)
        lines.insert(i, lines[i])
    elif len(body) > 1 and kind == 5:  # swap two lines
        i, j = rng.sample(body, 2)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 6:  # a flag or enum spelled differently
        spots = list(re.finditer(r'"None"|OneShot|"Transfer\|Dispatch"', text))
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + rng.choice(
                ['"Reserved"', '"None"', "AllowInlineExecution",
                 '"Dispatch"']) + text[m.end():]
    return "\n".join(lines) + "\n"


def crashed(result):
    if result.returncode < 0:
        return "signal %d" % -result.returncode
    text = result.stdout + result.stderr
    for marker in CRASH_MARKERS:
        if marker in text:
            return marker
    return None


def run_fleet_run(args, artifact, function, inputs, devices):
    command = [args.fleet_run, "--module=" + artifact,
               "--function=" + function, "--host_wait_timeout_ms=3000"]
    command += ["--device=" + d for d in devices]
    command += ["--input=" + i for i in inputs]
    try:
        result = subprocess.run(command, capture_output=True, text=True,
                                errors="replace", timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return "timeout", command
    return crashed(result), command


def check_variant(args, index, text, runs, work):
    source = os.path.join(work, "v%d.mlir" % index)
    artifact = os.path.join(work, "v%d.fleet" % index)
    with open(source, "w") as f:
        f.write(text)
    opt = subprocess.run([args.fleet_opt, source, "--emit-bytecode", "-o",
                          artifact], capture_output=True, text=True,
                         errors="replace", timeout=args.timeout)
    problem = crashed(opt)
    if problem:
        return ("fleet-opt " + problem, source)
    if opt.returncode != 0:
        os.remove(source)
        return None  # not valid IR: nothing for the executor to run
    outcome = "ran"
    for function, inputs, devices in runs:
        problem, command = run_fleet_run(args, artifact, function, inputs,
                                         devices)
        if problem == "timeout":
            outcome = "timeout"
        elif problem:
            return (problem + ": " + " ".join(command), source)
    os.remove(source)
    os.remove(artifact)
    return outcome


# fleet-compile inputs whose artifacts get byte flips: (path, run).
COMPILED = [
    ("test/e2e/abs.mlir", ("abs", ["4xf32=-1,2,-3,4"], ["local-sync"])),
    ("samples/multi_device_mul/multi_device_mul.mlir",
     ("mul", ["4xf32=1,2,3,4", "4xf32=2"], ["local-task", "local-task"])),
]


def check_bytes(args, index, data, runs, work):
    artifact = os.path.join(work, "b%d.fleet" % index)
    with open(artifact, "wb") as f:
        f.write(data)
    function, inputs, devices = runs[0]
    problem, command = run_fleet_run(args, artifact, function, inputs, devices)
    if problem and problem != "timeout":
        return (problem + ": " + " ".join(command), artifact)
    os.remove(artifact)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="Fleet's source tree")
    parser.add_argument("--fleet-opt", default="fleet-opt")
    parser.add_argument("--fleet-run", default="fleet-run")
    parser.add_argument("--fleet-compile", default="fleet-compile")
    parser.add_argument("--llc", required=True)
    parser.add_argument("--variants", type=int, default=200)
    parser.add_argument("--byte-variants", type=int, default=40)
    parser.add_argument("--seed", type=int, default=4011)
    parser.add_argument("--timeout", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    start = time.time()

    kernels = os.path.join(args.out, "kernels.o")
    subprocess.run([args.llc, "-relocation-model=pic", "-filetype=obj",
                    os.path.join(args.root, "test/tools/fleet-run/Inputs/"
                                 "kernels.ll"), "-o", kernels], check=True)
    with open(kernels, "rb") as f:
        data = f.read()
    object_attr = 'dense<"0x%s"> : vector<%dxi8>' % (data.hex().upper(),
                                                      len(data))
    bench_kernel = os.path.join(args.out, "inc.o")
    subprocess.run([args.llc, "-relocation-model=pic", "-filetype=obj",
                    os.path.join(args.root, "bench/host/inc.ll"), "-o",
                    bench_kernel], check=True)
    with open(bench_kernel, "rb") as f:
        data = f.read()
    bench_attr = 'dense<"0x%s"> : vector<%dxi8>' % (data.hex().upper(),
                                                     len(data))

    programs = []
    for path, runs in CASES:
        with open(os.path.join(args.root, path)) as f:
            text = strip_comments(f.read())
        attr = bench_attr if path.startswith("bench/") else object_attr
        programs.append((text.replace("@OBJECT@", attr), runs))

    rng = random.Random(args.seed)
    jobs = []
    for index in range(args.variants):
        text, runs = rng.choice(programs)
        variant = text
        for _ in range(rng.randint(1, 3)):
            variant = mutate(rng, variant)
        jobs.append((index, variant, runs))

    failures = []
    ran = timeouts = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(check_variant, args, index, text, runs,
                               args.out) for index, text, runs in jobs]
        for future in futures:
            outcome = future.result()
            if outcome in ("ran", "timeout"):
                ran += 1
                timeouts += outcome == "timeout"
            elif outcome:
                failures.append(outcome)

        # Byte flips of checksummed artifacts; truncations of the others.
        compiled = []
        for path, run in COMPILED:
            artifact = os.path.join(args.out, os.path.basename(path) + ".fleet")
            subprocess.run([args.fleet_compile, os.path.join(args.root, path),
                            "-o", artifact], check=True)
            with open(artifact, "rb") as f:
                compiled.append((f.read(), [run]))
        byte_jobs = []
        for index in range(args.byte_variants):
            if index % 2 == 0:
                data, runs = rng.choice(compiled)
                data = bytearray(data)
                for _ in range(rng.randint(1, 8)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
            else:
                text, runs = rng.choice(programs)
                source = os.path.join(args.out, "base%d.mlir" % index)
                with open(source, "w") as f:
                    f.write(text)
                artifact = source.replace(".mlir", ".fleet")
                subprocess.run([args.fleet_opt, source, "--emit-bytecode",
                                "-o", artifact], check=True)
                with open(artifact, "rb") as f:
                    data = f.read()
                os.remove(source)
                os.remove(artifact)
                data = data[:rng.randrange(len(data))]
            byte_jobs.append(pool.submit(check_bytes, args, index,
                                         bytes(data), runs, args.out))
        for future in byte_jobs:
            outcome = future.result()
            if outcome:
                failures.append(outcome)

    for problem, path in failures:
        print("FAILED (%s), input saved as %s" % (problem, path))
    print("fuzz_executor: %d variants (%d valid IR run, %d looping past "
          "the timeout), %d byte variants, seed %d, %.0fs: %d failures" %
          (args.variants, ran, timeouts, args.byte_variants, args.seed,
           time.time() - start, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
