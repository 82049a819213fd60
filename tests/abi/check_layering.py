#!/usr/bin/env python3
"""DESIGN.md: runtime/ knows OpenMP but not how a compiler spells a call, and
scheduler/ and ult/ know neither. So no file below abi/ (under runtime/,
scheduler/ or ult/) may name an entry point, `__kmpc...` or `GOMP_...` (a
lower-case letter after the underscore), not even in a comment or a message:
the ABI's names live in abi/. libgomp's environment variables (GOMP_STACKSIZE)
are settings, not entry points, and may be read where the settings are.
Prints every offending line; exit status 1 if there is one.
"""

import os
import re
import sys

LAYERS = ('runtime', 'scheduler', 'ult')
NEEDLE = re.compile(r'__kmpc|GOMP_[a-z]')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
    hits = []
    files = 0
    for layer in LAYERS:
        for dirpath, _, names in os.walk(os.path.join(root, layer)):
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                files += 1
                try:
                    with open(path, encoding='utf-8', errors='replace') as f:
                        for number, line in enumerate(f, 1):
                            if NEEDLE.search(line):
                                hits.append(f'{os.path.relpath(path, root)}:{number}: {line.strip()}')
                except OSError as e:
                    hits.append(f'{path}: cannot read ({e})')
    if hits:
        print(f'FAIL: {len(hits)} lines below abi/ name the ABI (`__kmpc` or `GOMP_`); move the name to abi/:')
        for h in hits:
            print('  ' + h)
        return 1
    print(f'PASS: {files} files under {", ".join(LAYERS)}; none names __kmpc or GOMP_')
    return 0


if __name__ == '__main__':
    sys.exit(main())
