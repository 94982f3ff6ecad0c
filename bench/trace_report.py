#!/usr/bin/env python3
"""Figures from a fleet-run --trace file (Chrome/Perfetto JSON).

  trace_report.py TRACE.json [--json]

The trace has one track per device queue, named "<device> queue <n>", plus
a "host" track (docs/runtime.md, "Tracing and statistics"); every executed
queue op is one "X" slice, and an execute with several commands also has a
child slice per command nested inside it on the same track.

- busy time of a device: the union of the intervals of the slices on its
  queue tracks (children lie inside their parent, so they add nothing);
- makespan: from the first device slice's start to the last one's end;
- overlap efficiency (P1): busiest device's busy time / makespan;
- bytes moved between devices (P5): the byte counts of the slices flagged
  `cross_device` (a copy whose source and target buffers live on different
  devices).
Used by scripts/demo and scripts/bench; importable (`analyze(path)`).
"""
import json
import sys


def _union_length(intervals):
    total = 0.0
    end = None
    start = None
    for a, b in sorted(intervals):
        if end is None or a > end:
            if end is not None:
                total += end - start
            start, end = a, b
        else:
            end = max(end, b)
    if end is not None:
        total += end - start
    return total


def analyze(path):
    """Returns {devices: {name: {busy_us, slices, dispatches}}, makespan_us,
    overlap, bytes_cross_device, cross_device_copies, host_wait_us}."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    tracks = {}
    for event in events:
        if event.get("ph") == "M" and event.get("name") == "thread_name":
            tracks[event["tid"]] = event["args"]["name"]
    per_device = {}
    first, last = None, None
    cross_bytes = 0
    cross_copies = 0
    host_wait = []
    for event in events:
        if event.get("ph") != "X":
            continue
        track = tracks.get(event["tid"], "")
        start = float(event["ts"])
        end = start + float(event["dur"])
        if track == "host" or " queue " not in track:
            host_wait.append((start, end))
            continue
        device = track.rsplit(" queue ", 1)[0]
        info = per_device.setdefault(
            device, {"intervals": [], "slices": 0, "cross_bytes": 0})
        info["intervals"].append((start, end))
        info["slices"] += 1
        args = event.get("args", {})
        if args.get("cross_device"):
            cross_bytes += int(args.get("bytes", 0))
            info["cross_bytes"] += int(args.get("bytes", 0))
            cross_copies += 1
        first = start if first is None else min(first, start)
        last = end if last is None else max(last, end)
    devices = {}
    for name, info in sorted(per_device.items()):
        devices[name] = {"busy_us": _union_length(info["intervals"]),
                         "slices": info["slices"],
                         "bytes_cross_device": info["cross_bytes"]}
    makespan = (last - first) if first is not None else 0.0
    busiest = max((d["busy_us"] for d in devices.values()), default=0.0)
    return {
        "devices": devices,
        "makespan_us": makespan,
        "overlap": busiest / makespan if makespan > 0 else 0.0,
        "bytes_cross_device": cross_bytes,
        "cross_device_copies": cross_copies,
        "host_wait_us": _union_length(host_wait),
    }


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    report = analyze(sys.argv[1])
    if "--json" in sys.argv[2:]:
        json.dump(report, sys.stdout, indent=2)
        print()
        return
    for name, device in report["devices"].items():
        print(f"{name}: busy {device['busy_us'] / 1000:.3f} ms "
              f"({device['slices']} slices)")
    print(f"makespan: {report['makespan_us'] / 1000:.3f} ms")
    print(f"overlap efficiency: {report['overlap']:.3f}")
    print(f"bytes moved between devices: {report['bytes_cross_device']} "
          f"({report['cross_device_copies']} copies)")


if __name__ == "__main__":
    main()
