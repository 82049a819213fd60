#!/usr/bin/env python3
"""The moldable-region model's `where` from depend clauses, read from the trace.

    check_mold_depend.py --lib build/libbobbin.so --topology 'numa:2 core:2 pu:1'
                         -- PROGRAM STEPS CORES_PER_NODE NODES [child]

Runs mold_depend (a team bound close, one thread per modelled core; chains of tasks with
depend(inout) on blocks first touched on each NUMA node, each task opening
a nested region with dyn-var true, or with `child` a child task with no
clause opening it) with BOBBIN_TRACE and BOBBIN_TOPOLOGY,
reads its `blocks NODE REGIONS` lines and the trace's `mold` events, and
checks that every region names where its data lives (`where`, a task
list), one list per node, and that each list has as many regions as its
node's blocks had tasks (the counts differ from node to node, so a region
timed under another node's list shows). Exit status 0 if so, 1 otherwise.
"""

import collections
import sys

from modelled_run import parse_args, traced_run, verdict


def main():
    a, cmd = parse_args()
    per_node, nodes = int(cmd[2]), int(cmd[3])
    # One thread per modelled core, so that every node first-touches blocks.
    out, events = traced_run(a, cmd, OMP_PLACES='cores', OMP_NUM_THREADS=str(per_node * nodes))
    if events is None:
        return 1
    want = sorted(int(l.split()[2]) for l in out.splitlines() if l.startswith('blocks '))
    molds = [e['args'] for e in events if e.get('name') == 'mold']
    failures = []
    unplaced = [m for m in molds if 'where' not in m]
    if unplaced:
        failures.append(f'{len(unplaced)} of {len(molds)} regions name no place for their data: {unplaced[:3]}')
    per_list = collections.Counter(m['where'] for m in molds if 'where' in m)
    if sorted(per_list.values()) != want:
        failures.append(f'regions per data list {dict(per_list)}, want counts {want} (one list per node)')
    return verdict(failures, lambda: f'{len(molds)} regions, each timed under its data\'s list: {dict(per_list)}')


if __name__ == '__main__':
    sys.exit(main())
