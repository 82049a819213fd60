#!/usr/bin/env python3
"""Runs one fault scenario (tests/faults/README.md) on the stock runtime or
under Bobbin, and says in one line what went wrong.

  faults.py --case exit:nested --exe fault_exit --runtime preload --lib libbobbin.so

Runtimes: stock (the binary as built: libomp for clang, libgomp for gcc),
preload (LD_PRELOAD=libbobbin.so), compat (LD_LIBRARY_PATH=<compat dir>,
where libomp.so.5 and libgomp.so.1 are libbobbin.so). Every run has a time
limit; a run that outlives it is killed with its process group and fails
as a hang. Exit status: 0 pass, 1 fail, 77 skipped.
"""

import argparse
import os
import resource
import signal
import subprocess
import sys
import time

SCRUBBED = ('OMP_', 'KMP_', 'GOMP_', 'BOBBIN_', 'LD_PRELOAD', 'LD_LIBRARY_PATH')
NOBODY = 65534


def parse():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--case', required=True, help='KIND:ARG (exit:nested, overflow:task, dlopen, ctor, nproc:3, as:300)')
    ap.add_argument('--exe', required=True)
    ap.add_argument('--plugin', help='the OpenMP library fault_dlopen loads')
    ap.add_argument('--runtime', required=True, choices=('stock', 'preload', 'compat'))
    ap.add_argument('--lib', help='libbobbin.so')
    ap.add_argument('--compat-dir')
    ap.add_argument('--timeout', type=float, default=30)
    ap.add_argument('--stock-retries', type=int, default=5,
                    help='stock runs: run again up to N times after a failure, waiting a little longer each time '
                         '(the stock run checks the case, not the stock runtime: libomp 14 now and then segfaults '
                         'in exit() from a nested task, about 1 run in 100 on a loaded host, and in bursts)')
    return ap.parse_args()


def environment(a):
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
    env['OMP_NUM_THREADS'] = '4'
    # Meson sets MALLOC_PERTURB_ (freed memory is filled with a pattern):
    # kept for Bobbin, dropped for the stock runtimes, since libomp 14 reads
    # freed memory as a plugin that used it is unloaded (SIGBUS every run).
    if a.runtime == 'stock':
        env.pop('MALLOC_PERTURB_', None)
    if a.runtime == 'preload':
        env['LD_PRELOAD'] = a.lib
    elif a.runtime == 'compat':
        env['LD_LIBRARY_PATH'] = a.compat_dir
    return env


def run(a, argv, env, preexec=None):
    """(status, stdout, stderr, hung): status is the exit code, or -signal."""
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=preexec)
    try:
        out, err = p.communicate(timeout=a.timeout)
        return p.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err, True


def describe(status):
    if status is None:
        return 'hung'
    if status < 0:
        try:
            return 'killed by %s' % signal.Signals(-status).name
        except ValueError:
            return 'killed by signal %d' % -status
    return 'exit status %d' % status


def bobbin(a):
    return a.runtime != 'stock'


def check_exit(a, where, status, out, err):
    want = {'nested': 7, 'task': 9, 'nested_task': 11, 'untied': 13, 'taskwait': 15}[where]
    if status != want:
        return '%s, want exit status %d' % (describe(status), want)
    if out.count('exiting with %d' % want) != 1:
        return 'buffered output lost: %r' % out[-300:]
    if out.count('atexit ran') != 1 or 'atexit ran 1' not in out:
        return 'atexit handler ran %d times, want once' % out.count('atexit ran')
    if 'not reached' in out:
        return 'the program went on after exit()'
    return None


def check_overflow(a, status, out, err):
    if 'not reached' in out:
        return 'the recursion returned: the test did not overflow a stack'
    if status == 0:
        return 'exit status 0, want a fatal signal or a non-zero status'
    if status < 0 and -status not in (signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT):
        return '%s, want SIGSEGV, SIGBUS or SIGABRT' % describe(status)
    if bobbin(a):
        lines = [l for l in err.splitlines() if l.startswith('bobbin: stack overflow in ')]
        if len(lines) != 1:
            return 'want one line "bobbin: stack overflow in ...", got: %r' % err[-400:]
        if 'OMP_STACKSIZE' not in lines[0]:
            return 'the message does not name OMP_STACKSIZE: %s' % lines[0]
    return None


def check_limits(a, kind, status, out, err):
    if status == 0:
        return None if 'limits ok' in out else 'exit status 0 without "limits ok": %r' % out[-300:]
    if not bobbin(a):
        return None  # the stock runtimes abort with their own messages; only a hang is a failure
    if kind == 'nproc':
        # Threads that cannot be created leave Bobbin's pool smaller; the
        # teams run on it as fibers, at their full size.
        return '%s, want every region to run on the workers there are: %r' % (describe(status), err[-300:])
    if status < 0 and -status != signal.SIGABRT:
        return '%s, want success or a message and an abort' % describe(status)
    lines = [l for l in err.splitlines() if l.startswith('bobbin: ')]
    if not lines:
        return '%s without a message' % describe(status)
    return None


def main():
    a = parse()
    kind, _, arg = a.case.partition(':')
    env = environment(a)
    preexec = None
    argv = [a.exe]
    if kind == 'exit':
        argv.append(arg)
    elif kind == 'overflow':
        argv.append(arg)
        env['OMP_STACKSIZE'] = '1M'
    elif kind == 'dlopen':
        argv.append(a.plugin)
    elif kind == 'ctor':
        pass
    elif kind == 'nproc':
        if os.geteuid() != 0:
            print('skipped: RLIMIT_NPROC binds only a user other than root, and this run may not switch users')
            return 77
        limit = int(arg)

        def preexec():
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        argv.append('8')
    elif kind == 'as':
        limit = int(arg) << 20

        def preexec():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        argv.append('64')
    else:
        print('unknown case %s' % a.case)
        return 1

    reproduce = 'reproduce: %s' % ' '.join(
        ['%s=%s' % (k, env[k]) for k in sorted(env) if k.startswith(SCRUBBED + ('MALLOC_',))] + argv)
    tries = 1 + (a.stock_retries if a.runtime == 'stock' else 0)
    for attempt in range(tries):
        if attempt:
            time.sleep(0.5 * attempt)  # a burst of the stock runtime's exit-time crash passes
        status, out, err, hung = run(a, argv, env, preexec)
        if hung:
            why = 'hung; killed after %.0f s' % a.timeout
        elif kind == 'exit':
            why = check_exit(a, arg, status, out, err)
        elif kind == 'overflow':
            why = check_overflow(a, status, out, err)
        elif kind == 'dlopen':
            why = None if status == 0 and 'dlopen ok' in out else '%s: %s' % (describe(status), (out + err)[-400:])
        elif kind == 'ctor':
            why = None if status == 0 and 'ctor ok' in out else '%s: %s' % (describe(status), (out + err)[-400:])
        else:
            why = check_limits(a, kind, status, out, err)
        if not why:
            break
        print('FAIL %s (%s%s): %s' % (a.case, a.runtime, ', try %d' % (attempt + 1) if tries > 1 else '', why))
        print(reproduce)
        sys.stdout.write(out[-2000:] if hung else '')
        sys.stdout.write(err[-2000:])
    if why:
        return 1
    print('ok %s (%s): %s; %s' % (a.case, a.runtime, describe(status), (out.strip().splitlines() or [''])[-1]))
    if err.strip():
        print('stderr: ' + err.strip().splitlines()[0])
    return 0


if __name__ == '__main__':
    sys.exit(main())
