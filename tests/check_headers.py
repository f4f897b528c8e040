#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_headers.py - short file headers and path-named include guards
#
# Run by `make check-headers` (part of `make test`). For every tracked .c/.h
# under common/, diff/, sarif/, libcrs/ and runner/, fails (exit 1, one line
# per problem) when the top comment after the SPDX line has more than
# MAX_LINES lines of text, when a second "name - ..." comment follows it,
# or when a header's guard is not CRS_<PATH>_H.
# docs/CodingGuidelines.md ("Files and names") states the rules.
import os
import re
import subprocess
import sys

DIRS = ("common/", "diff/", "sarif/", "libcrs/", "runner/")
MAX_LINES = 8
GUARD = re.compile(r"^#\s*ifndef\s+(\w+)\s*\n#\s*define\s+(\w+)", re.M)


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "*.c", "*.h"],
                         check=True, capture_output=True, text=True).stdout
    return [p for p in out.split("\n") if p.startswith(DIRS)]


def top_comment(lines):
    """(first line number, text lines) of the comment after SPDX, or None."""
    i = 0
    if i < len(lines) and "SPDX-License-Identifier" in lines[i]:
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or not lines[i].lstrip().startswith("/*"):
        return None
    start = i
    while i < len(lines) and "*/" not in lines[i]:
        i += 1
    block = lines[start:i + 1]
    text = [ln for ln in block
            if ln.strip() not in ("/*", "*/", "**/")]
    return start + 1, len(text), i + 1


def second_top_comment(lines, after, name):
    """Line number of a second "name - what it is" comment right after the
    first, or None: a doubled top comment hides its detail from the check."""
    i = after
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i + 1 >= len(lines) or lines[i].strip() != "/*":
        return None
    if re.match(r"^\s*\*\s*" + re.escape(name) + r"\s+-\s", lines[i + 1]):
        return i + 1
    return None


def expected_guard(path):
    return "CRS_" + re.sub(r"[^A-Za-z0-9]", "_", path[:-2]).upper() + "_H"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    long_headers = bad_guards = 0
    files = tracked(root)
    for src in files:
        with open(os.path.join(root, src), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        lines = text.split("\n")
        top = top_comment(lines)
        if top is None:
            print(f"{src}:1: no top-of-file comment after the SPDX line")
            long_headers += 1
        elif top[1] > MAX_LINES:
            print(f"{src}:{top[0]}: top comment has {top[1]} lines, at most "
                  f"{MAX_LINES}; move the detail to docs/")
            long_headers += 1
        if top is not None:
            again = second_top_comment(lines, top[2], os.path.basename(src))
            if again is not None:
                print(f"{src}:{again}: a second top comment; keep one, "
                      "and move the detail to docs/")
                long_headers += 1
        if src.endswith(".h"):
            want = expected_guard(src)
            m = GUARD.search(text)
            if m is None:
                print(f"{src}:1: no include guard; want {want}")
                bad_guards += 1
            elif m.group(1) != want or m.group(2) != want:
                line = text.count("\n", 0, m.start()) + 1
                print(f"{src}:{line}: include guard {m.group(1)}, "
                      f"want {want}")
                bad_guards += 1
    if long_headers or bad_guards:
        print(f"check-headers: {long_headers} file(s) with a missing or long "
              f"top comment, {bad_guards} header(s) with a wrong guard",
              file=sys.stderr)
        return 1
    print(f"check-headers: {len(files)} files, top comments at most "
          f"{MAX_LINES} lines, {sum(f.endswith('.h') for f in files)} "
          "guards named after their path")
    return 0


if __name__ == "__main__":
    sys.exit(main())
