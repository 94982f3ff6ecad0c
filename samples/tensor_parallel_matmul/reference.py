#!/usr/bin/env python3
"""Inputs and expected output of tensor_parallel_matmul, from numpy.

  reference.py --out DIR [--seed S]

writes x.npy, w_left.npy, w_right.npy (the two column halves of w) and
y.npy = x @ [w_left | w_right] computed in float64, plus DIR/run.rsp with the
fleet-run flags (--function, --input, --expected_output) as a response file.
"""
import argparse
import os

import numpy as np

M, K, N = 512, 1024, 2048


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    x = rng.standard_normal((M, K)).astype(np.float32)
    w = (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32)
    y = (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32)
    arrays = {"x": x, "w_left": w[:, :N // 2], "w_right": w[:, N // 2:],
              "y": y}
    paths = {}
    for name, value in arrays.items():
        paths[name] = os.path.join(args.out, name + ".npy")
        np.save(paths[name], np.ascontiguousarray(value))
    flags = ["--function=matmul"]
    flags += [f"--input=@{paths[n]}" for n in ("x", "w_left", "w_right")]
    flags.append(f"--expected_output=@{paths['y']}")
    with open(os.path.join(args.out, "run.rsp"), "w") as f:
        f.write("\n".join(flags) + "\n")


if __name__ == "__main__":
    main()
