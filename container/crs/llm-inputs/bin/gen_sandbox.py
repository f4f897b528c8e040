"""gen_sandbox.py - runs one model-written input generator (hostile code).

    python3 -I -S -B gen_sandbox.py GENERATOR.py FD

llm_inputs.py starts this as an unprivileged user (uid/gid 65534, no
supplementary groups), in its own session, with no environment but PATH,
rlimits on CPU time, address space, open files and file size (0: it can
write no file), and kills every process of that user when the time limit
or an output cap is reached. This file only frames what the generator
yields: the model's script must define generate(), which returns or
yields bytes (str is encoded as UTF-8); each one goes out on the pipe FD
as an 8-byte big-endian length and the bytes. llm_inputs.py reads the
pipe with its own caps (count, size per input, total): nothing here is
trusted, since the generator runs in this same process and can write
the pipe itself.
The generator's print() output goes to stderr (capped by the reader).
Exit: 0 when generate() ended, 3 no generate(), 4 it raised, 5 it
yielded something that is not bytes or str.
"""

import os
import sys
import traceback


def main():
    out = os.fdopen(int(sys.argv[2]), "wb", buffering=0)
    os.dup2(2, 1)               # the model's prints must not reach FD
    sys.stdout = sys.stderr
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        src = f.read()
    scope = {"__name__": "__generator__", "__builtins__": __builtins__}
    try:
        exec(compile(src, "generator.py", "exec"), scope)
        gen = scope.get("generate")
        if not callable(gen):
            print("gen_sandbox: the script defines no generate()",
                  file=sys.stderr)
            return 3
        for item in gen():
            if isinstance(item, str):
                item = item.encode("utf-8")
            if not isinstance(item, (bytes, bytearray)):
                print("gen_sandbox: generate() yielded a %s, not bytes" %
                      type(item).__name__, file=sys.stderr)
                return 5
            out.write(len(item).to_bytes(8, "big") + bytes(item))
    except Exception:           # the model's error, reported back to it
        traceback.print_exc(limit=4, file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
