#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_layers.py - the layering rule and an acyclic include graph
#
# Run by `make check-layers` (part of `make test`). Reads the #include
# "..." lines of every tracked .c/.h and fails (exit 1, one line per
# problem) when:
#   - diff/, sarif/, libcrs/ or common/ include a runner/ header;
#   - a service (runner/ outside runner/cli/) includes a runner/cli/ header;
#   - a .c or .h sits at the top of runner/ instead of in a role folder;
#   - product code (common/, diff/, sarif/, libcrs/, runner/) outside
#     runner/http/ includes <curl/curl.h> or runner/http/http_easy.h:
#     runner/http/ is the one HTTP client, the only code that speaks
#     libcurl (tests and the static build's smoke test may use it);
#   - the include graph has a cycle. A node is a module, a .c with its .h
#     (runner/sidecar/sidecar.{c,h}), so "sidecar.c includes
#     sidecar_tree.h and sidecar_tree.c includes sidecar.h" is a cycle.
# docs/CodingGuidelines.md states the rules.
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LOWER = ("diff/", "sarif/", "libcrs/", "common/")
PRODUCT = LOWER + ("runner/",)
CURL = re.compile(r'^\s*#\s*include\s+[<"](curl/curl\.h|'
                  r'runner/http/http_easy\.h)[>"]', re.M)


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "*.c", "*.h"],
                         check=True, capture_output=True, text=True).stdout
    return [p for p in out.split("\n") if p]


def resolve(root, src, inc):
    """The tracked path an #include "inc" of src names, or None."""
    for cand in (inc, os.path.normpath(os.path.join(os.path.dirname(src),
                                                    inc))):
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = tracked(root)
    problems = []
    graph = {}
    for src in files:
        with open(os.path.join(root, src), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        if re.fullmatch(r"runner/[^/]+\.[ch]", src):
            problems.append(f"{src}: at the top of runner/; put it in a "
                            "role folder (docs/CodingGuidelines.md)")
        if src.startswith(PRODUCT) and not src.startswith("runner/http/"):
            for m in CURL.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{src}:{line}: includes {m.group(1)}: "
                                "only runner/http/ speaks libcurl")
        node = os.path.splitext(src)[0]
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            path = resolve(root, src, inc)
            if path is None:
                path = inc
            if src.startswith(LOWER) and path.startswith("runner/"):
                problems.append(f"{src}:{line}: includes \"{inc}\": "
                                f"{src.split('/')[0]}/ never includes runner/")
            if (src.startswith("runner/") and
                    not src.startswith("runner/cli/") and
                    path.startswith("runner/cli/")):
                problems.append(f"{src}:{line}: includes \"{inc}\": a "
                                "service never includes runner/cli/")
            dep = os.path.splitext(path)[0]
            if dep != node and path.endswith(".h"):
                graph.setdefault(node, {}).setdefault(dep, f"{src}:{line}")
    problems += cycles(graph)
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-layers: {len(files)} files, "
          f"{sum(len(v) for v in graph.values())} module includes, "
          "layers ok, no include cycle")
    return 0


def cycles(graph):
    """One line per include cycle found by a depth-first search."""
    out = []
    state = {}  # node -> 1 on the stack, 2 done
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, {})):
            if state.get(d) == 1:
                loop = stack[stack.index(d):] + [d]
                where = ", ".join(graph[a][b] for a, b in zip(loop, loop[1:]))
                out.append("include cycle: " + " -> ".join(loop) +
                           f" ({where})")
            elif d not in state:
                visit(d)
        stack.pop()
        state[n] = 2

    sys.setrecursionlimit(10000)
    for n in sorted(graph):
        if n not in state:
            visit(n)
    return out


if __name__ == "__main__":
    sys.exit(main())
