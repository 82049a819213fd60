#!/usr/bin/env python3
"""Runs one OpenMP program under Bobbin with BOBBIN_TRACE and checks the trace.

    check_trace.py --lib build/libbobbin.so [--tool tools/bobbin-trace]
                   [--need tasks,steals,gangs,count] [--status N] [--bad-path]
                   -- PROGRAM ARGS...

Always checked: the program exits with --status (default 0); the file is
valid JSON (no NaN, no trailing text) of the trace-event format
({"traceEvents": [...]}, "M", "X" and "i" events with pid, tid and ts, a
duration for each "X"); there is a track named "worker N" for every worker
N < OMP_NUM_THREADS (2) with at least one event on it; fiber spans name
their team, thread number, gang and nesting level; the spans of each track
nest (a viewer cannot draw overlapping spans on one track).
--need adds: `tasks` (task spans, with where each task came from),
`steals` (steal events naming the policy, the victims, their levels and
the outcome), `gangs` (gang reservations naming the workers), `count` (the
tasks the trace counts, in spans and inside them, are exactly the tasks=
the program's RESULT line reports).
--tool: tools/bobbin-trace must then print a summary with a line for every
worker and write a PNG.
--bad-path: BOBBIN_TRACE names a file in a directory that does not exist:
the program must still run, and say once, naming BOBBIN_TRACE, that no
trace is written.
Exit status 0 if every check passes, 1 otherwise (each failure printed).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

THREADS = 2
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def reject_constant(name):
    raise ValueError('not JSON: %s' % name)


def run(a, trace_path, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not re.match(r'^(OMP|KMP|GOMP|BOBBIN|LD_PRELOAD)', k)}
    env.update({'LD_PRELOAD': a.lib, 'OMP_NUM_THREADS': str(THREADS), 'BOBBIN_TRACE': trace_path,
                'LU_TIMEOUT': '60'})
    if env_extra:
        env.update(env_extra)
    p = subprocess.run(a.program, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=100)
    return p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')


def nested(spans):
    """True if the (ts, dur) spans of one track nest; else the first pair that overlaps."""
    eps = 0.002  # the writer rounds to the nanosecond: allow two
    stack = []
    for ts, dur, name in sorted(spans, key=lambda s: (s[0], -s[1])):
        end = ts + dur
        while stack and stack[-1][1] <= ts + eps:
            stack.pop()
        if stack and end > stack[-1][1] + eps:
            return (stack[-1][2], stack[-1][0], stack[-1][1], name, ts, end)
        stack.append((ts, end, name))
    return None


def check_trace(path, needs, result_line):
    try:
        with open(path) as f:
            data = json.load(f, parse_constant=reject_constant)
    except (OSError, ValueError) as e:
        check(False, 'the trace is not valid JSON: %s' % e)
        return
    if not check(isinstance(data, dict) and isinstance(data.get('traceEvents'), list), 'no "traceEvents" list'):
        return
    events = data['traceEvents']
    names = {}
    for e in events:
        if not check(isinstance(e, dict) and e.get('ph') in ('M', 'X', 'i') and 'pid' in e and 'name' in e,
                     'malformed event %r' % (e,)):
            return
        if e['ph'] == 'M':
            if e['name'] == 'thread_name':
                names[e['tid']] = e['args']['name']
            continue
        if not check(isinstance(e.get('ts'), (int, float)) and e['ts'] >= 0 and 'tid' in e, 'event without ts/tid: %r' % e):
            return
        if e['ph'] == 'X' and not check(isinstance(e.get('dur'), (int, float)) and e['dur'] >= 0,
                                        'span without a duration: %r' % e):
            return
        if e['ph'] == 'i':
            check(e.get('s') == 't', 'instant without thread scope: %r' % e)
    per_track = {}
    for e in events:
        if e['ph'] != 'M':
            per_track.setdefault(e['tid'], []).append(e)
    for n in range(THREADS):
        tids = [tid for tid, name in names.items() if name == 'worker %d' % n]
        if check(len(tids) == 1, 'no track named "worker %d" (tracks: %s)' % (n, sorted(names.values()))):
            check(per_track.get(tids[0]), 'no event on worker %d' % n)
    fibers = [e for e in events if e['ph'] == 'X' and e.get('cat') == 'fiber']
    if check(fibers, 'no fiber span'):
        keys = {'team', 'thread', 'gang', 'level', 'fiber'}
        bad = [e for e in fibers if not keys <= set(e.get('args', {}))]
        check(not bad, 'fiber spans without %s: %r' % (sorted(keys), bad[:1]))
        check(any(e['args']['level'] >= 1 for e in fibers), 'no fiber span inside a parallel region (level >= 1)')
    for tid, evs in per_track.items():
        bad = nested([(e['ts'], e['dur'], e['name']) for e in evs if e['ph'] == 'X'])
        check(bad is None, 'spans overlap on track %s: %r' % (names.get(tid, tid), bad))
    tasks = [e for e in events if e['ph'] == 'X' and e.get('cat') == 'task']
    if 'tasks' in needs and check(tasks, 'no task span'):
        bad = [e for e in tasks if not {'team', 'thread', 'depth', 'from', 'tasks_inside'} <= set(e['args'])]
        check(not bad, 'task spans without their arguments: %r' % bad[:1])
    steals = [e for e in events if e.get('cat') == 'steal' and e['name'] in ('steal', 'steal failed')]
    if 'steals' in needs and check(steals, 'no steal event'):
        for e in steals:
            a = e['args']
            ok = (a.get('policy') == data.get('otherData', {}).get('steal_policy') and isinstance(a.get('victims'), list)
                  and a['victims'] and len(a.get('levels', [])) == len(a['victims']) and isinstance(a.get('success'), bool)
                  and (not a['success'] or a.get('from_list') in a['victims']))
            if not check(ok, 'steal event without policy, victims, levels and outcome: %r' % e):
                break
        check(any(e['args']['success'] for e in steals), 'no successful steal')
    if 'gangs' in needs:
        gangs = [e for e in events if e['name'] == 'gang reservation']
        if check(gangs, 'no gang reservation'):
            check(all(e['args'].get('workers') and e['args'].get('gang', 0) > 0 for e in gangs),
                  'gang reservation without its gang id and workers: %r' % gangs[0])
    if 'count' in needs:
        m = re.search(r'\btasks=(\d+)', result_line)
        if check(m, 'no tasks= in the RESULT line'):
            counted = sum(1 + e['args']['tasks_inside'] for e in tasks if e['args'].get('part', 1) == 1)
            check(counted == int(m.group(1)), 'the trace counts %d tasks, the program made %s' % (counted, m.group(1)))


def check_tool(a, path, tmp):
    png = os.path.join(tmp, 'timeline.png')
    p = subprocess.run([sys.executable, a.tool, path, '--png', png], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    out = p.stdout.decode(errors='replace')
    if not check(p.returncode == 0, 'bobbin-trace exited %d: %s' % (p.returncode, p.stderr.decode(errors='replace')[-500:])):
        return
    check('busy ms' in out and 'asleep ms' in out, 'bobbin-trace printed no summary table:\n' + out)
    for n in range(THREADS):
        check(re.search(r'^\s+worker %d\s+\d' % n, out, re.M), 'no summary line for worker %d:\n%s' % (n, out))
    try:
        with open(png, 'rb') as f:
            head = f.read(8)
        check(head == b'\x89PNG\r\n\x1a\n' and os.path.getsize(png) > 5000, 'bobbin-trace wrote no PNG')
    except OSError as e:
        check(False, 'bobbin-trace wrote no PNG: %s' % e)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--lib', required=True)
    ap.add_argument('--tool')
    ap.add_argument('--need', default='')
    ap.add_argument('--status', type=int, default=0)
    ap.add_argument('--bad-path', action='store_true')
    ap.add_argument('program', nargs='+')
    a = ap.parse_args()
    needs = set(filter(None, a.need.split(',')))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'no such dir' if a.bad_path else '', 'trace.json')
        status, out, err = run(a, path)
        check(status == a.status, 'the program exited %d, not %d: %s' % (status, a.status, err[-500:]))
        if a.bad_path:
            said = [l for l in err.splitlines() if 'BOBBIN_TRACE' in l]
            check(len(said) == 1 and said[0].startswith('bobbin: '), 'expected one line naming BOBBIN_TRACE: %r' % err)
            check(not os.path.exists(path), 'a trace appeared where none could be written')
        else:
            result = next((l for l in out.splitlines() if l.startswith('RESULT ')), '')
            check_trace(path, needs, result)
            if a.tool and not failures:
                check_tool(a, path, tmp)
    for f in failures:
        print('FAIL: ' + f)
    if not failures:
        print('PASS: %s' % ' '.join(os.path.basename(p) for p in a.program))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
