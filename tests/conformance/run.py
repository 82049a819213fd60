#!/usr/bin/env python3
"""Runs one conformance program in one mode and says in one line why it failed.

Modes (README.md has the whole story):
  libomp   the clang-linked binary on stock libomp (checks the test itself)
  preload  the same binary with LD_PRELOAD=libbobbin.so
  compat   the same binary with LD_LIBRARY_PATH=<compat dir>, whose
           libomp.so.5 is a symlink to libbobbin.so
  linked   the binary linked to libbobbin alone

The environment is made repeatable: inherited OMP_*, KMP_*, GOMP_* and CONF_*
variables are dropped (BOBBIN_* knobs pass through), then the --env values are
set. CONF_EXPECT_BOBBIN tells the program which runtime it must find (check.h).

--sweep VAR=v1,v2,... (repeatable) runs the program once per combination of
the listed values (the cross product), each on top of the --env values, and
reports every combination that fails with its own reproduce line; after
--sweep-max-failures failed combinations the rest are skipped. --variant
'VAR=v;VAR2=w' (repeatable) adds one alternative set of values: the runs are
then every variant times every --sweep combination.

--expect-unsupported NAME: Bobbin does not implement NAME yet and aborts
with "bobbin: NAME is not supported yet". A run that ends that way exits 1
(Meson registers the test with should_fail: EXPECTED FAIL); a pass exits 0
(UNEXPECTED PASS: drop the marker); any other failure exits 99 (ERROR).

--libomp-retries N (libomp mode only): after a failed run, run again up to
N times; the program passes if one run passes, and the output keeps every
failure. Stock libomp 14 fails some correct programs now and then under
load (a lost task, an assertion); the libomp mode is there to check the
program, not libomp. Bobbin's modes are never retried.

Exit status: 0 pass, 1 fail, 99 harness error (Meson reports 99 as an error
even for a test registered with should_fail).
"""

import argparse
import itertools
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time

SCRUBBED = ('OMP_', 'KMP_', 'GOMP_', 'CONF_')
RUNTIME_NAME = re.compile(r'^(__kmpc_|omp_|ompc_|kmp_)')
BOBBIN_MODES = ('preload', 'compat', 'linked')


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--libomp-retries', type=int, default=0,
                    help='libomp mode: run again up to N times after a failure (not for programs '
                         'marked LIBOMP14-DEFECT)')
    ap.add_argument('--mode', required=True, choices=('libomp',) + BOBBIN_MODES)
    ap.add_argument('--name', help='test name for messages (default: the binary name)')
    ap.add_argument('--lib', required=True, help='path of libbobbin.so')
    ap.add_argument('--compat-dir', required=True, help='directory holding libomp.so.5 -> libbobbin.so')
    ap.add_argument('--preload-first', default='',
                    help='libraries to preload before everything else (a sanitizer runtime for a sanitized '
                         'libbobbin, tests/asan/sanitize.py)')
    ap.add_argument('--env', action='append', default=[], metavar='VAR=VALUE')
    ap.add_argument('--timeout', type=float, default=25.0,
                    help='seconds before the program is killed (CONF_TIMEOUT overrides)')
    ap.add_argument('--max-address-space-mib', type=int, default=0,
                    help='RLIMIT_AS for the program, for runs that may ask for absurd amounts of memory')
    ap.add_argument('--sweep', action='append', default=[], metavar='VAR=V1,V2,...',
                    help='run once per combination of these values (cross product)')
    ap.add_argument('--variant', action='append', default=[], metavar="'VAR=V;VAR2=W'",
                    help='one alternative set of values; runs every variant x every --sweep combination')
    ap.add_argument('--sweep-max-failures', type=int, default=3,
                    help='skip the remaining combinations after this many failed')
    ap.add_argument('--expect-unsupported', metavar='NAME',
                    help='in the Bobbin modes, expect the one-line abort for NAME (see above)')
    ap.add_argument('binary')
    return ap.parse_args()


class Failure(Exception):
    pass


def dynamic_symbols(path, defined):
    """{name: version or ''} of the dynamic symbols of an ELF file, from
    objdump -T. (Not nm: binutils' nm loads every bfd plugin it finds,
    clang 19's LLVMgold among them, which costs more than the run itself.)
    A name defined at several version nodes keeps its default one: that is
    what clang binaries bind to."""
    out = subprocess.run(['objdump', '-T', path], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 4 or not re.fullmatch(r'[0-9a-f]{16}', fields[0]):
            continue
        if ('*UND*' in fields) == defined:
            continue
        name, version = fields[-1], fields[-2]
        hidden = version.startswith('(')  # name@node, not name@@node
        if name in syms and hidden:
            continue
        version = version.strip('()')
        syms[name] = '' if version == 'Base' or re.fullmatch(r'[0-9a-f]{16}', version) else version
    return syms


def check_exports(binary, lib):
    """Every runtime entry point the binary needs must be exported by libbobbin,
    at the version node the binary asks for. Otherwise, under LD_PRELOAD, the
    call silently goes to stock libomp (still loaded as the binary's
    DT_NEEDED), and under compat/linked the loader fails with less context."""
    if not shutil.which('objdump'):
        print('note: objdump not found, export check skipped')
        return
    needed = {n: v for n, v in dynamic_symbols(binary, defined=False).items() if RUNTIME_NAME.match(n)}
    exported = dynamic_symbols(lib, defined=True)
    missing = sorted(n for n in needed if n not in exported)
    if missing:
        more = f' (+{len(missing) - 8} more)' if len(missing) > 8 else ''
        raise Failure(f'libbobbin.so does not export {len(missing)} of the {len(needed)} runtime '
                      f'symbols this program uses: {", ".join(missing[:8])}{more}')
    wrong = sorted(n for n, v in needed.items() if v and exported[n] != v)
    if wrong:
        raise Failure(f'libbobbin.so exports {", ".join(wrong[:8])} at a version node other than '
                      f'{needed[wrong[0]]}')


def check_linked(binary):
    """The linked binary must reach Bobbin and nothing else."""
    if not shutil.which('ldd'):
        print('note: ldd not found, dependency check skipped')
        return
    out = subprocess.run(['ldd', binary], capture_output=True, text=True).stdout
    libs = [line.split()[0] for line in out.splitlines() if line.strip()]
    omp = [l for l in libs if re.match(r'lib(g?omp|iomp5)\.so', os.path.basename(l))]
    if omp:
        raise Failure(f'linked binary needs {", ".join(omp)}; it must need only libbobbin.so')
    if not any(os.path.basename(l).startswith('libbobbin.so') for l in libs):
        raise Failure('linked binary does not need libbobbin.so')


def build_env(args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
    for item in args.env:
        key, sep, value = item.partition('=')
        if not sep:
            raise SystemExit(f'run.py: --env {item!r} is not VAR=VALUE')
        env[key] = value
    lib = os.path.abspath(args.lib)
    compat = os.path.abspath(args.compat_dir)
    preload = [p for p in env.get('LD_PRELOAD', '').replace(':', ' ').split() if 'bobbin' not in p]
    libpath = [p for p in env.get('LD_LIBRARY_PATH', '').split(':') if p and os.path.abspath(p) != compat]
    if args.mode == 'preload':
        preload.insert(0, lib)
    first = getattr(args, 'preload_first', '').split()
    if first and args.mode != 'libomp':
        preload = first + preload
    if args.mode == 'compat':
        libpath.insert(0, compat)
    for key, value in (('LD_PRELOAD', ' '.join(preload)), ('LD_LIBRARY_PATH', ':'.join(libpath))):
        if value:
            env[key] = value
        else:
            env.pop(key, None)
    env['CONF_EXPECT_BOBBIN'] = '0' if args.mode == 'libomp' else '1'
    return env


def describe_exit(code):
    if code < 0:
        try:
            return f'killed by {signal.Signals(-code).name}'
        except ValueError:
            return f'killed by signal {-code}'
    return f'exit status {code}'


def reason_from_output(output):
    """The line of the program's output that best says what went wrong."""
    lines = output.splitlines()
    patterns = (r'^FAIL ', r'^bobbin:', r'^SUMMARY: \w+Sanitizer', r'symbol lookup error', r'error while loading shared libraries',
                r'version .* not found', r'Assertion', r'OMP: Error', r'[Ee]rror')
    for pat in patterns:
        for line in lines:
            if re.search(pat, line):
                return line.strip()
    return ''


def run(args, env, timeout):
    def limits():
        if args.max_address_space_mib:
            size = args.max_address_space_mib << 20
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    start = time.monotonic()
    proc = subprocess.Popen([os.path.abspath(args.binary)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=limits)
    try:
        output, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the process group this script started
        output, _ = proc.communicate()
        timed_out = True
    return proc.returncode, output.decode(errors='replace'), timed_out, time.monotonic() - start


def sweep_combinations(variants, sweeps):
    """[[(VAR, value), ...], ...]: every --variant times the cross product of
    the --sweep lists."""
    axes = []
    if variants:
        axis = []
        for item in variants:
            pairs = [p.partition('=') for p in item.split(';') if p]
            if not pairs or any(not sep for _, sep, _ in pairs):
                raise SystemExit(f"run.py: --variant {item!r} is not 'VAR=V;VAR2=W'")
            axis.append(tuple((k, v) for k, _, v in pairs))
        axes.append(axis)
    for item in sweeps:
        key, sep, values = item.partition('=')
        if not sep or not values:
            raise SystemExit(f'run.py: --sweep {item!r} is not VAR=V1,V2,...')
        axes.append([((key, v),) for v in values.split(',')])
    return [[kv for group in c for kv in group] for c in itertools.product(*axes)]


def run_once(args, env, tag):
    """Runs the program once; prints its output and a PASS/FAIL line.
    Returns 0 pass, 1 fail, or 99 for a failure other than the expected
    unsupported-feature abort."""
    timeout = float(os.environ.get('CONF_TIMEOUT', args.timeout))
    set_vars = ' '.join(f'{k}={shlex.quote(env[k])}' for k in sorted(env)
                        if k.startswith(SCRUBBED + ('BOBBIN_', 'LD_PRELOAD', 'LD_LIBRARY_PATH')))
    reproduce = f'env {set_vars} {shlex.quote(os.path.abspath(args.binary))}'
    if args.max_address_space_mib:
        reproduce = f'(ulimit -v {args.max_address_space_mib << 10}; {reproduce})'
    expected = f'bobbin: {args.expect_unsupported} is not supported yet' \
        if args.expect_unsupported and args.mode in BOBBIN_MODES else None
    output = ''
    try:
        code, output, timed_out, seconds = run(args, env, timeout)
        if output:
            sys.stdout.write(output if output.endswith('\n') else output + '\n')
        if timed_out:
            raise Failure(f'timed out after {timeout:g} s (killed)')
        if code != 0:
            why = reason_from_output(output)
            raise Failure(describe_exit(code) + (f': {why}' if why else ''))
    except Failure as f:
        print(f'reproduce: {reproduce}')
        if expected and expected in output:
            print(f'EXPECTED FAIL {tag}: {expected}')
            return 1
        print(f'FAIL {tag}: {f}')
        return 99 if expected else 1
    if expected:
        print(f'UNEXPECTED PASS {tag}: {args.expect_unsupported} works now; drop the expect-unsupported marker')
    else:
        print(f'PASS {tag} ({seconds:.2f} s)')
    return 0


def with_retries(run, retries, tag, runtime):
    """Calls run(attempt) until it returns 0 or `retries` more attempts have
    failed; says each retry and, when a later attempt passed, how many failed.
    For the stock runtimes only: they check the program, not Bobbin."""
    status, runs, failures = run(1), 1, 0
    failures += int(status != 0)
    while status and runs <= retries:
        print(f'RETRY {tag}: {runtime} run {runs} failed; this mode checks the program, '
              f'so a run that passes shows it is sound ({runtime} has intermittent defects)')
        runs += 1
        status = run(runs)
        failures += int(status != 0)
    if failures and not status:
        print(f'PASS {tag}: note: {runtime} failed {failures} of {runs} runs (see above)')
    return status


def main():
    args = parse_args()
    name = args.name or os.path.basename(args.binary)
    tag = f'{name} [{args.mode}]'
    if not os.path.isfile(args.binary):
        print(f'ERROR {tag}: no binary {args.binary}')
        return 99
    if args.mode in BOBBIN_MODES and not os.path.isfile(args.lib):
        print(f'ERROR {tag}: no {args.lib}')
        return 99
    env = build_env(args)
    try:
        if args.mode in BOBBIN_MODES:
            check_exports(args.binary, args.lib)
        if args.mode == 'linked':
            check_linked(args.binary)
    except Failure as f:
        print(f'FAIL {tag}: {f}')
        return 1
    if not args.sweep and not args.variant:
        retries = args.libomp_retries if args.mode == 'libomp' else 0
        status = with_retries(lambda attempt: run_once(args, env, tag if attempt == 1 else f'{tag} (run {attempt})'),
                              retries, tag, 'stock libomp')
        return status
    combos = sweep_combinations(args.variant, args.sweep)
    failed, worst = [], 0
    for i, combo in enumerate(combos):
        if len(failed) >= args.sweep_max_failures:
            print(f'SKIPPED {len(combos) - i} of {len(combos)} combinations after {len(failed)} failures')
            break
        what = ' '.join(f'{k}={v}' for k, v in combo)
        status = run_once(args, {**env, **dict(combo)}, f'{name} [{args.mode} {what}]')
        if status:
            failed.append(what)
            worst = max(worst, status)
    if failed:
        print(f'FAIL {tag}: {len(failed)} of {len(combos)} combinations failed: ' + '; '.join(failed))
        return worst
    print(f'PASS {tag}: all {len(combos)} combinations')
    return 0


if __name__ == '__main__':
    sys.exit(main())
