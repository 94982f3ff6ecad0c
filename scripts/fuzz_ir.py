#!/usr/bin/env python3
"""Robustness test: feeds mutated IR to fleet-opt and fails on any crash.

A fixed-seed generator makes variants (truncations, byte edits, dropped and
duplicated lines, inserted tokens) of the cases in the IR test files and runs
fleet-opt (built with assertions on) over them. A run that ends by a signal
or prints an assertion failure or a stack dump is a crash; ordinary parse or
verifier errors are the expected outcome. Variants are batched with
`-split-input-file` for speed; a crashing batch is re-run variant by variant
so the report names the exact input (saved under --out).

Exit status: 0 when no variant crashed, 1 otherwise.
"""
import argparse
import concurrent.futures
import glob
import os
import random
import subprocess
import sys
import time

SPLIT = "// -----"
CRASH_MARKERS = ("Assertion", "Stack dump", "PLEASE submit a bug report",
                 "LLVM ERROR", "UNREACHABLE executed", "Segmentation fault")
TOKENS = ["%", "%0", "%arg0", "{", "}", "(", ")", "<", ">", "[", "]", ":",
          ",", "->", "=", "=>", "::", "@x", "@", "!stream.resource<*>",
          "!stream.timepoint", "!hal.buffer", "!hal.device", "index", "i32",
          "i1", "f32", "tensor<?x4xf32>", "0", "-1", "999999999999999999999",
          '"s"', "{%c0}", "to", "as", "on(", "await(", "with(", "from(",
          "#hal.device.affinity<@d>", "#hal.device.optimal<[]>", "*", "|",
          "attributes", "{}", "[]", "()", "%x#1", "for", "ro", "rw", "wo",
          "unit", "true", "false", "dense<1.0>", "#stream.timepoint<immediate>"]


def load_cases(roots):
    cases = []
    for root in roots:
        for path in sorted(glob.glob(os.path.join(root, "*", "IR", "*.mlir"))):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for chunk in text.split(SPLIT + "\n"):
                lines = [l for l in chunk.splitlines()
                         if not l.lstrip().startswith("// RUN")]
                if any(l.strip() and not l.lstrip().startswith("//")
                       for l in lines):
                    cases.append("\n".join(lines) + "\n")
    return cases


def mutate(rng, text):
    kind = rng.randrange(6)
    if kind == 0 and text:  # truncation
        return text[:rng.randrange(len(text))]
    if kind == 1 and text:  # byte edits
        data = list(text)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(data))
            op = rng.randrange(3)
            if op == 0:
                data[pos] = chr(rng.randint(32, 126))
            elif op == 1:
                del data[pos]
                if not data:
                    break
            else:
                data.insert(pos, chr(rng.randint(32, 126)))
        return "".join(data)
    lines = text.splitlines()
    if not lines:
        return text
    if kind == 2:  # dropped line
        del lines[rng.randrange(len(lines))]
    elif kind == 3:  # duplicated line
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    elif kind == 4:  # inserted tokens
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            line = lines[i]
            pos = rng.randrange(len(line) + 1)
            lines[i] = line[:pos] + " " + rng.choice(TOKENS) + " " + line[pos:]
    else:  # swapped tokens between lines
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        wi, wj = lines[i].split(), lines[j].split()
        if wi and wj:
            a, b = rng.randrange(len(wi)), rng.randrange(len(wj))
            wi[a], wj[b] = wj[b], wi[a]
            lines[i], lines[j] = " ".join(wi), " ".join(wj)
    return "\n".join(lines) + "\n"


def run(fleet_opt, path, split, timeout):
    args = [fleet_opt, path, "-o", os.devnull]
    if split:
        args.append("-split-input-file")
    try:
        p = subprocess.run(args, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    crashed = p.returncode < 0 or any(m in p.stderr for m in CRASH_MARKERS)
    if crashed:
        return "crash", p.stderr
    if p.returncode not in (0, 1):
        return "bad-exit-%d" % p.returncode, p.stderr
    if p.returncode == 1 and "error:" not in p.stderr:
        return "silent-failure", p.stderr
    return "ok", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("roots", nargs="+", help="test/Dialect directories")
    ap.add_argument("--fleet-opt", required=True)
    ap.add_argument("--variants", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out", default="fuzz-out")
    args = ap.parse_args()

    start = time.time()
    cases = load_cases(args.roots)
    if not cases:
        print("fuzz_ir: no cases found under", args.roots)
        return 1
    rng = random.Random(args.seed)
    variants = []
    for _ in range(args.variants):
        text = mutate(rng, rng.choice(cases))
        # A variant must stay one split-input-file chunk.
        text = "\n".join(l for l in text.splitlines()
                         if l.strip() != SPLIT.strip()) + "\n"
        variants.append(text)
    os.makedirs(args.out, exist_ok=True)

    batches = [variants[i:i + args.batch]
               for i in range(0, len(variants), args.batch)]

    def check_batch(index):
        base = index * args.batch
        path = os.path.join(args.out, "batch%03d.mlir" % index)
        with open(path, "w", encoding="utf-8") as f:
            f.write(("\n" + SPLIT + "\n").join(batches[index]))
        status, _ = run(args.fleet_opt, path, True, args.timeout)
        found = []
        if status != "ok":
            # Narrow down to the variants at fault.
            for k, text in enumerate(batches[index]):
                vpath = os.path.join(args.out, "variant%05d.mlir" % (base + k))
                with open(vpath, "w", encoding="utf-8") as f:
                    f.write(text)
                vstatus, stderr = run(args.fleet_opt, vpath, False,
                                      args.timeout)
                if vstatus != "ok":
                    found.append((vpath, vstatus, stderr))
                else:
                    os.remove(vpath)
        os.remove(path)
        return found

    failures = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for found in pool.map(check_batch, range(len(batches))):
            failures.extend(found)

    elapsed = time.time() - start
    print("fuzz_ir: %d variants of %d cases, seed %d, %.1f s: %d failures"
          % (len(variants), len(cases), args.seed, elapsed, len(failures)))
    for path, status, stderr in failures[:20]:
        print("--- %s: %s" % (status, path))
        print("\n".join(stderr.splitlines()[:15]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
