#!/usr/bin/env python3
"""GPT-2-style transformer block: MLIR program generator and numpy reference.

One script owns both sides of the sample so the program and its reference
cannot drift apart:

  transformer_block.py mlir [--devices 1|2] [--micro-batches N] [--discrete-b|--remote-b]
                           [--vulkan-b [--links]]
      prints the Fleet input program. With two devices the attention half of
      the block (LayerNorm 1, multi-head causal attention, output projection,
      residual) runs on device A and the MLP half (LayerNorm 2, GELU MLP,
      residual) on device B; each micro-batch crosses from A to B once, so B
      works on micro-batch k while A already computes k+1. With one device
      everything runs on A (the baseline of the speed-up). --discrete-b
      declares B a discrete device, so the A->B transfers are real copies
      (the bytes-moved benchmark). --vulkan-b puts B on a Vulkan device
      (`#hal.device.target<"vulkan">`, run with --device=local-task
      --device=vulkan): the MLP gets SPIR-V kernels; without a topology the
      links are asked of the runtime, --links declares them
      (`#hal.device.topology`: A reaches B's mapped memory, B imports A's
      buffers) so the compiler resolves the shared buffers statically.

  transformer_block.py mlir --batched B [--devices 1|2]
      prints the same block on one [B, seq, hidden] input with the devices
      declared and nothing placed (batched.py), for
      `fleet-compile --partition=pipeline --micro-batches=K`.

  transformer_block.py data --micro-batches N --out DIR [--seed S]
  transformer_block.py data --batched B --out DIR [--seed S]
      writes the fixed-seed weights and micro-batches (the program's inputs)
      and the expected outputs, computed independently in float64 numpy, as
      .npy files, plus fleet-run response files: DIR/run.rsp (--function,
      every --input and --expected_output in argument order), inputs.rsp and
      expected.rsp (the two halves), save.rsp (--output=@DIR/ran_yK.npy) and
      same.rsp (--expected_output=@DIR/ran_yK.npy: compare with a saved run).

The checked-in transformer_block.mlir / transformer_block_1dev.mlir are this
script's output for 16 micro-batches (test/e2e/samples checks they match).
"""
import argparse
import math
import os
import sys

# Static shapes of the sample (the issue's "seq 128, hidden 256, 4 heads").
SEQ = 128
HIDDEN = 256
HEADS = 4
HEAD_DIM = HIDDEN // HEADS
MLP = 4 * HIDDEN
EPS = 1e-5

# Weights in argument order after the micro-batches: (name, shape, stage).
WEIGHTS = [
    ("ln1_gamma", (HIDDEN,), "attention"),
    ("ln1_beta", (HIDDEN,), "attention"),
    ("w_q", (HIDDEN, HIDDEN), "attention"),
    ("b_q", (HIDDEN,), "attention"),
    ("w_k", (HIDDEN, HIDDEN), "attention"),
    ("b_k", (HIDDEN,), "attention"),
    ("w_v", (HIDDEN, HIDDEN), "attention"),
    ("b_v", (HIDDEN,), "attention"),
    ("w_o", (HIDDEN, HIDDEN), "attention"),
    ("b_o", (HIDDEN,), "attention"),
    ("ln2_gamma", (HIDDEN,), "mlp"),
    ("ln2_beta", (HIDDEN,), "mlp"),
    ("w_fc", (HIDDEN, MLP), "mlp"),
    ("b_fc", (MLP,), "mlp"),
    ("w_proj", (MLP, HIDDEN), "mlp"),
    ("b_proj", (HIDDEN,), "mlp"),
]


def tensor(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def flt(value):
    """An f32 literal MLIR parses (it wants a digit before the exponent)."""
    return f"{value:.9e}"


ACT = tensor((SEQ, HIDDEN))

# Payloads of the row-wise ops, shared with batched.py (the same block on a
# batch): the variance reduction (its sum of squares), the normalize step of
# LayerNorm and GELU (tanh form) after the first MLP projection's bias.
VARIANCE_PAYLOAD = f"""    ^bb0(%v: f32, %s: f32, %acc: f32):
      %inv_n = arith.constant {flt(1.0 / HIDDEN)} : f32
      %mean = arith.mulf %s, %inv_n : f32
      %d = arith.subf %v, %mean : f32
      %d2 = arith.mulf %d, %d : f32
      %r = arith.addf %d2, %acc : f32
      linalg.yield %r : f32
"""
NORMALIZE_PAYLOAD = f"""    ^bb0(%v: f32, %s: f32, %q: f32, %g: f32, %b: f32, %out: f32):
      %inv_n = arith.constant {flt(1.0 / HIDDEN)} : f32
      %eps = arith.constant {flt(EPS)} : f32
      %mean = arith.mulf %s, %inv_n : f32
      %variance = arith.mulf %q, %inv_n : f32
      %ve = arith.addf %variance, %eps : f32
      %rstd = math.rsqrt %ve : f32
      %d = arith.subf %v, %mean : f32
      %n = arith.mulf %d, %rstd : f32
      %scaled = arith.mulf %n, %g : f32
      %r = arith.addf %scaled, %b : f32
      linalg.yield %r : f32
"""
GELU_PAYLOAD = f"""    ^bb0(%v: f32, %b: f32, %out: f32):
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %c = arith.constant {flt(math.sqrt(2.0 / math.pi))} : f32
      %k = arith.constant 0.044715 : f32
      %u = arith.addf %v, %b : f32
      %u2 = arith.mulf %u, %u : f32
      %u3 = arith.mulf %u2, %u : f32
      %ku3 = arith.mulf %u3, %k : f32
      %inner = arith.addf %u, %ku3 : f32
      %arg = arith.mulf %inner, %c : f32
      %t = math.tanh %arg : f32
      %t1 = arith.addf %t, %one : f32
      %hu = arith.mulf %u, %half : f32
      %r = arith.mulf %hu, %t1 : f32
      linalg.yield %r : f32
"""

# ---------------------------------------------------------------------------
# The MLIR program. Helper functions are private and inlined by the input
# phase; every linalg op becomes one dispatch (docs/pipeline.md §1), so the
# kernels are named ops (matmul, batch_matmul) or generics whose bodies the
# elementwise fusion cannot merge into a contraction.
# ---------------------------------------------------------------------------

def project_heads(name, shape, input_map, bias_map):
    """MLIR of `name`: x @ w + b split into heads, laid out as `shape` (a
    permutation of (HEADS, SEQ, HEAD_DIM)); `input_map` and `bias_map` index
    the product and the bias from the loops over `shape`."""
    out = tensor(shape)
    return f"""  func.func private @{name}(%x: {ACT}, %w: tensor<{HIDDEN}x{HIDDEN}xf32>, %b: tensor<{HIDDEN}xf32>) -> {out} {{
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : {ACT}
    %init = linalg.fill ins(%zero : f32) outs(%empty : {ACT}) -> {ACT}
    %mm = linalg.matmul ins(%x, %w : {ACT}, tensor<{HIDDEN}x{HIDDEN}xf32>) outs(%init : {ACT}) -> {ACT}
    %mm3 = tensor.expand_shape %mm [[0], [1, 2]] output_shape [{SEQ}, {HEADS}, {HEAD_DIM}] : {ACT} into {tensor((SEQ, HEADS, HEAD_DIM))}
    %b2 = tensor.expand_shape %b [[0, 1]] output_shape [{HEADS}, {HEAD_DIM}] : tensor<{HIDDEN}xf32> into {tensor((HEADS, HEAD_DIM))}
    %heads = tensor.empty() : {out}
    %r = linalg.generic {{indexing_maps = [{input_map}, {bias_map}, #map_hid_hid], iterator_types = ["parallel", "parallel", "parallel"]}}
        ins(%mm3, %b2 : {tensor((SEQ, HEADS, HEAD_DIM))}, {tensor((HEADS, HEAD_DIM))}) outs(%heads : {out}) {{
    ^bb0(%v: f32, %bias: f32, %out: f32):
      %s = arith.addf %v, %bias : f32
      linalg.yield %s : f32
    }} -> {out}
    return %r : {out}
  }}
"""


def causal_softmax(groups):
    """MLIR of @causal_softmax over [groups, SEQ, SEQ] scores (groups = the
    heads here, batch * heads in batched.py)."""
    scores = tensor((groups, SEQ, SEQ))
    rows = tensor((groups, SEQ))
    return f"""  func.func private @causal_softmax(%scores: {scores}) -> {scores} {{
    %lowest = arith.constant -3.40282347e+38 : f32
    %zero = arith.constant 0.0 : f32
    %rows = tensor.empty() : {rows}
    %max_init = linalg.fill ins(%lowest : f32) outs(%rows : {rows}) -> {rows}
    %max = linalg.generic {{indexing_maps = [#map_hij, #map_hi], iterator_types = ["parallel", "parallel", "reduction"]}}
        ins(%scores : {scores}) outs(%max_init : {rows}) {{
    ^bb0(%s: f32, %acc: f32):
      %i = linalg.index 1 : index
      %j = linalg.index 2 : index
      %masked = arith.cmpi ugt, %j, %i : index
      %m = arith.maximumf %s, %acc : f32
      %r = arith.select %masked, %acc, %m : f32
      linalg.yield %r : f32
    }} -> {rows}
    %e_empty = tensor.empty() : {scores}
    %e = linalg.generic {{indexing_maps = [#map_hij, #map_hi, #map_hij], iterator_types = ["parallel", "parallel", "parallel"]}}
        ins(%scores, %max : {scores}, {rows}) outs(%e_empty : {scores}) {{
    ^bb0(%s: f32, %m: f32, %out: f32):
      %i = linalg.index 1 : index
      %j = linalg.index 2 : index
      %masked = arith.cmpi ugt, %j, %i : index
      %scale = arith.constant {flt(1.0 / math.sqrt(HEAD_DIM))} : f32
      %d = arith.subf %s, %m : f32
      %t = arith.mulf %d, %scale : f32
      %x = math.exp %t : f32
      %r = arith.select %masked, %zero, %x : f32
      linalg.yield %r : f32
    }} -> {scores}
    %sum_init = linalg.fill ins(%zero : f32) outs(%rows : {rows}) -> {rows}
    %sum = linalg.generic {{indexing_maps = [#map_hij, #map_hi], iterator_types = ["parallel", "parallel", "reduction"]}}
        ins(%e : {scores}) outs(%sum_init : {rows}) {{
    ^bb0(%x: f32, %acc: f32):
      %a = arith.addf %x, %acc : f32
      linalg.yield %a : f32
    }} -> {rows}
    %p_empty = tensor.empty() : {scores}
    %p = linalg.generic {{indexing_maps = [#map_hij, #map_hi, #map_hij], iterator_types = ["parallel", "parallel", "parallel"]}}
        ins(%e, %sum : {scores}, {rows}) outs(%p_empty : {scores}) {{
    ^bb0(%x: f32, %l: f32, %out: f32):
      %q = arith.divf %x, %l : f32
      linalg.yield %q : f32
    }} -> {scores}
    return %p : {scores}
  }}

"""


HELPERS = f"""
  // LayerNorm over the hidden dimension: mean and variance as two row
  // reductions, then one elementwise normalize (3 dispatches).
  func.func private @layer_norm(%x: {ACT}, %gamma: tensor<{HIDDEN}xf32>, %beta: tensor<{HIDDEN}xf32>) -> {ACT} {{
    %zero = arith.constant 0.0 : f32
    %rows = tensor.empty() : tensor<{SEQ}xf32>
    %sum_init = linalg.fill ins(%zero : f32) outs(%rows : tensor<{SEQ}xf32>) -> tensor<{SEQ}xf32>
    %sum = linalg.generic {{indexing_maps = [#map_ij, #map_i], iterator_types = ["parallel", "reduction"]}}
        ins(%x : {ACT}) outs(%sum_init : tensor<{SEQ}xf32>) {{
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }} -> tensor<{SEQ}xf32>
    %var_init = linalg.fill ins(%zero : f32) outs(%rows : tensor<{SEQ}xf32>) -> tensor<{SEQ}xf32>
    %var = linalg.generic {{indexing_maps = [#map_ij, #map_i, #map_i], iterator_types = ["parallel", "reduction"]}}
        ins(%x, %sum : {ACT}, tensor<{SEQ}xf32>) outs(%var_init : tensor<{SEQ}xf32>) {{
{VARIANCE_PAYLOAD}    }} -> tensor<{SEQ}xf32>
    %empty = tensor.empty() : {ACT}
    %y = linalg.generic {{indexing_maps = [#map_ij, #map_i, #map_i, #map_j, #map_j, #map_ij], iterator_types = ["parallel", "parallel"]}}
        ins(%x, %sum, %var, %gamma, %beta : {ACT}, tensor<{SEQ}xf32>, tensor<{SEQ}xf32>, tensor<{HIDDEN}xf32>, tensor<{HIDDEN}xf32>)
        outs(%empty : {ACT}) {{
{NORMALIZE_PAYLOAD}    }} -> {ACT}
    return %y : {ACT}
  }}

  // x @ w + b split into heads: [heads, seq, head_dim] (queries, values) or,
  // with the transposing map, [heads, head_dim, seq] (keys, ready for the
  // score batch_matmul).
{project_heads("project_heads", (HEADS, SEQ, HEAD_DIM), "#map_hid_ihd", "#map_hid_hd")}{project_heads("project_heads_transposed", (HEADS, HEAD_DIM, SEQ), "#map_hdi_ihd", "#map_hdi_hd")}
  // Causal softmax of q·kᵀ / sqrt(head_dim) along the key dimension: row
  // max (reduction), exponentials (elementwise), row sum (reduction),
  // normalize (elementwise). The exponentials get their own elementwise
  // dispatch (they have two users, so they are not fused into the sum): an
  // elementwise kernel vectorizes math.exp, a reduction kernel does not.
  // Masked entries (key after query) are skipped with selects, so no
  // infinity is computed.
{causal_softmax(HEADS)}  // Stage 1a: causal multi-head attention of layer_norm(x), heads merged
  // back to [seq, hidden] (the context, before the output projection).
  func.func private @attention_context(%x: {ACT},
      %ln_gamma: tensor<{HIDDEN}xf32>, %ln_beta: tensor<{HIDDEN}xf32>,
      %w_q: tensor<{HIDDEN}x{HIDDEN}xf32>, %b_q: tensor<{HIDDEN}xf32>,
      %w_k: tensor<{HIDDEN}x{HIDDEN}xf32>, %b_k: tensor<{HIDDEN}xf32>,
      %w_v: tensor<{HIDDEN}x{HIDDEN}xf32>, %b_v: tensor<{HIDDEN}xf32>) -> {ACT} {{
    %zero = arith.constant 0.0 : f32
    %ln = call @layer_norm(%x, %ln_gamma, %ln_beta) : ({ACT}, tensor<{HIDDEN}xf32>, tensor<{HIDDEN}xf32>) -> {ACT}
    %q = call @project_heads(%ln, %w_q, %b_q) : ({ACT}, tensor<{HIDDEN}x{HIDDEN}xf32>, tensor<{HIDDEN}xf32>) -> {tensor((HEADS, SEQ, HEAD_DIM))}
    %kt = call @project_heads_transposed(%ln, %w_k, %b_k) : ({ACT}, tensor<{HIDDEN}x{HIDDEN}xf32>, tensor<{HIDDEN}xf32>) -> {tensor((HEADS, HEAD_DIM, SEQ))}
    %v = call @project_heads(%ln, %w_v, %b_v) : ({ACT}, tensor<{HIDDEN}x{HIDDEN}xf32>, tensor<{HIDDEN}xf32>) -> {tensor((HEADS, SEQ, HEAD_DIM))}
    %scores_empty = tensor.empty() : {tensor((HEADS, SEQ, SEQ))}
    %scores_init = linalg.fill ins(%zero : f32) outs(%scores_empty : {tensor((HEADS, SEQ, SEQ))}) -> {tensor((HEADS, SEQ, SEQ))}
    %scores = linalg.batch_matmul ins(%q, %kt : {tensor((HEADS, SEQ, HEAD_DIM))}, {tensor((HEADS, HEAD_DIM, SEQ))}) outs(%scores_init : {tensor((HEADS, SEQ, SEQ))}) -> {tensor((HEADS, SEQ, SEQ))}
    %p = call @causal_softmax(%scores) : ({tensor((HEADS, SEQ, SEQ))}) -> {tensor((HEADS, SEQ, SEQ))}
    %ctx_empty = tensor.empty() : {tensor((HEADS, SEQ, HEAD_DIM))}
    %ctx_init = linalg.fill ins(%zero : f32) outs(%ctx_empty : {tensor((HEADS, SEQ, HEAD_DIM))}) -> {tensor((HEADS, SEQ, HEAD_DIM))}
    %ctx = linalg.batch_matmul ins(%p, %v : {tensor((HEADS, SEQ, SEQ))}, {tensor((HEADS, SEQ, HEAD_DIM))}) outs(%ctx_init : {tensor((HEADS, SEQ, HEAD_DIM))}) -> {tensor((HEADS, SEQ, HEAD_DIM))}
    // Merge the heads back: [heads, seq, head_dim] -> [seq, hidden].
    %merged_empty = tensor.empty() : {tensor((SEQ, HEADS, HEAD_DIM))}
    %merged3 = linalg.generic {{indexing_maps = [#map_ihd_hid, #map_ihd_ihd], iterator_types = ["parallel", "parallel", "parallel"]}}
        ins(%ctx : {tensor((HEADS, SEQ, HEAD_DIM))}) outs(%merged_empty : {tensor((SEQ, HEADS, HEAD_DIM))}) {{
    ^bb0(%c: f32, %out: f32):
      linalg.yield %c : f32
    }} -> {tensor((SEQ, HEADS, HEAD_DIM))}
    %merged = tensor.collapse_shape %merged3 [[0], [1, 2]] : {tensor((SEQ, HEADS, HEAD_DIM))} into {ACT}
    return %merged : {ACT}
  }}

  // Stage 1b: x + context @ w_o + b_o (output projection and residual).
  func.func private @attention_output(%context: {ACT}, %x: {ACT},
      %w_o: tensor<{HIDDEN}x{HIDDEN}xf32>, %b_o: tensor<{HIDDEN}xf32>) -> {ACT} {{
    %zero = arith.constant 0.0 : f32
    %out_empty = tensor.empty() : {ACT}
    %out_init = linalg.fill ins(%zero : f32) outs(%out_empty : {ACT}) -> {ACT}
    %out = linalg.matmul ins(%context, %w_o : {ACT}, tensor<{HIDDEN}x{HIDDEN}xf32>) outs(%out_init : {ACT}) -> {ACT}
    %res_empty = tensor.empty() : {ACT}
    %res = linalg.generic {{indexing_maps = [#map_ij, #map_j, #map_ij, #map_ij], iterator_types = ["parallel", "parallel"]}}
        ins(%out, %b_o, %x : {ACT}, tensor<{HIDDEN}xf32>, {ACT}) outs(%res_empty : {ACT}) {{
    ^bb0(%o: f32, %b: f32, %r: f32, %unused: f32):
      %ob = arith.addf %o, %b : f32
      %s = arith.addf %ob, %r : f32
      linalg.yield %s : f32
    }} -> {ACT}
    return %res : {ACT}
  }}

  // Stage 2: x + mlp(layer_norm(x)), GELU (tanh form, as GPT-2) between the
  // two projections.
  func.func private @mlp_stage(%x: {ACT},
      %ln_gamma: tensor<{HIDDEN}xf32>, %ln_beta: tensor<{HIDDEN}xf32>,
      %w_fc: tensor<{HIDDEN}x{MLP}xf32>, %b_fc: tensor<{MLP}xf32>,
      %w_proj: tensor<{MLP}x{HIDDEN}xf32>, %b_proj: tensor<{HIDDEN}xf32>) -> {ACT} {{
    %zero = arith.constant 0.0 : f32
    %ln = call @layer_norm(%x, %ln_gamma, %ln_beta) : ({ACT}, tensor<{HIDDEN}xf32>, tensor<{HIDDEN}xf32>) -> {ACT}
    %h_empty = tensor.empty() : {tensor((SEQ, MLP))}
    %h_init = linalg.fill ins(%zero : f32) outs(%h_empty : {tensor((SEQ, MLP))}) -> {tensor((SEQ, MLP))}
    %h = linalg.matmul ins(%ln, %w_fc : {ACT}, tensor<{HIDDEN}x{MLP}xf32>) outs(%h_init : {tensor((SEQ, MLP))}) -> {tensor((SEQ, MLP))}
    %g_empty = tensor.empty() : {tensor((SEQ, MLP))}
    %g = linalg.generic {{indexing_maps = [#map_ij, #map_j, #map_ij], iterator_types = ["parallel", "parallel"]}}
        ins(%h, %b_fc : {tensor((SEQ, MLP))}, tensor<{MLP}xf32>) outs(%g_empty : {tensor((SEQ, MLP))}) {{
{GELU_PAYLOAD}    }} -> {tensor((SEQ, MLP))}
    %o_empty = tensor.empty() : {ACT}
    %o_init = linalg.fill ins(%zero : f32) outs(%o_empty : {ACT}) -> {ACT}
    %o = linalg.matmul ins(%g, %w_proj : {tensor((SEQ, MLP))}, tensor<{MLP}x{HIDDEN}xf32>) outs(%o_init : {ACT}) -> {ACT}
    %res_empty = tensor.empty() : {ACT}
    %res = linalg.generic {{indexing_maps = [#map_ij, #map_j, #map_ij, #map_ij], iterator_types = ["parallel", "parallel"]}}
        ins(%o, %b_proj, %x : {ACT}, tensor<{HIDDEN}xf32>, {ACT}) outs(%res_empty : {ACT}) {{
    ^bb0(%p: f32, %b: f32, %r: f32, %unused: f32):
      %pb = arith.addf %p, %b : f32
      %s = arith.addf %pb, %r : f32
      linalg.yield %s : f32
    }} -> {ACT}
    return %res : {ACT}
  }}
"""

MAPS = """#map_ij = affine_map<(i, j) -> (i, j)>
#map_i = affine_map<(i, j) -> (i)>
#map_j = affine_map<(i, j) -> (j)>
#map_hij = affine_map<(h, i, j) -> (h, i, j)>
#map_hi = affine_map<(h, i, j) -> (h, i)>
#map_hid_hid = affine_map<(h, i, d) -> (h, i, d)>
#map_hid_ihd = affine_map<(h, i, d) -> (i, h, d)>
#map_hid_hd = affine_map<(h, i, d) -> (h, d)>
#map_hdi_ihd = affine_map<(h, d, i) -> (i, h, d)>
#map_hdi_hd = affine_map<(h, d, i) -> (h, d)>
#map_ihd_hid = affine_map<(i, h, d) -> (h, i, d)>
#map_ihd_ihd = affine_map<(i, h, d) -> (i, h, d)>
"""


def minimum_bytes(micro_batches):
    """Bytes a two-device run must move at least: each value consumed away
    from where it was produced, once per consuming device. Per micro-batch
    that is the attention stage's output (seq x hidden f32), A -> B; inputs
    and weights are imported where they are used, results stay on B."""
    return micro_batches * SEQ * HIDDEN * 4


# The links between a local device A and a Vulkan device B (docs/devices.md).
VULKAN_LINKS = ('#hal.device.topology<links = ['
                '(@device_a -> @device_b = {transparent_access = true}), '
                '(@device_b -> @device_a = {}, {export_import = true})]>')


def emit_mlir(devices, micro_batches, out, discrete_b=False, vulkan_b=False,
              links=False, remote_b=False):
    two = devices == 2
    dev_a = "#hal.device.affinity<@device_a>"
    dev_b = "#hal.device.affinity<@device_b>" if two else dev_a
    w = out.write
    w(f"// GPT-2-style transformer block, {micro_batches} micro-batches, "
      f"{'attention on device A, MLP on device B' if two else 'one device'}.\n")
    w("// Generated by transformer_block.py "
      f"mlir --devices {devices} --micro-batches {micro_batches}"
      f"{' --discrete-b' if discrete_b else ''}"
      f"{' --remote-b' if remote_b else ''}"
      f"{' --vulkan-b' if vulkan_b else ''}{' --links' if links else ''}"
      "; do not edit.\n")
    w(MAPS)
    if links:
        w(f"module attributes {{stream.topology = {VULKAN_LINKS}}} {{\n")
    else:
        w("module {\n")
    w('  util.global private @device_a = #hal.device.target<"local", '
      '{ordinal = 0 : index}> : !hal.device\n')
    if two:
        # A discrete B gets no static link to A (docs/devices.md): the
        # transfers stay real copies, as between separate accelerators.
        config = "discrete = true, " if discrete_b else ""
        # A remote B lives in another MPI rank (docs/distributed.md).
        if remote_b:
            config = "remote = true, "
        if vulkan_b:
            # The first vulkan device (ordinals count per backend).
            w('  util.global private @device_b = #hal.device.target<'
              '"vulkan", {ordinal = 0 : index}> : !hal.device\n')
        else:
            w('  util.global private @device_b = #hal.device.target<"local", '
              f'{{{config}ordinal = 1 : index}}> : !hal.device\n')
    w(HELPERS)
    # The entry point: micro-batches, then weights; each stage's weights
    # are imported where the stage runs.
    args = []
    for k in range(micro_batches):
        args.append(f"%x{k}: {ACT} {{iree.abi.affinity = {dev_a}}}")
    for name, shape, stage in WEIGHTS:
        dev = dev_a if stage == "attention" else dev_b
        args.append(f"%{name}: {tensor(shape)} {{iree.abi.affinity = {dev}}}")
    results = ", ".join([f"{ACT} {{iree.abi.affinity = {dev_b}}}"] *
                        micro_batches)
    w("\n  func.func @forward(\n      " + ",\n      ".join(args) +
      f")\n      -> ({results}) {{\n")

    def call(result, callee, operands):
        names = [n for n, _ in operands]
        types = [t for _, t in operands]
        w(f"    {result} = call @{callee}({', '.join(names)}) : "
          f"({', '.join(types)}) -> {ACT}\n")

    def weights(*names):
        shapes = {n: sh for n, sh, _ in WEIGHTS}
        return [("%" + n, tensor(shapes[n])) for n in names]

    def to_b(value, k):
        if not two:
            return value
        w(f"    %t{k} = flow.tensor.transfer {value} : {ACT} to {dev_b}\n")
        return f"%t{k}"

    context_weights = ("ln1_gamma", "ln1_beta", "w_q", "b_q", "w_k", "b_k",
                       "w_v", "b_v")
    mlp_weights = ("ln2_gamma", "ln2_beta", "w_fc", "b_fc", "w_proj",
                   "b_proj")
    for k in range(micro_batches):
        call(f"%c{k}", "attention_context",
             [(f"%x{k}", ACT)] + weights(*context_weights))
        call(f"%a{k}", "attention_output",
             [(f"%c{k}", ACT), (f"%x{k}", ACT)] + weights("w_o", "b_o"))
        stage_input = to_b(f"%a{k}", k)
        call(f"%y{k}", "mlp_stage",
             [(stage_input, ACT)] + weights(*mlp_weights))
    w("    return " + ", ".join(f"%y{k}" for k in range(micro_batches)) +
      " : " + ", ".join([ACT] * micro_batches) + "\n")
    w("  }\n}\n")


# ---------------------------------------------------------------------------
# Independent reference (float64 numpy, the textbook formulas).
# ---------------------------------------------------------------------------

def make_data(micro_batches, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape, _ in WEIGHTS:
        if name.startswith("ln") and name.endswith("gamma"):
            value = 1.0 + 0.1 * rng.standard_normal(shape)
        elif name.startswith("ln") or name.startswith("b_"):
            value = 0.1 * rng.standard_normal(shape)
        else:
            value = rng.standard_normal(shape) / math.sqrt(shape[0])
        weights[name] = value.astype(np.float32)
    xs = [rng.standard_normal((SEQ, HIDDEN)).astype(np.float32)
          for _ in range(micro_batches)]
    return xs, weights


def reference(x, wt):
    import numpy as np
    f = {k: v.astype(np.float64) for k, v in wt.items()}
    x = x.astype(np.float64)

    def layer_norm(v, g, b):
        mean = v.mean(axis=-1, keepdims=True)
        var = ((v - mean) ** 2).mean(axis=-1, keepdims=True)
        return (v - mean) / np.sqrt(var + EPS) * g + b

    def heads(v):  # [seq, hidden] -> [heads, seq, head_dim]
        return v.reshape(SEQ, HEADS, HEAD_DIM).transpose(1, 0, 2)

    h = layer_norm(x, f["ln1_gamma"], f["ln1_beta"])
    q = heads(h @ f["w_q"] + f["b_q"])
    k = heads(h @ f["w_k"] + f["b_k"])
    v = heads(h @ f["w_v"] + f["b_v"])
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(HEAD_DIM)
    causal = np.triu(np.ones((SEQ, SEQ), dtype=bool), k=1)
    scores = np.where(causal, -np.inf, scores)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs = scores / scores.sum(axis=-1, keepdims=True)
    ctx = (probs @ v).transpose(1, 0, 2).reshape(SEQ, HIDDEN)
    x1 = x + ctx @ f["w_o"] + f["b_o"]
    h = layer_norm(x1, f["ln2_gamma"], f["ln2_beta"])
    u = h @ f["w_fc"] + f["b_fc"]
    gelu = 0.5 * u * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) *
                                    (u + 0.044715 * u ** 3)))
    return (x1 + gelu @ f["w_proj"] + f["b_proj"]).astype(np.float32)


def write_data(micro_batches, out_dir, seed):
    import numpy as np
    os.makedirs(out_dir, exist_ok=True)
    xs, weights = make_data(micro_batches, seed)
    inputs = ["--function=forward"]
    for k, x in enumerate(xs):
        path = os.path.join(out_dir, f"x{k}.npy")
        np.save(path, x)
        inputs.append(f"--input=@{path}")
    for name, _, _ in WEIGHTS:
        path = os.path.join(out_dir, f"{name}.npy")
        np.save(path, weights[name])
        inputs.append(f"--input=@{path}")
    expected, save, same = [], [], []
    for k, x in enumerate(xs):
        path = os.path.join(out_dir, f"y{k}.npy")
        np.save(path, reference(x, weights))
        expected.append(f"--expected_output=@{path}")
        ran = os.path.join(out_dir, f"ran_y{k}.npy")
        save.append(f"--output=@{ran}")
        same.append(f"--expected_output=@{ran}")
    # Response files for fleet-run: run = inputs + numpy reference; save
    # keeps a run's outputs, same compares another run with them.
    for name, flags in (("inputs", inputs), ("expected", expected),
                        ("run", inputs + expected), ("save", save),
                        ("same", same)):
        with open(os.path.join(out_dir, name + ".rsp"), "w") as f:
            f.write("\n".join(flags) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("mlir", help="print the Fleet input program")
    p.add_argument("--devices", type=int, choices=(1, 2), default=2)
    p.add_argument("--micro-batches", type=int, default=16)
    p.add_argument("--vulkan-b", action="store_true",
                   help="device B is a Vulkan device (SPIR-V kernels)")
    p.add_argument("--links", action="store_true",
                   help="declare the local/Vulkan topology (with --vulkan-b)")
    p.add_argument("--discrete-b", action="store_true",
                   help="declare device B discrete (transfers are copies)")
    p.add_argument("--remote-b", action="store_true",
                   help="declare device B remote (another MPI rank)")
    p.add_argument("--batched", type=int, metavar="B",
                   help="one [B, seq, hidden] input, no placement")
    p = sub.add_parser("data", help="write inputs and expected outputs")
    p.add_argument("--micro-batches", type=int, default=16)
    p.add_argument("--batched", type=int, metavar="B",
                   help="data of the batched program (x.npy, y.npy)")
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.command == "mlir" and args.batched:
        import batched
        batched.emit_batched_mlir(args.batched, args.devices, sys.stdout)
    elif args.command == "data" and args.batched:
        import batched
        batched.write_batched_data(args.batched, args.out, args.seed)
    elif args.command == "mlir":
        if (args.discrete_b or args.vulkan_b or args.remote_b) and \
                args.devices != 2:
            parser.error("--discrete-b, --remote-b and --vulkan-b need "
                         "--devices 2")
        if args.remote_b and (args.discrete_b or args.vulkan_b):
            parser.error("--remote-b declares a local device B in another "
                         "rank; it excludes --discrete-b and --vulkan-b")
        if args.links and not args.vulkan_b:
            parser.error("--links needs --vulkan-b")
        if args.discrete_b and args.vulkan_b:
            parser.error("--discrete-b is for a local device B; a discrete "
                         "Vulkan device is chosen at run time "
                         "(--device=vulkan?discrete=true)")
        emit_mlir(args.devices, args.micro_batches, sys.stdout,
                  args.discrete_b, args.vulkan_b, args.links, args.remote_b)
    else:
        write_data(args.micro_batches, args.out, args.seed)


if __name__ == "__main__":
    main()
