#!/usr/bin/env python3
"""Input and expected output of the multiple_modules pipeline, from numpy.

  reference.py --out DIR [--seed S]

writes x.npy (4096 floats, about half negative) and y.npy = |x| * |x|, plus
DIR/run.rsp with the fleet-run flags (--function=run, --input,
--expected_output) as a response file.
"""
import argparse
import os

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    x = rng.uniform(-4.0, 4.0, 4096).astype(np.float32)
    y = (np.abs(x.astype(np.float64)) ** 2).astype(np.float32)
    x_path = os.path.join(args.out, "x.npy")
    y_path = os.path.join(args.out, "y.npy")
    np.save(x_path, x)
    np.save(y_path, y)
    with open(os.path.join(args.out, "run.rsp"), "w") as f:
        f.write(f"--function=run\n--input=@{x_path}\n"
                f"--expected_output=@{y_path}\n")


if __name__ == "__main__":
    main()
