"""Fails when an imported module holds a decimal `dense<...>` literal over
1 KiB of text (weights must be dense_resource blobs, docs/onnx.md), or when
it has no dense_resource at all while the model has weights (--expect-resources).

  check_weights.py FILE.mlir [--expect-resources]
"""
import re
import sys


def main(path, expect_resources):
    text = open(path).read()
    body, _, resources = text.partition("{-#")
    for m in re.finditer(r"dense<", body):
        start = m.end()
        depth, i = 1, start
        while depth and i < len(body):
            depth += {"<": 1, ">": -1}.get(body[i], 0)
            i += 1
        literal = body[start:i - 1]
        if len(literal) > 1024 and not literal.startswith('"0x'):
            line = body.count("\n", 0, m.start()) + 1
            print(f"{path}:{line}: decimal dense<...> literal of {len(literal)} characters")
            return 1
    if expect_resources and "dense_resource<" not in body:
        print(f"{path}: no dense_resource weights")
        return 1
    print(f"{path}: weights OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], "--expect-resources" in sys.argv[2:]))
