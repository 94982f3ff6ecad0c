#!/usr/bin/env python3
"""Robustness test of the compiler pipeline: mutated programs through fleet-compile.

fuzz_ir.py checks that the parser and verifiers reject broken IR cleanly;
this one feeds mutated *programs* (the samples and the e2e inputs: func /
linalg with placement) through the whole pipeline, so the passes meet IR
that verifies but is unusual. Half the variants (fixed seed) change the
program in ways that mostly keep it valid (a dimension everywhere, a
placement, a pinned affinity: see `retarget`), half are fuzz_ir.mutate's
generic edits. Each is
compiled with --compile-to=stream, --compile-to=hal or to the end (kernel
codegen) in turn. A variant that crashes (signal, assertion, stack dump),
exits with a code other than 0/1, or fails without an `error:` diagnostic
is saved under --out and reported. Exit status: 0 when none did, else 1.

  fuzz_compile.py --fleet-compile BIN [--variants N] [--seed S] [--out DIR]
                  FILE_OR_DIR...
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_ir  # noqa: E402

PHASES = (["--compile-to=stream"], ["--compile-to=hal"], [])


def retarget(rng, text):
    """Program-level mutations that mostly keep the program valid, so the
    passes (not the parser) see something new: one tensor dimension changed
    everywhere, one placement moved to another declared device, or one
    `iree.abi.affinity` dropped. None applies: a generic mutation."""
    kind = rng.randrange(3)
    if kind == 0:
        dims = sorted(set(re.findall(r"(?<=[<x])(\d+)(?=x)", text)))
        if dims:
            old = rng.choice(dims)
            new = str(rng.choice([1, 2, 3, 7, 33, max(1, int(old) - 1),
                                  int(old) + 1]))
            return re.sub(r"(?<=[<x\[ ,])%s(?=[x\], ])" % old, new, text)
    elif kind == 1:
        devices = re.findall(r"util\.global private @(\w+) = "
                             r"#hal\.device\.target", text)
        uses = list(re.finditer(r"#hal\.device\.affinity<@(\w+)>", text))
        if len(devices) > 1 and uses:
            use = rng.choice(uses)
            other = rng.choice([d for d in devices if d != use.group(1)])
            return (text[:use.start(1)] + other + text[use.end(1):])
    else:
        attrs = list(re.finditer(
            r" ?\{iree\.abi\.affinity = #hal\.device\.affinity<@\w+>\}",
            text))
        if attrs:
            attr = rng.choice(attrs)
            return text[:attr.start()] + text[attr.end():]
    return fuzz_ir.mutate(rng, text)


def programs(roots):
    files = []
    for root in roots:
        if os.path.isdir(root):
            files += sorted(glob.glob(os.path.join(root, "**", "*.mlir"),
                                      recursive=True))
        else:
            files.append(root)
    # Comments hold RUN/CHECK lines: mutate the program, not them.
    return [(f, "\n".join(line for line in open(f).read().splitlines()
                          if not line.lstrip().startswith("//")))
            for f in files]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fleet-compile", required=True)
    ap.add_argument("--variants", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out", default="fuzz-compile-out")
    ap.add_argument("roots", nargs="+")
    args = ap.parse_args()
    cases = programs(args.roots)
    if not cases:
        sys.exit("fuzz_compile: no programs under " + " ".join(args.roots))
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    counts = {}
    bad = []
    for i in range(args.variants):
        name, text = rng.choice(cases)
        variant = (retarget(rng, text) if rng.randrange(2)
                   else fuzz_ir.mutate(rng, text))
        phase = PHASES[i % len(PHASES)]
        path = os.path.join(args.out, "variant.mlir")
        with open(path, "w") as f:
            f.write(variant)
        command = [args.fleet_compile, path, *phase, "-o", os.devnull]
        try:
            p = subprocess.run(command, capture_output=True, text=True,
                               errors="replace", timeout=args.timeout)
            crashed = p.returncode < 0 or any(
                m in p.stderr for m in fuzz_ir.CRASH_MARKERS)
            if crashed:
                outcome = "crash"
            elif p.returncode == 0:
                outcome = "compiled"
            elif p.returncode == 1 and "error:" in p.stderr:
                outcome = "diagnosed"
            else:
                outcome = "bad-exit-%d" % p.returncode
        except subprocess.TimeoutExpired:
            outcome, p = "timeout", None
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome not in ("compiled", "diagnosed"):
            keep = os.path.join(args.out, "%s-%d.mlir" % (outcome, i))
            os.replace(path, keep)
            first = p.stderr.strip().splitlines()[:2] if p else []
            bad.append("%s: variant %d of %s (%s) saved as %s %s" % (
                outcome, i, os.path.basename(name), " ".join(phase) or "end",
                keep, first))
    print("fuzz_compile: %d variants of %d programs: %s" % (
        args.variants, len(cases),
        ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    for line in bad:
        print(line)
    print("fuzz_compile: %d bad" % len(bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
