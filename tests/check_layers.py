#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_layers.py - the layering rule and an acyclic include graph
#
# Run by `make check-layers` (part of `make test`). Reads the #include
# "..." lines of every tracked .c/.h and fails (exit 1, one line per
# problem) when:
#   - a file includes a header of a folder on its own floor or a higher
#     one (FLOORS below: each folder may include only folders on lower
#     floors, so no two folders include each other);
#   - a folder is on no floor, or a .c or .h sits at the top of runner/
#     instead of in a role folder;
#   - product code (common/, diff/, sarif/, libcrs/, runner/) outside
#     runner/http/ includes <curl/curl.h> or runner/http/http_easy.h:
#     runner/http/ is the one HTTP client, the only code that speaks
#     libcurl (tests and the static build's smoke test may use it);
#   - a folder's private header (PRIVATE) is included from outside it;
#   - the include graph has a cycle. A node is a module, a .c with its .h
#     (runner/sidecar/sidecar.{c,h}), so "sidecar.c includes
#     sidecar_tree.h and sidecar_tree.c includes sidecar.h" is a cycle;
#   - the call graph between modules has a cycle (a module calls a
#     function another defines, by name, outside comments and strings).
# docs/CodingGuidelines.md states the rules.
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PRODUCT = ("common/", "diff/", "sarif/", "libcrs/", "runner/")
# The order of floors, lowest first; docs/internals.md ("Floors") says
# what each holds. A folder includes only folders on lower floors.
FLOORS = (
    ("common",),
    ("diff", "sarif", "libcrs"),
    ("runner/config", "runner/http"),
    ("runner/engine",),
    ("runner/gateway", "runner/report", "runner/corpus"),
    ("runner/scan",),
    ("runner/exec",),
    ("runner/sidecar", "runner/init"),
    ("runner/phase",),
    ("runner/cli",),
)
# Headers only their own folder may include.
PRIVATE = {"runner/engine/docker_call.h": "runner/engine/",
           "runner/sidecar/sidecar_jobs.h": "runner/sidecar/",
           "sarif/sarif_json.h": "sarif/"}
FLOOR = {folder: i for i, names in enumerate(FLOORS) for folder in names}
# A function definition at the start of a line, not static.
DEFINITION = re.compile(r'^(?!static\b)[A-Za-z_][\w \t*]*?[\s*](\w+)\('
                        r'([^;{}]*?)\)\s*\n\{', re.M)


def folder_of(path):
    """"runner/scan" for runner/scan/scan.c, "diff" for diff/x.c."""
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "runner" else parts[0]
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
        if src.startswith(PRODUCT) and folder_of(src) not in FLOOR and \
                not re.fullmatch(r"runner/[^/]+\.[ch]", src):
            problems.append(f"{src}: {folder_of(src)}/ is on no floor; add "
                            "it to FLOORS in tests/check_layers.py")
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            path = resolve(root, src, inc)
            if path is None:
                path = inc
            if path in PRIVATE and not src.startswith(PRIVATE[path]):
                problems.append(f"{src}:{line}: includes \"{inc}\": only "
                                f"{PRIVATE[path]} includes it (PRIVATE)")
            a, b = folder_of(src), folder_of(path)
            if (a != b and a in FLOOR and b in FLOOR and
                    FLOOR[b] >= FLOOR[a]):
                how = ("the same floor as" if FLOOR[b] == FLOOR[a]
                       else "a higher floor than")
                problems.append(f"{src}:{line}: includes \"{inc}\": {b}/ "
                                f"is on {how} {a}/ (FLOORS)")
            dep = os.path.splitext(path)[0]
            if dep != node and path.endswith(".h"):
                graph.setdefault(node, {}).setdefault(dep, f"{src}:{line}")
    problems += cycles(graph, "include cycle")
    problems += cycles(call_graph(root, files), "call cycle")
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-layers: {len(files)} files, "
          f"{sum(len(v) for v in graph.values())} module includes, "
          "floors ok, no include or call cycle")
    return 0


def strip_comments_and_strings(text):
    """`text` with comments and literals blanked, lines kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)


def call_graph(root, files):
    """module -> {module it calls: "file:line name"} for product .c files;
    a call is a use of a non-static function another module defines."""
    texts, defined = {}, {}
    for src in files:
        if not (src.startswith(PRODUCT) and src.endswith(".c")):
            continue
        with open(os.path.join(root, src), encoding="utf-8",
                  errors="replace") as f:
            texts[src] = strip_comments_and_strings(f.read())
        for m in DEFINITION.finditer(texts[src]):
            if m.group(1) != "main":
                defined[m.group(1)] = src
    graph = {}
    for src, text in texts.items():
        node = os.path.splitext(src)[0]
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text):
            dep = defined.get(m.group(1))
            if dep is None or os.path.splitext(dep)[0] == node:
                continue
            line = text.count("\n", 0, m.start()) + 1
            graph.setdefault(node, {}).setdefault(
                os.path.splitext(dep)[0], f"{src}:{line} {m.group(1)}")
    return graph


def cycles(graph, what):
    """One line per cycle of `graph` found by a depth-first search."""
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
                out.append(f"{what}: " + " -> ".join(loop) +
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
