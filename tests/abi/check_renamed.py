#!/usr/bin/env python3
"""The runtime is recognised as itself whatever its file is called.

Nested teams run as fibers only while the program has no thread-local data
of its own, and the runtime's own module is not the program's. It was told
by its file name, so a copy under another name (a site's install, an A/B
copy) counted as a module of the program with thread-local data, and every
nested team got kernel threads. This builds a program with nested regions
and no thread-local data, runs it preloaded with the library under its own
name and under another one, with OMP_DISPLAY_ENV=verbose, and checks that
both runs say their nested teams run as fibers.

usage: check_renamed.py --lib LIBBOBBIN --cc CLANG
Exit status 1 on a failure, with what was seen.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

PROGRAM = r'''
#include <omp.h>
#include <stdio.h>
int main(void) {
  int sum = 0;
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : sum)
#pragma omp parallel num_threads(2) reduction(+ : sum)
  sum += 1;
  printf("sum %d\n", sum);
  return sum == 4 ? 0 : 1;
}
'''

FIBERS = 'nested teams run as fibers'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', required=True)
    ap.add_argument('--cc', default='clang')
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'nested.c')
        exe = os.path.join(tmp, 'nested')
        with open(src, 'w') as f:
            f.write(PROGRAM)
        subprocess.run([args.cc, '-fopenmp', '-O1', src, '-o', exe], check=True)
        renamed = os.path.join(tmp, 'copy-of-the-runtime.so')
        shutil.copyfile(args.lib, renamed)
        for label, lib in (('own name', args.lib), ('another name', renamed)):
            env = dict(os.environ, LD_PRELOAD=lib, OMP_DISPLAY_ENV='verbose', OMP_NUM_THREADS='2')
            run = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=60)
            ok = run.returncode == 0 and FIBERS in run.stderr
            print(f'{"ok" if ok else "FAIL"}: the library under {label} ({lib})')
            if not ok:
                failures += 1
                print(f'  exit status {run.returncode}; stderr lines about nested teams:')
                for line in run.stderr.splitlines():
                    if 'nested teams' in line or 'thread-local' in line:
                        print('   ', line)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
