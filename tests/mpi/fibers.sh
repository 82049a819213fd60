#!/usr/bin/env bash
# fibers.sh LIB PROGRAM [ARGS...]
# Runs PROGRAM under `mpirun -np 2` with LD_PRELOAD=LIB and
# OMP_DISPLAY_ENV=verbose, and fails unless every rank says that its nested
# teams run as fibers. The MPI library loads modules of its own in MPI_Init
# (hwloc's plugins, and through them the OpenCL loader); counted as the
# program's thread-local data, one of them gave every nested team of an MPI
# program a kernel thread per member, and no gangs
# (runtime/thread_local_data.cpp).
set -uo pipefail
lib=$1
shift
out=$(mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 \
        env LD_PRELOAD="$lib" OMP_DISPLAY_ENV=verbose OMP_NUM_THREADS=2 MPITILE_TIMEOUT=60 "$@" 2>&1)
rc=$?
fibers=$(grep -c 'nested teams run as fibers' <<<"$out")
if [ $rc -ne 0 ] || [ "$fibers" -ne 2 ] || grep -q 'kernel thread per member' <<<"$out"; then
  grep -v '^ *\[host\]' <<<"$out"
  echo "expected both ranks to say 'nested teams run as fibers' (said $fibers times; exit status $rc)"
  exit 1
fi
echo "both ranks run their nested teams as fibers"
