"""fleet-import's weights: each byte of a model's big initializers is held
once on the way from the .onnx file to the printed module (docs/onnx.md
"Memory").

Without care every step copies them: onnx's checker and shape inference
serialize and re-parse the whole model, torch-mlir's importer copies each
`raw_data` out of the protobuf, and printing builds each blob's hex text
in memory. Here:

1. `set_aside(model)` takes every initializer of at least `THRESHOLD`
   bytes out of the graph before checking and shape inference (it becomes a
   typed graph input meanwhile, so both still see its type and shape) and
   keeps its bytes; `restore_stubs(model, aside)` puts data-less
   initializers back into the inferred model.
2. `importer_reads_aside(aside)` makes torch-mlir's importer build those
   initializers' attributes from the kept bytes (one copy, into the MLIR
   context; the kept bytes are dropped after the import).
3. Fleet's input form makes each weight a `dense_resource` global over a
   zero-copy view of the attribute (fleet_import.to_fleet_form), prints the
   module with resources of at least `THRESHOLD` bytes elided, and
   `write_resources` appends them as a second `dialect_resources` section,
   hex-encoded a chunk at a time.

Smaller initializers (shape operands, biases) take the ordinary path: the
checker and shape inference may need their values.
"""
import numpy as np

THRESHOLD = 1 << 20  # bytes
_CHUNK = 1 << 22  # bytes hex-encoded per write

# ONNX TensorProto.DataType -> bytes per element (the types raw_data holds
# at a fixed width; others stay in the graph).
# The numpy view of each, bf16 as its bits (the MLIR type says what they are).
_DTYPE = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
          6: np.int32, 7: np.int64, 10: np.float16, 11: np.float64,
          12: np.uint32, 13: np.uint64, 16: np.uint16}
_ITEMSIZE = {k: np.dtype(v).itemsize for k, v in _DTYPE.items()}


class Aside:
    """The bytes of the set-aside initializers, by name, and the graph
    inputs added in their place."""

    def __init__(self):
        self.data = {}  # name -> bytes
        self.meta = {}  # name -> (dims, data_type)
        self.added_inputs = []

    def __bool__(self):
        return bool(self.data)


def set_aside(model, error):
    """Moves initializers of >= THRESHOLD bytes out of `model` (in place).
    A raw_data size that does not match the declared shape is reported
    through error(message), as onnx's checker would."""
    from onnx import helper
    aside = Aside()
    graph = model.graph
    inputs = {i.name for i in graph.input}
    for tensor in list(graph.initializer):
        if not tensor.HasField("raw_data") or tensor.data_type not in _ITEMSIZE:
            continue
        raw = tensor.raw_data
        if len(raw) < THRESHOLD:
            continue
        want = int(np.prod(tensor.dims, dtype=np.int64)) * _ITEMSIZE[tensor.data_type]
        if len(raw) != want:
            error(f"initializer '{tensor.name}' has {len(raw)} bytes of raw_data, "
                  f"its shape and type need {want}")
        aside.data[tensor.name] = raw
        aside.meta[tensor.name] = (list(tensor.dims), tensor.data_type)
        if tensor.name not in inputs:
            graph.input.append(helper.make_tensor_value_info(
                tensor.name, tensor.data_type, list(tensor.dims)))
            aside.added_inputs.append(tensor.name)
        graph.initializer.remove(tensor)
    return aside


def restore_stubs(model, aside):
    """Puts data-less initializers for the set-aside ones into `model` (the
    inferred copy) and removes the inputs set_aside added."""
    from onnx import TensorProto
    added = set(aside.added_inputs)
    for graph_input in [i for i in model.graph.input if i.name in added]:
        model.graph.input.remove(graph_input)
    for name, (dims, data_type) in aside.meta.items():
        model.graph.initializer.append(
            TensorProto(name=name, dims=dims, data_type=data_type))


def importer_reads_aside(aside):
    """A context manager: while active, torch-mlir's importer builds each
    set-aside initializer (a data-less stub) from the kept bytes."""
    import contextlib
    from torch_mlir import ir
    from torch_mlir.extras import onnx_importer

    cache = onnx_importer.ContextCache
    original = cache.tensor_proto_to_attr

    def tensor_proto_to_attr(self, tp):
        raw = aside.data.get(tp.name)
        if raw is None or tp.HasField("raw_data"):
            return original(self, tp)
        shaped = self.tensor_proto_to_builtin_type(tp)
        view = np.frombuffer(raw, dtype=_DTYPE[tp.data_type]).reshape(
            list(shaped.shape))
        # Raw little-endian bytes, as raw_data holds them.
        return ir.DenseElementsAttr.get(view, type=shaped.element_type,
                                        shape=list(shaped.shape))

    @contextlib.contextmanager
    def patched():
        cache.tensor_proto_to_attr = tensor_proto_to_attr
        try:
            yield
        finally:
            cache.tensor_proto_to_attr = original
    return patched()


def write_resources(out, blobs):
    """Appends `{-# dialect_resources: {builtin: {...}} #-}` for `blobs`
    ([(name, array, alignment)]) to the text stream `out`, a chunk at a
    time."""
    if not blobs:
        return
    out.write("\n{-#\n  dialect_resources: {\n    builtin: {\n")
    for i, (name, array, alignment) in enumerate(blobs):
        data = memoryview(np.ascontiguousarray(array)).cast("B")
        out.write(f'      {name}: "0x{alignment.to_bytes(4, "little").hex().upper()}')
        for start in range(0, len(data), _CHUNK):
            out.write(data[start:start + _CHUNK].hex().upper())
        out.write('"' + ("," if i + 1 < len(blobs) else "") + "\n")
    out.write("    }\n  }\n#-}\n")
