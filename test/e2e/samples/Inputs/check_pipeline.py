#!/usr/bin/env python3
"""Checks the device-region schedule of a two-stage pipeline in stream IR.

  check_pipeline.py STREAM.mlir FUNCTION PRODUCER CONSUMER

Reads the cmd-level IR of FUNCTION (fleet-compile --compile-to=stream),
follows every timepoint (alloca, join, execute, dealloca) back to the
`stream.cmd.execute` regions it covers, and prints one line per fact so a
FileCheck test can state the schedule that makes the stages overlap:

  regions: <n> on PRODUCER, <m> on CONSUMER
  consumer k awaits producer k: yes|no (first failing k)
  producer awaits consumer: never|<region>
  host waits before the last region: <n>

Only the text the stream phase prints is assumed (docs/pipeline.md §2).
"""
import re
import sys

ASSIGN = re.compile(r"^\s*(%[\w.$-]+(?:\s*,\s*%[\w.$-]+)*)\s*=\s*([\w.]+)(.*)$")
VALUE = re.compile(r"%[\w.$-]+")
AFFINITY = re.compile(r"on\(#hal\.device\.affinity<@([\w$.-]+)>")
AWAIT = re.compile(r"await\(([^)]*)\)")
JOIN = re.compile(r"max\(([^)]*)\)")


def parse(path, function):
    lines = open(path).read().splitlines()
    start = None
    for i, line in enumerate(lines):
        if re.search(rf"util\.func public @{re.escape(function)}\(", line):
            start = i
            break
    if start is None:
        sys.exit(f"check_pipeline: no public function @{function} in {path}")
    deps = {}       # timepoint -> timepoints it covers
    regions = []    # (timepoint, device, line index)
    awaits = []     # line index of each host wait
    depth = 0
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if depth == 0:
            if line.strip() == "}":
                break
            match = ASSIGN.match(line)
            if match:
                results = VALUE.findall(match.group(1))
                op, rest = match.group(2), match.group(3)
                covered = []
                for group in AWAIT.findall(rest) + (
                        JOIN.findall(rest) if op == "stream.timepoint.join"
                        else []):
                    covered += VALUE.findall(group)
                if op == "stream.resource.alloca":
                    deps[results[-1]] = covered
                elif op in ("stream.timepoint.join", "stream.resource.dealloca"):
                    deps[results[-1]] = covered
                elif op == "stream.cmd.execute":
                    deps[results[-1]] = covered
                    device = AFFINITY.search(rest)
                    regions.append((results[-1], device.group(1) if device
                                    else "?", i))
                elif op == "stream.timepoint.await":
                    awaits.append(i)
        depth += line.count("{") - line.count("}")
    return deps, regions, awaits


def closure(deps, roots):
    seen, stack = set(), list(roots)
    while stack:
        value = stack.pop()
        if value in seen:
            continue
        seen.add(value)
        stack.extend(deps.get(value, []))
    return seen


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, function, producer, consumer = sys.argv[1:]
    deps, regions, awaits = parse(path, function)
    prod = [r for r in regions if r[1] == producer]
    cons = [r for r in regions if r[1] == consumer]
    print(f"regions: {len(prod)} on {producer}, {len(cons)} on {consumer}")
    failing = None
    for k, (tp, _, _) in enumerate(cons):
        if k >= len(prod) or prod[k][0] not in closure(deps, deps[tp]):
            failing = k
            break
    print("consumer k awaits producer k: " +
          ("yes" if failing is None else f"no (first failing k = {failing})"))
    consumer_tps = {r[0] for r in cons}
    offender = None
    for k, (tp, _, _) in enumerate(prod):
        if closure(deps, deps[tp]) & consumer_tps:
            offender = k
            break
    print("producer awaits consumer: " +
          ("never" if offender is None else f"producer region {offender}"))
    last = max((r[2] for r in regions), default=-1)
    print(f"host waits before the last region: "
          f"{sum(1 for a in awaits if a < last)}")


if __name__ == "__main__":
    main()
