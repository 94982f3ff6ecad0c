#!/usr/bin/env python3
"""Orders two kernels' slices in a fleet-run --trace file.

Usage: kernel_order.py TRACE_JSON FIRST SECOND
FIRST and SECOND are export-name prefixes of dispatched kernels ("cheap"
matches the slice "cheap_dispatch_0..."); each must name at least one slice
on a device queue track, and a name's span runs from its first slice's
start to its last slice's end (a function dispatching the same kernel
twice). Prints whether all lie on the same track, whether FIRST starts
before SECOND ends (they overlap or FIRST comes first) and whether FIRST
ends before SECOND starts.
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
    if not found:
        sys.exit(f"no kernel slice named {prefix}_dispatch*")
    return (min(e["ts"] for e in found),
            max(e["ts"] + e["dur"] for e in found),
            {e["tid"] for e in found})


(first_start, first_end, first_tracks) = find(sys.argv[2])
(second_start, second_end, second_tracks) = find(sys.argv[3])
yes = lambda b: "yes" if b else "no"
print("same track:", yes(len(first_tracks | second_tracks) == 1))
print(f"{sys.argv[2]} starts before {sys.argv[3]} ends:",
      yes(first_start < second_end))
print(f"{sys.argv[2]} ends before {sys.argv[3]} starts:",
      yes(first_end <= second_start))
