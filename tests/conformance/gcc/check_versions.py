#!/usr/bin/env python3
"""Checks how libbobbin.so serves both ABIs by symbol version (README.md):

  1. every OpenMP symbol of the installed libgomp.so.1 (GOMP_* and omp_*,
     the Fortran omp_*_ included, without GOMP_PLUGIN_* and OpenACC) is exported by
     libbobbin.so at the same version node, and abi/libgomp_versions.inc has
     exactly one row for each;
  2. every GOMP_* and omp_* name keeps its default version at VERSION (what
     clang binaries and unversioned references bind to), except the gcc-only
     names the table sends elsewhere;
  3. every jump of the table lands on a function libbobbin.so defines;
  4. the runtime layer spells neither ABI: no GOMP or __kmpc in the runtime
     files the GOMP layer added (--own; other runtime files are only noted).

Exit status: 0 pass, 1 fail.
"""

import argparse
import os
import re
import subprocess
import sys

ROW = re.compile(r'^BOBBIN_LIBGOMP_SYMBOL\((\w+), ([\w.]+), (\w+)\)')


def dynamic_symbols(path):
    """{(name, version, default)} of the defined dynamic symbols."""
    out = subprocess.run(['objdump', '-T', path], capture_output=True, text=True, check=True).stdout
    syms = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 4 or '*UND*' in fields or not re.match(r'^(GOMP_|omp_|ompc_)', fields[-1]):
            continue
        version = fields[-2]
        syms.add((fields[-1], version.strip('()'), not version.startswith('(')))
    return syms


def openmp_of_libgomp(path):
    return {(n, v) for n, v, _ in dynamic_symbols(path)
            if not n.startswith('GOMP_PLUGIN') and n != v}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--lib', required=True)
    ap.add_argument('--libgomp', required=True)
    ap.add_argument('--table', required=True, help='abi/libgomp_versions.inc')
    ap.add_argument('--runtime-dir', required=True)
    ap.add_argument('--own', nargs='*', default=[],
                    help='runtime files of the GOMP layer: spelling an ABI there fails; elsewhere it is noted')
    args = ap.parse_args()
    problems = []

    rows = {}
    for line in open(args.table):
        m = ROW.match(line)
        if m:
            name, node, target = m.groups()
            if (name, node) in rows:
                problems.append(f'table: two rows for {name}@{node}')
            rows[(name, node)] = target

    bobbin = dynamic_symbols(args.lib)
    exported = {(n, v) for n, v, _ in bobbin}
    defaults = {n for n, v, d in bobbin if d and v == 'VERSION'}

    if os.path.exists(args.libgomp):
        want = openmp_of_libgomp(args.libgomp)
        for n, v in sorted(want - exported):
            problems.append(f'{n}@{v}: libgomp.so.1 has it, libbobbin.so does not')
        for n, v in sorted(want - set(rows)):
            problems.append(f'{n}@{v}: no row in the table')
        for n, v in sorted(set(rows) - want):
            problems.append(f'{n}@{v}: a row in the table, but libgomp.so.1 has no such symbol')
        print(f'{len(want)} OpenMP symbols of {args.libgomp}; {len(want & exported)} served by libbobbin.so')
    else:
        print(f'note: {args.libgomp} not found; checking the table against libbobbin.so only')
        for n, v in sorted(set(rows) - exported):
            problems.append(f'{n}@{v}: a row in the table, but libbobbin.so does not export it')

    gcc_only = {n for (n, _), t in rows.items() if not t.startswith(('GOMP_', 'omp_', 'ompc_'))}
    for n in sorted({n for n, _ in rows} - gcc_only - defaults):
        problems.append(f'{n}: no default version at VERSION (clang binaries and unversioned references need it)')

    undefined = subprocess.run(['nm', '-D', '--undefined-only', args.lib], capture_output=True, text=True,
                               check=True).stdout.split()
    for target in sorted(set(rows.values())):
        if target in undefined:
            problems.append(f'{target}: a jump target of the table that libbobbin.so does not define')
    local = subprocess.run(['nm', args.lib], capture_output=True, text=True, check=True).stdout
    for target in sorted(set(rows.values())):
        if not re.search(rf'\s{re.escape(target)}(@@\S+)?$', local, re.M):
            problems.append(f'{target}: a jump target of the table, not found in libbobbin.so')

    # The one line api.hpp is asked to carry: the header of the block these
    # entry points added ("---- added for the GOMP ABI ----").
    marker = re.compile(r'^// ---- added for the GOMP ABI ----$')
    spelled = re.compile(r'GOMP|__kmpc')
    notes = []
    for root, _, files in os.walk(args.runtime_dir):
        for f in sorted(files):
            if not f.endswith(('.cpp', '.hpp', '.h')):
                continue
            path = os.path.join(root, f)
            for i, line in enumerate(open(path, errors='replace'), 1):
                if spelled.search(line) and not marker.match(line.strip()):
                    where = f'{path}:{i}: the runtime spells an ABI: {line.strip()}'
                    (problems if f in args.own else notes).append(where)
    for n in notes:
        print(f'note (not a file of the GOMP layer): {n}')

    for p in problems[:40]:
        print(f'FAIL {p}')
    if len(problems) > 40:
        print(f'... and {len(problems) - 40} more')
    if problems:
        return 1
    print(f'PASS: {len(rows)} libgomp-versioned symbols, defaults at VERSION, runtime/ spells no ABI')
    return 0


if __name__ == '__main__':
    sys.exit(main())
