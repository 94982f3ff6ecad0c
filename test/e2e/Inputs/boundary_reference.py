"""Inputs and numpy references for the function-boundary e2e tests.

  boundary_reference.py booleans PREFIX
      writes PREFIX{a,b,mask,mask2,less,select,not,min}.npy: random f32 a,
      b and random bool masks (odd sizes, so vector bodies and remainders
      both run), with less = a < b, select = where(mask2, a, b),
      not = ~mask, min = where(a < b, a, b).
  boundary_reference.py division PREFIX
      writes PREFIX{a,b}_{i8,i32,i64}.npy and the expected quotients and
      remainders PREFIX{divsi,remsi,divui,remui,floordivsi,ceildivsi}_W.npy,
      computed with Python integers under Fleet's rule (docs/kernels.md
      "Integer division"): x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN,
      INT_MIN % -1 = 0. Every case of zero divisors, INT_MIN / -1 and the
      signs is present, plus random pairs.
  boundary_reference.py halves PREFIX
      writes PREFIXx_f16.npy and PREFIXscaled_f16.npy (x * 2.5 in f16), and
      the bf16 input as ml_dtypes saves it ('|V2') and as raw '<u2' bits,
      with the expected x * 2.5 in bf16 ('|V2'): PREFIX{x_v2,x_u2,
      scaled_v2}.npy.
  boundary_reference.py check-bf16 ACTUAL.npy EXPECTED.npy
      prints the dtype of ACTUAL and whether its bf16 values equal
      EXPECTED's.
  boundary_reference.py host-module OUT.mlir
      writes a module of host functions @host_divide_W(a0..a5, b0..b5: iW)
      returning the six ops of each pair (scalars: the host executor runs
      them, no kernel).
  boundary_reference.py host-division FLEET_RUN MODULE
      runs them through fleet-run on the special pairs, six pairs a call,
      and checks each result against the rule; prints one line per width.
"""
import subprocess
import sys

import numpy as np

WIDTHS = {"i8": (8, np.int8), "i32": (32, np.int32), "i64": (64, np.int64)}
OPS = ["divsi", "remsi", "divui", "remui", "floordivsi", "ceildivsi"]


def wrap(value, bits):
    """Two's-complement value of `value` at `bits` bits."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def reference(op, a, b, bits):
    """Fleet's result of `a op b` (a, b signed Python ints of `bits`)."""
    if op.endswith("ui"):
        a, b = a % (1 << bits), b % (1 << bits)
    if b == 0:
        return 0
    if op.endswith("ui"):
        return wrap(a // b if op == "divui" else a % b, bits)
    # Truncating division on Python integers (exact at 64 bits).
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    if op == "divsi":
        return wrap(q, bits)
    if op == "remsi":
        return wrap(a - q * b, bits)
    if op == "floordivsi":
        return wrap(a // b, bits)
    return wrap(-((-a) // b), bits)  # ceildivsi


def special_pairs(bits):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    values = [0, 1, -1, 7, -7, 2, -2, lo, hi, lo + 1]
    return [(a, b) for a in values for b in [0, 1, -1, 2, -2, 3, -3, lo, hi]]


def booleans(prefix):
    rng = np.random.default_rng(17)
    shape = (64, 33)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    mask = rng.random(37 * 3).reshape(3, 37) < 0.5
    mask2 = rng.random(shape) < 0.5
    arrays = {
        "a": a, "b": b, "mask": mask, "mask2": mask2,
        "less": a < b, "select": np.where(mask2, a, b), "not": ~mask,
        "min": np.where(a < b, a, b),
    }
    for name, array in arrays.items():
        np.save(prefix + name + ".npy", array)


def division(prefix):
    rng = np.random.default_rng(170)
    for name, (bits, dtype) in WIDTHS.items():
        pairs = special_pairs(bits)
        info = np.iinfo(dtype)
        for _ in range(200 - len(pairs)):
            a = int(rng.integers(info.min, info.max, endpoint=True))
            b = int(rng.integers(-40, 40)) if rng.random() < 0.5 else int(
                rng.integers(info.min, info.max, endpoint=True))
            pairs.append((a, b))
        a = np.array([p[0] for p in pairs], dtype=dtype)
        b = np.array([p[1] for p in pairs], dtype=dtype)
        np.save(f"{prefix}a_{name}.npy", a)
        np.save(f"{prefix}b_{name}.npy", b)
        for op in OPS:
            expected = [reference(op, x, y, bits) for x, y in pairs]
            np.save(f"{prefix}{op}_{name}.npy", np.array(expected, dtype=dtype))


def to_bf16_bits(x):
    """float32 -> bfloat16 bits, round to nearest even (what ml_dtypes does)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype("<u2")


def from_bf16_bits(bits):
    return (np.asarray(bits).view("<u2").astype(np.uint32) << 16).view(np.float32)


def halves(prefix):
    x = np.array([1.0, -2.5, 3.25, 1000.0, 0.1, -0.0, 65504.0 / 4, 7.0],
                 dtype=np.float32)
    np.save(prefix + "x_f16.npy", x.astype(np.float16))
    np.save(prefix + "scaled_f16.npy",
            x.astype(np.float16) * np.float16(2.5))
    bits = to_bf16_bits(x)
    np.save(prefix + "x_u2.npy", bits)
    np.save(prefix + "x_v2.npy", bits.view("V2"))
    scaled = to_bf16_bits(from_bf16_bits(bits) * np.float32(2.5))
    np.save(prefix + "scaled_v2.npy", scaled.view("V2"))


def check_bf16(actual, expected):
    a, e = np.load(actual), np.load(expected)
    print(a.dtype.str, a.shape,
          bool((from_bf16_bits(a) == from_bf16_bits(e)).all()))


BATCH = 6


def host_pairs(bits):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return [(a, b) for a in [0, 1, -1, 7, -7, lo, hi]
            for b in [0, 1, -1, 2, -3, lo]]


def host_module(path):
    lines = []
    for name in WIDTHS:
        args = ", ".join([f"%a{i}: {name}" for i in range(BATCH)] +
                         [f"%b{i}: {name}" for i in range(BATCH)])
        results = ", ".join([name] * (BATCH * len(OPS)))
        lines.append(f"func.func @host_divide_{name}({args}) -> ({results}) {{")
        values = []
        for i in range(BATCH):
            for op in OPS:
                lines.append(f"  %{op}{i} = arith.{op} %a{i}, %b{i} : {name}")
                values.append(f"%{op}{i}")
        lines.append(f"  return {', '.join(values)} : {results}")
        lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def host_division(fleet_run, module):
    for name, (bits, _) in WIDTHS.items():
        pairs = host_pairs(bits)
        failures = 0
        for start in range(0, len(pairs), BATCH):
            batch = pairs[start:start + BATCH]
            inputs = [f"--input={name}={a}" for a, _ in batch] + [
                f"--input={name}={b}" for _, b in batch]
            out = subprocess.run(
                [fleet_run, f"--module={module}",
                 f"--function=host_divide_{name}"] + inputs,
                capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{name}: {batch}: exit {out.returncode}: "
                      f"{out.stderr.strip()}")
                failures += len(batch)
                continue
            got = [int(line.split("=")[1]) for line in out.stdout.splitlines()
                   if line.startswith("result[")]
            for i, (a, b) in enumerate(batch):
                want = [reference(op, a, b, bits) for op in OPS]
                if got[i * len(OPS):(i + 1) * len(OPS)] != want:
                    print(f"{name}: {a}, {b}: got "
                          f"{got[i * len(OPS):(i + 1) * len(OPS)]}, "
                          f"expected {want}")
                    failures += 1
        print(f"host {name}: {len(pairs)} pairs, {failures} wrong")


if __name__ == "__main__":
    if sys.argv[1] == "booleans":
        booleans(sys.argv[2])
    elif sys.argv[1] == "division":
        division(sys.argv[2])
    elif sys.argv[1] == "halves":
        halves(sys.argv[2])
    elif sys.argv[1] == "check-bf16":
        check_bf16(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "host-module":
        host_module(sys.argv[2])
    else:
        host_division(sys.argv[2], sys.argv[3])
