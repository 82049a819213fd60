#!/usr/bin/env bash
# repeat.sh REPS NP LIB [VAR=VALUE ...] -- PROGRAM [ARGS...]
# Runs PROGRAM REPS times under `mpirun -np NP` with LD_PRELOAD=LIB (and the
# given variables) in every rank; fails at the first run that exits non-zero,
# prints no line ending in "verified=yes" or "ok" (when the program prints
# RESULT lines or mpi_block's summary), or prints HUNG (the programs' own
# timeouts: MPITILE_TIMEOUT, MPITEST_TIMEOUT). Says which repetition failed.
set -uo pipefail
reps=$1 np=$2 lib=$3
shift 3
vars=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
shift
for ((i = 1; i <= reps; i++)); do
  out=$(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
          env LD_PRELOAD="$lib" "${vars[@]}" "$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || grep -q HUNG <<<"$out" || ! grep -Eq '(verified=yes|, ok)$' <<<"$out"; then
    echo "$out"
    echo "repetition $i of $reps failed (exit status $rc): $*"
    exit 1
  fi
done
last=$(grep -E '^(mpichol|mpilu|mpi_block):' <<<"$out" | tail -1)
echo "$reps repetitions passed; the last: $last"
