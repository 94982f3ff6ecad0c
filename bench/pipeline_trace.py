#!/usr/bin/python3
"""Why a device of a fleet-run trace idled: waiting for work or for a thread.

  pipeline_trace.py TRACE.json [--json]

Reads a fleet-run --trace file (docs/runtime.md, "Tracing and statistics")
and models each device queue as in-order, as the local drivers run it: a
queue op can start once the op before it on its track has finished and
every op of another device it waited for (the trace's flow arrows, from the
signalling slice to the waiting one) has finished. Per device it prints

  <device>: busy B ms, stalled while ready S ms (N ops), waits for: <devices>|nothing

- busy: the union of its top-level queue-op slices (as bench/trace_report.py,
  fleet-run's own host transfers left out);
- stalled while ready: the sum over its ops of start - ready, where ready is
  the moment the model allows the op to start. This is time the device had
  runnable work and did not run it: its worker thread had no CPU (another
  thread or process held it) or the runtime was slow to hand the op over. A
  device idle for its dependencies is not stalled. The trace does not
  record the host's submissions: the first op of each track counts as
  ready when the host's first wait began (a program without host waits
  before its last region has submitted everything by then; fleet-run then
  waits for the results), or when it starts if that is earlier or the
  trace has no host wait;
- waits for: the devices whose ops any of its ops waited for. In a pipeline
  whose first stage runs on device A, A waits for nothing.

Importable: analyze(path) returns {device: {busy_us, stalled_us, ops,
waits_for}}.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_report import _union_length as _union  # noqa: E402

_HOST_TRANSFERS = ("copy", "update")


def analyze(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events
              if e.get("ph") == "M" and e.get("name") == "thread_name"}
    by_tid = {}
    for e in events:
        if e.get("ph") != "X" or " queue " not in tracks.get(e["tid"], ""):
            continue
        start = float(e["ts"])
        by_tid.setdefault(e["tid"], []).append(
            (start, start + float(e["dur"]), e["name"], e.get("args", {})))
    # Top-level slices only (children lie inside their parent).
    top = {}
    for tid, slices in by_tid.items():
        slices.sort(key=lambda s: (s[0], -s[1]))
        kept, parent_end = [], None
        for s in slices:
            if parent_end is not None and s[1] <= parent_end:
                continue
            parent_end = s[1]
            kept.append(s)
        top[tid] = kept

    def containing(tid, ts):
        for i, s in enumerate(top.get(tid, [])):
            if s[0] - 0.5 <= ts <= s[1] + 0.5:
                return i
        return None

    # Flow arrows: "s" inside the signalling slice, "f" at the waiter's start.
    sources = {}
    for e in events:
        if e.get("ph") == "s":
            sources[e["id"]] = (e["tid"], float(e["ts"]))
    waits = {}  # (tid, index) -> [(source tid, source index)]
    for e in events:
        if e.get("ph") != "f" or e["id"] not in sources:
            continue
        target = containing(e["tid"], float(e["ts"]))
        src_tid, src_ts = sources[e["id"]]
        source = containing(src_tid, src_ts)
        if target is None or source is None:
            continue
        waits.setdefault((e["tid"], target), []).append((src_tid, source))

    host_waits = [float(e["ts"]) for e in events
                  if e.get("ph") == "X" and tracks.get(e["tid"]) == "host"]
    submitted = min(host_waits) if host_waits else None

    devices = {}
    for tid, slices in sorted(top.items(), key=lambda kv: tracks[kv[0]]):
        device = tracks[tid].rsplit(" queue ", 1)[0]
        info = devices.setdefault(device, {"intervals": [], "stalled_us": 0.0,
                                           "ops": 0, "waits_for": set()})
        previous_end = None
        for i, (start, end, name, args) in enumerate(slices):
            if name in _HOST_TRANSFERS and not args.get("cross_device"):
                continue  # fleet-run reading results: not the program's work
            if previous_end is not None:
                ready = previous_end
            else:
                ready = start if submitted is None else min(start, submitted)
            for src_tid, source in waits.get((tid, i), []):
                ready = max(ready, top[src_tid][source][1])
                other = tracks[src_tid].rsplit(" queue ", 1)[0]
                if other != device:
                    info["waits_for"].add(other)
            info["stalled_us"] += max(0.0, start - ready)
            info["intervals"].append((start, end))
            info["ops"] += 1
            previous_end = end
    return {name: {"busy_us": _union(d["intervals"]),
                   "stalled_us": d["stalled_us"], "ops": d["ops"],
                   "waits_for": sorted(d["waits_for"])}
            for name, d in devices.items()}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    report = analyze(sys.argv[1])
    if "--json" in sys.argv[2:]:
        json.dump(report, sys.stdout, indent=2)
        print()
        return
    for name, d in report.items():
        print(f"{name}: busy {d['busy_us'] / 1000:.3f} ms, stalled while "
              f"ready {d['stalled_us'] / 1000:.3f} ms ({d['ops']} ops), "
              f"waits for: {', '.join(d['waits_for']) or 'nothing'}")


if __name__ == "__main__":
    main()
