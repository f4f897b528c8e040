#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_exports.py - every exported function has a product caller
#
# Run by `make check-exports` (part of `make test`). Lists each function
# declared in a tracked header under runner/, diff/, sarif/, common/ and
# libcrs/, finds the .c that defines it, and reports those no other
# product .c names (tests/ does not count). It fails (exit 1, one line
# per function) on those no product code calls at all, its own file
# included: such a function is test-only API. Those only their own file
# calls are listed on stderr (they could be static; their unit tests call
# them directly); --strict fails on them too. Make it static, delete it, move it
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


STRICT = "--strict" in sys.argv


def main():
    args = [a for a in sys.argv[1:] if a != "--strict"]
    root = args[0] if args else "."
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
    test_only, local = [], []
    for name, h in sorted(declared.items()):
        defn = re.compile(r'^[A-Za-z_][^;{}=\n]*?\b' + re.escape(name) +
                          r'\s*\([^;{]*\)\s*\{', re.M)
        owners = [p for p, t in src_text.items() if defn.search(t)]
        if not owners:
            continue            # defined elsewhere (macro, other library)
        if name in macro_ids or name in allow:
            continue
        if any(name in ids for p, ids in src_ids.items()
               if p not in owners):
            continue
        own = sum(len(re.findall(r'\b' + re.escape(name) + r'\b',
                                 src_text[p])) for p in owners)
        (local if own > 1 else test_only).append((name, owners[0], h))
    bad = [n for n in allow if n not in declared]
    for name in bad:
        print(f"tests/exports_allow.txt: '{name}' is not declared in a "
              f"header")
    for name, c, h in test_only:
        print(f"{h}: {name}() has no caller outside tests: make it a "
              f"UNIT_TESTS seam, move it to tests/helper/ or delete it")
    for name, c, h in local:
        print(f"{h}: {name}() is called only by {c}: it could be static "
              f"(tests reach it)", file=sys.stderr if not STRICT else
              sys.stdout)
    print(f"check-exports: {len(declared)} exported functions; "
          f"{len(test_only)} called only by tests, {len(local)} called "
          f"only by their own file; {len(allow)} allowed",
          file=sys.stderr)
    return 1 if bad or test_only or (STRICT and local) else 0


if __name__ == "__main__":
    sys.exit(main())
