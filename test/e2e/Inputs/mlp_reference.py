"""Inputs and the expected output of mlp.mlir, computed with numpy.

Writes <prefix>x.npy, w1, b1, w2, b2 and the reference y = relu(x@w1 + b1)
@ w2 + b2 (float64 math, stored as float32) for a fixed seed.
"""
import sys

import numpy as np

prefix = sys.argv[1]
rng = np.random.default_rng(2024)
arrays = {
    "x": rng.standard_normal((4, 8)),
    "w1": rng.standard_normal((8, 16)),
    "b1": rng.standard_normal(16),
    "w2": rng.standard_normal((16, 3)),
    "b2": rng.standard_normal(3),
}
arrays = {name: a.astype(np.float32) for name, a in arrays.items()}
hidden = np.maximum(arrays["x"].astype(np.float64) @ arrays["w1"] + arrays["b1"], 0)
arrays["y"] = (hidden @ arrays["w2"] + arrays["b2"]).astype(np.float32)
for name, array in arrays.items():
    np.save(prefix + name + ".npy", array)
