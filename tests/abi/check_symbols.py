#!/usr/bin/env python3
"""The widened symbol check: libbobbin.so exports every libomp entry point a
clang-built program can reach, at libomp's version node.

Required names (the "libomp ABI"):
  * every __kmpc_* function exported by stock libomp.so.5 that clang (14 by
    default; --clang-lib names another) can emit for host code: the
    __kmpc_* names in clang's own runtime-function table (OMPKinds.def,
    compiled into libLLVM and libclang-cpp), which is every call
    CGOpenMPRuntime makes;
  * every omp_*, ompc_* and kmp_* function libomp exports in its C spelling
    (the Fortran spellings, with a trailing underscore or in capitals, are
    for ifort and gfortran programs, not for clang's).

Each must be exported by libbobbin.so at node VERSION, the node clang-built
binaries ask for; a missing name or another node fails the test. The names
Bobbin exports only as the one-line "is not supported yet" abort
(abi/unsupported.inc) are printed grouped by family, and so are the libomp
functions outside the required set that Bobbin does not export.

Exit status: 0 pass, 1 fail, 77 skipped (no stock libomp to compare with).
"""

import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

ABI_NAME = re.compile(r'^(__kmpc_|omp_|ompc_|kmp_)')
OTHER_RUNTIME_NAME = re.compile(r'^(__kmpc_|kmpc_|omp_|ompc_|kmp_)')
KMPC_IN_BINARY = re.compile(rb'__kmpc_[A-Za-z0-9_]+')
DEFAULT_CLANG_LIBS = ['/usr/lib/llvm-14/lib/libLLVM-14.so', '/usr/lib/llvm-14/lib/libclang-cpp.so.14']


def dynamic_functions(path):
    """{name: set of version nodes} of the functions an ELF file exports
    (nm -D; a name defined at several nodes is listed once per node)."""
    out = subprocess.run(['nm', '-D', '--defined-only', path], capture_output=True, text=True,
                         check=True).stdout
    syms = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[1] not in ('T', 'W', 'i'):
            continue
        name, _, version = fields[2].partition('@')
        syms.setdefault(name, set()).add(version.lstrip('@'))
    return syms


def clang_runtime_calls(paths):
    """The __kmpc_* names in clang's runtime-function table, or None."""
    names = set()
    for path in paths:
        try:
            with open(path, 'rb') as f:
                data = f.read()
        except OSError:
            continue
        names.update(m.decode() for m in KMPC_IN_BINARY.findall(data))
    return names or None


def unsupported_names(path):
    with open(path) as f:
        return re.findall(r'^BOBBIN_UNSUPPORTED\((\w+)\)', f.read(), re.M)


def family(name):
    """__kmpc_atomic_fixed4_add -> __kmpc_atomic; omp_get_place_num -> omp_get_place."""
    for prefix in ('__kmpc_', 'kmpc_', 'ompc_', 'omp_', 'kmp_'):
        if name.startswith(prefix):
            words = name[len(prefix):].split('_')
            take = 2 if words[0] in ('get', 'set', 'init', 'destroy', 'test', 'unset', 'omp', 'end') and len(words) > 1 else 1
            return prefix + '_'.join(words[:take])
    return name


def print_grouped(names, mark=frozenset(), indent='  '):
    groups = defaultdict(list)
    for n in sorted(names):
        groups[family(n)].append(n)
    for fam in sorted(groups):
        members = groups[fam]
        marked = sum(1 for n in members if n in mark)
        tag = f', {marked} required' if mark and marked else ''
        shown = ' '.join(n + ('*' if n in mark else '') for n in members)
        print(f'{indent}{fam} ({len(members)}{tag}): {shown}')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--lib', required=True, help='libbobbin.so')
    ap.add_argument('--libomp', default='/usr/lib/llvm-14/lib/libomp.so.5')
    ap.add_argument('--unsupported', required=True, help='abi/unsupported.inc')
    ap.add_argument('--clang-lib', action='append', default=[],
                    help='a library holding clang\'s runtime-function table (repeatable)')
    ap.add_argument('--version-node', default='VERSION')
    args = ap.parse_args()

    if not os.path.isfile(args.libomp):
        print(f'SKIP: no stock libomp at {args.libomp}')
        return 77
    libomp = dynamic_functions(args.libomp)
    bobbin = dynamic_functions(args.lib)
    unsupported = set(unsupported_names(args.unsupported))

    c_spelling = {n for n in libomp if ABI_NAME.match(n) and not n.endswith('_') and n == n.lower()}
    emitted = clang_runtime_calls(args.clang_lib or DEFAULT_CLANG_LIBS)
    kmpc = {n for n in c_spelling if n.startswith('__kmpc_')}
    if emitted is None:
        print('note: clang\'s runtime-function table not found; every __kmpc_* function of libomp is required')
        required_kmpc = kmpc
    else:
        required_kmpc = kmpc & emitted
    required = required_kmpc | {n for n in c_spelling if not n.startswith('__kmpc_')}

    missing = sorted(n for n in required if n not in bobbin)
    wrong_node = sorted(n for n in required if n in bobbin and args.version_node not in bobbin[n])
    aborting = sorted(n for n in bobbin if n in unsupported)
    aborting_required = [n for n in aborting if n in required]
    not_required_missing = sorted(n for n in libomp
                                  if OTHER_RUNTIME_NAME.match(n) and n not in required and n not in bobbin)

    print(f'libomp: {len(libomp)} functions, {len(c_spelling)} __kmpc_/omp_/ompc_/kmp_ in C spelling; '
          f'required: {len(required)} ({len(required_kmpc)} __kmpc_* that the clang of --clang-lib emits, '
          f'{len(required) - len(required_kmpc)} omp_/ompc_/kmp_)')
    print(f'libbobbin: exports {len(required) - len(missing)} of the {len(required)} required names; '
          f'{len(aborting)} names only as the "not supported yet" abort '
          f'({len(aborting_required)} of them required)')
    if aborting:
        print('exported only as the abort (abi/unsupported.inc), by family; * = required:')
        print_grouped(aborting, mark=set(aborting_required))
    if not_required_missing:
        print(f'libomp functions not exported, and not required ({len(not_required_missing)}: Fortran spellings, '
              f'kmpc_* for Intel compilers, __kmpc_* that the clang of --clang-lib never emits):')
        print_grouped(not_required_missing)
    failed = False
    if missing:
        print(f'FAIL: libbobbin.so does not export {len(missing)} required libomp names:')
        print_grouped(missing)
        failed = True
    if wrong_node:
        print(f'FAIL: {len(wrong_node)} names are not exported at node {args.version_node}: '
              + ', '.join(f'{n}@{"/".join(sorted(bobbin[n])) or "(none)"}' for n in wrong_node))
        failed = True
    stale = sorted(unsupported - set(bobbin))
    if stale:  # defined but hidden by the version script: dead lines, but no program can reach them
        print(f'note: abi/unsupported.inc defines {len(stale)} names that libbobbin.so does not export '
              f'(abi/bobbin.map hides them): ' + ', '.join(stale))
    if failed:
        return 1
    print('PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
