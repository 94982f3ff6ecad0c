#!/usr/bin/env python3
"""Compares the queue ops a host program submits with a trace of its run.

Usage: count_queue_ops.py HAL_IR TRACE_JSON
Counts `hal.device.queue.*` submissions (not flush, which has no fences) in
the --compile-to=hal text of a straight-line program, and the queue-op
slices per device queue track in the fleet-run --trace JSON (which must
load as JSON). Prints both totals and whether they match.
"""
import json
import re
import sys

SUBMITTING = ("alloca", "dealloca", "execute", "copy", "fill", "update",
              "barrier")

ir = open(sys.argv[1]).read()
ir_ops = [m.group(1) for m in re.finditer(r"hal\.device\.queue\.(\w+)<", ir)
          if m.group(1) in SUBMITTING]

trace = json.load(open(sys.argv[2]))
events = trace["traceEvents"]
tracks = {e["tid"]: e["args"]["name"] for e in events
          if e.get("name") == "thread_name"}
queue_tracks = {tid: name for tid, name in tracks.items() if "queue" in name}
slices = {name: 0 for name in queue_tracks.values()}
for e in events:
    if e.get("ph") == "X" and e["tid"] in queue_tracks:
        slices[queue_tracks[e["tid"]]] += 1
total = sum(slices.values())
print("queue tracks:", len(queue_tracks), "(" + ", ".join(sorted(slices)) + ")")
print("IR queue ops:", len(ir_ops))
print("trace queue slices:", total)
print("match" if total == len(ir_ops) else "MISMATCH")
