#!/usr/bin/env python3
"""Runs one clang-19 build of a conformance program on its stock runtime
(LLVM 19's libomp, found through the binary's run path) and then on Bobbin
(LD_PRELOAD), through ../run.py: the rule is that a program that passes on
its stock runtime passes on Bobbin.

usage: pair.py [--bobbin-only] [--stock-retries N] RUN_PY_ARGS... BINARY
  RUN_PY_ARGS are ../run.py's (--name, --lib, --compat-dir, --env, ...),
  without --mode.
  --bobbin-only  the run means something to Bobbin only (a BOBBIN_TOPOLOGY
                 model) or its stock answer depends on the host: no stock run.
  --stock-retries N  runs of stock libomp 19 after a failed one (default 2;
                 0 for a program whose first line names a libomp 14 defect:
                 where libomp 19 still has it, retries only repeat a hang)

Exit status: 0 Bobbin passes (where stock libomp 19 passes or not); 1
Bobbin fails where stock libomp 19 passes; 77 (Meson's skip) both fail (the
log has both failures): the pair then says nothing about Bobbin; 99
harness error.
"""

import os
import subprocess
import sys

RUN_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'run.py')


def run(mode, args):
    cmd = [sys.executable, RUN_PY, '--mode', mode] + args
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(proc.stdout)
    return proc.returncode


def main():
    args = sys.argv[1:]
    bobbin_only = '--bobbin-only' in args
    args = [a for a in args if a != '--bobbin-only']
    retries = '2'
    if '--stock-retries' in args:
        k = args.index('--stock-retries')
        retries = args[k + 1]
        del args[k:k + 2]
    if not args:
        print(__doc__)
        return 99
    stock_failed = False
    if not bobbin_only:
        status = run('libomp', ['--libomp-retries', retries] + args)
        if status == 99:
            return 99
        stock_failed = status != 0
    status = run('preload', args)
    if status != 0 and stock_failed:
        print('SKIP: the program fails on stock libomp 19 too; the pair says nothing about Bobbin')
        return 77
    if stock_failed:
        print('PASS: Bobbin passes where stock libomp 19 fails')
    return status

if __name__ == '__main__':
    sys.exit(main())
