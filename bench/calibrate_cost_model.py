#!/usr/bin/python3
"""Calibrates the constants of the partitioning cost model on this host.

  calibrate_cost_model.py BUILD [--out FILE]

Compiles and runs five small programs with BUILD's fleet-compile and
fleet-run (local-task devices with one worker each, the configuration of
the pipeline samples), each timed as the median of 9 calls after one
warm-up call (`--timed_runs`, invoke until every device is idle), and
derives the constants of lib/Dialect/Flow/Transforms/CostModel.h:

  dispatch_s               a chain of 64 dependent 4x4x4 matmuls:
                           time / 64;
  contraction_flops_per_s  a 256 x 256 x 256 f32 matmul (2 * 256^3 FLOP),
                           its dispatch cost deducted;
  vector_flops_per_s       an elementwise chain of 8 multiply/adds over
                           2^18 floats (8 * 2^18 FLOP), its dispatch cost
                           deducted;
  transcendental_flops     math.exp over 2^18 floats: its time at the
                           vector rate, in FLOP per element;
  bytes_per_s              an addition of two 16 MiB operands (48 MiB read
                           and written);
  transfer_s               the same chain of 32 matmuls alternating between
                           two devices: time per hop minus dispatch_s;
  transfer_bytes_per_s     a 16 MiB copy between two devices declared
                           discrete (no direct access), its fixed cost
                           deducted.

Prints the JSON object that `fleet-compile --cost-model=FILE` reads (and
writes it to FILE with --out); the defaults compiled into CostModel.h are
this script's output on the development machine (docs/partitioning.md
"Calibration").
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

RUNS = 9
DEVICES = ('  util.global private @device_a = #hal.device.target<"local", '
           '{ordinal = 0 : index}> : !hal.device\n'
           '  util.global private @device_b = #hal.device.target<"local", '
           '{%sordinal = 1 : index}> : !hal.device\n')


def chain(n, alternate=False):
    """n dependent 4x4x4 matmuls (contractions are never fused, so each is
    one dispatch); with `alternate`, every result moves to the other
    device first."""
    t = "tensor<4x4xf32>"
    body = [f"  func.func @main(%x: {t}) -> {t} {{",
            "    %zero = arith.constant 0.0 : f32",
            f"    %e = tensor.empty() : {t}",
            f"    %f = linalg.fill ins(%zero : f32) outs(%e : {t}) -> {t}"]
    src = "%x"
    for i in range(n):
        if alternate and i:
            dev = "@device_b" if i % 2 else "@device_a"
            body.append(f"    %t{i} = flow.tensor.transfer {src} : {t} to "
                        f"#hal.device.affinity<{dev}>")
            src = f"%t{i}"
        body.append(f"    %v{i} = linalg.matmul ins({src}, {src} : {t}, {t}) "
                    f"outs(%f : {t}) -> {t}")
        src = f"%v{i}"
    body.append(f"    return {src} : {t}\n  }}")
    return "module {\n" + DEVICES % "" + "\n".join(body) + "\n}\n"


def matmul(n):
    t = f"tensor<{n}x{n}xf32>"
    return ("module {\n" + DEVICES % "" +
            f"  func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            "    %zero = arith.constant 0.0 : f32\n"
            f"    %e = tensor.empty() : {t}\n"
            f"    %f = linalg.fill ins(%zero : f32) outs(%e : {t}) -> {t}\n"
            f"    %c = linalg.matmul ins(%a, %b : {t}, {t}) outs(%f : {t}) -> {t}\n"
            f"    return %c : {t}\n  }}\n}}\n")


def vector(elements, ops):
    t = f"tensor<{elements}xf32>"
    lines = [f"    %y = linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>, "
             f"affine_map<(i) -> (i)>], iterator_types = [\"parallel\"]}} "
             f"ins(%x : {t}) outs(%e : {t}) {{",
             "    ^bb0(%v: f32, %o: f32):"]
    prev = "%v"
    for i in range(ops):
        op = "arith.mulf" if i % 2 else "arith.addf"
        lines.append(f"      %s{i} = {op} {prev}, %v : f32")
        prev = f"%s{i}"
    lines.append(f"      linalg.yield {prev} : f32\n    }} -> {t}")
    return ("module {\n" + DEVICES % "" +
            f"  func.func @main(%x: {t}) -> {t} {{\n"
            f"    %e = tensor.empty() : {t}\n" + "\n".join(lines) +
            f"\n    return %y : {t}\n  }}\n}}\n")


def exp(elements):
    t = f"tensor<{elements}xf32>"
    return ("module {\n" + DEVICES % "" +
            f"  func.func @main(%x: {t}) -> {t} {{\n"
            f"    %y = math.exp %x : {t}\n    return %y : {t}\n  }}\n}}\n")


def add(elements):
    t = f"tensor<{elements}xf32>"
    return ("module {\n" + DEVICES % "" +
            f"  func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"    %c = arith.addf %a, %b : {t}\n    return %c : {t}\n  }}\n}}\n")


def copy(elements):
    t = f"tensor<{elements}xf32>"
    return ("module {\n" + DEVICES % "discrete = true, " +
            f"  func.func @main(%a: {t}) -> ({t} {{iree.abi.affinity = "
            "#hal.device.affinity<@device_b>}) {\n"
            f"    %c = arith.addf %a, %a : {t}\n"
            f"    %t = flow.tensor.transfer %c : {t} to "
            "#hal.device.affinity<@device_b>\n"
            f"    return %t : {t}\n  }}\n}}\n")


def time_program(build, work, name, source, inputs):
    path = os.path.join(work, name + ".mlir")
    with open(path, "w") as f:
        f.write(source)
    artifact = os.path.join(work, name + ".fleet")
    subprocess.run([os.path.join(build, "bin", "fleet-compile"), path, "-o",
                    artifact], check=True)
    out = subprocess.run(
        [os.path.join(build, "bin", "fleet-run"), f"--module={artifact}",
         "--function=main", "--device=local-task", "--device=local-task",
         "--task_topology_group_count=1", "--warmup_runs=1",
         f"--timed_runs={RUNS}", "--output=-", "--print_max_element_count=0"]
        + [f"--input={i}" for i in inputs],
        check=True, capture_output=True, text=True)
    median = re.search(r"median ([0-9.]+) ms", out.stderr)
    if not median:
        sys.exit(f"calibrate_cost_model.py: no timing from fleet-run:\n"
                 f"{out.stderr}")
    return float(median.group(1)) * 1e-3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build")
    parser.add_argument("--out")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    with tempfile.TemporaryDirectory(prefix="fleet-calibrate-") as work:
        small = "4x4xf32=0.5"
        dispatch = time_program(build, work, "chain", chain(64), [small]) / 64
        n = 256
        mm = time_program(build, work, "matmul", matmul(n),
                          [f"{n}x{n}xf32=0.5"] * 2)
        contraction = 2 * n ** 3 / max(mm - dispatch, 1e-9)
        elements, ops = 1 << 18, 8
        vec = time_program(build, work, "vector", vector(elements, ops),
                           [f"{elements}xf32=0.5"])
        vector_rate = elements * ops / max(vec - dispatch, 1e-9)
        ex = time_program(build, work, "exp", exp(elements),
                          [f"{elements}xf32=0.5"])
        transcendental = (ex - dispatch) * vector_rate / elements
        big = 1 << 22  # 16 MiB of f32
        bw = time_program(build, work, "add", add(big),
                          [f"{big}xf32=1.0"] * 2)
        bytes_rate = 3 * 4 * big / max(bw - dispatch, 1e-9)
        hops = time_program(build, work, "hops", chain(32, True), [small])
        transfer = max(hops / 32 - dispatch, 1e-7)
        cp = time_program(build, work, "copy", copy(big), [f"{big}xf32=1.0"])
        copy_seconds = cp - 4 * 2 * big / bytes_rate - dispatch - transfer
        transfer_rate = 4 * big / max(copy_seconds, 1e-9)
    constants = {
        "_machine": platform.processor() or platform.machine(),
        "contraction_flops_per_s": float(f"{contraction:.3g}"),
        "vector_flops_per_s": float(f"{vector_rate:.3g}"),
        "transcendental_flops": float(f"{max(transcendental, 1):.3g}"),
        "bytes_per_s": float(f"{bytes_rate:.3g}"),
        "dispatch_s": float(f"{dispatch:.3g}"),
        "transfer_bytes_per_s": float(f"{transfer_rate:.3g}"),
        "transfer_s": float(f"{transfer:.3g}"),
    }
    text = json.dumps(constants, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
