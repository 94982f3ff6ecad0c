#!/usr/bin/env python3
"""Generates a program of N dispatches alternating between two devices.

Each step multiplies the running value by a constant on device A or B (the
value is transferred across at every step), so the schedule has N dispatches
and N-1 cross-device hops; identical kernels are deduplicated by dispatch
formation (two executables in total). Used by bench/compile_time.py (P3).

  gen_dispatch_chain.py N [--discrete]

--discrete makes device B discrete: the static topology then proves nothing
about the two devices, so every cross-device allocation asks the runtime
(hal-lower-topology-queries) and the answers and selections are memoized.
"""
import sys


def main():
    args = [a for a in sys.argv[1:] if a != "--discrete"]
    n = int(args[0]) if args else 1000
    b_config = "{discrete = true, ordinal = 1 : index}" \
        if "--discrete" in sys.argv[1:] else "{ordinal = 1 : index}"
    lines = [
        "module {",
        '  util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device',
        f'  util.global private @b = #hal.device.target<"local", {b_config}> : !hal.device',
        "  func.func @chain(%x: tensor<64xf32>) -> (tensor<64xf32> {iree.abi.affinity = #hal.device.affinity<@a>}) {",
        "    %two = arith.constant dense<2.0> : tensor<64xf32>",
    ]
    value = "%x"
    for i in range(n):
        device = "a" if i % 2 == 0 else "b"
        if i > 0:
            lines.append(f"    %t{i} = flow.tensor.transfer {value} : tensor<64xf32> to #hal.device.affinity<@{device}>")
            value = f"%t{i}"
        lines.append(f"    %v{i} = arith.mulf {value}, %two : tensor<64xf32>")
        value = f"%v{i}"
    lines.append(f"    return {value} : tensor<64xf32>")
    lines.append("  }")
    lines.append("}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
