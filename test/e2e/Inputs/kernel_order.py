#!/usr/bin/env python3
"""Orders two kernels' slices in a fleet-run --trace file.

Usage: kernel_order.py TRACE_JSON FIRST SECOND
FIRST and SECOND are export-name prefixes of dispatched kernels ("cheap"
matches the slice "cheap_dispatch_0..."); each must name exactly one slice
on a device queue track. Prints whether both lie on the same track, whether
FIRST starts before SECOND ends (they overlap or FIRST comes first) and
whether FIRST ends before SECOND starts.
"""
import json
import sys

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
tracks = {e["tid"]: e["args"]["name"] for e in events
          if e.get("name") == "thread_name"}


def find(prefix):
    found = [e for e in events
             if e.get("ph") == "X" and "queue" in tracks.get(e["tid"], "")
             and e["name"].startswith(prefix + "_dispatch")]
    if len(found) != 1:
        sys.exit(f"{len(found)} kernel slices named {prefix}_dispatch*")
    return found[0]


first, second = find(sys.argv[2]), find(sys.argv[3])
yes = lambda b: "yes" if b else "no"
print("same track:", yes(first["tid"] == second["tid"]))
print(f"{sys.argv[2]} starts before {sys.argv[3]} ends:",
      yes(first["ts"] < second["ts"] + second["dur"]))
print(f"{sys.argv[2]} ends before {sys.argv[3]} starts:",
      yes(first["ts"] + first["dur"] <= second["ts"]))
