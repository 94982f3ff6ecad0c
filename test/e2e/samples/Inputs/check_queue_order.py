#!/usr/bin/env python3
"""Which other devices' executes each queue execute is ordered behind.

  check_queue_order.py HAL.mlir FUNCTION

Reads FUNCTION of `fleet-compile --compile-to=hal` output and models the
device queues as in-order: a queue op waits for its wait fences (what
signalled them, through hal.fence.join) and for the ops submitted to its
device's queue before it; a host `hal.fence.await` orders everything
submitted after it behind what it awaited. Prints one line per
`hal.device.queue.execute`, in program order:

  execute <k> on <device>: behind <device>:<k>, ... | behind nothing else

where the list names the executes on *other* devices it is (transitively)
ordered behind. Tensor parallelism overlaps when neither device's matmul
execute is behind the other's.
"""
import re
import sys

DEVICE = re.compile(r"(%[\w.$-]+) = util\.global\.load immutable @([\w$.-]+) : !hal\.device")
QUEUE = re.compile(r"hal\.device\.queue\.(\w+)<(%[\w.$-]+) : !hal\.device>.*?wait\((%[\w.$-]+)\) signal\((%[\w.$-]+)\)")
JOIN = re.compile(r"(%[\w.$-]+) = hal\.fence\.join at\(\[([^\]]*)\]\)")
AWAIT = re.compile(r"hal\.fence\.await until\(\[([^\]]*)\]\)")


def main(path, function):
    lines = open(path).read().splitlines()
    start = next((i for i, l in enumerate(lines)
                  if re.search(rf"util\.func public @{re.escape(function)}\(", l)),
                 None)
    if start is None:
        sys.exit(f"check_queue_order: no @{function} in {path}")
    devices, signaller, joins = {}, {}, {}
    ops = []            # (kind, device, deps)
    last_on = {}        # device -> index of the last op on its queue
    host_barrier = set()  # ops every later submission is behind
    depth = 0
    for line in lines[start:]:
        depth += line.count("{") - line.count("}")
        if m := DEVICE.search(line):
            devices[m.group(1)] = m.group(2)
        if m := JOIN.search(line):
            joins[m.group(1)] = [f.strip() for f in m.group(2).split(",") if f.strip()]
        if m := AWAIT.search(line):
            for fence in [f.strip() for f in m.group(1).split(",") if f.strip()]:
                host_barrier |= resolve(fence, signaller, joins)
        if m := QUEUE.search(line):
            kind, device, wait, signal = m.groups()
            name = devices.get(device, device)
            deps = set(resolve(wait, signaller, joins)) | host_barrier
            if name in last_on:
                deps.add(last_on[name])
            index = len(ops)
            ops.append((kind, name, deps))
            last_on[name] = index
            signaller[signal] = index
        if depth < 0:
            break
    number = {j: k for k, j in enumerate(
        i for i, op in enumerate(ops) if op[0] == "execute")}
    for index, (kind, device, _) in enumerate(ops):
        if kind != "execute":
            continue
        behind = set()
        stack, seen = list(ops[index][2]), set()
        while stack:
            j = stack.pop()
            if j in seen:
                continue
            seen.add(j)
            if ops[j][0] == "execute" and ops[j][1] != device:
                behind.add(j)
            stack.extend(ops[j][2])
        k = number[index]
        names = ", ".join(f"{ops[j][1]}:{number[j]}" for j in sorted(behind))
        print(f"execute {k} on {device}: " +
              (f"behind {names}" if names else "behind nothing else"))


def resolve(fence, signaller, joins):
    if fence in joins:
        out = set()
        for f in joins[fence]:
            out |= resolve(f, signaller, joins)
        return out
    return {signaller[fence]} if fence in signaller else set()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
