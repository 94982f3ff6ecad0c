"""Writes the two models of the importer's memory figure (docs/onnx.md
"Memory"): one graph, four MatMul + Relu layers, with 100 MiB of weights
(4 x 2560x2560 f32) and with 1 KiB (4 x 8x8 f32).

  weights_model.py OUT_DIR     -> OUT_DIR/{big,small}.onnx; prints the
                                  weight bytes of each as JSON
"""
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def make(n, path, layers=4):
    rng = np.random.default_rng(0)
    inits, nodes, x = [], [], "x"
    for i in range(layers):
        w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"h{i}"], name=f"l{i}/matmul"))
        nodes.append(helper.make_node("Relu", [f"h{i}"], [f"r{i}"], name=f"l{i}/relu"))
        x = f"r{i}"
    graph = helper.make_graph(
        nodes, "weights", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, n])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return layers * n * n * 4


if __name__ == "__main__":
    out = sys.argv[1]
    print(json.dumps({"big": make(2560, f"{out}/big.onnx"),
                      "small": make(8, f"{out}/small.onnx")}))
