#!/usr/bin/env python3
"""llm_inputs.py - the "inputs" run module of crs-llm-inputs.

Asks a model, through the LLM gateway (OpenAI-compatible,
$OSS_CRS_LLM_API_URL, key in $OSS_CRS_LLM_API_KEY_FILE), for inputs that
reach the functions the change touched, given the change's diff
($OSS_CRS_FETCH_DIR/diffs/ref.diff), its machine-readable form when there
is one (diffs/change.json: optional, read as hostile), the harness source
and the changed files (under $OSS_CRS_TARGET_SOURCE or $OSS_CRS_FUZZ_PROJ,
never through a link) and a few seeds. The answer holds inputs (base64,
hex or text, decoded strictly and capped) and/or a Python generator
script, which runs in gen_sandbox.py as uid 65534 with rlimits, a time
limit and caps on what it yields: model output never runs in this process.
Each input runs on the harness from the build output (`libCRS
download-build-output build`); every input is shared with `libCRS submit
seed` (the fuzzers beside this CRS fetch it; a crashing one only with
STOP_ON_FIRST_POV=1), every crash, timeout or out-of-memory with `libCRS
submit pov` (one per DEDUP_TOKEN). The next
round tells the model what each input did (crash, edges it adds to the
seed corpus, why one was refused); it stops after LLM_INPUTS_ROUNDS
rounds, at the time limit, at the first PoV with STOP_ON_FIRST_POV=1, or
when the gateway answers 429 (the CRS's budget is spent).

Each round is one JSON line in $OSS_CRS_LOG_DIR/rounds.jsonl (and on
stderr); the replies are kept there as round-N.reply.txt. The key is only
ever sent as the Authorization header. Exit: 0 done (or SIGTERM/SIGINT),
1 libCRS or the harness failed, 2 configuration error. Python 3 standard
library only.
"""

import base64
import binascii
import hashlib
import json
import os
import re
import resource
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import zipfile

# the gateway client shared with the other LLM CRS (container/crs-shared,
# copied beside this script by make and by the Dockerfile)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llm_client import Gateway, LLMError  # noqa: E402

PROG = "llm_inputs"
DEFAULT_MODEL = "gpt-4o"
SANDBOX = "/usr/local/lib/llm-inputs/gen_sandbox.py"
SANDBOX_UID = 65534             # nobody: owns nothing this CRS uses
DIFF_MAX = 24000                # bytes of the change's diff in a prompt
FILE_MAX = 16000                # bytes of one source file
CHANGED_FILES_MAX = 2           # changed source files in the first prompt
CHANGE_JSON_MAX = 1 << 20       # bytes of change.json read
REPLY_MAX = 256 * 1024          # characters of a reply used
GEN_SRC_MAX = 64 * 1024         # bytes of a generator script
GEN_STDERR_MAX = 4000           # bytes of a generator's stderr kept
RUN_LOG_MAX = 64 * 1024         # bytes of a harness run's output read
SEEDS_MAX = 200                 # seed corpus files used for coverage
SEED_MAX = 64 * 1024            # bytes of one seed
WALK_MAX = 20000                # entries looked at to find the harness
NAME_RE = re.compile(r"[^A-Za-z0-9._-]")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_:~]{0,127}$")

SYSTEM_PROMPT = """\
You write test inputs for a libFuzzer fuzz harness of a C or C++ project. \
A pull request changed some functions; your inputs must reach the changed \
code and drive it into its edge cases, so that a bug the change brought \
(buffer overflows, integer overflows, use after free, hangs) crashes the \
harness under the sanitizer. Read the harness to see how it feeds its \
input to the project, and the change to see which checks (magic values, \
keys, lengths, checksums, versions) an input must pass to get there.

Answer with one ```json block holding an object:
{"inputs": [{"name": "short-label", "base64": "..."}],
 "generator": "python source (optional)"}
Each input is exactly the bytes LLVMFuzzerTestOneInput receives, given as \
"base64", "hex" or "text" (UTF-8). At most %(count)d inputs of at most \
%(size)d bytes each are used. When inputs need computed fields (lengths, \
checksums, hashes, encodings) or many variants, write a generator instead: \
a Python 3 script (standard library only) that defines generate(), which \
returns or yields the inputs as bytes. It runs without network or file \
access for at most %(secs)d seconds. You can also give it in a ```python \
block."""


_child = None


def say(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)


def on_signal(signum, frame):
    """Stop now: kill what runs (harness, generator), exit 0."""
    del frame
    if _child is not None and _child.poll() is None:
        try:
            os.killpg(_child.pid, signal.SIGKILL)
        except OSError:
            pass
    kill_sandbox_user()
    os.write(2, ("%s: stopped by signal %d\n" % (PROG, signum)).encode())
    os._exit(0)


def env_int(name, default, low=1):
    v = os.environ.get(name, "")
    try:
        n = int(v) if v else default
    except ValueError:
        say("%s=%r is not a number; using %d" % (name, v, default))
        n = default
    return max(low, n)


def label(text):
    """A name from the model, safe for a log line (never a path)."""
    text = NAME_RE.sub("_", str(text))[:48]
    return text or "input"


class Config:
    def __init__(self):
        e = os.environ
        self.model = e.get("LLM_INPUTS_MODEL") or DEFAULT_MODEL
        self.rounds = env_int("LLM_INPUTS_ROUNDS", 4)
        self.max_tokens = env_int("LLM_INPUTS_MAX_TOKENS", 4096)
        self.llm_timeout = env_int("LLM_INPUTS_LLM_TIMEOUT", 300)
        self.max_input = env_int("LLM_INPUTS_MAX_INPUT", 1 << 20)
        self.max_count = env_int("LLM_INPUTS_MAX_PER_ROUND", 64)
        self.gen_timeout = env_int("LLM_INPUTS_GEN_TIMEOUT", 10)
        self.gen_max_bytes = env_int("LLM_INPUTS_GEN_MAX_BYTES", 16 << 20)
        self.run_timeout = env_int("LLM_INPUTS_RUN_TIMEOUT", 10)
        self.time_limit = env_int("FUZZ_TIME",
                                  env_int("CRS_CI_TIME_LIMIT", 3600))
        self.stop_on_first = e.get("STOP_ON_FIRST_POV") == "1"
        self.fetch = e.get("OSS_CRS_FETCH_DIR") or "/OSS_CRS_FETCH_DIR"
        self.source = e.get("OSS_CRS_TARGET_SOURCE") or ""
        self.fuzz_proj = e.get("OSS_CRS_FUZZ_PROJ") or ""
        self.harness = e.get("OSS_CRS_TARGET_HARNESS") or ""
        self.sanitizer = e.get("SANITIZER") or "address"
        self.project = e.get("OSS_CRS_TARGET") or "the project"
        self.log_dir = e.get("OSS_CRS_LOG_DIR") or tempfile.mkdtemp()
        self.url = (e.get("OSS_CRS_LLM_API_URL") or "").rstrip("/")
        self.key_file = e.get("OSS_CRS_LLM_API_KEY_FILE") or ""


# --- reading files a container may have put there -------------------------

def read_nofollow(path, cap):
    """The first cap bytes of the regular file at path, never through a
    link in its last component; None when it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], cap
        while left > 0:
            b = os.read(fd, min(left, 65536))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)
    finally:
        os.close(fd)


def inside(root, rel):
    """root/rel when rel is a plain relative path whose folders are not
    links (rel comes from the diff or change.json), else None."""
    parts = rel.split("/")
    if not root or not rel or rel.startswith("/") or \
            any(p in ("", ".", "..") for p in parts):
        return None
    cur = root
    for p in parts[:-1]:
        cur = os.path.join(cur, p)
        try:
            if not stat.S_ISDIR(os.lstat(cur).st_mode):
                return None
        except OSError:
            return None
    return os.path.join(cur, parts[-1])


def as_text(data, cap):
    text = data[:cap].decode("utf-8", "replace")
    if len(data) > cap:
        text += "\n[... truncated at %d bytes ...]\n" % cap
    return text


# --- the change ------------------------------------------------------------

HUNK_FUNC_RE = re.compile(r"^@@ [^@]* @@.*?([A-Za-z_][A-Za-z0-9_:~]*)\s*\(")


def diff_facts(diff):
    """([changed files], [function names from hunk headers]) of a diff."""
    files, funcs = [], []
    for line in diff.splitlines():
        if line.startswith("+++ b/"):
            path = line[6:].split("\t")[0].strip()
            if path not in files:
                files.append(path)
        m = HUNK_FUNC_RE.match(line)
        if m and m.group(1) not in funcs:
            funcs.append(m.group(1))
        m = re.match(r"^\+\s*(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w\s\*]*?"
                     r"\b([A-Za-z_]\w*)\s*\([^;]*$", line)
        if m and not line.startswith("+++") and \
                m.group(1) not in ("if", "for", "while", "switch",
                                   "return", "sizeof") and \
                m.group(1) not in funcs:
            funcs.append(m.group(1))
    return files[:64], funcs[:64]


def change_facts(cfg):
    """(functions, literals) of diffs/change.json when it is there and
    well-formed; strings that are not plain names are dropped. The file
    is another branch's interface and a container's output: hostile."""
    data = read_nofollow(os.path.join(cfg.fetch, "diffs", "change.json"),
                         CHANGE_JSON_MAX + 1)
    funcs, lits = [], []
    if not data or len(data) > CHANGE_JSON_MAX:
        return funcs, lits
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        say("diffs/change.json is not JSON: ignored")
        return funcs, lits
    if not isinstance(doc, dict):
        return funcs, lits
    files = doc.get("files")
    for f in files if isinstance(files, list) else []:
        fl = f.get("functions") if isinstance(f, dict) else None
        for fn in fl if isinstance(fl, list) else []:
            name = fn.get("name") if isinstance(fn, dict) else None
            if isinstance(name, str) and IDENT_RE.match(name) and \
                    name not in funcs and len(funcs) < 64:
                funcs.append(name)
    raw = doc.get("literals")
    for lit in raw if isinstance(raw, list) else []:
        if isinstance(lit, str) and 0 < len(lit) <= 64 and len(lits) < 64:
            lits.append(lit)
    return funcs, lits


def find_harness_source(cfg):
    """(path shown to the model, text) of the harness's source: a file
    named after the harness that defines LLVMFuzzerTestOneInput, under the
    target source or the fuzz project; links are never followed."""
    want = cfg.harness
    for root in (cfg.source, cfg.fuzz_proj):
        if not root or not os.path.isdir(root):
            continue
        seen = 0
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            for name in sorted(filenames):
                seen += 1
                if seen > WALK_MAX:
                    break
                stem, ext = os.path.splitext(name)
                if stem != want or ext not in (".c", ".cc", ".cpp", ".cxx"):
                    continue
                path = os.path.join(dirpath, name)
                data = read_nofollow(path, FILE_MAX + 1)
                if data and b"LLVMFuzzerTestOneInput" in data:
                    return os.path.relpath(path, root), as_text(data,
                                                                FILE_MAX)
            if seen > WALK_MAX:
                break
    return None, None


# --- the model's answer ----------------------------------------------------

FENCE_RE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*```",
                      re.S | re.M)
HEX_RE = re.compile(r"^[0-9a-fA-F]*$")
B64_RE = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def parse_reply(reply):
    """(list of input objects, generator source or None, [problems])."""
    doc, gen, problems = None, None, []
    fences = list(FENCE_RE.finditer(reply))
    for m in fences:
        lang, body = m.group(1).lower(), m.group(2)
        if lang in ("json", "") and doc is None:
            try:
                doc = json.loads(body)
            except ValueError:
                if lang == "json":
                    problems.append("the json block is not valid JSON")
        elif lang in ("python", "py", "python3") and gen is None:
            gen = body
    if doc is None and not fences:
        try:
            doc = json.loads(reply)
        except ValueError:
            pass
    inputs = []
    if isinstance(doc, dict):
        raw = doc.get("inputs")
        if isinstance(raw, list):
            inputs = raw
        elif raw is not None:
            problems.append('"inputs" is not a list')
        g = doc.get("generator")
        if isinstance(g, str) and g.strip():
            gen = g
        elif g is not None and not isinstance(g, str):
            problems.append('"generator" is not a string')
    elif doc is not None:
        problems.append("the JSON is not an object")
    if not inputs and gen is None:
        problems.append("no inputs and no generator in the answer")
    return inputs, gen, problems


def decode_input(item, cap):
    """(label, bytes) of one input object, or (label, None, reason)."""
    if not isinstance(item, dict):
        return "input", None, "not an object"
    name = label(item.get("name", "input"))
    kinds = [k for k in ("base64", "hex", "text") if k in item]
    if len(kinds) != 1:
        return name, None, "needs exactly one of base64, hex, text"
    kind, val = kinds[0], item[kinds[0]]
    if not isinstance(val, str):
        return name, None, "%s is not a string" % kind
    if kind == "text":
        if len(val) > cap:
            return name, None, "over the %d-byte cap" % cap
        data = val.encode("utf-8")
    else:
        val = "".join(val.split())
        bound = cap * 2 if kind == "hex" else (cap + 2) // 3 * 4
        if len(val) > bound:
            return name, None, "over the %d-byte cap" % cap
        try:
            if kind == "hex":
                if not HEX_RE.match(val) or len(val) % 2:
                    raise ValueError
                data = bytes.fromhex(val)
            else:
                if not B64_RE.match(val) or len(val) % 4:
                    raise ValueError
                data = base64.b64decode(val, validate=True)
        except (ValueError, binascii.Error):
            return name, None, "not valid %s" % kind
    if len(data) > cap:
        return name, None, "over the %d-byte cap" % cap
    return name, data, None


# --- the generator sandbox -------------------------------------------------

def sandbox_pids():
    """Pids of processes running as the sandbox user."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            if os.stat("/proc/" + d).st_uid == SANDBOX_UID:
                pids.append(int(d))
        except OSError:
            pass
    return pids


def kill_sandbox_user():
    """SIGKILL every process of the sandbox user (also those that left the
    generator's session): kill(-1) from a child that became that user.
    Returns how many were still there afterwards."""
    for _ in range(5):
        if not sandbox_pids():
            return 0
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setgid(SANDBOX_UID)
                os.setuid(SANDBOX_UID)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        time.sleep(0.05)
    return len(sandbox_pids())


def run_generator(cfg, src):
    """Runs src in the sandbox: (list of bytes, status, stderr text)."""
    global _child
    # not under the work folder (0700): the sandbox user gets its own
    gdir = tempfile.mkdtemp(prefix="llm-inputs-gen-")
    os.chmod(gdir, 0o755)
    path = os.path.join(gdir, "generator.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(src)
    os.chmod(path, 0o444)
    limit = cfg.gen_timeout

    def demote():
        os.setsid()
        for res, n in ((resource.RLIMIT_CPU, limit + 1),
                       (resource.RLIMIT_AS, 1 << 30),
                       (resource.RLIMIT_FSIZE, 0),
                       (resource.RLIMIT_CORE, 0),
                       (resource.RLIMIT_NOFILE, 32)):
            resource.setrlimit(res, (n, n))
        os.setgroups([])
        os.setgid(SANDBOX_UID)
        os.setuid(SANDBOX_UID)

    rfd, wfd = os.pipe()
    inputs, status, err = [], "ok", b""
    try:
        _child = subprocess.Popen(
            ["python3", "-I", "-S", "-B", SANDBOX, path, str(wfd)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, cwd=gdir, close_fds=True,
            pass_fds=(wfd,), preexec_fn=demote,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                 "HOME": "/nonexistent"})
    except OSError as e:
        os.close(rfd)
        os.close(wfd)
        return [], "could not start: %s" % e, ""
    os.close(wfd)
    sel = selectors.DefaultSelector()
    sel.register(rfd, selectors.EVENT_READ, "out")
    sel.register(_child.stderr, selectors.EVENT_READ, "err")
    buf = b""
    total = 0
    deadline = time.time() + limit
    open_streams = 2
    while open_streams and status == "ok":
        left = deadline - time.time()
        if left <= 0:
            status = "timed out after %d s (killed)" % limit
            break
        for key, _ in sel.select(timeout=min(left, 0.5)):
            fd = key.fileobj if key.data == "out" else key.fileobj.fileno()
            chunk = os.read(fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            if key.data == "err":
                if len(err) < GEN_STDERR_MAX:
                    err += chunk[:GEN_STDERR_MAX - len(err)]
                continue
            buf += chunk[:max(0, cfg.gen_max_bytes - total)]
            total += len(chunk)
            while len(buf) >= 8:
                n = int.from_bytes(buf[:8], "big")
                if n > cfg.max_input:
                    status = ("yielded an input over the %d-byte cap "
                              "(killed)" % cfg.max_input)
                    break
                if len(buf) < 8 + n:
                    break
                inputs.append(buf[8:8 + n])
                buf = buf[8 + n:]
                if len(inputs) >= cfg.max_count:
                    status = ("yielded more than %d inputs (stopped)" %
                              cfg.max_count)
                    break
            if status == "ok" and total > cfg.gen_max_bytes:
                status = ("wrote over %d bytes (killed; the inputs before "
                          "the cap are kept)" % cfg.gen_max_bytes)
                buf = b""
            if status != "ok":
                break
    try:
        os.killpg(_child.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        code = _child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        code = None
    left = kill_sandbox_user()
    _child.stderr.close()
    _child = None
    os.close(rfd)
    sel.close()
    shutil.rmtree(gdir, ignore_errors=True)
    if status == "ok" and buf:
        status = "its output ended inside an input (the rest is dropped)"
    if status == "ok" and code not in (0, None):
        status = "exited with status %d" % code
    if left:
        status += "; %d sandbox process(es) could not be killed" % left
    return inputs, status, err.decode("utf-8", "replace")


# --- running inputs --------------------------------------------------------

CRASH_RE = re.compile(r"==\d+==ERROR: |runtime error: |ERROR: libFuzzer: "
                      r"(deadly signal|timeout|out-of-memory|fuzz target "
                      r"exited)|SUMMARY: [A-Za-z]+Sanitizer")
FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-fA-F]+ in (\S+)", re.M)
INITED_RE = re.compile(r"INITED cov: (\d+) ft: (\d+)")


class Harness:
    """The harness binary from the build output, run one input at a time
    in its own session with a time limit and a file size limit."""

    def __init__(self, cfg, binary, work):
        self.cfg = cfg
        self.binary = binary
        self.work = work
        self.scratch = os.path.join(work, "scratch")
        os.makedirs(self.scratch, exist_ok=True)
        # the sanitizers print DEDUP_TOKEN (the base runner's defaults do
        # too; the base builder's environment has none)
        self.env = dict(os.environ)
        for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "MSAN_OPTIONS"):
            opts = self.env.get(var, "")
            if "dedup_token_length" not in opts:
                opts = "dedup_token_length=3:symbolize=1" + \
                    (":" + opts if opts else "")
            self.env[var] = opts

    def _run(self, args, timeout):
        global _child
        log = os.path.join(self.work, "run.log")

        def limits():
            os.setsid()
            resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        with open(log, "wb") as out:
            _child = subprocess.Popen(
                [self.binary] + args, stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, cwd=self.scratch,
                preexec_fn=limits, env=self.env)
            try:
                code = _child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                code = None
            try:
                os.killpg(_child.pid, signal.SIGKILL)
            except OSError:
                pass
            _child.wait()
            _child = None
        text = read_nofollow(log, RUN_LOG_MAX) or b""
        os.unlink(log)
        shutil.rmtree(self.scratch, ignore_errors=True)
        os.makedirs(self.scratch, exist_ok=True)
        return code, text.decode("utf-8", "replace")

    def run(self, path):
        """(verdict, detail, dedup token): verdict crash, timeout, oom,
        none or error."""
        t = self.cfg.run_timeout
        code, out = self._run(["-timeout=%d" % t, "-rss_limit_mb=2560",
                               "-detect_leaks=0", "-runs=1", path], t + 15)
        token = None
        m = re.search(r"^DEDUP_TOKEN: (.*)$", out, re.M)
        if m:
            token = m.group(1).strip()[:200]
        else:                   # the first three frames' functions
            frames = FRAME_RE.findall(out)[:3]
            token = "--".join(frames) or None
        if code is None:
            return "timeout", "still running after %d s" % (t + 15), token
        if code != 0 and CRASH_RE.search(out):
            kind = "crash"
            if "ERROR: libFuzzer: timeout" in out:
                kind = "timeout"
            elif "ERROR: libFuzzer: out-of-memory" in out:
                kind = "oom"
            first = ""
            for line in out.splitlines():
                if CRASH_RE.search(line):
                    first = line.strip()[:200]
                    break
            return kind, first, token
        if code != 0:
            return "error", "exit status %d without a report" % code, None
        return "none", "", None

    def coverage(self, dirs):
        """(edges, features) libFuzzer counts for the inputs of dirs."""
        code, out = self._run(["-runs=0", "-detect_leaks=0",
                               "-timeout=%d" % self.cfg.run_timeout] + dirs,
                              self.cfg.run_timeout + 30)
        m = INITED_RE.search(out)
        if code is None or not m:
            return None
        return int(m.group(1)), int(m.group(2))


# --- the rounds ------------------------------------------------------------

def libcrs(*args):
    global _child
    _child = subprocess.Popen(["libCRS"] + list(args),
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    _, err = _child.communicate()
    code = _child.returncode
    _child = None
    return code, err.decode("utf-8", "replace")[:500]


def load_seeds(cfg, out, dest):
    """The harness's seed corpus (zip members read with caps, never
    extracted by name) into dest; returns a few small ones as hex."""
    os.makedirs(dest, exist_ok=True)
    examples = []
    path = os.path.join(out, cfg.harness + "_seed_corpus.zip")
    try:
        with zipfile.ZipFile(path) as z:
            infos = [i for i in z.infolist() if not i.is_dir() and
                     i.file_size <= SEED_MAX][:SEEDS_MAX]
            for i in infos:
                with z.open(i) as f:
                    data = f.read(SEED_MAX + 1)[:SEED_MAX]
                sha = hashlib.sha256(data).hexdigest()[:16]
                with open(os.path.join(dest, "seed-" + sha), "wb") as f:
                    f.write(data)
                if len(data) <= 256 and len(examples) < 3:
                    examples.append(data.hex())
    except (OSError, zipfile.BadZipFile, RuntimeError, ValueError) as e:
        say("no seed corpus used (%s)" % e)
    return examples


def first_prompt(cfg, diff, files, funcs, lits, harness_src, examples):
    parts = ["Project: %s, fuzz harness: %s, sanitizer: %s." %
             (cfg.project, cfg.harness, cfg.sanitizer)]
    if funcs:
        parts += ["", "Functions the change touched: %s." % ", ".join(funcs)]
    if diff:
        parts += ["", "The change under review (the pull request), as a "
                  "unified diff against its base:", "```diff",
                  diff.rstrip("\n"), "```"]
    if lits:
        parts += ["", "Literals in the change (JSON strings): %s" %
                  json.dumps(lits)]
    if harness_src:
        parts += ["", "The harness %s:" % harness_src[0], "```c",
                  harness_src[1].rstrip("\n"), "```"]
    for rel, text in files:
        parts += ["", "The changed file %s as it is now:" % rel, "```c",
                  text.rstrip("\n"), "```"]
    if examples:
        parts += ["", "Inputs from the harness's seed corpus (hex), which "
                  "the fuzzer already has:"] + ["- " + e for e in examples]
    parts += ["", "Write inputs that reach the changed code and make it "
              "crash."]
    return "\n".join(parts)


class Rounds:
    """rounds.jsonl and the stderr line of every round."""

    def __init__(self, log_dir):
        self.path = os.path.join(log_dir, "rounds.jsonl")

    def record(self, rec):
        line = json.dumps(rec, sort_keys=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
        say("round " + line)


class State:
    def __init__(self):
        self.tried = {}         # sha256 -> result line
        self.tokens = set()     # DEDUP_TOKENs of submitted PoVs
        self.povs = 0
        self.seeds = 0


def try_inputs(cfg, st, hx, work, seeds_dir, base_cov, items):
    """Runs (label, bytes) items; shares them. Returns (result lines,
    PoVs submitted, crashes) or raises RuntimeError when libCRS fails."""
    lines, new_povs, crashes = [], 0, 0
    for name, data in items:
        sha = hashlib.sha256(data).hexdigest()
        short = sha[:12]
        if sha in st.tried:
            lines.append("- %s (%s): the same bytes as an earlier input: "
                         "%s" % (name, short, st.tried[sha]))
            continue
        path = os.path.join(work, "inputs", "llm-" + sha[:16])
        with open(path, "wb") as f:
            f.write(data)
        verdict, detail, token = hx.run(path)
        crashed = verdict in ("crash", "timeout", "oom")
        # A crashing seed stops libFuzzer at every start; shared only when
        # the run ends at the first PoV anyway (a fuzzer that takes it
        # then stops too, and the scan need not wait for its time share).
        if not crashed or cfg.stop_on_first:
            code, err = libcrs("submit", "seed", path)
            if code != 0:
                raise RuntimeError("libCRS submit seed failed: %s" % err)
            st.seeds += 1
        if crashed:
            crashes += 1
            result = "%s: %s" % (verdict, detail)
            if token and token in st.tokens:
                result += " (same DEDUP_TOKEN as a submitted PoV)"
            else:
                code, err = libcrs("submit", "pov", path)
                if code != 0:
                    raise RuntimeError("libCRS submit pov failed: %s" % err)
                if token:
                    st.tokens.add(token)
                st.povs += 1
                new_povs += 1
                say("submitted PoV llm-%s (%s)" % (sha[:16], detail))
        elif verdict == "error":
            result = "the harness failed: %s" % detail
        else:
            result = "no crash"
            one = os.path.join(work, "one")
            shutil.rmtree(one, ignore_errors=True)
            os.makedirs(one)
            shutil.copy(path, one)
            cov = hx.coverage([seeds_dir, one]) if base_cov else None
            if cov and base_cov:
                gain = (cov[0] - base_cov[0], cov[1] - base_cov[1])
                result += ("; with the seed corpus it covers %d edges, %d "
                           "features (seeds alone: %d, %d)%s" %
                           (cov[0], cov[1], base_cov[0], base_cov[1],
                            ": it reaches code the seeds do not" if
                            gain[1] > 0 else ": nothing new"))
        st.tried[sha] = result
        lines.append("- %s (%s, %d bytes): %s" % (name, short, len(data),
                                                   result))
    return lines, new_povs, crashes


def run_rounds(cfg, gw, hx, rounds, messages, work, seeds_dir, base_cov,
               start):
    """Ask, run, share and tell, round after round: (exit code, State).
    Ends after cfg.rounds rounds, at the time limit, at HTTP 429 (the
    budget is spent) or after the first PoV with STOP_ON_FIRST_POV=1."""
    st = State()
    for n in range(1, cfg.rounds + 1):
        left = cfg.time_limit - (time.time() - start)
        if left < 10:
            say("time limit reached")
            break
        t0 = time.time()
        rec = {"round": n, "model": cfg.model}
        try:
            reply = gw.chat(messages, min(cfg.llm_timeout, left - 5))
        except LLMError as e:
            rec.update(verdict="budget" if e.status == 429 else "failed",
                       detail=str(e)[:300],
                       seconds=round(time.time() - t0, 1))
            rounds.record(rec)
            if e.status == 429:
                say("the gateway refused the request (HTTP 429): this "
                    "CRS's LLM budget is spent; stopping")
                break
            continue
        with open(os.path.join(cfg.log_dir, "round-%d.reply.txt" % n), "w",
                  encoding="utf-8") as f:
            f.write(reply)
        messages.append({"role": "assistant", "content": reply})
        raw, gen, problems = parse_reply(reply)
        items, rejected = [], []
        for item in raw[:cfg.max_count]:
            name, data, *why = decode_input(item, cfg.max_input)
            if data is None:
                rejected.append("- %s: refused: %s" % (name, why[0]))
            else:
                items.append((name, data))
        if len(raw) > cfg.max_count:
            problems.append("%d inputs past the first %d were ignored" %
                            (len(raw) - cfg.max_count, cfg.max_count))
        gen_status = None
        if gen is not None:
            if len(gen) > GEN_SRC_MAX:
                gen_status = "refused: over %d bytes" % GEN_SRC_MAX
            else:
                room = cfg.max_count - len(items)
                if room <= 0:
                    gen_status = "not run: the inputs already fill the round"
                else:
                    got, gen_status, gen_err = run_generator(cfg, gen)
                    got = got[:room]
                    items += [("generated-%d" % (i + 1), d)
                              for i, d in enumerate(got)]
                    if gen_err.strip():
                        gen_status += "; its stderr ends: " + \
                            gen_err.strip()[-1500:]
        try:
            lines, new_povs, crashes = try_inputs(cfg, st, hx, work,
                                                  seeds_dir, base_cov, items)
        except RuntimeError as e:
            say(str(e))
            return 1, st
        rec.update(verdict="pov" if new_povs else
                   ("crash" if crashes else "no-crash"),
                   inputs=len(items), refused=len(rejected),
                   problems=problems, generator=gen_status,
                   povs=new_povs, crashes=crashes,
                   seconds=round(time.time() - t0, 1))
        rec["refusals"] = [r[2:300] for r in rejected[:10]]
        rounds.record(rec)
        if new_povs and cfg.stop_on_first:
            say("STOP_ON_FIRST_POV=1: stopping after the first PoV")
            break
        feedback = ["Round %d: what your inputs did." % n]
        feedback += lines or ["- no input ran"]
        feedback += rejected
        if gen_status:
            feedback.append("- generator: " + gen_status)
        feedback += ["- " + p for p in problems]
        feedback.append("Crashes so far: %d. Write new inputs (or a "
                        "corrected generator) that reach the changed code "
                        "by another way or go further into it." % st.povs)
        messages.append({"role": "user", "content": "\n".join(feedback)})
    return 0, st


def main():
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    start = time.time()
    cfg = Config()
    if not cfg.harness or "/" in cfg.harness or cfg.harness.startswith("."):
        say("no harness: OSS_CRS_TARGET_HARNESS is not set or not a name")
        return 2
    if not cfg.url or not cfg.key_file:
        say("no LLM: OSS_CRS_LLM_API_URL or OSS_CRS_LLM_API_KEY_FILE is "
            "not set (the compose needs an llm_config)")
        return 2
    try:
        gw = Gateway(cfg, say, reply_max=REPLY_MAX)
    except OSError as e:
        say("cannot read the LLM key file: %s" % e.strerror)
        return 2
    os.makedirs(cfg.log_dir, exist_ok=True)
    rounds = Rounds(cfg.log_dir)
    work = tempfile.mkdtemp(prefix="llm-inputs-")
    out = os.path.join(work, "out")
    os.makedirs(os.path.join(work, "inputs"))
    code, err = libcrs("download-build-output", "build", out)
    if code != 0:
        say("libCRS download-build-output build failed: %s" % err)
        return 1
    binary = os.path.join(out, cfg.harness)
    if not os.access(binary, os.X_OK):
        say("harness '%s' is not in the build output" % cfg.harness)
        return 2
    hx = Harness(cfg, binary, work)
    seeds_dir = os.path.join(work, "seeds")
    examples = load_seeds(cfg, out, seeds_dir)
    base_cov = hx.coverage([seeds_dir])
    diff = as_text(read_nofollow(os.path.join(cfg.fetch, "diffs",
                                              "ref.diff"),
                                 DIFF_MAX + 1) or b"", DIFF_MAX)
    files, funcs = diff_facts(diff)
    cfuncs, lits = change_facts(cfg)
    funcs = cfuncs + [f for f in funcs if f not in cfuncs]
    hsrc = find_harness_source(cfg)
    texts = []
    for rel in files:
        if len(texts) >= CHANGED_FILES_MAX:
            break
        p = inside(cfg.source, rel)
        data = read_nofollow(p, FILE_MAX + 1) if p else None
        if data and hsrc[0] != rel:
            texts.append((rel, as_text(data, FILE_MAX)))
    say("model %s, %d round(s); touched: %s; harness source: %s; seeds "
        "cover %s" % (cfg.model, cfg.rounds, ", ".join(funcs) or "?",
                      hsrc[0] or "not found", base_cov or "?"))
    system = SYSTEM_PROMPT % {"count": cfg.max_count, "size": cfg.max_input,
                              "secs": cfg.gen_timeout}
    messages = [{"role": "system", "content": system},
                {"role": "user", "content": first_prompt(
                    cfg, diff, texts, funcs, lits,
                    hsrc if hsrc[0] else None, examples)}]
    code, st = run_rounds(cfg, gw, hx, rounds, messages, work, seeds_dir,
                          base_cov, start)
    say("done after %d s: %d input(s) shared as seeds, %d PoV(s)" %
        (time.time() - start, st.seeds, st.povs))
    return code


if __name__ == "__main__":
    sys.exit(main())
