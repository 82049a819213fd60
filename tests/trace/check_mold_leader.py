#!/usr/bin/env python3
"""The moldable-region model's leader place, read from the trace.

    check_mold_leader.py --lib build/libbobbin.so --topology 'numa:2 core:2 pu:1'
                         -- PROGRAM ROUNDS CORES_PER_NODE NODES

Runs mold_leader (an outer team bound spread on cores, one thread per NUMA
node, each opening ROUNDS nested regions of one construct with dyn-var
true) with BOBBIN_TRACE and BOBBIN_TOPOLOGY, reads its `leader THREAD
NODE` lines and the trace's `mold` events, and checks that
- the outer threads sat on different nodes (one per node);
- every node's ROUNDS regions are traced with that node as leader;
- each leader explored the width its regions ask for itself (3 regions of
  CORES_PER_NODE traced as `exploring` under each leader, the model's
  trials; width 1 is estimated from them, not run, while workers idle):
  its own table, not one shared by the kind.
Exit status 0 if so, 1 otherwise (each failure printed).
"""

import collections
import sys

from modelled_run import parse_args, traced_run, verdict


def main():
    a, cmd = parse_args()
    rounds, per_node, nodes = int(cmd[1]), int(cmd[2]), int(cmd[3])
    out, events = traced_run(a, cmd, OMP_PLACES='cores', OMP_NUM_THREADS=None)
    if events is None:
        return 1
    failures = []
    leaders = sorted(int(l.split()[2]) for l in out.splitlines() if l.startswith('leader '))
    if leaders != list(range(nodes)):
        failures.append(f'the outer threads sat on nodes {leaders}, want one on each of {nodes}')
    molds = sorted((e for e in events if e.get('name') == 'mold'), key=lambda e: e['ts'])
    by_leader = collections.defaultdict(list)
    for e in molds:
        by_leader[e['args'].get('leader')].append(e['args'])
    if sorted(by_leader) != list(range(nodes)):
        failures.append(f'mold events under leaders {sorted(by_leader, key=str)}, want {list(range(nodes))}')
    for node in range(nodes):
        got = by_leader.get(node, [])
        if len(got) != rounds:
            failures.append(f'leader {node}: {len(got)} regions traced, want {rounds}')
        trials = sum(1 for g in got if g.get('choice') == 'exploring' and g['width'] == per_node)
        if trials < 3:
            failures.append(f'leader {node}: {trials} regions exploring width {per_node}, want 3 '
                            f'(a table of its own; widths and choices: {[(g["width"], g.get("choice")) for g in got]})')
    def summary():
        widths = {n: [g['width'] for g in by_leader[n]] for n in range(nodes)}
        return f'{nodes} leaders, each its own exploration; widths by leader: {widths}'

    return verdict(failures, summary)


if __name__ == '__main__':
    sys.exit(main())
