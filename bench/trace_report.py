#!/usr/bin/env python3
"""Figures from a fleet-run --trace file (Chrome/Perfetto JSON).

  trace_report.py TRACE.json [--json]

The trace has one track per device queue, named "<device> queue <n>", plus
a "host" track (docs/runtime.md, "Tracing and statistics"); every executed
queue op is one "X" slice, and an execute with several commands also has a
child slice per command nested inside it on the same track.

- fleet-run's own host transfers (uploading inputs, reading results off a
  device whose memory the host cannot map) are top-level `copy`/`update`
  queue ops that do not cross devices (a compiled program copies only
  inside command buffers); they are tool I/O, not the program's work, and
  are reported apart (host transfer bytes), outside busy time and makespan;
- busy time of a device: the union of the intervals of the other slices on
  its queue tracks (children lie inside their parent, so they add nothing);
- makespan: from the first of those slices' start to the last one's end;
- overlap efficiency (P1): busiest device's busy time / makespan;
- bytes moved between devices (P5): the bytes of the copy commands the
  program's command buffers executed (a compiled program copies only to
  move values between devices: stream.cmd.copy comes from transfers) plus
  queue copies flagged `cross_device`. An execute slice carries the bytes
  of its copy/fill/update commands (its child slices carry none); compiled
  programs fill only splat constants, which these samples do not have.
  This is the issue's P5 figure ("summed from the trace's copy slices"). It
  counts a transfer's copy even when both of its buffers belong to one
  device (a device reading another's memory in place moves the bytes in
  the kernel, not in a copy); the part whose source and target buffers
  belong to different devices is reported apart as `cross_device_bytes`,
  the figure `--print_statistics` calls "bytes between devices".
- arrows between processes: in a trace of several MPI ranks (a process
  per rank), the semaphore-wait arrows whose two ends lie in different
  processes (cross-rank waits), counted per "from->to" process id.
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


# Queue-op slice names (docs/runtime.md); any other top-level name is an
# execute, named `execute` or after its only dispatch.
_QUEUE_OPS = {"copy", "fill", "update", "alloca", "dealloca", "barrier"}


def analyze(path):
    """Returns {devices: {name: {busy_us, slices, bytes_moved}}, makespan_us,
    overlap, bytes_moved, copies, host_transfer_bytes, host_wait_us,
    arrows_between_processes}."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    # Tracks by (process, thread): a trace of several MPI ranks has a
    # process per rank (docs/distributed.md "Trace").
    tracks = {}
    for event in events:
        if event.get("ph") == "M" and event.get("name") == "thread_name":
            tracks[(event.get("pid", 1), event["tid"])] = event["args"]["name"]
    by_track = {}
    host_wait = []
    for event in events:
        if event.get("ph") != "X":
            continue
        track = tracks.get((event.get("pid", 1), event["tid"]), "")
        start = float(event["ts"])
        end = start + float(event["dur"])
        if track == "host" or " queue " not in track:
            host_wait.append((start, end))
            continue
        by_track.setdefault(track, []).append(
            (start, end, event["name"], event.get("args", {})))
    per_device = {}
    first, last = None, None
    moved = copies = host_bytes = crossing = 0
    for track, slices in by_track.items():
        device = track.rsplit(" queue ", 1)[0]
        info = per_device.setdefault(
            device, {"intervals": [], "slices": 0, "moved": 0})
        # Children lie inside their parent on the same track: sort by start
        # (parents first on ties) and remember the open top-level slice.
        slices.sort(key=lambda s: (s[0], -s[1]))
        parent_end = None
        for start, end, name, args in slices:
            is_child = parent_end is not None and end <= parent_end
            if not is_child:
                parent_end = end
            size = int(args.get("bytes", 0))
            if not is_child and name in ("copy", "update") and \
                    not args.get("cross_device"):
                host_bytes += size
                continue
            info["intervals"].append((start, end))
            info["slices"] += 1
            first = start if first is None else min(first, start)
            last = end if last is None else max(last, end)
            crossing += int(args.get("cross_device_bytes", 0))
            if not size:
                continue
            if is_child:
                # A runtime that puts bytes on command slices: count copies.
                if name == "copy":
                    moved += size
                    info["moved"] += size
                    copies += 1
            elif name not in _QUEUE_OPS or (name == "copy" and
                                            args.get("cross_device")):
                moved += size
                info["moved"] += size
                copies += 1
    devices = {}
    for name, info in sorted(per_device.items()):
        devices[name] = {"busy_us": _union_length(info["intervals"]),
                         "slices": info["slices"],
                         "bytes_moved": info["moved"]}
    # Arrows (semaphore waits) that join two processes: cross-rank waits.
    starts = {e["id"]: e.get("pid", 1) for e in events if e.get("ph") == "s"}
    between = {}
    for event in events:
        if event.get("ph") == "f" and event["id"] in starts:
            key = (starts[event["id"]], event.get("pid", 1))
            if key[0] != key[1]:
                between[key] = between.get(key, 0) + 1
    makespan = (last - first) if first is not None else 0.0
    busiest = max((d["busy_us"] for d in devices.values()), default=0.0)
    return {
        "devices": devices,
        "makespan_us": makespan,
        "overlap": busiest / makespan if makespan > 0 else 0.0,
        "bytes_moved": moved,
        "cross_device_bytes": crossing,
        "copies": copies,
        "host_transfer_bytes": host_bytes,
        "host_wait_us": _union_length(host_wait),
        "arrows_between_processes": {
            f"{a}->{b}": n for (a, b), n in sorted(between.items())},
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
    print(f"bytes moved between devices: {report['bytes_moved']} "
          f"({report['copies']} slices; program copies)")
    print(f"  of which between buffers of different devices: "
          f"{report['cross_device_bytes']} (--print_statistics' "
          f"\"bytes between devices\")")
    print(f"host transfer bytes: {report['host_transfer_bytes']}")
    if report["arrows_between_processes"]:
        print("arrows between processes: " + ", ".join(
            f"{k}: {n}" for k, n in
            report["arrows_between_processes"].items()))


if __name__ == "__main__":
    main()
