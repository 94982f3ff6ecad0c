#!/usr/bin/env python3
"""Generates a program of N dispatches alternating between two devices.

Each step multiplies the running value by a constant on device A or B (the
value is transferred across at every step), so the schedule has N dispatches
and N-1 cross-device hops; identical kernels are deduplicated by dispatch
formation (two executables in total). Used by bench/compile_time.sh (P3).
"""
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    lines = [
        "module {",
        '  util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device',
        '  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device',
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
