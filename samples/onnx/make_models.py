"""ONNX model samples built with onnx.helper from published configurations,
with seeded weights (docs/onnx.md "Samples"). Run with the importer's
environment (.venv/bin/python):

  make_models.py OUT_DIR [bert_tiny] [gpt2] [resnet18]

writes OUT_DIR/<model>.onnx, OUT_DIR/<model>.<input>.npy and
OUT_DIR/<model>.out.npy (onnxruntime's output, one thread):

- bert_tiny: BERT-tiny (L=2, H=128, 2 heads, FFN 512, vocab 30522,
  sequence 128) from token ids to the last hidden state; nodes named
  embeddings/..., layer0/..., layer1/...
- gpt2: a 2-layer GPT-2-style decoder (n_embd 256, 4 heads, vocab 8192,
  sequence 128, token and position embeddings, causal mask) to the logits;
  nodes named embed/..., h0/..., h1/..., head/...
- resnet18: ResNet-18 at 224x224, batch 1 (batch norm folded into the
  convolutions, as exporters do for inference) to the 1000 logits; nodes
  named stem/..., layer1/... ... layer4/..., head/...
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def weight(self, name, shape, scale=None):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        scale = scale if scale is not None else 1.0 / np.sqrt(max(1, fan_in))
        w = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        return self.const(name, w)

    def const(self, name, value):
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, kind, inputs, name, **attrs):
        out = f"{name}:out"
        self.nodes.append(helper.make_node(kind, inputs, [out], name=name, **attrs))
        return out

    def linear(self, x, n_in, n_out, name):
        w = self.weight(f"{name}.w", [n_in, n_out])
        b = self.weight(f"{name}.b", [n_out], 0.02)
        return self.op("Add", [self.op("MatMul", [x, w], f"{name}/matmul"), b], f"{name}/bias")

    def layer_norm(self, x, n, name):
        g = self.const(f"{name}.g", np.ones(n, np.float32) + 0.1 * self.rng.standard_normal(n).astype(np.float32))
        b = self.const(f"{name}.b", 0.1 * self.rng.standard_normal(n).astype(np.float32))
        return self.op("LayerNormalization", [x, g, b], name, axis=-1, epsilon=1e-5)

    def attention(self, x, seq, n, heads, name, mask=None):
        d = n // heads
        shape = self.const(f"{name}.heads_shape", np.array([seq, heads, d], np.int64))
        merge = self.const(f"{name}.merge_shape", np.array([seq, n], np.int64))

        def split(t, tag, perm):
            return self.op("Transpose", [self.op("Reshape", [t, shape], f"{name}/{tag}_reshape")],
                           f"{name}/{tag}_transpose", perm=perm)
        q = split(self.linear(x, n, n, f"{name}/q"), "q", [1, 0, 2])
        k = split(self.linear(x, n, n, f"{name}/k"), "k", [1, 2, 0])
        v = split(self.linear(x, n, n, f"{name}/v"), "v", [1, 0, 2])
        scores = self.op("MatMul", [q, k], f"{name}/scores")
        scale = self.const(f"{name}.scale", np.array(1.0 / np.sqrt(d), np.float32))
        scores = self.op("Mul", [scores, scale], f"{name}/scale")
        if mask is not None:
            scores = self.op("Add", [scores, mask], f"{name}/mask")
        probs = self.op("Softmax", [scores], f"{name}/softmax", axis=-1)
        ctx = self.op("MatMul", [probs, v], f"{name}/context")
        ctx = self.op("Reshape", [self.op("Transpose", [ctx], f"{name}/merge_transpose", perm=[1, 0, 2]), merge],
                      f"{name}/merge")
        return self.linear(ctx, n, n, f"{name}/out")

    def gelu(self, x, name):
        # x * 0.5 * (1 + erf(x / sqrt 2)), as BERT's and GPT-2's exporters write it
        half = self.const(f"{name}.half", np.array(0.5, np.float32))
        one = self.const(f"{name}.one", np.array(1.0, np.float32))
        r2 = self.const(f"{name}.rsqrt2", np.array(1.0 / np.sqrt(2.0), np.float32))
        e = self.op("Erf", [self.op("Mul", [x, r2], f"{name}/scale")], f"{name}/erf")
        return self.op("Mul", [self.op("Mul", [x, half], f"{name}/half"),
                               self.op("Add", [e, one], f"{name}/plus1")], f"{name}/out")

    def model(self, name, inputs, output, out_shape):
        graph = helper.make_graph(self.nodes, name, inputs,
                                  [helper.make_tensor_value_info(output, TensorProto.FLOAT, out_shape)],
                                  self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def transformer_layer(g, x, seq, n, heads, ffn, name, pre_norm, mask=None):
    if pre_norm:  # GPT-2
        a = g.attention(g.layer_norm(x, n, f"{name}/ln1"), seq, n, heads, f"{name}/attn", mask)
        x = g.op("Add", [x, a], f"{name}/res1")
        f = g.linear(g.gelu(g.linear(g.layer_norm(x, n, f"{name}/ln2"), n, ffn, f"{name}/fc"), f"{name}/gelu"),
                     ffn, n, f"{name}/proj")
        return g.op("Add", [x, f], f"{name}/res2")
    a = g.attention(x, seq, n, heads, f"{name}/attn", mask)  # BERT: post-norm
    x = g.layer_norm(g.op("Add", [x, a], f"{name}/res1"), n, f"{name}/ln1")
    f = g.linear(g.gelu(g.linear(x, n, ffn, f"{name}/fc"), f"{name}/gelu"), ffn, n, f"{name}/proj")
    return g.layer_norm(g.op("Add", [x, f], f"{name}/res2"), n, f"{name}/ln2")


def bert_tiny():
    seq, n, heads, ffn, vocab, layers = 128, 128, 2, 512, 30522, 2
    g = Graph(1)
    tok = g.op("Gather", [g.weight("embeddings.word", [vocab, n], 0.02), "input_ids"], "embeddings/word")
    pos = g.weight("embeddings.position", [seq, n], 0.02)
    typ = g.weight("embeddings.token_type", [1, n], 0.02)
    x = g.op("Add", [g.op("Add", [tok, pos], "embeddings/add_position"), typ], "embeddings/add_type")
    x = g.layer_norm(x, n, "embeddings/ln")
    for i in range(layers):
        x = transformer_layer(g, x, seq, n, heads, ffn, f"layer{i}", pre_norm=False)
    ids = np.random.default_rng(7).integers(0, vocab, seq).astype(np.int64)
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [seq])]
    return g.model("bert_tiny", inputs, x, [seq, n]), {"input_ids": ids}


def gpt2():
    seq, n, heads, vocab, layers = 128, 256, 4, 8192, 2
    g = Graph(2)
    wte = g.weight("embed.wte", [vocab, n], 0.02)
    tok = g.op("Gather", [wte, "input_ids"], "embed/tokens")
    x = g.op("Add", [tok, g.weight("embed.wpe", [seq, n], 0.01)], "embed/positions")
    mask = g.const("causal_mask", np.triu(np.full((seq, seq), -1e9, np.float32), 1))
    for i in range(layers):
        x = transformer_layer(g, x, seq, n, heads, 4 * n, f"h{i}", pre_norm=True, mask=mask)
    x = g.layer_norm(x, n, "head/ln_f")
    wte_t = g.const("head.wte_t", numpy_helper.to_array(g.inits[0]).T.copy())
    logits = g.op("MatMul", [x, wte_t], "head/logits")
    ids = np.random.default_rng(8).integers(0, vocab, seq).astype(np.int64)
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [seq])]
    return g.model("gpt2", inputs, logits, [seq, vocab]), {"input_ids": ids}


def resnet18():
    g = Graph(3)

    def conv(x, c_in, c_out, k, stride, name, relu=True):
        w = g.weight(f"{name}.w", [c_out, c_in, k, k], np.sqrt(2.0 / (c_in * k * k)))
        b = g.weight(f"{name}.b", [c_out], 0.05)
        y = g.op("Conv", [x, w, b], f"{name}/conv", kernel_shape=[k, k], strides=[stride, stride],
                 pads=[k // 2] * 4)
        return g.op("Relu", [y], f"{name}/relu") if relu else y

    x = conv("input", 3, 64, 7, 2, "stem")
    x = g.op("MaxPool", [x], "stem/maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = 64
    for stage, (c_out, stride) in enumerate([(64, 1), (128, 2), (256, 2), (512, 2)], start=1):
        for block in range(2):
            s = stride if block == 0 else 1
            name = f"layer{stage}/block{block}"
            y = conv(x, c, c_out, 3, s, f"{name}/a")
            y = conv(y, c_out, c_out, 3, 1, f"{name}/b", relu=False)
            skip = conv(x, c, c_out, 1, s, f"{name}/down", relu=False) if (s != 1 or c != c_out) else x
            x = g.op("Relu", [g.op("Add", [y, skip], f"{name}/add")], f"{name}/relu")
            c = c_out
    x = g.op("GlobalAveragePool", [x], "head/pool")
    x = g.op("Flatten", [x], "head/flatten", axis=1)
    w = g.weight("head.fc.w", [1000, 512])
    b = g.weight("head.fc.b", [1000], 0.01)
    logits = g.op("Gemm", [x, w, b], "head/fc", transB=1)
    image = np.random.default_rng(9).standard_normal((1, 3, 224, 224)).astype(np.float32)
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])]
    return g.model("resnet18", inputs, logits, [1, 1000]), {"input": image}


BUILDERS = {"bert_tiny": bert_tiny, "gpt2": gpt2, "resnet18": resnet18}


def save_with_reference(model, feeds, out, name):
    """Writes OUT/NAME.onnx, each feed as OUT/NAME.<input>.npy and
    onnxruntime's output (one thread, CPU) for them as OUT/NAME.out.npy;
    returns the model's path. Also used by test/e2e/onnx/Inputs."""
    path = os.path.join(out, f"{name}.onnx")
    onnx.save(model, path)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    (result,) = session.run(None, feeds)
    for key, value in feeds.items():
        np.save(os.path.join(out, f"{name}.{key}.npy"), value)
    np.save(os.path.join(out, f"{name}.out.npy"), result)
    return path


def main(out, names):
    os.makedirs(out, exist_ok=True)
    for name in names or list(BUILDERS):
        model, feeds = BUILDERS[name]()
        path = save_with_reference(model, feeds, out, name)
        weights = sum(numpy_helper.to_array(t).nbytes for t in model.graph.initializer)
        print(f"{name}: {len(model.graph.node)} nodes, {weights / 2**20:.1f} MiB of weights -> {path}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
