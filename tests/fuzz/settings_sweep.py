#!/usr/bin/env python3
"""Every environment variable Bobbin reads, each with bad values: no crash,
no hang, and a warning naming the variable for every value it rejects.

    settings_sweep.py --lib build/libbobbin.so --probe build/tests/fuzz/settings_probe [--src .]

The variables are not listed here: they are read from the sources (the rows
of the table in runtime/settings.cpp and every getenv("...") under runtime/,
scheduler/, ult/ and abi/), so a new variable is swept the day it is added.
Each run is the probe program (settings_probe.c) under LD_PRELOAD with one
variable set to one value. It must print "probe ok", exit 0 within the
timeout, and, unless the value is one the variable accepts (ACCEPTS below),
print a warning on stderr that names the variable. The expected outcome
comes from this table, never from a run of Bobbin.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

# The bad values: empty, blank, negative, zero, overflowing (64-bit and
# 32-bit), non-numeric, a number with junk, 5000 characters, non-ASCII, a
# printf format, a huge count, separators, a leading sign.
BAD = ['', ' ', '-1', '0', '99999999999999999999999', '4294967297', 'abc', '3x', 'x' * 5000,
       '\u00e9\u00e8\u2203\u2200', '%s%n%s%n', '1000000', ',,', '-0', '+2', '1e3']

# Values a variable accepts (a warning is then not expected). Variables
# whose value is free text accept anything.
FREE = {'OMP_TOOL_LIBRARIES', 'OMP_TOOL_VERBOSE_INIT', 'OMP_AFFINITY_FORMAT'}
NUMBERS = {'0', '-0', '+2', '4294967297', '1000000'}
ACCEPTS = {
    'OMP_NUM_THREADS': {'+2', '1000000'},
    'OMP_MAX_ACTIVE_LEVELS': NUMBERS - {'4294967297'},
    'OMP_THREAD_LIMIT': {'+2', '1000000'},
    'OMP_STACKSIZE': {'1000000'},
    'KMP_STACKSIZE': {'1000000'},
    'GOMP_STACKSIZE': {'1000000'},
    'KMP_BLOCKTIME': NUMBERS - {'4294967297'},
    'GOMP_SPINCOUNT': NUMBERS,
    'OMP_MAX_TASK_PRIORITY': NUMBERS - {'4294967297'},
    'OMP_NUM_TEAMS': {'+2', '1000000'},
    'OMP_TEAMS_THREAD_LIMIT': {'+2', '1000000'},
    'OMP_DEFAULT_DEVICE': NUMBERS - {'4294967297'},
    'OMP_DYNAMIC': {'0'},
    'OMP_NESTED': {'0'},
    'OMP_CANCELLATION': {'0'},
    'OMP_DISPLAY_AFFINITY': {'0'},
    'BOBBIN_PREEMPT': {'0'},
    'BOBBIN_IMMEDIATE_SUCCESSOR': {'0'},
    'BOBBIN_POLLING_SLOTS': {'0'},
    'BOBBIN_TREE_THRESHOLD': {'0', '-0', '+2'},
    'KMP_ENABLE_TASK_THROTTLING': {'0'},
    'KMP_DISP_NUM_BUFFERS': {'+2'},
    'LIBOMP_USE_HIDDEN_HELPER_TASK': {'0'},
    'LIBOMP_NUM_HIDDEN_HELPER_THREADS': {'0', '-0', '+2'},
    'KMP_SETTINGS': {'0'},
    'BOBBIN_WATCHDOG': NUMBERS - {'4294967297'},
    'BOBBIN_STUCK_US': {'1000000'},
    'OMP_GANG_SCHED': {'0'},
    # A file name: every value but the empty ones and one too long for a
    # name (ENAMETOOLONG) is one. Runs are made in a scratch directory.
    'BOBBIN_TRACE': set(BAD) - {'', ' ', 'x' * 5000},
}
# Values a variable accepts as valid but whose effect the probe cannot
# survive in bounded time on this machine are left out (none at present).
SKIP = {}
# Known failures, each outside the settings table (which warns for every
# value it rejects): reported as KNOWN, and as a failure once they pass, so
# that the entry goes when the defect does.
KNOWN = {}


def variables(src):
    names = set()
    with open(os.path.join(src, 'runtime', 'settings.cpp')) as f:
        names |= set(re.findall(r'^\s*\{"([A-Z][A-Z0-9_]+)",', f.read(), re.M))
    for d in ('runtime', 'scheduler', 'ult', 'abi'):
        for root, _, files in os.walk(os.path.join(src, d)):
            for fn in files:
                if fn.endswith(('.cpp', '.hpp', '.h', '.c')):
                    with open(os.path.join(root, fn), errors='replace') as f:
                        names |= set(re.findall(r'getenv\("([A-Z][A-Z0-9_]+)"\)', f.read()))
    return sorted(n for n in names if re.match(r'(OMP|KMP|GOMP|BOBBIN|LIBOMP)_', n))


def clean_env():
    return {k: v for k, v in os.environ.items()
            if not re.match(r'^(OMP|KMP|GOMP|BOBBIN|LIBOMP|LD_PRELOAD)', k)}


def run_one(a, name, value):
    env = clean_env()
    env['LD_PRELOAD'] = os.path.abspath(a.lib)
    env['OMP_NUM_THREADS'] = env.get('OMP_NUM_THREADS', '4') if name != 'OMP_NUM_THREADS' else value
    env[name] = value
    # In a scratch directory: a variable that names a file (BOBBIN_TRACE)
    # writes it there.
    with tempfile.TemporaryDirectory() as scratch:
        p = subprocess.Popen([os.path.abspath(a.probe)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, cwd=scratch)
        try:
            out, err = p.communicate(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return 'hang after %gs' % a.timeout
    out, err = out.decode(errors='replace'), err.decode(errors='replace')
    if p.returncode < 0:
        return 'killed by signal %d: %s' % (-p.returncode, last_line(err))
    if p.returncode != 0 or 'probe ok' not in out:
        return 'exit %d: %s %s' % (p.returncode, out.strip()[:200], last_line(err))
    accepted = name in FREE or value in ACCEPTS.get(name, set())
    warned = [l for l in err.splitlines() if name in l]
    if not accepted and not warned:
        return 'no warning naming %s (stderr: %s)' % (name, last_line(err) or 'empty')
    return None


def last_line(s):
    lines = [l for l in s.splitlines() if l.strip()]
    return lines[-1][:300] if lines else ''


def show(v):
    return repr(v) if len(v) < 40 else repr(v[:12]) + '...(%d chars)' % len(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--lib', required=True)
    ap.add_argument('--probe', required=True)
    ap.add_argument('--src', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    ap.add_argument('--timeout', type=float, default=20)
    ap.add_argument('--only', help='one variable')
    a = ap.parse_args()
    names = variables(a.src)
    if a.only:
        names = [a.only]
    runs = failures = 0
    for name in names:
        for value in BAD:
            if value in SKIP.get(name, ()):
                continue
            runs += 1
            why = run_one(a, name, value)
            known = KNOWN.get((name, value))
            if why and known:
                print('KNOWN %s=%s: %s (%s)' % (name, show(value), why, known), flush=True)
            elif known:
                failures += 1
                print('FAIL %s=%s: passes now; drop it from KNOWN (%s)' % (name, show(value), known), flush=True)
            elif why:
                failures += 1
                print('FAIL %s=%s: %s' % (name, show(value), why), flush=True)
    print('settings sweep: %d variables x %d values = %d runs, %d failed' % (len(names), len(BAD), runs, failures))
    print('variables: ' + ' '.join(names))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
