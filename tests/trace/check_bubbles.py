#!/usr/bin/env python3
"""Separate bubbles on separate subtrees, read from the trace.

    check_bubbles.py --lib build/libbobbin.so --topology 'pack:2 core:4 pu:1'
                     --per-package 4 -- PROGRAM T W R

Runs bubbles (an outer team of T threads, each opening a nested team of W,
R rounds) on the modelled machine with BOBBIN_TRACE, and checks the rounds
after the first (the first gang grows the pool to a worker per place; the
outer team is spread over it from then on): a round is placed as bubbles
when its T gang reservations are each within one package (worker w on core
w, --per-package cores to a package) and in T different packages. All of
those rounds but one must be: a gang counts a worker whose member of the
previous round is still finishing as loaded and could then go to another
package (none seen in 420 runs since members are stolen only from inside
their gang's subtree), while with the outer team packed by id no round is.
Exit status 0 if the checks pass, 1 otherwise (each failure printed).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', required=True)
    ap.add_argument('--topology', required=True)
    ap.add_argument('--per-package', type=int, required=True)
    ap.add_argument('cmd', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == '--' else a.cmd
    T, W = int(cmd[1]), int(cmd[2])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace.json')
        env = dict(os.environ, LD_PRELOAD=a.lib, BOBBIN_TRACE=path, BOBBIN_TOPOLOGY=a.topology)
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        print(r.stdout + r.stderr, end='')
        if r.returncode != 0:
            print(f'FAIL: {cmd} exited with {r.returncode}')
            return 1
        with open(path) as f:
            events = json.load(f)['traceEvents']
    res = sorted((e for e in events if e.get('name') == 'gang reservation'), key=lambda e: e['ts'])
    failures = []
    if len(res) % T or not res:
        failures.append(f'{len(res)} gang reservations for rounds of {T}')
    rounds = [res[i:i + T] for i in range(0, len(res) - len(res) % T, T)]
    good = 0
    for k, rnd in enumerate(rounds[1:], start=2):
        packages, apart = [], []
        for e in rnd:
            workers = e['args']['workers']
            pk = {w // a.per_package for w in workers}
            if len(workers) != W:
                failures.append(f'round {k}: a gang of {len(workers)} workers, not {W}: {workers}')
            if len(pk) != 1:
                apart.append(f'round {k}: a gang across packages {sorted(pk)}: workers {workers}')
            packages.append(min(pk))
        if len(set(packages)) != len(packages):
            apart.append(f'round {k}: gangs share a package: ' + ', '.join(str(e['args']['workers']) for e in rnd))
        for line in apart:
            print('not as bubbles: ' + line)
        good += not apart
    checked = max(len(rounds) - 1, 0)
    if good < checked - 1 or not checked:
        failures.append(f'{good} of {checked} rounds after the first placed as bubbles (all but one must be)')
    for f in failures:
        print('FAIL: ' + f)
    if not failures:
        print(f'{len(rounds)} rounds of {T} gangs of {W}: {good} of the {checked} after the first '
              f'in {T} packages, one each')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
