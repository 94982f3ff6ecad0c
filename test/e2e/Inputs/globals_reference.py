"""Programs and numpy references for the tensor-global e2e tests.

  globals_reference.py weights PREFIX
      writes PREFIX.mlir: an immutable 8x8 weight global (home: device A)
      used by matmuls on device A and device B, and a mutable accumulator
      global; plus PREFIX{xa,xb,ya,yb}.npy with ya = xa @ w, yb = xb @ w
      (float64 math stored as float32).
  globals_reference.py weights-discrete PREFIX
      the same with device B declared discrete (it does not reach A's
      memory).
"""
import sys

import numpy as np

N = 8


def weights(prefix, discrete):
    rng = np.random.default_rng(19)
    w = (np.arange(N * N, dtype=np.float32).reshape(N, N) / 16.0 - 1.5)
    xa = rng.standard_normal((N, N)).astype(np.float32)
    xb = rng.standard_normal((N, N)).astype(np.float32)
    np.save(prefix + "xa.npy", xa)
    np.save(prefix + "xb.npy", xb)
    np.save(prefix + "ya.npy", (xa.astype(np.float64) @ w).astype(np.float32))
    np.save(prefix + "yb.npy", (xb.astype(np.float64) @ w).astype(np.float32))
    rows = ", ".join("[" + ", ".join(f"{v:.6f}" for v in row) + "]" for row in w)
    t = f"tensor<{N}x{N}xf32>"
    matmul = """
    %{r} = linalg.matmul ins(%{x}, %w : {t}, {t}) outs(%{f} : {t}) -> {t}"""
    b_attrs = "discrete = true, " if discrete else ""
    with open(prefix + "mlir", "w") as f:
        f.write(f"""module {{
  util.global private @device_a = #hal.device.target<"local", {{ordinal = 0 : index}}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {{{b_attrs}ordinal = 1 : index}}> : !hal.device
  util.global private @w = dense<[{rows}]> : {t}
  util.global private mutable @acc = dense<0.0> : tensor<4xf32>

  func.func @two(%xa: {t} {{iree.abi.affinity = #hal.device.affinity<@device_a>}},
                 %xb: {t} {{iree.abi.affinity = #hal.device.affinity<@device_b>}})
      -> ({t} {{iree.abi.affinity = #hal.device.affinity<@device_a>}},
          {t} {{iree.abi.affinity = #hal.device.affinity<@device_b>}}) {{
    %w = util.global.load @w : {t}
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : {t}
    %fa = linalg.fill ins(%z : f32) outs(%e : {t}) -> {t}
    %eb = flow.tensor.transfer %e : {t} to #hal.device.affinity<@device_b>
    %fb = linalg.fill ins(%z : f32) outs(%eb : {t}) -> {t}"""
                + matmul.format(r="ya", x="xa", f="fa", t=t)
                + matmul.format(r="yb", x="xb", f="fb", t=t) + f"""
    return %ya, %yb : {t}, {t}
  }}

  func.func @accumulate(%x: tensor<4xf32>) -> tensor<4xf32> {{
    %a = util.global.load @acc : tensor<4xf32>
    %s = arith.addf %a, %x : tensor<4xf32>
    util.global.store %s, @acc : tensor<4xf32>
    return %s : tensor<4xf32>
  }}
}}
""")


if __name__ == "__main__":
    weights(sys.argv[2], discrete=sys.argv[1] == "weights-discrete")
