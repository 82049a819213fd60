#!/usr/bin/env python3
"""Checks the Promela model of gang scheduling (gang.pml) with spin.

For each case below: spin -a with the case's switches, cc builds the
verifier pan, pan searches every state for an invalid end state (a state in
which no worker can move before the program ends: a deadlock) or a failed
assertion. A case expects either no error or a deadlock; for a deadlock the
shortest trail is replayed and printed (the generated program, the steps,
and what each worker is stuck on). Exit status 1 if any expectation fails,
or if spin or cc is missing (tools/setup installs both).

usage: check_gang_model.py [--model gang.pml] [--keep DIR]
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# name, spin switches, expectation, strings the trail's narration must hold.
# The defaults are the rules gang.cpp codes (G1-G7, sub-gangs included);
# the other cases take one part away, or go back to the rules before G7,
# and show that spin then finds a deadlock.
ONE_LEVEL = ['-DSUBGANGS=0']
BEFORE_G7 = ['-DKEY_ORDER=0', '-DG6_QUEUED=0', '-DG7=0', '-DELIGIBILITY=1']
CASES = [
    ('gang.cpp rules, sub-gangs (three nesting levels)', [], 'pass', []),
    ('gang.cpp rules, one nesting level of gangs', ONE_LEVEL, 'pass', []),
    ('sub-gangs, G5 as before G7 (is_eligible, on started fibers only)', ['-DELIGIBILITY=1'], 'pass', []),
    ('the rules before G7, one nesting level', ONE_LEVEL + BEFORE_G7, 'pass', []),
    ('without the eligibility check (G5)', ONE_LEVEL + ['-DELIGIBILITY=0'], 'deadlock',
     ['is stolen from the other worker']),
    ('the older G5 (is_eligible) without its "same gang" half', ONE_LEVEL + ['-DELIGIBILITY=2'], 'deadlock',
     ['is stolen from the other worker']),
    ('without the fork as a scheduling point (G4)', ONE_LEVEL + ['-DFORK_SP=0'], 'deadlock',
     ['spins at a spin barrier']),
    # The defect G7's repair fixed (README.md here): with sub-gangs, the
    # rules before it deadlock; and each of the repair's three parts is needed.
    ('the rules before G7, with sub-gangs (the old defect)', BEFORE_G7, 'deadlock', []),
    ('sub-gangs without the path key order (G3)', ['-DKEY_ORDER=0'], 'deadlock', []),
    ('sub-gangs with G6 looking at started fibers only', ['-DG6_QUEUED=0'], 'deadlock', []),
    ('sub-gangs without G7', ['-DG7=0'], 'deadlock', []),
]

FIBERS = ['T0', 'T1', 'mA', 'mB', 'mC', 'mD']
GANGS = ['outer', 'A', 'B', 'C', 'D']
STATES = ['not submitted', 'queued, not started', 'running', 'ready', 'parked', 'finished']
OPS = {1: 'fork of', 2: 'omp barrier of', 3: 'spin barrier of', 4: 'join of', 5: 'exit from',
       6: 'outer join', 7: 'end'}
NW, NG, MAXOPS = 2, 5, 10


def run(cmd, cwd, timeout=120):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)


def number(pattern, text, default='?'):
    m = re.search(pattern, text)
    return m.group(1) if m else default


def final_state(replay):
    """What each worker is stuck on, from the globals spin prints at the end."""
    v = {}
    for m in re.finditer(r'^\s+(\w+)\[(\d+)\] = (\d+)$', replay, re.M):
        v[(m.group(1), int(m.group(2)))] = int(m.group(3))
    queues = {int(m.group(1)): m.group(2).split()
              for m in re.finditer(r'queue \d+ \(fifo\[(\d)\]\):(.*)$', replay, re.M)}
    if not v:
        return ['  (no final state in the replay)']

    def gang_of(arg):
        return GANGS[arg % 8]

    def doing(f):
        op = v.get(('prog_op', f * MAXOPS + v.get(('pc', f), 0)), 0)
        arg = v.get(('prog_arg', f * MAXOPS + v.get(('pc', f), 0)), 0)
        text = OPS.get(op, '?')
        if op in (1, 2, 3, 4, 5):
            text += ' ' + gang_of(arg)
        return text

    def keys(w, table):
        return ', '.join(f'{GANGS[g]} (key {v.get(("gkey", g), 0)})'
                         for g in range(1, NG) if v.get((table, w * NG + g), 0)) or 'none'

    lines = []
    for w in range(NW):
        r = v.get(('running', w), 255)
        held = 'idle' if r == 255 else f'runs {FIBERS[r]} ({doing(r)})'
        ready = ' '.join(FIBERS[int(x)] for x in re.findall(r'\d+', ' '.join(queues.get(w, []))))
        lines.append(f'  W{w}: {held}; active gangs: {keys(w, "act")}; '
                     f'queued members of: {keys(w, "ord")}; ready: {ready or "none"}')
    for f, name in enumerate(FIBERS):
        st = v.get(('fst', f), 0)
        if st == 4:
            lines.append(f'  {name} is parked on W{v.get(("fhome", f), 0)} at its {doing(f)}')
    return lines


def check(case, spin, cc, model, work):
    name, switches, expect, must = case
    os.makedirs(work)
    shutil.copy(model, os.path.join(work, 'gang.pml'))
    start = time.monotonic()
    out = run([spin] + switches + ['-a', 'gang.pml'], work)
    if out.returncode != 0:
        return False, [f'spin -a failed:\n{out.stdout}']
    # -O0: the state spaces are small, and optimising pan.c takes ten times
    # longer than the search it speeds up. A deadlock is searched breadth
    # first, so that its trail is a shortest one, with hash compaction (less
    # memory; it could only miss states, and any trail it finds is real); a
    # case that expects no error searches every state exactly.
    flags = ['-O0', '-w', '-DSAFETY'] + (['-DBFS', '-DHC4'] if expect == 'deadlock' else [])
    out = run([cc] + flags + ['-o', 'pan', 'pan.c'], work)
    if out.returncode != 0:
        return False, [f'cc failed:\n{out.stdout}']
    # -w20: a 2^20-slot hash table (about 100 MB in all at most), plenty for
    # the few hundred thousand states of the largest case.
    pan = run(['./pan', '-m100000', '-w20'], work)
    elapsed = time.monotonic() - start
    text = pan.stdout
    errors = int(number(r'errors: (\d+)', text, '-1'))
    stored = number(r'(\d+) states, stored', text)
    transitions = number(r'(\d+) transitions', text)
    seconds = number(r'elapsed time ([\d.e+-]+)', text)
    report = [f'  states stored {stored}, transitions {transitions}, pan {seconds} s '
              f'(with spin -a and cc: {elapsed:.1f} s)']
    if errors < 0:
        return False, report + [f'pan output not understood:\n{text}']
    if 'max search depth too small' in text:
        return False, report + ['the search was cut at the depth limit']
    deadlock = 'invalid end state' in text
    assertion = 'assertion violated' in text
    if expect == 'pass':
        if errors == 0:
            return True, report + ['  no invalid end state, no assertion violated']
        why = 'a deadlock' if deadlock else 'an assertion violation' if assertion else 'an error'
    else:
        if errors == 0:
            return False, report + ['  expected a deadlock, spin found none']
        if not deadlock:
            return False, report + [f'  expected a deadlock, spin found another error:\n{text}']
        why = None
    # Replay the trail.
    replay = run([spin, '-T', '-t'] + switches + ['gang.pml'], work).stdout
    story = [line for line in replay.splitlines() if re.match(r'(W[01]|T[01]|m[A-D]):', line)]
    found = number(r'(pan:1: .*)', text)
    report.append(f'  spin: {found}; the trail:')
    report += ['    ' + line for line in story]
    report.append('  stuck:')
    report += ['  ' + line for line in final_state(replay)]
    missing = [m for m in must if not any(m in line for line in story)]
    if why:
        return False, report + [f'  expected no error, spin found {why}']
    if missing:
        return False, report + [f'  the trail does not show: {", ".join(missing)}']
    return True, report


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument('--model', default=os.path.join(here, 'gang.pml'))
    ap.add_argument('--keep', help='work in this (new) directory and leave pan and the trails there')
    args = ap.parse_args()
    spin = shutil.which('spin')
    cc = shutil.which('cc') or shutil.which('gcc')
    missing = [n for n, p in (('spin', spin), ('cc', cc)) if not p]
    if missing:
        print(f'FAIL: {" and ".join(missing)} not found; tools/setup installs them '
              f'(Debian packages spin and gcc)')
        return 1
    work = args.keep or tempfile.mkdtemp(prefix='gang-model-')
    os.makedirs(work, exist_ok=True)
    print(run([spin, '-V'], work).stdout.strip())
    # Two cases at a time (each is one process at a time), in their own
    # directories; reports are printed in order.
    jobs = min(2, os.cpu_count() or 1)
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            results = list(pool.map(
                lambda ic: check(ic[1], spin, cc, args.model, os.path.join(work, f'case{ic[0]}')),
                enumerate(CASES)))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    failed = 0
    for (name, switches, expect, _), (ok, report) in zip(CASES, results):
        print(f'{"ok  " if ok else "FAIL"} {name} [{" ".join(switches) or "defaults"}]: '
              f'expects {"no error" if expect == "pass" else "a deadlock"}')
        print('\n'.join(report))
        failed += not ok
    print(f'{len(CASES) - failed} of {len(CASES)} model checks as expected')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
