"""Prints the stream/hal op counts of two IR files side by side and
"same op counts" when they are equal (used to show that a program schedules
exactly as another one)."""
import collections
import re
import sys

OP = re.compile(r"\b((?:hal|stream|util)\.[a-z_][a-z0-9_.]*)")


def counts(path):
    with open(path) as f:
        return collections.Counter(OP.findall(f.read()))


a, b = counts(sys.argv[1]), counts(sys.argv[2])
if a == b:
    print(f"same op counts ({sum(a.values())} ops)")
else:
    for op in sorted(set(a) | set(b)):
        if a[op] != b[op]:
            print(f"{op}: {a[op]} vs {b[op]}")
