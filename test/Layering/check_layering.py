#!/usr/bin/env python3
"""Holds the layering rules of docs/contributing.md "Layering" on the link
graph CMake writes (cmake/LinkGraph.cmake): every target named on the left
must not link, directly or transitively, a library matching the right.

Usage: check_layering.py LINK_GRAPH_TXT
Prints one line per violation and exits 1; prints "layering OK" otherwise.
"""
import re
import sys

# (targets that must stay below, forbidden library pattern)
RULES = [
    (["FleetStreamDialect", "FleetStreamAnalysis", "FleetStreamTransforms",
      "fleet-stream-opt"], re.compile(r"^FleetHAL")),
    (["FleetUtilDialect", "FleetUtilTransforms", "FleetFlowDialect"],
     re.compile(r"^Fleet(HAL|Stream)")),
]


def main(path):
    graph = {}
    with open(path) as f:
        for line in f:
            if ":" not in line:
                continue
            target, deps = line.split(":", 1)
            graph[target.strip()] = deps.split()
    errors = []
    for targets, forbidden in RULES:
        for target in targets:
            if target not in graph:
                errors.append(f"{target}: not in the link graph")
                continue
            for dep in graph[target]:
                if forbidden.match(dep):
                    errors.append(f"{target} links {dep} "
                                  f"(forbidden: {forbidden.pattern})")
    for error in errors:
        print(error)
    if not errors:
        print("layering OK")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
