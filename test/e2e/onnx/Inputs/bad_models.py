"""Models fleet-import must reject with one clear message (bad-input.test).

  bad_models.py DIR
      DIR/damaged.onnx      the first half of a valid model's bytes
      DIR/not-onnx.onnx     text
      DIR/unknown-op.onnx   node 'frob' of an op no one lowers (com.example.Frobnicate)
      DIR/dft.onnx          node 'dft0': ONNX's DFT, which torch-mlir does not lower
      DIR/dynamic.onnx      input 'x' of shape batch x 8 (Relu)
      DIR/invalid.onnx      a node reading a value nothing defines
"""
import os
import sys

import onnx
from onnx import TensorProto, helper


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(path, nodes, inputs, outputs, opsets=(("", 17),)):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    model.ir_version = 8
    onnx.save(model, path)
    return model


def main(out):
    os.makedirs(out, exist_ok=True)
    good = save(os.path.join(out, "good.onnx"),
                [helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", [4, 8])], [f32("y", [4, 8])])
    data = good.SerializeToString()
    with open(os.path.join(out, "damaged.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(out, "not-onnx.onnx"), "w") as f:
        f.write("this is not a model\n")
    save(os.path.join(out, "unknown-op.onnx"),
         [helper.make_node("Frobnicate", ["x"], ["y"], name="frob", domain="com.example")],
         [f32("x", [2])], [f32("y", [2])], (("", 17), ("com.example", 1)))
    save(os.path.join(out, "dft.onnx"),
         [helper.make_node("Relu", ["x"], ["h"], name="relu"), helper.make_node("DFT", ["h"], ["y"], name="dft0")],
         [f32("x", [1, 8, 1])], [f32("y", [1, 8, 2])])
    save(os.path.join(out, "dynamic.onnx"),
         [helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", ["batch", 8])], [f32("y", ["batch", 8])])
    save(os.path.join(out, "invalid.onnx"),
         [helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")], [f32("x", [2])], [f32("y", [2])])


if __name__ == "__main__":
    main(sys.argv[1])
