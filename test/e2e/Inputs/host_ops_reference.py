"""Inputs and the numpy reference of host-ops/qkv.mlir: a fused QKV
projection sliced into three, two heads concatenated, and padding.

Writes PREFIX{x,w}.npy and PREFIXy.npy with
  qkv = x @ w; q, k, v = qkv[:, 0:8], qkv[:, 8:16], qkv[:, 16:24]
  y = pad(concat([q * k, v], axis=1), ((1, 1), (0, 0)), value=-1)
(float64 math stored as float32), for a fixed seed.
"""
import sys

import numpy as np

prefix = sys.argv[1]
rng = np.random.default_rng(193)
x = rng.standard_normal((4, 8)).astype(np.float32)
w = rng.standard_normal((8, 24)).astype(np.float32)
qkv = x.astype(np.float64) @ w
q, k, v = qkv[:, 0:8], qkv[:, 8:16], qkv[:, 16:24]
heads = np.concatenate([q * k, v], axis=1)
y = np.pad(heads, ((1, 1), (0, 0)), constant_values=-1.0)
np.save(prefix + "x.npy", x)
np.save(prefix + "w.npy", w)
np.save(prefix + "y.npy", y.astype(np.float32))
