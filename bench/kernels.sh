#!/usr/bin/env bash
# Builds and runs the kernel benchmarks (bench/KernelBench.cpp) and prints the
# table of ratios. Usage: bench/kernels.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
flock /tmp/fleet-build.lock ninja -C "$BUILD" -j2 fleet-kernel-bench >/dev/null
# OpenBLAS reads its core type and cache size once, at load time. Clear both
# together so it detects this CPU itself (a pinned Haswell core or a small L2
# would handicap the reference)...
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
core=$("$BUILD/bench/fleet-kernel-bench" --corename 2>/dev/null || true)
# ...unless it misdetects it: then pin the best core type it supports for
# AVX-512 (0.3.21 knows no newer one).
if grep -q avx512f /proc/cpuinfo; then
  case "$core" in
    SkylakeX|Cooperlake|SapphireRapids) ;;
    *) export OPENBLAS_CORETYPE=SkylakeX ;;
  esac
fi
exec "$BUILD/bench/fleet-kernel-bench"
