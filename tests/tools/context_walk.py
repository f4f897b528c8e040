#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# context_walk.py - how far the scan context travels from phase_scan_all
#
# Run by hand (not part of `make test`): python3 tests/tools/context_walk.py
# [ROOT] (default: the current folder, a crs-ci tree). Prints counts; to
# compare two trees, run it on each (e.g. `git archive main` unpacked).
#
# What it counts, from the text of runner/**/*.c (comments and strings
# removed; no preprocessor, no types; names matched as written):
#   - a "scan function" is a function definition (static or not) with a
#     `struct scan *` parameter; a call resolves to a static function of
#     the same file first, else to the global one of that name;
#   - the walk starts at phase_scan_all and follows, from each function
#     it reached, (a) every call to a scan function and (b) every scan
#     function named without a call (its address taken: a build_group
#     job, a bg_job), as the context goes wherever it is handed on;
#   - reached: the functions and files (and files per folder) the walk
#     reached: the code that sees the whole scan;
#   - down-calls: call sites, in reached functions on a floor above
#     runner/scan (tests/check_layers.py's FLOORS), of scan functions
#     defined in runner/scan/: the walk going back down to the scan for
#     a field or a helper (scan_work_path, scan_stop_flag...); those from
#     runner/exec/ are shown apart;
#   - climbs: callbacks run from a lower floor: a scan function F named
#     without a call in a reached function A, which also calls a scan
#     function H on a lower floor than F's whose file calls through a
#     pointer with a scan (`->fn(s`, `->fn(w->s`: a thread's main beside
#     H): H calls back up into F (phase -> exec -> phase). One per (H, F)
#     pair.
# A heuristic: macros, function pointers stored elsewhere and shadowed
# names are missed; the same code measured twice gives the same numbers.
import os
import re
import sys

# the floors, lowest first: tests/check_layers.py's
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from check_layers import FLOORS  # noqa: E402
FLOOR = {f: i for i, names in enumerate(FLOORS) for f in names}
DEFINITION = re.compile(r'^((?:static\s+)?)[A-Za-z_][\w \t*]*?[\s*](\w+)\('
                        r'([^;{}]*?)\)\s*\n\{', re.M)
SCAN_PARAM = re.compile(r'struct\s+scan\s*\*')
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
NAME = re.compile(r'\b([A-Za-z_]\w*)\b(?!\s*\()')
# a call through a pointer with the scan: j->fn(j->s, ...), fn->x(s)
POINTER_CALL = re.compile(r'->\s*\w+\s*\(\s*(?:\w+\s*->\s*)?s\s*[,)]')


def strip(text):
    """Comments and string/char literals blanked, lines kept."""
    out = re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group()),
                 text, flags=re.S)
    out = re.sub(r'//[^\n]*', '', out)
    return re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', '""', out)


def folder_of(path):
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "runner" else parts[0]


def functions(root):
    """(path, name) -> dict(static, scan, body) for runner/**/*.c."""
    fns = {}
    for d, _, files in os.walk(os.path.join(root, "runner")):
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.relpath(os.path.join(d, f), root)
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                text = strip(fh.read())
            for m in DEFINITION.finditer(text):
                end = text.find("\n}\n", m.end())
                body = text[m.end():end if end >= 0 else len(text)]
                fns[(path, m.group(2))] = {
                    "static": bool(m.group(1)),
                    "scan": bool(SCAN_PARAM.search(m.group(3))),
                    "body": body,
                }
    return fns


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    fns = functions(root)
    glob = {n: (p, n) for (p, n), v in fns.items() if not v["static"]}

    def resolve(path, name):
        if (path, name) in fns:
            return (path, name)
        return glob.get(name)

    # files with a pointer call: a thread's main, static beside the helper
    pointer_files = {p for (p, _), v in fns.items()
                     if POINTER_CALL.search(v["body"])}

    start = glob.get("phase_scan_all")
    if not start:
        sys.exit("context_walk: no phase_scan_all under %s/runner" % root)
    seen, todo = {start}, [start]
    down, down_exec, climbs = 0, 0, set()
    while todo:
        key = todo.pop()
        path, _ = key
        body = fns[key]["body"]
        floor = FLOOR.get(folder_of(path), -1)
        called = []
        for m in CALL.finditer(body):
            callee = resolve(path, m.group(1))
            if not callee or not fns[callee]["scan"]:
                continue
            called.append(callee)
            if (folder_of(callee[0]) == "runner/scan" and
                    floor > FLOOR["runner/scan"]):
                down += 1
                down_exec += folder_of(path) == "runner/exec"
            if callee not in seen:
                seen.add(callee)
                todo.append(callee)
        handed = set()
        for m in NAME.finditer(body):
            ref = resolve(path, m.group(1))
            if ref and ref != key and fns[ref]["scan"] and \
                    not re.search(r'\b%s\s*\(' % re.escape(m.group(1)),
                                  body[m.start():m.end() + 3]):
                handed.add(ref)
        for ref in handed:
            if ref not in seen:
                seen.add(ref)
                todo.append(ref)
            ref_floor = FLOOR.get(folder_of(ref[0]), -1)
            for h in set(called):
                if (h[0] in pointer_files and
                        FLOOR.get(folder_of(h[0]), -1) < ref_floor):
                    climbs.add((h, ref))
    files = sorted({p for (p, _) in seen})
    per = {}
    for p in files:
        per[folder_of(p)] = per.get(folder_of(p), 0) + 1
    print("scan functions in runner/: %d" %
          sum(1 for v in fns.values() if v["scan"]))
    print("reached from phase_scan_all: %d functions in %d files" %
          (len(seen), len(files)))
    for folder in sorted(per, key=lambda f: -FLOOR.get(f, -1)):
        print("  %-16s %3d files, %3d functions" %
              (folder, per[folder],
               sum(1 for (p, _) in seen if folder_of(p) == folder)))
    print("down-calls into runner/scan: %d (from runner/exec: %d)" %
          (down, down_exec))
    print("climbs (callbacks run from a lower floor): %d" % len(climbs))
    for (h, f) in sorted(climbs):
        print("  %s (%s) -> %s (%s)" % (h[1], h[0], f[1], f[0]))


if __name__ == "__main__":
    main()
