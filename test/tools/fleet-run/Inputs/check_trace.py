"""Summarizes a fleet-run --trace file for FileCheck.

Loads the JSON (so an invalid file fails the test) and prints the track
names, the queue slices per track, the number of flow arrows and host waits.
"""
import json
import sys

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
tracks = {e["tid"]: e["args"]["name"] for e in events
          if e.get("name") == "thread_name"}
print("tracks:", ", ".join(sorted(tracks.values())))
for tid in sorted(tracks):
    names = [e["name"] for e in events if e.get("ph") == "X" and e["tid"] == tid]
    print("track %s:" % tracks[tid], " ".join(names))
starts = [e for e in events if e.get("ph") == "s"]
finishes = [e for e in events if e.get("ph") == "f"]
print("flows:", len(starts), "start(s),", len(finishes), "finish(es)")
