#!/usr/bin/env bash
# mpirun.sh NP COMMAND...: COMMAND as rank 0 and `fleet-run --serve` as
# ranks 1..NP-1, on loopback only (never another address), as root too, one
# core may hold several ranks. Ends within FLEET_MPI_TEST_TIMEOUT seconds
# (default 120) whatever happens. docs/distributed.md shows the same flags.
set -euo pipefail
np=$1
shift
root=()
if [ "$(id -u)" -eq 0 ]; then
  root=(--allow-run-as-root)
fi
exec timeout -k 5 "${FLEET_MPI_TEST_TIMEOUT:-120}" mpirun "${root[@]}" \
  --oversubscribe \
  --mca btl self,vader,tcp --mca btl_tcp_if_include lo \
  --mca oob_tcp_if_include lo --mca btl_vader_single_copy_mechanism none \
  -np 1 "$@" : -np $((np - 1)) fleet-run --serve
