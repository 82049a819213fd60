#!/usr/bin/env python3
"""Runs one gcc-built conformance program in one mode (README.md in this folder).

Modes:
  libgomp   the binary on stock libgomp.so.1 (checks the test itself)
  preload   LD_PRELOAD=libbobbin.so (libgomp.so.1 is still loaded: it is the
            binary's DT_NEEDED, and nothing may reach it)
  compat    LD_LIBRARY_PATH=<compat dir>, whose libgomp.so.1 is libbobbin.so
  bindings  as preload, with LD_BIND_NOW=1 LD_DEBUG=bindings: every GOMP_*,
            omp_*, __kmpc_* and kmp_* reference of the program's objects must
            bind to libbobbin.so, and no OpenMP name to libgomp. With
            --exit-shim (bind_exit.c, preloaded after libbobbin.so) the
            process ends once every binding is made, before main

The environment, the timeout and the one-line verdict are run.py's (this
script imports it). Before running, the Bobbin modes check that libbobbin.so
exports each GOMP_*/omp_* name at the version node the binary asks for.

--known-defect REGEX:WHY marks a failure that is not the runtime's (a libgomp
or gcc defect, explained by WHY): a run that fails with a FAIL line matching
REGEX passes as "known defect"; any other failure still fails.

Exit status: 0 pass, 1 fail, 99 harness error.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import run as conf  # noqa: E402  (tests/conformance/run.py)

RUNTIME_NAME = re.compile(r'^(GOMP_|omp_|ompc_|kmp_|__kmpc_)')


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--mode', required=True, choices=('libgomp', 'preload', 'compat', 'bindings'))
    ap.add_argument('--libgomp-retries', type=int, default=0,
                    help='libgomp mode: run again up to N times after a failure (as run.py --libomp-retries)')
    ap.add_argument('--name')
    ap.add_argument('--lib', required=True, help='path of libbobbin.so')
    ap.add_argument('--compat-dir', required=True, help='directory holding libgomp.so.1 -> libbobbin.so')
    ap.add_argument('--preload-first', default='', help='as run.py\'s')
    ap.add_argument('--env', action='append', default=[], metavar='VAR=VALUE')
    ap.add_argument('--timeout', type=float, default=25.0)
    ap.add_argument('--max-address-space-mib', type=int, default=0)
    ap.add_argument('--known-defect', action='append', default=[], metavar='REGEX:WHY')
    ap.add_argument('--exit-shim', help='bindings mode: a library that ends the process in its constructor')
    ap.add_argument('binary')
    return ap.parse_args()


def versioned_symbols(path, defined):
    """{(name, version)} of an ELF file's dynamic symbols, from objdump -T
    (which, unlike nm, shows every version of a name)."""
    out = subprocess.run(['objdump', '-T', path], capture_output=True, text=True, check=True).stdout
    syms = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 4 or not RUNTIME_NAME.match(fields[-1]):
            continue
        undefined = '*UND*' in fields
        if undefined == defined:
            continue
        version = fields[-2].strip('()')
        syms.add((fields[-1], version if version not in ('Base', '*UND*') else ''))
    return syms


def check_exports(binary, lib):
    needed = versioned_symbols(binary, defined=False)
    exported = versioned_symbols(lib, defined=True)
    names = {n for n, _ in exported}
    missing = []
    for n, v in sorted(needed):
        # An unversioned reference binds to the default version of the name.
        if ((n, v) not in exported) if v else (n not in names):
            missing.append(f'{n}@{v}' if v else n)
    if missing:
        more = f' (+{len(missing) - 8} more)' if len(missing) > 8 else ''
        raise conf.Failure(f'libbobbin.so does not export {len(missing)} of the {len(needed)} runtime '
                           f'symbols this program asks for: {", ".join(missing[:8])}{more}')


BINDING = re.compile(r'binding file (\S+) \[\d+\] to (\S+) \[\d+\]: \S+ symbol `([^\']+)\'(?: \[([^\]]+)\])?')


STOCK_RUNTIME = re.compile(r'^lib(g?omp|iomp5)\.so')


def check_bindings(log_text, lib):
    """Every GOMP_*/omp_*/__kmpc_*/kmp_* reference of the program's own objects
    (the executable and its libraries, not the stock runtimes, whose internal
    references do not matter) binds to libbobbin.so; nothing of the program's,
    and no OpenMP name of anyone's, binds to libgomp. Returns how many program
    references were checked."""
    libname = os.path.basename(lib)
    count, wrong = 0, []
    for m in BINDING.finditer(log_text):
        src, dst, sym, ver = m.groups()
        src_name, dst_name = os.path.basename(src), os.path.basename(dst)
        label = f'{sym}{"@" + ver if ver else ""} from {src_name} -> {dst}'
        program = not STOCK_RUNTIME.match(src_name) and src_name != libname
        if dst_name.startswith('libgomp.so') and (program or RUNTIME_NAME.match(sym)):
            wrong.append(label)  # libgomp's references to its own OpenACC names are its business
            continue
        if not program or not RUNTIME_NAME.match(sym):
            continue
        count += 1
        if dst_name != libname:
            wrong.append(label)
    if wrong:
        more = f' (+{len(wrong) - 5} more)' if len(wrong) > 5 else ''
        raise conf.Failure(f'{len(wrong)} bindings go elsewhere than libbobbin.so: {"; ".join(wrong[:5])}{more}')
    if count == 0:
        raise conf.Failure('LD_DEBUG=bindings reported no runtime binding of the program at all')
    return count


def main():
    args = parse_args()
    name = args.name or os.path.basename(args.binary)
    tag = f'{name} [gcc {args.mode}]'
    if not os.path.isfile(args.binary) or (args.mode != 'libgomp' and not os.path.isfile(args.lib)):
        print(f'ERROR {tag}: missing {args.binary} or {args.lib}')
        return 99
    defects = []
    for item in args.known_defect:
        regex, sep, why = item.partition(':')
        if not sep:
            print(f'ERROR {tag}: --known-defect {item!r} is not REGEX:WHY')
            return 99
        defects.append((re.compile(regex), why))

    # run.py's modes: 'libomp' is "no Bobbin", whatever the stock runtime is.
    run_mode = {'libgomp': 'libomp', 'bindings': 'preload'}.get(args.mode, args.mode)
    ns = types.SimpleNamespace(mode=run_mode, lib=args.lib, compat_dir=args.compat_dir, env=list(args.env),
                               preload_first=args.preload_first,
                               max_address_space_mib=args.max_address_space_mib, binary=args.binary)
    env = conf.build_env(ns)
    log_dir = None
    if args.mode == 'bindings':
        log_dir = tempfile.TemporaryDirectory(prefix='bobbin-bindings-')
        env.update(LD_BIND_NOW='1', LD_DEBUG='bindings', LD_DEBUG_OUTPUT=os.path.join(log_dir.name, 'ld'))
        if args.exit_shim:
            env['LD_PRELOAD'] = env['LD_PRELOAD'] + ' ' + os.path.abspath(args.exit_shim)
    timeout = float(os.environ.get('CONF_TIMEOUT', args.timeout))
    shown = [k for k in sorted(env) if k.startswith(conf.SCRUBBED + ('LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_BIND', 'LD_DEBUG'))]
    reproduce = 'env ' + ' '.join(f'{k}={env[k]}' for k in shown) + ' ' + os.path.abspath(args.binary)
    output = ''
    try:
        if args.mode != 'libgomp':
            check_exports(args.binary, args.lib)
        code, output, timed_out, seconds = conf.run(ns, env, timeout)
        if output:
            sys.stdout.write(output if output.endswith('\n') else output + '\n')
        if timed_out:
            raise conf.Failure(f'timed out after {timeout:g} s (killed)')
        if code != 0:
            why = conf.reason_from_output(output)
            raise conf.Failure(conf.describe_exit(code) + (f': {why}' if why else ''))
        if args.mode == 'bindings':
            logs = ''.join(open(os.path.join(log_dir.name, f), errors='replace').read()
                           for f in os.listdir(log_dir.name))
            n = check_bindings(logs, args.lib)
            print(f'{n} runtime bindings of the program, all to {os.path.basename(args.lib)}; none to libgomp')
    except conf.Failure as f:
        text = f'{f}\n{output}'
        for regex, why in defects:
            if regex.search(text):
                print(f'KNOWN DEFECT {tag}: {f}\n  not Bobbin\'s: {why}')
                return 0
        print(f'reproduce: {reproduce}')
        print(f'FAIL {tag}: {f}')
        return 1
    finally:
        if log_dir:
            log_dir.cleanup()
    print(f'PASS {tag} ({seconds:.2f} s)')
    return 0


def main_with_retries():
    args = parse_args()
    retries = args.libgomp_retries if args.mode == 'libgomp' else 0
    return conf.with_retries(lambda attempt: main(), retries, args.name or os.path.basename(args.binary),
                             'stock libgomp')


if __name__ == '__main__':
    sys.exit(main_with_retries())
