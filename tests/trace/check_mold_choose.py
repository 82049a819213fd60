#!/usr/bin/env python3
"""The moldable-region model choosing the leader, read from the trace.

    check_mold_choose.py --lib build/libbobbin.so --topology 'numa:2 core:2 pu:1'
                         -- PROGRAM STEPS CORES_PER_NODE NODES

Runs mold_choose (a chain of tasks, each opening a nested region with
dyn-var true that does four times the work unless it is opened on the last
node) with BOBBIN_TRACE and BOBBIN_TOPOLOGY and reads the trace's `mold
leader` events (where the model queued each ready task) and `mold` events
(where each region ran), and checks that
- the model explored every node as a leader (`exploring` choices naming it);
- after that, at least 75% of its choices name the target node (the rest:
  retries of the others);
- more regions were timed under the target node as leader than a quarter
  of the way from an even share (what no choice gives) to all of them: 62%
  of them on 2 nodes, 44% on 4 (a worker of another node may still take a
  queued task: on a modelled machine its workers share the host's 2 cores,
  and the leader's may not run within the moment the others leave it).
Exit status 0 if so, 1 otherwise (each failure printed).
"""

import collections
import sys

from modelled_run import parse_args, traced_run, verdict


def main():
    a, cmd = parse_args()
    steps, per_node, nodes = int(cmd[1]), int(cmd[2]), int(cmd[3])
    out, events = traced_run(a, cmd, OMP_PLACES='cores', OMP_NUM_THREADS=str(per_node * nodes))
    if events is None:
        return 1
    target = next(int(l.split()[1]) for l in out.splitlines() if l.startswith('target '))
    failures = []
    leader_events = sorted((e for e in events if e.get('name') == 'mold leader'), key=lambda e: e['ts'])
    choices = [e['args'] for e in leader_events]
    explored = {c['leader'] for c in choices if c.get('choice') == 'exploring'}
    if explored != set(range(nodes)):
        failures.append(f'nodes explored as leaders: {sorted(explored)}, want {list(range(nodes))}')
    model = [c['leader'] for c in choices if c.get('choice') == 'model']
    on_target = sum(1 for l in model if l == target)
    if len(model) < steps // 4:
        failures.append(f'{len(model)} choices by the model of {len(choices)} ready tasks, want {steps // 4} or more')
    elif on_target < 0.75 * len(model):
        failures.append(f'{on_target} of the model\'s {len(model)} choices name node {target}, want 75% '
                        f'(choices: {collections.Counter(model)})')
    ran = collections.Counter(e['args']['leader'] for e in events if e.get('name') == 'mold')
    # An even share is what no choice gives; want a quarter of the way from it to all.
    want = 1 / nodes + (1 - 1 / nodes) / 4
    if ran[target] <= want * sum(ran.values()):
        failures.append(f'regions per leader {dict(ran)}: {want:.0%} or fewer under node {target}')
    return verdict(failures, lambda: f'{len(choices)} tasks placed, {on_target} of the model\'s {len(model)} choices '
                                     f'at node {target}; regions per leader {dict(ran)}')


if __name__ == '__main__':
    sys.exit(main())
