"""ONNX -> Fleet's input form, through torch-mlir (docs/onnx.md).

    fleet-import model.onnx -o model.mlir [--input-shape=NAME=1x3x224x224]...
                 [--place=N:NODE_PREFIX]...

1. onnx loads, checks and shape-infers the model, after --input-shape has
   fixed the dims of the named graph inputs (every input must end up static).
2. torch-mlir's ONNX importer turns it into the torch dialect;
   torch-mlir's `torch-onnx-to-torch-backend-pipeline` and
   `torch-backend-to-linalg-on-tensors-backend-pipeline` lower it to
   linalg-on-tensors.
3. Fleet's input form: the entry function is `main`; each non-splat tensor
   constant (the weights) becomes an immutable `util.global` whose initial
   value is a `dense_resource` blob (binary, never decimal text) read with
   `util.global.load`; `--place` puts the ops lowered from ONNX nodes whose
   name starts with a prefix on device N (`stream.affinity`).
4. The module is printed in MLIR's generic op form (torch-mlir carries a newer
   MLIR than Debian's 22; the generic form is what both parse).

Big weights are held once on the way (weights.py): set aside before onnx's
checker and shape inference, built into the MLIR context from the kept
bytes, viewed (not copied) by the resource globals and printed a chunk at a
time. The import runs in a forked child that reads the model and writes the
output itself (convert_isolated, import_file).

Errors are one line on stderr, `fleet-import: error: ...`, exit status 1.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import weights  # noqa: E402


class ImportError_(Exception):
    """A user-facing error: printed as one line, exit status 1."""


class NotLowerable(ImportError_):
    """torch-mlir's importer or its torch -> linalg pipeline failed."""


def _load_deps():
    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
        from torch_mlir import ir  # noqa: F401
    except Exception as e:  # ImportError and broken installs alike
        raise ImportError_(
            f"the Python environment ({sys.executable}) lacks onnx/torch-mlir ({e}); "
            "run scripts/bootstrap to create .venv, or set FLEET_PYTHON")


def parse_shape(text):
    """'NAME=1x3x224x224' -> (NAME, [1, 3, 224, 224]). NAME may hold '='."""
    name, sep, dims = text.rpartition("=")
    if not sep or not name:
        raise ImportError_(f"--input-shape={text}: expected NAME=D0xD1x... (e.g. input=1x3x224x224)")
    if dims in ("", "scalar"):
        return name, []
    try:
        values = [int(d) for d in dims.split("x")]
    except ValueError:
        values = None
    if not values or any(v < 0 for v in values):
        raise ImportError_(f"--input-shape={text}: '{dims}' is not a shape like 1x3x224x224")
    return name, values


def parse_place(text):
    """'N:PREFIX' -> (N, PREFIX)."""
    n, sep, prefix = text.partition(":")
    if not sep or not n.isdigit():
        raise ImportError_(f"--place={text}: expected N:NODE_PREFIX (e.g. 1:/layer2/)")
    return int(n), prefix


def load_model(path):
    import onnx
    from google.protobuf.message import DecodeError
    if not os.path.exists(path):
        raise ImportError_(f"{path}: no such file")
    try:
        return onnx.load(path)
    except (DecodeError, ValueError, RuntimeError, OSError, UnicodeDecodeError) as e:
        raise ImportError_(f"{path}: not a valid ONNX model ({_one_line(e)})")


def _one_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def fix_input_shapes(model, shapes, origin):
    """Applies --input-shape and checks that every graph input is static."""
    init_names = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in init_names]
    by_name = {i.name: i for i in inputs}
    for name in shapes:
        if name not in by_name:
            known = ", ".join(f"'{n}'" for n in by_name) or "none"
            raise ImportError_(f"{origin}: --input-shape names '{name}', which is not a graph input (inputs: {known})")
    for inp in inputs:
        if not inp.type.HasField("tensor_type"):
            raise ImportError_(f"{origin}: input '{inp.name}' is not a tensor (only tensor inputs are supported)")
        tt = inp.type.tensor_type
        dims = tt.shape.dim
        if inp.name in shapes:
            want = shapes[inp.name]
            if tt.HasField("shape") and len(dims) != len(want):
                raise ImportError_(
                    f"{origin}: --input-shape={inp.name}={'x'.join(map(str, want))} has rank {len(want)}, "
                    f"but input '{inp.name}' has rank {len(dims)} ({_dims_text(dims)})")
            for i, (d, w) in enumerate(zip(dims, want)):
                if d.HasField("dim_value") and d.dim_value != w:
                    raise ImportError_(
                        f"{origin}: --input-shape={inp.name}={'x'.join(map(str, want))} does not match "
                        f"input '{inp.name}' of shape {_dims_text(dims)} (dim {i} is {d.dim_value})")
            if not tt.HasField("shape"):
                for _ in want:
                    tt.shape.dim.add()
            for d, w in zip(tt.shape.dim, want):
                d.ClearField("dim_param")
                d.dim_value = w
            continue
        if not tt.HasField("shape"):
            raise ImportError_(f"{origin}: input '{inp.name}' has an unknown rank; give --input-shape={inp.name}=D0xD1x...")
        for i, d in enumerate(dims):
            if not d.HasField("dim_value"):
                raise ImportError_(
                    f"{origin}: input '{inp.name}' has a dynamic dimension {i} ({_dims_text(dims)}); "
                    f"fix it with --input-shape={inp.name}=" + "x".join(
                        str(x.dim_value) if x.HasField("dim_value") else "N" for x in dims))


def _dims_text(dims):
    return "x".join(str(d.dim_value) if d.HasField("dim_value") else (d.dim_param or "?") for d in dims) or "scalar"


def infer_shapes(model, origin):
    import onnx
    try:
        onnx.checker.check_model(model)
    except Exception as e:
        raise ImportError_(f"{origin}: invalid ONNX model: {_one_line(e)}")
    try:
        return onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception as e:
        raise ImportError_(f"{origin}: ONNX shape inference failed: {_one_line(e)}")


class _Diagnostics:
    """Collects MLIR error diagnostics (message and location) of a context."""

    def __init__(self, context):
        self.errors = []
        self.handle = context.attach_diagnostic_handler(self._on)

    def _on(self, d):
        from torch_mlir import ir
        if d.severity == ir.DiagnosticSeverity.ERROR:
            self.errors.append((str(d.location), str(d.message)))
        return True

    def first(self):
        return self.errors[0] if self.errors else None


def _node_of(loc_text):
    """loc("fc1") / loc(fused["fc1", ...]) -> 'fc1'."""
    m = re.search(r'"([^"]*)"', loc_text)
    return m.group(1) if m else None


def import_to_torch(model, context, origin):
    from torch_mlir.extras import onnx_importer
    from torch_mlir.dialects import torch as torch_d
    torch_d.register_dialect(context)
    try:
        info = onnx_importer.ModelInfo(model, config=onnx_importer.Config())
        module = info.create_module(context=context).operation
        imp = onnx_importer.NodeImporter.define_function(info.main_graph, module)
        imp.import_all()
    except Exception as e:
        raise NotLowerable(f"{origin}: torch-mlir's ONNX importer failed: {_one_line(e)}")
    return module


def lower_to_linalg(module, context, diags, origin):
    from torch_mlir import ir
    from torch_mlir.passmanager import PassManager
    # Every node's op keeps its ONNX node name as location; an error names it.
    for op in _walk(module):
        if op.name == "torch.operator":
            kind = ir.StringAttr(op.attributes["name"]).value
            if not kind.startswith("onnx."):
                pass
    pipeline = ("builtin.module(torch-onnx-to-torch-backend-pipeline,"
                "torch-backend-to-linalg-on-tensors-backend-pipeline)")
    try:
        pm = PassManager.parse(pipeline, context=context)
        pm.run(module)
    except ir.MLIRError as e:
        raise NotLowerable(f"{origin}: torch-mlir cannot lower {_describe_error(e, diags, module)}")
    except Exception as e:
        raise NotLowerable(f"{origin}: torch-mlir cannot lower the model: {_one_line(e)}")


def _describe_error(e, diags, module):
    found = None
    for d in getattr(e, "error_diagnostics", []) or []:
        found = (str(d.location), str(d.message))
        break
    if found is None:
        found = diags.first()
    if found is None:
        return f"the model: {_one_line(e)}"
    loc, message = found
    node = _node_of(loc)
    message = message.strip().splitlines()[0] if message.strip() else "failed"
    op = re.search(r'torch\.operator.*name = "onnx\.([A-Za-z0-9_]+)"', message)
    if op:
        message = f"ONNX op '{op.group(1)}' has no lowering in torch-mlir"
    elif len(message) > 300:
        message = message[:300] + "..."
    return (f"node '{node}': {message}" if node else f"the model: {message}")


def _walk(op):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                yield inner
                yield from _walk(inner)


def _not_lowered(module):
    """The first op left in the torch dialect (the pipeline leaves them when
    a conversion is missing without always failing)."""
    for op in _walk(module):
        if op.name.startswith("torch."):
            return op
    return None


def to_fleet_form(module, context, origin, places):
    """Renames the entry to main, hoists weights into resource globals and
    places ops (see the module docstring)."""
    import numpy as np
    from torch_mlir import ir
    body = module.regions[0].blocks[0]
    funcs = [op for op in body.operations if op.operation.name == "func.func"]
    if len(funcs) != 1:
        raise ImportError_(f"{origin}: expected one function after lowering, found {len(funcs)}")
    func = funcs[0].operation
    left = _not_lowered(func)
    if left is not None:
        kind = left.name
        if kind == "torch.operator":
            kind = ir.StringAttr(left.attributes["name"]).value
        node = _node_of(str(left.location))
        where = f"node '{node}'" if node else "the model"
        raise NotLowerable(f"{origin}: torch-mlir cannot lower {where}: '{kind}' is left unconverted")
    func.attributes["sym_name"] = ir.StringAttr.get("main")
    for key in [getattr(a, "name", a) for a in func.attributes
                if getattr(a, "name", a).startswith("torch.")]:
        del func.attributes[key]

    # Weights: non-splat tensor constants -> util.global + util.global.load.
    # Each global's resource views the constant's own storage (the MLIR
    # context keeps it alive); they are returned to be printed apart.
    blobs = []
    index = 0
    globals_ = []
    used = set()
    for op in list(_walk(func)):
        if op.name != "arith.constant":
            continue
        value = op.attributes["value"]
        if not isinstance(value, ir.DenseElementsAttr):
            continue
        dense = value
        if dense.is_splat:
            continue
        ty = dense.type
        try:
            array = np.asarray(dense)
        except Exception:
            array = None
        if array is None or isinstance(ty.element_type, ir.IntegerType) and \
                ty.element_type.width == 1:
            array = None
        if array is None:
            continue  # i1 and element types numpy cannot hold stay inline
        name = _global_name(op, index, used)
        index += 1
        array = np.ascontiguousarray(array)
        resource = ir.DenseResourceElementsAttr.get_from_buffer(
            array, name, ty, alignment=array.dtype.alignment)
        blobs.append((name, array, array.dtype.alignment))
        with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
            g = ir.Operation.create(
                "util.global",
                attributes={
                    "sym_name": ir.StringAttr.get(name),
                    "sym_visibility": ir.StringAttr.get("private"),
                    "type": ir.TypeAttr.get(ty),
                    "initial_value": resource,
                })
            globals_.append(g)
        with ir.InsertionPoint(op), op.location:
            load = ir.Operation.create(
                "util.global.load", results=[ty],
                attributes={"global": ir.FlatSymbolRefAttr.get(name)})
        op.results[0].replace_all_uses_with(load.results[0])
        op.erase()

    if places:
        ordinals = sorted({n for n, _ in places} | {0})
        with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
            for n in range(max(ordinals) + 1):
                ir.Operation.create(
                    "util.global",
                    attributes={
                        "sym_name": ir.StringAttr.get(f"device_{n}"),
                        "sym_visibility": ir.StringAttr.get("private"),
                        "type": ir.TypeAttr.get(ir.Type.parse("!hal.device")),
                        "initial_value": ir.Attribute.parse(
                            f'#hal.device.target<"local", {{ordinal = {n} : index}}>'),
                    })
        matched = {p: 0 for _, p in places}
        for op in _walk(func):
            if op.name in ("func.return", "util.global.load", "linalg.yield", "tensor.yield") or \
                    op.parent.operation.name != "func.func":
                continue
            node = _node_of(str(op.location))
            if node is None:
                continue
            for n, prefix in places:
                if node.startswith(prefix):
                    op.attributes["stream.affinity"] = ir.Attribute.parse(
                        f"#hal.device.affinity<@device_{n}>")
                    matched[prefix] += 1
                    break
        for prefix, count in matched.items():
            if count == 0:
                raise ImportError_(f"{origin}: --place prefix '{prefix}' matches no ONNX node of the model")
        # Results come back from device 0 (the first --device of fleet-run).
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        res = ir.Attribute.parse(
            "[" + ", ".join("{iree.abi.affinity = #hal.device.affinity<@device_0>}"
                            for _ in ftype.results) + "]")
        func.attributes["res_attrs"] = res
    return blobs


def _global_name(op, index, used):
    node = _node_of(str(op.location)) or "constant"
    base = re.sub(r"[^A-Za-z0-9_]", "_", node).strip("_") or "constant"
    name = f"__w{index}_{base}"[:64]
    while name in used:
        name += "_"
    used.add(name)
    return name


def convert(model, origin, out, shapes=None, places=None, stage=None):
    """ModelProto (or the path of a .onnx file) -> Fleet's input form,
    written to the text stream `out`. Consumes `model` (its big
    initializers are moved out). Raises ImportError_.
    stage(name), when given, is told each step before it starts."""
    import gc
    from torch_mlir import ir
    stage = stage or (lambda name: None)
    if isinstance(model, str):
        stage("reading the model")
        model = load_model(model)
    fix_input_shapes(model, shapes or {}, origin)
    stage("shape inference")
    aside = weights.set_aside(model, lambda m: _raise(f"{origin}: invalid ONNX model: {m}"))
    model = infer_shapes(model, origin)
    gc.collect()  # the model before inference, if nothing else holds it
    weights.restore_stubs(model, aside)
    context = ir.Context()
    context.allow_unregistered_dialects = True
    diags = _Diagnostics(context)
    with context:
        stage("torch-mlir's importer")
        with weights.importer_reads_aside(aside):
            module = import_to_torch(model, context, origin)
        del model, aside
        gc.collect()
        stage("torch-mlir's lowering")
        lower_to_linalg(module, context, diags, origin)
        stage("Fleet's input form")
        blobs = to_fleet_form(module, context, origin, places or [])
        stage("printing")
        # The weights' resources are written apart, a chunk at a time, when
        # they are the only resources left (MLIR then elides them all).
        apart = blobs and not _other_resources(func_of(module))
        module.print(file=out, print_generic_op_form=True, assume_verified=True,
                     enable_debug_info=True,
                     large_resource_limit=0 if apart else None)
        if apart:
            weights.write_resources(out, blobs)


def func_of(module):
    body = module.regions[0].blocks[0]
    return [op for op in body.operations if op.operation.name == "func.func"][0].operation


def _other_resources(func):
    """Whether an op of `func` still holds a dense_resource attribute (one
    torch-mlir left, not a weight global)."""
    from torch_mlir import ir
    for op in _walk(func):
        attributes = op.attributes
        for i in range(len(attributes)):
            try:
                ir.DenseResourceElementsAttr(attributes[i].attr)
                return True
            except ValueError:
                pass
    return False


def _raise(message):
    raise ImportError_(message)


def _run_isolated(work, what):
    """Runs work(stage) in a forked child, so that a crash of the native code
    (torch-mlir's pipeline dies of SIGFPE on some models) becomes an error
    naming the step instead of killing the caller."""
    import pickle
    import signal
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the steps and the outcome, then _exit
        os.close(read_fd)
        out = os.fdopen(write_fd, "wb")

        def send(item):
            pickle.dump(item, out)
            out.flush()
        try:
            work(lambda n: send(("stage", n)))
            send(("ok", None))
        except NotLowerable as e:
            send(("not-lowerable", str(e)))
        except ImportError_ as e:
            send(("error", str(e)))
        except BaseException as e:
            send(("error", f"{what}: internal error: {type(e).__name__}: {_one_line(e)}"))
        finally:
            try:
                out.close()
            finally:
                os._exit(0)
    os.close(write_fd)
    stage, result = None, None
    with os.fdopen(read_fd, "rb") as inp:
        while True:
            try:
                item = pickle.load(inp)
            except EOFError:
                break
            if item[0] == "stage":
                stage = item[1]
            else:
                result = item
    _, status = os.waitpid(pid, 0)
    if result is None:
        why = (f"signal {signal.Signals(os.WTERMSIG(status)).name}" if os.WIFSIGNALED(status)
               else f"exit status {os.WEXITSTATUS(status)}")
        message = f"{what}: {stage or 'the import'} crashed ({why})"
        if stage in ("torch-mlir's importer", "torch-mlir's lowering"):
            raise NotLowerable(message)
        raise ImportError_(message)
    if result[0] == "not-lowerable":
        raise NotLowerable(result[1])
    if result[0] == "error":
        raise ImportError_(result[1])


def import_file(path, output, shapes=None, places=None):
    """Imports the .onnx file `path` into `output` ('-': stdout) in a forked
    child that reads the model and writes the result itself. A failed
    import leaves no output file."""
    import tempfile
    directory = os.path.dirname(os.path.abspath(output)) if output != "-" else None
    fd, temp = tempfile.mkstemp(prefix=".fleet-import-", suffix=".mlir", dir=directory)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temp, 0o666 & ~umask)  # as open() would have made it
    try:
        def work(stage):
            with open(temp, "w") as out:
                convert(path, path, out, shapes, places, stage)
        _run_isolated(work, path)
        if output == "-":
            import shutil
            with open(temp) as f:
                shutil.copyfileobj(f, sys.stdout, 1 << 20)
        else:
            os.replace(temp, output)
            temp = None
    finally:
        if temp and os.path.exists(temp):
            os.unlink(temp)


def convert_isolated(model, origin, shapes=None, places=None):
    """convert() of a ModelProto in a forked child; returns the text."""
    import tempfile
    with tempfile.NamedTemporaryFile("r", suffix=".mlir") as f:
        def work(stage):
            with open(f.name, "w") as out:
                convert(model, origin, out, shapes, places, stage)
        _run_isolated(work, origin)
        return f.read()


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="fleet-import",
        description="ONNX model -> Fleet's input MLIR (linalg-on-tensors, entry @main, weights as resource globals)")
    parser.add_argument("input", help="the .onnx model")
    parser.add_argument("-o", dest="output", default="-", help="output .mlir (default: stdout)")
    parser.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0xD1x...",
                        help="fixes the shape of graph input NAME (repeatable)")
    parser.add_argument("--place", action="append", default=[], metavar="N:NODE_PREFIX",
                        help="runs the nodes whose ONNX name starts with NODE_PREFIX on device N (repeatable)")
    args = parser.parse_args(argv)
    try:
        _load_deps()
        shapes = dict(parse_shape(s) for s in args.input_shape)
        places = [parse_place(p) for p in args.place]
        if not os.path.exists(args.input):
            raise ImportError_(f"{args.input}: no such file")
        import_file(args.input, args.output, shapes, places)
    except ImportError_ as e:
        print(f"fleet-import: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # never a traceback
        print(f"fleet-import: error: {args.input}: internal error: {type(e).__name__}: {_one_line(e)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
