#!/usr/bin/env python3
"""The conformance suites and the fuzz sample on an AddressSanitizer +
UndefinedBehaviorSanitizer build of libbobbin (tests/asan/README.md).

  tests/asan/sanitize.py --build build --lib build-asan-gcc/libbobbin.so

Runs every test of the main build's suites conformance-preload (clang 14
binaries) and conformance-gcc-preload (gcc 12 binaries), each with its own
command line from `meson introspect --tests`, but with the sanitized
library, the gcc sanitizer runtimes preloaded before it, and longer time
limits; then `tools/fuzz --ci` over a fixed range of seeds with the same
preload. The binaries are not instrumented, so every report comes from the
runtime's code (or from the C library calls it intercepts on the
programs' behalf). A report fails the test: ASan exits non-zero on its first
error, UBSan is made to halt on its first one, and LeakSanitizer checks at
exit. Prints one line per failure and ends with "sanitize: N passed, N
failed".
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITES = ('bobbin:conformance-preload', 'bobbin:conformance-gcc-preload')
SANITIZER_ENV = {
    'ASAN_OPTIONS': 'detect_leaks=1:abort_on_error=0:exitcode=23:detect_stack_use_after_return=0',
    'UBSAN_OPTIONS': 'halt_on_error=1:print_stacktrace=1:exitcode=24',
}


# Left out: teams_huge at OMP_MAX_ACTIVE_LEVELS=3, which starts 4096
# kernel threads: 18 s alone under ASan on a 2-core host (mostly system
# time), near the 75 s limit two at a time on a slow one, against 3 s in the
# main build, where it runs in every mode. At level 1 (3 s under ASan) it
# runs here too.
SKIP = re.compile(r'(^|\.)teams_huge\.nest3')


def gcc_runtime(name):
    out = subprocess.run(['gcc-12', '-print-file-name=' + name], capture_output=True, text=True).stdout.strip()
    return out if os.path.isabs(out) and os.path.exists(out) else None


def tests_of(build):
    out = subprocess.run(['meson', 'introspect', '--tests', build], capture_output=True, text=True, check=True).stdout
    return [t for t in json.loads(out)
            if any(s in t['suite'] for s in SUITES) and not t.get('should_fail') and not SKIP.search(t['name'])]


def with_sanitized_lib(cmd, lib, first):
    out = []
    it = iter(cmd)
    for arg in it:
        if arg == '--lib':
            out += [arg, lib]
            next(it)
        elif arg == '--timeout':
            out += [arg, str(max(60, int(float(next(it)) * 3)))]
        elif arg == '--max-address-space-mib':
            next(it)  # ASan reserves terabytes of shadow address space
        else:
            out.append(arg)
    return out[:2] + ['--preload-first', first] + out[2:]


def run_test(t, lib, first, build, env):
    cmd = with_sanitized_lib(t['cmd'], lib, first)
    cwd = t.get('workdir') or build
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, out = 1, 'FAIL: no result in 300 s (harness timeout)'
    return t['name'], rc, out, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'), help='the main build (its test binaries)')
    ap.add_argument('--lib', required=True, help='the sanitized libbobbin.so')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--only', help='a regex: the tests whose names match')
    ap.add_argument('--fuzz-seeds', default='1-20', help='tools/fuzz seeds ("" for none)')
    a = ap.parse_args()
    lib = os.path.abspath(a.lib)
    build = os.path.abspath(a.build)
    runtimes = [gcc_runtime('libasan.so'), gcc_runtime('libubsan.so')]
    if not all(runtimes) or not os.path.isfile(lib):
        print('sanitize: missing %s' % ', '.join(p for p in ['libasan.so', 'libubsan.so', lib] if p and not os.path.exists(p)))
        print('sanitize: 0 passed, 1 failed')
        return 1
    first = ' '.join(runtimes)
    env = dict(os.environ, **SANITIZER_ENV)
    tests = tests_of(build)
    if a.only:
        tests = [t for t in tests if re.search(a.only, t['name'])]
    passed = failed = 0
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for name, rc, out, secs in pool.map(lambda t: run_test(t, lib, first, build, env), tests):
            if rc == 0:
                passed += 1
                continue
            failed += 1
            why = [l for l in out.splitlines() if re.search(r'FAIL|ERROR|SUMMARY|runtime error|Sanitizer', l)]
            print('FAIL %s (%.0f s): %s' % (name, secs, (why or out.splitlines()[-1:] or ['?'])[0]))
            for line in out.splitlines()[:60]:
                print('    ' + line)
    print('sanitize: conformance: %d passed, %d failed (%.0f s)' % (passed, failed, time.monotonic() - start))
    if a.fuzz_seeds:
        p = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'fuzz'), '--seeds', a.fuzz_seeds, '--ci',
                            '--lib', lib, '--preload-first', first, '--jobs', str(a.jobs)],
                           env=env, capture_output=True, text=True)
        summary = [l for l in p.stdout.splitlines() if l.startswith('fuzz: seeds')]
        if p.returncode == 0:
            passed += 1
        else:
            failed += 1
            print('FAIL fuzz seeds %s under the sanitizers:' % a.fuzz_seeds)
            sys.stdout.write(p.stdout[-6000:])
        print('sanitize: %s' % (summary[0] if summary else p.stdout[-300:]))
    print('sanitize: %d passed, %d failed' % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
