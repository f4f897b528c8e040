#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_exports.py - every exported function has a product caller
#
# Run by `make check-exports` (part of `make test`). Lists each function
# declared in a tracked header under runner/, diff/, sarif/, common/ and
# libcrs/, finds the .c that defines it, and fails (exit 1, one line per
# function) when no other product .c names it (tests/ does not count):
# such a function is test-only API. Make it static, delete it, move it
# to tests/helper/, or fence it with #ifdef UNIT_TESTS in both the .h
# and the .c (a test seam the product does not export). A name used inside a header macro counts as used
# by whoever uses the macro. tests/exports_allow.txt lists deliberate
# API kept without a caller, one "name  reason" a line.
import os
import re
import subprocess
import sys

DIRS = ("runner/", "diff/", "sarif/", "common/", "libcrs/")
# a declaration at the start of a line: type words, then name(
DECL = re.compile(r'^(?!\s)(?!typedef|static|#|extern\s+"C")'
                  r'[A-Za-z_][\w \t\*]*?[\s\*]([A-Za-z_]\w*)\s*\(', re.M)
IDENT = re.compile(r'[A-Za-z_]\w*')


def tracked(root, *pats):
    out = subprocess.run(["git", "-C", root, "ls-files", *pats],
                         check=True, capture_output=True, text=True).stdout
    return [p for p in out.split("\n") if p]


def strip(text):
    """The C text without comments, string and character literals."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'
                  r"'(?:\\.|[^'\\\n])*'",
                  lambda m: " " if m.group(0)[0] in "/" else '""',
                  text, flags=re.S)


def read(root, p):
    """p's C text, less comments, literals and #ifdef UNIT_TESTS blocks
    (test seams: compiled only into the unit tests, so not exported)."""
    with open(os.path.join(root, p), encoding="utf-8",
              errors="replace") as f:
        text = strip(f.read())
    return re.sub(r'^\s*#\s*ifdef\s+UNIT_TESTS\b.*?^\s*#\s*endif[^\n]*',
                  "", text, flags=re.S | re.M)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    allow = {}
    allow_path = os.path.join(root, "tests/exports_allow.txt")
    if os.path.exists(allow_path):
        with open(allow_path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = line.split(None, 1)
                if len(parts) < 2:
                    print(f"tests/exports_allow.txt:{n}: "
                          f"'{parts[0]}' has no reason")
                    return 1
                allow[parts[0]] = parts[1]
    headers = [p for p in tracked(root, "*.h") if p.startswith(DIRS)]
    sources = [p for p in tracked(root, "*.c") if p.startswith(DIRS)]
    src_text = {p: read(root, p) for p in sources}
    src_ids = {p: set(IDENT.findall(t)) for p, t in src_text.items()}
    macro_ids = set()
    declared = {}
    for h in headers:
        text = read(root, h)
        for m in re.finditer(r'^\s*#\s*define[^\n]*(?:\\\n[^\n]*)*',
                             text, re.M):
            macro_ids |= set(IDENT.findall(m.group(0))[2:])
        # join continuation lines of prototypes; skip inline bodies
        for m in DECL.finditer(text):
            name = m.group(1)
            end = text.find(";", m.end())
            brace = text.find("{", m.end())
            if brace != -1 and (end == -1 or brace < end):
                continue        # a definition (static inline), not ours
            declared.setdefault(name, h)
    unused = []
    for name, h in sorted(declared.items()):
        defn = re.compile(r'^[A-Za-z_][^;{}=\n]*?\b' + re.escape(name) +
                          r'\s*\([^;{]*\)\s*\{', re.M)
        owners = [p for p, t in src_text.items() if defn.search(t)]
        if not owners:
            continue            # defined elsewhere (macro, other library)
        if name in macro_ids:
            continue
        if any(name in ids for p, ids in src_ids.items()
               if p not in owners):
            continue
        if name in allow:
            continue
        unused.append((name, owners[0], h))
    for name in allow:
        if name not in declared:
            print(f"tests/exports_allow.txt: '{name}' is not declared in "
                  f"a header")
            unused.append((name, "-", "-"))
    for name, c, h in unused:
        if c != "-":
            print(f"{h}: {name}() is called by no product file but its "
                  f"own {c}")
    print(f"check-exports: {len(declared)} exported functions, "
          f"{len(unused)} without a product caller", file=sys.stderr)
    return 1 if unused else 0


if __name__ == "__main__":
    sys.exit(main())
