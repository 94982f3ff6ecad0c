"""onnxruntime's latency for a model and its saved inputs, on the CPU with
THREADS intra-op threads (one inter-op thread): the best of REPEATS timed
calls after one warm-up call.

  ort_latency.py DIR/NAME.onnx THREADS REPEATS
      -> {"ms": ..., "inputs": [DIR/NAME.<input>.npy in the graph's order]}

The inputs are the ones samples/onnx/make_models.py writes next to the model.
"""
import os
import json
import sys
import time

import numpy as np
import onnxruntime as ort


def main(model, threads, repeats):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    stem = os.path.splitext(model)[0]
    inputs = [f"{stem}.{i.name}.npy" for i in session.get_inputs()]
    feeds = {i.name: np.load(path) for i, path in zip(session.get_inputs(), inputs)}
    session.run(None, feeds)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        session.run(None, feeds)
        best = min(best, time.perf_counter() - start)
    print(json.dumps({"ms": best * 1000.0, "inputs": inputs}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
