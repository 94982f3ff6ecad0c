#!/usr/bin/env python3
"""Host waits of a fleet-run run, from its trace and its statistics.

Usage: host_waits.py TRACE_JSON STATISTICS_TEXT FIRST SECOND
Counts the `wait` slices on the trace's `host` track, the ones that end
between the end of the first queue slice whose name starts with FIRST and
the start of the first queue slice whose name starts with SECOND (the two
calls' dispatches) — a host wait that held the second call back; a wait
that merely starts in that window and lasts past it (the caller's final
wait) did not — and reads `waits: N` of the `host` section of
fleet-run --print_statistics. Prints the three and whether trace and
statistics agree.
"""
import json
import re
import sys

trace_path, statistics_path, first, second = sys.argv[1:5]
events = json.load(open(trace_path))["traceEvents"]
tracks = {e["tid"]: e["args"]["name"] for e in events
          if e.get("name") == "thread_name"}
slices = [e for e in events if e.get("ph") == "X"]
host = [e for e in slices if tracks.get(e["tid"]) == "host"
        and e["name"] == "wait"]
queue = sorted((e for e in slices if "queue" in tracks.get(e["tid"], "")),
               key=lambda e: e["ts"])


def first_named(prefix):
    for e in queue:
        if e["name"].startswith(prefix):
            return e
    sys.exit("no queue slice named " + prefix + "*")


begin = first_named(first)
end = first_named(second)
window = (begin["ts"] + begin["dur"], end["ts"])
between = [e for e in host
           if window[0] <= e["ts"] + e["dur"] <= window[1]]

statistics = open(statistics_path).read()
match = re.search(r"^host\n\s+waits:\s+(\d+)", statistics, re.M)
if not match:
    sys.exit("no host waits in the statistics")
counted = int(match.group(1))
print("host wait slices:", len(host))
print("between " + first + " and " + second + ":", len(between))
print("statistics waits:", counted)
print("agree" if counted == len(host) else "DISAGREE")
