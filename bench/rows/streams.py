"""Memory-bound kernels at memory speed (issue 28 item 4): on 64 MiB f32
operands, (bytes read + written) / time of a whole Fleet program against
the same for one memcpy of 64 MiB (2 streams: 128 MiB moved).

  BWsum   row sum, [4096, 4096] -> [4096]: 64 MiB read
  BWsmax  softmax over rows, [4096, 4096]: 64 MiB read + 64 MiB written
          (the minimum; a kernel that reads a row twice counts it once)
  BWadd   a + b -> c, 16M elements each: 3 streams, 192 MiB
Fleet: bench/rows/_programs.py (one worker, a warm call's makespan, checked
against numpy); memcpy: `fleet-kernel-bench --memcpy`. Best of 5
alternating. Goal >= 0.8 each.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _programs  # noqa: E402

ROUNDS = 5
ROWS, COLS = 4096, 4096
MIB = 1 << 20
T = f"tensor<{ROWS}x{COLS}xf32>"
V = f"tensor<{ROWS * COLS}xf32>"

SOURCES = {
    "BWsum": f"""func.func @main(%x: {T}) -> tensor<{ROWS}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{ROWS}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{ROWS}xf32>) -> tensor<{ROWS}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}} ins(%x : {T}) outs(%f : tensor<{ROWS}xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<{ROWS}xf32>
  return %r : tensor<{ROWS}xf32>
}}
""",
    "BWsmax": f"""func.func @main(%x: {T}) -> {T} {{
  %e = tensor.empty() : {T}
  %r = linalg.softmax dimension(1) ins(%x : {T}) outs(%e : {T}) -> {T}
  return %r : {T}
}}
""",
    "BWadd": f"""func.func @main(%a: {V}, %b: {V}) -> {V} {{
  %r = arith.addf %a, %b : {V}
  return %r : {V}
}}
""",
}
FIGURES = {
    "BWsum": "row sum 64 MiB, bytes/s vs memcpy",
    "BWsmax": "softmax 64 MiB, bytes/s vs memcpy",
    "BWadd": "3-stream add 64 MiB each, bytes/s vs memcpy",
}
BYTES = {"BWsum": 64 * MIB + ROWS * 4, "BWsmax": 128 * MIB,
         "BWadd": 192 * MIB}


def rows(Row):
    return [Row(key, FIGURES[key], ">= 0.80", lambda v: v >= 0.8)
            for key in SOURCES]


def make_case(key, rng):
    import numpy as np
    if key == "BWadd":
        a = rng.standard_normal(ROWS * COLS).astype(np.float32)
        b = rng.standard_normal(ROWS * COLS).astype(np.float32)
        inputs, expected, threshold = [a, b], a + b, 1e-6
    else:
        x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
        inputs = [x]
        if key == "BWsum":
            expected = x.astype(np.float64).sum(axis=1)
            threshold = 1e-3
        else:
            z = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
            expected = z / z.sum(axis=1, keepdims=True)
            threshold = 1e-6
    return _programs.Case(SOURCES[key], inputs,
                          expected.astype(np.float32),
                          ["--memcpy", str(64 * MIB), "3"], threshold)


def measure(build, rows, tools):
    wanted = [key for key in SOURCES if key in rows]
    if not wanted:
        return
    import numpy as np
    bench = _programs.build_reference(build, rows, wanted, tools)
    if bench is None:
        return
    work = tempfile.mkdtemp(prefix="fleet-streams-bench-")
    try:
        for key in wanted:
            case = make_case(key, np.random.default_rng(28))
            try:
                fleet_ms, copy_ms, _ = _programs.compare(
                    build, tools, work, key, case, dict(os.environ), ROUNDS)
            except RuntimeError as error:
                rows[key].note = str(error)
                continue
            fleet_gbs = BYTES[key] / fleet_ms / 1e6
            copy_gbs = 128 * MIB / copy_ms / 1e6
            ratio = fleet_gbs / copy_gbs
            rows[key].set(ratio, f"{ratio:.2f}",
                          f"Fleet {fleet_ms:.2f} ms ({fleet_gbs:.1f} GB/s), "
                          f"memcpy 64 MiB {copy_ms:.2f} ms "
                          f"({copy_gbs:.1f} GB/s), matches numpy")
    finally:
        shutil.rmtree(work, ignore_errors=True)
