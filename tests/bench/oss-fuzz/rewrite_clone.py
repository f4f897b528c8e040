#!/usr/bin/env python3
# rewrite_clone.py - the one change bench_projects.sh makes to an OSS-Fuzz
# project Dockerfile: the `RUN git clone ... <main_repo> [DEST]` line that
# fetches the project's own repository becomes `COPY <SRCDIR> <DEST>`, DEST
# being the clone's (its explicit folder, else the URL's last part without
# ".git"), so the Debian source tree lands where the clone would have put
# it. Only a RUN that is that one git clone and nothing else, on one line,
# is rewritten; anything else (FROM lines included: crs-ci maps those)
# stays byte for byte.
#
#   rewrite_clone.py DOCKERFILE PROJECT_YAML SRCDIR > NEW_DOCKERFILE
#
# Exit 0 with the rewritten text; exit 3 (nothing written) when no line is
# such a clone, naming what the Dockerfile does instead.
import re
import shlex
import sys


def norm(url):
    url = url.strip().strip("'\"").rstrip("/")
    return url[:-4] if url.endswith(".git") else url


def main():
    dockerfile, project_yaml, srcdir = sys.argv[1:4]
    main_repo = None
    for line in open(project_yaml, encoding="utf-8"):
        m = re.match(r"\s*main_repo\s*:\s*(\S+)", line)
        if m:
            main_repo = norm(m.group(1))
    if not main_repo:
        print(f"{project_yaml}: no main_repo", file=sys.stderr)
        return 3
    out, done = [], False
    for n, line in enumerate(open(dockerfile, encoding="utf-8"), 1):
        m = re.match(r"\s*RUN\s+(git\s+clone\s.*)$", line, re.I)
        if not done and m and not line.rstrip().endswith("\\"):
            words = shlex.split(m.group(1))
            if any(w in ("&&", ";", "|", "||") for w in words):
                out.append(line)
                continue
            args, skip = [], False
            for w in words[2:]:
                if skip:
                    skip = False
                elif w in ("-b", "--branch", "--depth", "-c", "--config",
                           "--origin", "-o"):
                    skip = True
                elif not w.startswith("-"):
                    args.append(w)
            if args and norm(args[0]) == main_repo:
                dest = args[1] if len(args) > 1 else \
                    norm(args[0]).rsplit("/", 1)[-1]
                out.append(f"COPY {srcdir} {dest}\n")
                print(f"{dockerfile}:{n}: git clone -> COPY {srcdir} "
                      f"{dest}", file=sys.stderr)
                done = True
                continue
        out.append(line)
    if not done:
        print(f"{dockerfile}: no single-line `RUN git clone {main_repo}`",
              file=sys.stderr)
        return 3
    sys.stdout.write("".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
