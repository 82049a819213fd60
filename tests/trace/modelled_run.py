"""Shared by the checkers of runs on modelled machines (check_affinity.py,
check_mold_leader.py, check_mold_depend.py, check_mold_choose.py): the
command line, one traced run and the verdict.

    a, cmd = parse_args()             # --lib, --topology, -- PROGRAM ARGS...
    out, events = traced_run(a, cmd, OMP_PLACES='cores')

verdict(failures, summary) prints the failures (the first ten), or else
the summary (a function giving the line), and returns the exit status.

traced_run runs the program under LD_PRELOAD=--lib with BOBBIN_TOPOLOGY and
BOBBIN_TRACE (a temporary file), the given variables on top of the
environment (a value of None removes one), and returns its standard output
and the trace's events; if the program fails it prints its output and
returns (None, None).
"""

import argparse
import json
import os
import subprocess
import tempfile


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', required=True)
    ap.add_argument('--topology', required=True)
    ap.add_argument('cmd', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    return a, (a.cmd[1:] if a.cmd and a.cmd[0] == '--' else a.cmd)


def traced_run(a, cmd, **env_vars):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace.json')
        env = dict(os.environ, LD_PRELOAD=a.lib, BOBBIN_TRACE=path, BOBBIN_TOPOLOGY=a.topology)
        for k, v in env_vars.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print(r.stdout + r.stderr, end='')
            print(f'FAIL: {cmd} exited with {r.returncode}')
            return None, None
        with open(path) as f:
            return r.stdout, json.load(f)['traceEvents']


def verdict(failures, summary):
    for f in failures[:10]:
        print('FAIL: ' + f)
    if not failures:
        print(summary())
    return 1 if failures else 0
