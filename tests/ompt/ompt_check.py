#!/usr/bin/python3
"""One case of the OMPT suite (tests/ompt/README.md).

  ompt_check.py --counts PROG --exe constructs --tool tool.so --lib libbobbin.so
      Runs `constructs PROG` on the stock libomp and under Bobbin, each with
      the counting tool; passes when both succeed, the tool saw no violation
      in either, and the counts agree, except the keys the runtimes may
      legitimately count differently (IGNORED below; their begins and ends
      still pair up, which the tool checks).

  ompt_check.py --invariants PROG --exe constructs_gcc --tool tool.so --lib libbobbin.so
      A gcc build under Bobbin with the counting tool (libgomp has no tools
      interface to compare with): passes when it succeeds and the tool saw
      no violation.

  ompt_check.py --archer race|norace --exe archer_race --lib libbobbin.so
      Runs a ThreadSanitizer build under Bobbin with Archer as the tool:
      `race` passes when the race is reported, `norace` when nothing is.
      The same program on the stock runtime must agree (else the case says
      so and fails: the harness, not Bobbin, would be wrong).
"""
import argparse
import os
import subprocess
import sys
import tempfile

TIMEOUT = 120
ARCHER = '/usr/lib/llvm-14/lib/libarcher.so'

# Keys counted differently by design:
#  thread_begin/thread_end: an OMPT thread is an OpenMP thread; Bobbin runs
#    some teams as fibers with descriptors of their own (more threads than a
#    kernel-thread runtime reuses);
#  reduction: whether the reduction callbacks come depends on the method the
#    runtime picks (libomp 14 reports none for its atomic method).
IGNORED = ('thread_begin ', 'thread_end', 'reduction ')


def clean_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('OMP_', 'KMP_', 'BOBBIN_')) and k not in ('LD_PRELOAD', 'LD_LIBRARY_PATH')}
    return env


def run_counts(exe, prog, tool, lib):
    with tempfile.NamedTemporaryFile(prefix='ompt-counts-', delete=False) as f:
        path = f.name
    env = clean_env()
    env.update({'OMP_TOOL_LIBRARIES': tool, 'OMPT_COUNTS': path, 'OMP_CANCELLATION': 'true'})
    if lib:
        env['LD_PRELOAD'] = lib
    try:
        p = subprocess.run([exe, prog], env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.unlink(path)
        return None, 'timed out after %d s' % TIMEOUT
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    finally:
        os.unlink(path)
    if p.returncode != 0:
        return None, 'exit %d: %s' % (p.returncode, (p.stderr or p.stdout).strip()[-400:])
    counts, violations = {}, []
    for line in lines:
        if line.startswith('violation: '):
            violations.append(line[len('violation: '):])
        elif line.startswith('violations '):
            continue
        else:
            key, _, n = line.rpartition(' ')
            counts[key] = int(n)
    if not counts:
        return None, 'the tool wrote no counts (was it started?)'
    return (counts, violations), None


def check_counts(a):
    results = {}
    for name, lib in (('stock', None), ('bobbin', a.lib)):
        r, err = run_counts(a.exe, a.counts, a.tool, lib)
        if err:
            print('%s: %s: %s' % (a.counts, name, err))
            return 1
        results[name] = r
    bad = False
    for name, (_, violations) in results.items():
        for v in violations:
            print('%s: %s: tool found: %s' % (a.counts, name, v))
            bad = True
    stock, bobbin = results['stock'][0], results['bobbin'][0]
    keys = sorted(set(stock) | set(bobbin))
    for k in keys:
        if k.startswith(IGNORED):
            continue
        if stock.get(k, 0) != bobbin.get(k, 0):
            print('%s: %s: libomp %d, Bobbin %d' % (a.counts, k, stock.get(k, 0), bobbin.get(k, 0)))
            bad = True
    if not bad:
        print('%s: %d kinds of callback, same counts as libomp' % (a.counts, len([k for k in keys if not k.startswith(IGNORED)])))
    return 1 if bad else 0


def check_invariants(a):
    """gcc builds: libgomp has no tools interface, so only Bobbin runs them."""
    r, err = run_counts(a.exe, a.invariants, a.tool, a.lib)
    if err:
        print('%s (gcc): bobbin: %s' % (a.invariants, err))
        return 1
    counts, violations = r
    for v in violations:
        print('%s (gcc): bobbin: tool found: %s' % (a.invariants, v))
    if not violations:
        print('%s (gcc): %d kinds of callback, no violation' % (a.invariants, len(counts)))
    return 1 if violations else 0


def run_archer(exe, lib):
    env = clean_env()
    env.update({'OMP_TOOL_LIBRARIES': ARCHER, 'TSAN_OPTIONS': 'ignore_noninstrumented_modules=1 exitcode=66'})
    if lib:
        env['LD_PRELOAD'] = lib
    try:
        p = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, 'timed out after %d s' % TIMEOUT
    reported = 'WARNING: ThreadSanitizer: data race' in p.stderr
    if p.stderr.count('WARNING: ThreadSanitizer') != p.stderr.count('WARNING: ThreadSanitizer: data race'):
        return None, 'ThreadSanitizer reported something else: ' + p.stderr.strip()[-600:]
    if p.returncode not in (0, 66):
        return None, 'exit %d: %s' % (p.returncode, p.stderr.strip()[-600:])
    return reported, None


def check_archer(a):
    if not os.path.exists(ARCHER):
        print('archer %s: %s is missing (libomp-14-dev)' % (a.archer, ARCHER))
        return 1
    want = a.archer == 'race'
    stock, err = run_archer(a.exe, None)
    if err:
        print('archer %s: stock libomp: %s' % (a.archer, err))
        return 1
    if stock != want:
        print('archer %s: on stock libomp the race was %sreported: the case itself is wrong' % (a.archer, '' if stock else 'not '))
        return 1
    got, err = run_archer(a.exe, a.lib)
    if err:
        print('archer %s: Bobbin: %s' % (a.archer, err))
        return 1
    if got != want:
        print('archer %s: under Bobbin the race was %sreported' % (a.archer, '' if got else 'not '))
        return 1
    print('archer %s: %s, as on libomp' % (a.archer, 'race reported' if want else 'nothing reported'))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--counts', help='the constructs program to compare')
    ap.add_argument('--archer', choices=['race', 'norace'])
    ap.add_argument('--invariants', help='the constructs program to run under Bobbin alone (a gcc build)')
    ap.add_argument('--exe', required=True)
    ap.add_argument('--tool')
    ap.add_argument('--lib', required=True)
    a = ap.parse_args()
    if a.counts:
        return check_counts(a)
    if a.archer:
        return check_archer(a)
    if a.invariants:
        return check_invariants(a)
    ap.error('--counts or --archer')


if __name__ == '__main__':
    sys.exit(main())
