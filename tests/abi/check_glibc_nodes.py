#!/usr/bin/env python3
"""Every C library name libbobbin.so answers, it answers at each of the C
library's nodes of that name: a program linked on an older glibc asks for
the older node (sem_wait@GLIBC_2.2.5 before 2.34) and must still reach
Bobbin's function, not the C library's (ult/glibc_compat_linux.cpp).

For each function libbobbin.so exports at a GLIBC_* node, the nodes libc.so.6
defines that name at are read (nm -D); each must be exported by libbobbin.so
too, unless DIFFERENT names it as a node whose function has another meaning
(those stay the C library's).

usage: check_glibc_nodes.py --lib LIBBOBBIN [--libc LIBC]
Exit status 0 pass, 1 fail, 77 skipped (no libc.so.6 found).
"""

import argparse
import os
import sys

from check_symbols import dynamic_functions as nodes  # {name: set of nodes}, nm -D

# (name, node) pairs of the C library whose function is not the default one's.
DIFFERENT = {
    ('pthread_cond_wait', 'GLIBC_2.2.5'),  # LinuxThreads' condition variable
    ('pthread_cond_timedwait', 'GLIBC_2.2.5'),
    ('pthread_getaffinity_np', 'GLIBC_2.3.3'),  # a mask without its size
    ('pthread_setaffinity_np', 'GLIBC_2.3.3'),
    ('sched_getaffinity', 'GLIBC_2.3.3'),
    ('sched_setaffinity', 'GLIBC_2.3.3'),
}


def find_libc():
    for d in ('/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib64', '/lib/aarch64-linux-gnu'):
        p = os.path.join(d, 'libc.so.6')
        if os.path.exists(p):
            return p
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', required=True)
    ap.add_argument('--libc')
    args = ap.parse_args()
    libc = args.libc or find_libc()
    if not libc:
        print('SKIP: no libc.so.6 found')
        return 77
    bobbin, c = nodes(args.lib), nodes(libc)
    answered = sorted(n for n, ns in bobbin.items() if any(x.startswith('GLIBC_') for x in ns))
    missing = []
    for name in answered:
        for node in sorted(c.get(name, ())):
            if node not in bobbin[name] and (name, node) not in DIFFERENT:
                missing.append(f'{name}@{node}')
    print(f'{len(answered)} C library names answered by {os.path.basename(args.lib)}, checked against {libc}')
    if missing:
        print(f'FAIL: {len(missing)} older nodes reach the C library instead (add them to '
              f'ult/glibc_compat_linux.cpp, or to DIFFERENT here if their function differs): ' + ', '.join(missing))
        return 1
    print('PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
