"""Small ONNX models for the fleet-import e2e tests, with onnxruntime's
results as the reference (run with the importer's environment, %fleet_python).

  small_models.py DIR
      writes DIR/<model>.onnx, DIR/<model>.<input>.npy for each input and
      DIR/<model>.out.npy (onnxruntime's output for those inputs) for
      gemm_relu, matmul_relu, softmax, add and dynamic (a gemm whose batch
      dimension is symbolic: fleet-import needs --input-shape=x=4x64) and
      two_stage (nodes s0/fc, s0/act, s1/fc, s1/act: two Gemm + Relu stages,
      for --place).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# The samples' generator owns "save a model with onnxruntime's reference".
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "samples", "onnx"))
from make_models import save_with_reference  # noqa: E402

rng = np.random.default_rng(25)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def info(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(out, name, nodes, inputs, outputs, weights, feeds):
    graph = helper.make_graph(nodes, name, inputs, outputs,
                              [numpy_helper.from_array(w, n) for n, w in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    save_with_reference(model, feeds, out, name)


def main(out):
    os.makedirs(out, exist_ok=True)
    # Gemm (B transposed, 8 KiB of weights) + Relu.
    save(out, "gemm_relu",
         [helper.make_node("Gemm", ["x", "w", "b"], ["h"], name="fc", transB=1, alpha=0.5),
          helper.make_node("Relu", ["h"], ["y"], name="act")],
         [info("x", [4, 64])], [info("y", [4, 32])],
         {"w": f32(32, 64), "b": f32(32)}, {"x": f32(4, 64)})
    # MatMul + bias Add + Relu.
    save(out, "matmul_relu",
         [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
          helper.make_node("Add", ["m", "b"], ["h"], name="bias"),
          helper.make_node("Relu", ["h"], ["y"], name="act")],
         [info("x", [3, 16])], [info("y", [3, 8])],
         {"w": f32(16, 8), "b": f32(8)}, {"x": f32(3, 16)})
    # Softmax over the last axis.
    save(out, "softmax",
         [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=-1)],
         [info("x", [3, 10])], [info("y", [3, 10])], {}, {"x": 3 * f32(3, 10)})
    # Add of two inputs with broadcasting.
    save(out, "add",
         [helper.make_node("Add", ["a", "b"], ["y"], name="add")],
         [info("a", [2, 3, 4]), info("b", [4])], [info("y", [2, 3, 4])], {},
         {"a": f32(2, 3, 4), "b": f32(4)})
    # A symbolic batch dimension.
    save(out, "dynamic",
         [helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc")],
         [info("x", ["batch", 64])], [info("y", ["batch", 16])],
         {"w": f32(64, 16), "b": f32(16)}, {"x": f32(4, 64)})

    # Two stages, for --place.
    save(out, "two_stage",
         [helper.make_node("Gemm", ["x", "w0", "b0"], ["h0"], name="s0/fc"),
          helper.make_node("Relu", ["h0"], ["a0"], name="s0/act"),
          helper.make_node("Gemm", ["a0", "w1", "b1"], ["h1"], name="s1/fc"),
          helper.make_node("Relu", ["h1"], ["y"], name="s1/act")],
         [info("x", [4, 64])], [info("y", [4, 32])],
         {"w0": f32(64, 48), "b0": f32(48), "w1": f32(48, 32), "b1": f32(32)},
         {"x": f32(4, 64)})


if __name__ == "__main__":
    main(sys.argv[1])
