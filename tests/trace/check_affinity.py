#!/usr/bin/env python3
"""The affinity clause on a modelled machine, read from the trace.

    check_affinity.py --lib build/libbobbin.so --topology 'pack:2 core:2 pu:1'
                      -- PROGRAM TASKS CORES_PER_NODE NODES

Runs affinity_model (4 threads bound close on cores) with BOBBIN_TRACE and
BOBBIN_TOPOLOGY, reads its `expect PHASE NODE` lines and the trace's `task
affinity` events (created in phase order, TASKS per phase, each phase's
before the next one's), and checks that every task of a phase named the
expected NUMA node and one task list, the same list for every phase of a
node and different lists for different nodes. Exit status 0 if so, 1
otherwise (each failure printed).
"""

import sys

from modelled_run import parse_args, traced_run, verdict


def main():
    a, cmd = parse_args()
    tasks = int(cmd[1])
    out, events = traced_run(a, cmd, OMP_PLACES='cores', OMP_NUM_THREADS='4')
    if events is None:
        return 1
    expect = [int(l.split()[2]) for l in out.splitlines() if l.startswith('expect ')]
    got = sorted((e for e in events if e.get('name') == 'task affinity'), key=lambda e: e['ts'])
    failures = []
    if len(got) != tasks * len(expect) or not expect:
        failures.append(f'{len(got)} affinity clauses traced for {len(expect)} phases of {tasks}')
    list_of = {}
    for k, node in enumerate(expect):
        for e in got[k * tasks:(k + 1) * tasks]:
            args = e['args']
            if args.get('node') != node or 'list' not in args:
                failures.append(f'phase {k}: expected node {node}, the clause chose {args}')
                break
            if list_of.setdefault(node, args['list']) != args['list']:
                failures.append(f'phase {k}: node {node} on list {args["list"]}, before on {list_of[node]}')
                break
    if len(set(list_of.values())) != len(list_of):
        failures.append(f'nodes share a list: {list_of}')
    return verdict(failures, lambda: f'{len(expect)} phases of {tasks} tasks: each clause on its node\'s list {list_of}')


if __name__ == '__main__':
    sys.exit(main())
