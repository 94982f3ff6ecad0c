"""Runs one fleet-run per case of a generated test program and checks each
against its expected output (test/e2e/Inputs/matmul_strategies.py,
pooling.py): one line per case, then "N of M ok"; 1 when a case failed."""
import subprocess


def run_cases(prefix, tools, extra, cases):
    """`cases`: (function, [input .npy paths], expected .npy path,
    f32 threshold) for the functions of PREFIX.fleet."""
    failed = 0
    for fn, inputs, expected, threshold in cases:
        cmd = [f"{tools}/fleet-run", f"--module={prefix}.fleet",
               f"--function={fn}", *extra,
               *[f"--input=@{path}" for path in inputs],
               f"--expected_output=@{expected}",
               f"--expected_f32_threshold={threshold:g}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        ok = r.returncode == 0 and "[SUCCESS]" in r.stdout
        failed += not ok
        print(f"{fn}: {'ok' if ok else 'FAIL ' + (r.stdout + r.stderr)[-400:]}")
    print(f"{len(cases) - failed} of {len(cases)} ok")
    return 1 if failed else 0
