#!/usr/bin/env python3
"""llm_patcher.py - the "patcher" run module of crs-llm-patcher.

Waits for a PoV in $OSS_CRS_FETCH_DIR/povs (another CRS found a bug), gets
its sanitizer report with `libCRS run-pov` on the head build, and asks a
model through the LLM gateway (OpenAI-compatible, $OSS_CRS_LLM_API_URL,
key in $OSS_CRS_LLM_API_KEY_FILE) for a -p1 unified diff, given the report,
the change's diff ($OSS_CRS_FETCH_DIR/diffs/ref.diff) and the source files
named in the report's stack ($OSS_CRS_TARGET_SOURCE). Each patch is
checked with `libCRS apply-patch-build`, `libCRS run-pov` on the rebuild
and `libCRS apply-patch-test`; a failure goes back to the model with its
output, up to PATCHER_MAX_ATTEMPTS times and while the gateway does not
answer 429 (budget spent). The first patch that passes every check is
submitted with `libCRS submit patch`.

Every attempt is one JSON line in $OSS_CRS_LOG_DIR/attempts.jsonl (and on
stderr): attempt, step reached (reply, apply, build, pov, tests), verdict
(passed, failed, budget), detail, patch_sha256, and rewritten_from when
the sidecar could apply the patch only with `git apply -C1` or `patch
--fuzz=3`: the patch is then rewritten as the clean diff that change
makes in the source, so the submitted patch applies with plain git. The
model's replies and the patches are kept there too (attempt-N.reply.txt,
attempt-N.patch, and the model's own as attempt-N.patch.fuzzy).
The key is only ever sent as the Authorization header.

Environment: PATCHER_MODEL (default gpt-4o, the CRS's required_llms),
PATCHER_MAX_ATTEMPTS (3), PATCHER_MAX_TOKENS (4096), PATCHER_WAIT
(seconds to wait for a PoV; default CRS_CI_TIME_LIMIT, else 3600),
PATCHER_LLM_TIMEOUT (seconds per model request, 300), and the OSS-CRS
variables named above plus OSS_CRS_TARGET_HARNESS and SANITIZER.
Exit: 0 a patch was submitted (or SIGTERM/SIGINT), 1 no patch passed,
2 configuration error. Python 3 standard library only.
"""

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# the gateway client shared with the other LLM CRS (container/crs-shared,
# copied beside this script by make and by the Dockerfile)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llm_client import Gateway, LLMError  # noqa: E402

PROG = "llm_patcher"
DEFAULT_MODEL = "gpt-4o"
REPORT_MAX = 12000       # bytes of a sanitizer report in a prompt
DIFF_MAX = 24000         # bytes of the change's diff
FILE_MAX = 24000         # bytes of one source file
FILES_MAX = 4            # source files from the stack
FAILURE_MAX = 8000       # bytes of a failure's output in a retry prompt
DETAIL_MAX = 300         # characters of an attempt's detail

SYSTEM_PROMPT = """\
You fix security bugs in C and C++ projects. Answer with exactly one \
unified diff, in a ```diff fenced block, that applies with `git apply` \
from the repository root: paths a/<path> and b/<path>, relative to the \
repository root, with correct hunk headers and at least three lines of \
unchanged context copied exactly from the file. Fix the root cause so \
that the crashing input is handled safely and valid inputs behave as \
before. Change only the project's source files: never the fuzz \
harnesses, the tests or the build scripts. Keep the patch small."""

_child = None


def say(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)


def on_signal(signum, frame):
    """Stop now: kill a libCRS call in flight, exit 0."""
    del frame
    if _child is not None and _child.poll() is None:
        _child.kill()
    os.write(2, ("%s: stopped by signal %d\n" % (PROG, signum)).encode())
    os._exit(0)


def env_int(name, default):
    v = os.environ.get(name, "")
    try:
        return int(v) if v else default
    except ValueError:
        say("%s=%r is not a number; using %d" % (name, v, default))
        return default


def read_text(path, cap):
    """The first cap bytes of path as text ("" when unreadable)."""
    try:
        with open(path, "rb") as f:
            data = f.read(cap + 1)
    except OSError:
        return ""
    text = data[:cap].decode("utf-8", "replace")
    if len(data) > cap:
        text += "\n[... truncated at %d bytes ...]\n" % cap
    return text


def tail(text, cap):
    if len(text) <= cap:
        return text
    return "[... %d bytes cut ...]\n" % (len(text) - cap) + text[-cap:]


def oneline(text):
    """text on one line, whitespace collapsed, capped."""
    return " ".join(text.split())[:DETAIL_MAX]


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:DETAIL_MAX]
    return ""


class Config:
    def __init__(self):
        e = os.environ
        self.model = e.get("PATCHER_MODEL") or DEFAULT_MODEL
        self.max_attempts = max(1, env_int("PATCHER_MAX_ATTEMPTS", 3))
        self.max_tokens = max(1, env_int("PATCHER_MAX_TOKENS", 4096))
        self.wait_s = env_int("PATCHER_WAIT",
                              env_int("CRS_CI_TIME_LIMIT", 3600))
        self.llm_timeout = env_int("PATCHER_LLM_TIMEOUT", 300)
        self.fetch = e.get("OSS_CRS_FETCH_DIR") or "/OSS_CRS_FETCH_DIR"
        self.source = e.get("OSS_CRS_TARGET_SOURCE") or ""
        self.harness = e.get("OSS_CRS_TARGET_HARNESS") or ""
        self.sanitizer = e.get("SANITIZER") or "address"
        self.project = e.get("OSS_CRS_TARGET") or "the project"
        self.log_dir = e.get("OSS_CRS_LOG_DIR") or tempfile.mkdtemp()
        self.url = (e.get("OSS_CRS_LLM_API_URL") or "").rstrip("/")
        self.key_file = e.get("OSS_CRS_LLM_API_KEY_FILE") or ""


class Sidecar:
    """libCRS's sidecar commands; each answer lands in a response folder."""

    def __init__(self, work):
        self.work = work
        self.n = 0

    def call(self, *args):
        """(retcode, stdout.log, stderr.log, rebuild_id) of one libCRS call."""
        global _child
        self.n += 1
        resp = os.path.join(self.work, "resp-%d" % self.n)
        cmd = ["libCRS", args[0], args[1], resp] + list(args[2:])
        _child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        _, err = _child.communicate()
        code = _child.returncode
        _child = None
        out = read_text(os.path.join(resp, "stdout.log"), 1 << 20)
        serr = read_text(os.path.join(resp, "stderr.log"), 1 << 20)
        if not serr and code != 0:
            serr = err.decode("utf-8", "replace")
        rid = read_text(os.path.join(resp, "rebuild_id"), 64).strip()
        return code, out, serr, rid


# --- the crash and its context ---------------------------------------------

FRAME_RE = re.compile(r"^\s*#\d+\s+0x[0-9a-fA-F]+\s+in\s+(\S+)\s+"
                      r"(/[^\s:]+):(\d+)")


def repo_path(source, path):
    """The longest suffix of an absolute build path that is a file of the
    source tree (e.g. /src/proj/lib/a.c -> lib/a.c), or None."""
    parts = [p for p in path.split("/") if p]
    if not source or ".." in parts:
        return None
    for i in range(len(parts)):
        rel = "/".join(parts[i:])
        if os.path.isfile(os.path.join(source, rel)):
            return rel
    return None


def stack_files(report, source):
    """[(repo path, [lines])] of the report's frames, in stack order."""
    files = {}
    for line in report.splitlines():
        m = FRAME_RE.match(line)
        if not m:
            continue
        rel = repo_path(source, m.group(2))
        if rel is None:
            continue
        if rel not in files and len(files) >= FILES_MAX:
            continue
        files.setdefault(rel, [])
        if m.group(3) not in files[rel]:
            files[rel].append(m.group(3))
    return list(files.items())


REPORT_RE = re.compile(r"==\d+==ERROR|runtime error:|ERROR: libFuzzer|"
                       r"Sanitizer")


def trim_report(text):
    """The sanitizer report from its ERROR line on, capped."""
    m = re.search(r"^.*(==\d+==ERROR|runtime error:|ERROR: libFuzzer)",
                  text, re.M)
    if m:
        text = text[m.start():]
    return text[:REPORT_MAX]


def first_prompt(cfg, report, files):
    parts = ["Project: %s, fuzz harness: %s, sanitizer: %s." %
             (cfg.project, cfg.harness, cfg.sanitizer),
             "", "The fuzzer found an input that crashes the project:",
             "```text", report.rstrip("\n"), "```"]
    diff = read_text(os.path.join(cfg.fetch, "diffs", "ref.diff"), DIFF_MAX)
    if diff:
        parts += ["", "The change under review (the pull request), as a "
                  "unified diff against its base:", "```diff",
                  diff.rstrip("\n"), "```"]
    for rel, lines in files:
        text = read_text(os.path.join(cfg.source, rel), FILE_MAX)
        parts += ["", "The file %s as it is now (the stack is at line %s):"
                  % (rel, ", ".join(lines)), "```c", text.rstrip("\n"),
                  "```"]
    parts += ["", "Write the patch that fixes this bug."]
    return "\n".join(parts)


# --- the model's patch -----------------------------------------------------

FENCE_RE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*```",
                      re.S | re.M)
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")


def looks_like_diff(text):
    return (re.search(r"^--- \S", text, re.M) is not None and
            re.search(r"^\+\+\+ \S", text, re.M) is not None and
            re.search(r"^@@ -\d", text, re.M) is not None)


def side_path(line, prefix):
    """A ---/+++ line's path with the a/ or b/ prefix -p1 needs."""
    path = line[4:].split("\t")[0].strip()
    if path == "/dev/null" or path.startswith(prefix):
        return path
    return prefix + path.lstrip("/")


META_LINES = ("new file mode ", "deleted file mode ", "old mode ",
              "new mode ", "index ")


def is_file_header(lines, i):
    return (lines[i].startswith("--- ") and i + 1 < len(lines) and
            lines[i + 1].startswith("+++ "))


def normalize_diff(text):
    """A diff git and libgit2 apply: a `diff --git` header per file (its
    mode and index lines kept), a/ b/ paths, hunk counts recounted from the
    hunks' lines, empty context lines given their space, text around the
    diff dropped; a well-formed git diff comes out unchanged. None if no
    hunk."""
    lines = text.replace("\r\n", "\n").split("\n")
    out, modes, i, hunks = [], [], 0, 0
    while i < len(lines):
        line = lines[i]
        if is_file_header(lines, i):
            old = side_path(line, "a/")
            new = side_path(lines[i + 1], "b/")
            name = (new if new != "/dev/null" else old)[2:]
            out.append("diff --git a/%s b/%s" % (name, name))
            if old == "/dev/null" and not any("file mode" in x
                                              for x in modes):
                modes.insert(0, "new file mode 100644")
            if new == "/dev/null" and not any("file mode" in x
                                              for x in modes):
                modes.insert(0, "deleted file mode 100644")
            out += modes + ["--- " + old, "+++ " + new]
            modes = []
            i += 2
            continue
        m = HUNK_RE.match(line)
        if m and out:
            body, i = [], i + 1
            while i < len(lines) and not HUNK_RE.match(lines[i]) and \
                    not is_file_header(lines, i):
                hl = lines[i] or " "        # a blank context line
                if hl[0] not in " +-\\":
                    break
                body.append(hl)
                i += 1
            while body and body[-1] == " ":   # blank lines after the hunk
                body.pop()
            old_n = sum(1 for hl in body if hl[0] in " -")
            new_n = sum(1 for hl in body if hl[0] in " +")
            out.append("@@ -%s,%d +%s,%d @@%s" % (m.group(1), old_n,
                                                  m.group(2), new_n,
                                                  m.group(3)))
            out += body
            hunks += 1
            continue
        if line.startswith("diff --git "):
            modes = []
        elif line.startswith(META_LINES):
            modes.append(line)
        i += 1
    if not hunks:
        return None
    return "\n".join(out) + "\n"


def extract_diff(reply):
    """The patch in a model's reply (```diff fences, else the raw text)."""
    candidates = []
    for m in FENCE_RE.finditer(reply):
        lang, body = m.group(1).lower(), m.group(2)
        if lang in ("diff", "patch", "udiff") or looks_like_diff(body):
            candidates.append(body)
    if not candidates and looks_like_diff(reply):
        candidates.append(reply)
    for c in candidates:
        diff = normalize_diff(c)
        if diff:
            return diff
    return None


# --- one attempt -----------------------------------------------------------

STEP_TEXT = {
    "reply": "Your answer holds no unified diff I could extract.",
    "apply": "The patch does not apply to the source tree (git apply "
             "-p1 from the repository root):",
    "build": "The patched project does not build:",
    "pov": "The patched build still crashes on the same input:",
    "tests": "The project's tests fail on the patched build:",
}


class Attempts:
    """attempts.jsonl and the stderr line of every attempt."""

    def __init__(self, log_dir):
        self.path = os.path.join(log_dir, "attempts.jsonl")

    def record(self, rec):
        line = json.dumps(rec, sort_keys=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
        say("attempt " + line)


# The builder sidecar says how it applied a patch (runner/sidecar/sidecar.c).
FUZZY_RE = re.compile(r"patch applied with (git apply -C1|patch -p1 --fuzz=3)")


def run_quiet(cmd):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          check=False)


def clean_diff(cfg, patch, how, work):
    """What `patch`, applied the fuzzy way `how`, changes in the source
    tree, as a diff plain `git apply` takes (the sidecar accepts off
    context; the maintainer's git does not); None when it cannot be
    made."""
    tree = os.path.join(work, "clean")
    shutil.rmtree(tree, ignore_errors=True)
    try:
        shutil.copytree(cfg.source, tree, symlinks=True)
    except OSError:
        return None
    git = ["git", "-C", tree, "-c", "user.name=llm-patcher",
           "-c", "user.email=llm-patcher@example.invalid"]
    if how.startswith("git"):
        apply = git + ["apply", "-C1", "--whitespace=nowarn", patch]
    else:
        apply = ["patch", "-d", tree, "-p1", "--fuzz=3", "--batch", "-s",
                 "--no-backup-if-mismatch", "-r", "-", "-i", patch]
    for cmd in (git + ["init", "-q"], git + ["add", "-A"],
                git + ["commit", "-q", "-m", "source"], apply,
                git + ["add", "-A"]):
        if run_quiet(cmd).returncode != 0:
            return None
    r = run_quiet(git + ["diff", "--cached"])
    out = r.stdout.decode("utf-8", "replace")
    return out if r.returncode == 0 and out.strip() else None


def check_patch(sc, cfg, patch, pov):
    """(step, verdict, detail, output, rewritten) of the sidecar checks of
    patch; `rewritten` names the fuzzy way the sidecar applied it when
    the file was rewritten as a clean diff, else None."""
    step, verdict, detail, output = check_steps(sc, cfg, patch, pov)
    how = getattr(cfg, "fuzzy_apply", None)
    cfg.fuzzy_apply = None
    return step, verdict, detail, output, how


def check_steps(sc, cfg, patch, pov):
    """(step, verdict, detail, output) of the sidecar checks of patch."""
    cfg.fuzzy_apply = None
    code, out, err, rid = sc.call("apply-patch-build", patch)
    if code != 0:
        if "the patched build failed" in err:
            return ("build", "failed", first_line(err),
                    err + "\n" + tail(out, FAILURE_MAX))
        if "does not apply" in err or "not a unified diff" in err:
            return ("apply", "failed", first_line(err),
                    err + "\n" + tail(out, FAILURE_MAX))
        return "build", "failed", first_line(err), err + "\n" + out
    if not rid:
        return "build", "failed", "the build answered no rebuild id", out
    m = FUZZY_RE.search(err)
    if m:
        clean = clean_diff(cfg, patch, m.group(1), sc.work)
        if clean is None:
            return ("apply", "failed", "applied only with %s, and no "
                    "clean diff could be made of it" % m.group(1), err)
        os.replace(patch, patch + ".fuzzy")
        with open(patch, "w", encoding="utf-8") as f:
            f.write(clean)
        cfg.fuzzy_apply = m.group(1)
        say("the sidecar applied the patch with %s: rewritten as a clean "
            "diff" % m.group(1))
    code, out, err, _ = sc.call("run-pov", pov, "--harness", cfg.harness,
                                "--rebuild-id", rid)
    if code == 124:
        return "pov", "failed", "the PoV run timed out on rebuild " + rid, err
    if code != 0:
        if code == 1:
            detail = "still crashes: " + oneline(out)
        else:
            detail = first_line(err) or "run-pov retcode %d" % code
        return "pov", "failed", detail, trim_report(err)
    code, out, err, _ = sc.call("apply-patch-test", patch)
    if code != 0:
        return ("tests", "failed", first_line(err) or "tests failed",
                tail(out + "\n" + err, FAILURE_MAX))
    return "tests", "passed", first_line(out) or "tests passed", out


def patch_loop(cfg, gw, sc, attempts, pov, report, files):
    """Ask, check and retry; the passing patch's path, or None."""
    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": first_prompt(cfg, report, files)}]
    tried = {}          # patch sha256 -> (attempt, step, detail, output)
    for n in range(1, cfg.max_attempts + 1):
        t0 = time.time()
        rec = {"attempt": n, "model": cfg.model, "patch_sha256": None}
        try:
            reply = gw.chat(messages, cfg.llm_timeout)
        except LLMError as e:
            budget = e.status == 429
            rec.update(step="reply", verdict="budget" if budget else "failed",
                       detail=str(e)[:DETAIL_MAX],
                       seconds=round(time.time() - t0, 1))
            attempts.record(rec)
            if budget:
                say("the gateway refused the request (HTTP 429): this "
                    "CRS's LLM budget is spent; stopping")
                return None
            continue
        with open(os.path.join(cfg.log_dir, "attempt-%d.reply.txt" % n),
                  "w", encoding="utf-8") as f:
            f.write(reply)
        messages.append({"role": "assistant", "content": reply})
        diff = extract_diff(reply)
        if diff is None:
            step, verdict, detail, output = ("reply", "failed",
                                             "no unified diff in the reply",
                                             "")
        else:
            sha = hashlib.sha256(diff.encode()).hexdigest()
            rec["patch_sha256"] = sha
            patch = os.path.join(cfg.log_dir, "attempt-%d.patch" % n)
            with open(patch, "w", encoding="utf-8") as f:
                f.write(diff)
            if sha in tried:
                k, step, detail, output = tried[sha]
                verdict = "failed"
                detail = "same patch as attempt %d: %s" % (k, detail)
                rec["repeat_of"] = k
            else:
                step, verdict, detail, output, how = check_patch(
                    sc, cfg, patch, pov)
                tried[sha] = (n, step, detail, output)
                if how:
                    rec["rewritten_from"] = how
        rec.update(step=step, verdict=verdict, detail=detail[:DETAIL_MAX],
                   seconds=round(time.time() - t0, 1))
        if verdict == "passed":
            rec["submitted"] = True
            attempts.record(rec)
            return patch
        attempts.record(rec)
        messages.append({"role": "user", "content": "\n".join([
            "Attempt %d failed at the %s step. %s" % (n, step,
                                                       STEP_TEXT[step]),
            "```text", tail(output, FAILURE_MAX).rstrip("\n") or detail,
            "```", "Write a corrected patch, as one unified diff in a "
            "```diff block."])})
    say("no patch passed in %d attempt(s)" % cfg.max_attempts)
    return None


# --- the PoV ---------------------------------------------------------------

def wait_for_crash(cfg, sc):
    """(pov path, its report on the head build) of the first PoV in the
    fetch folder that crashes the head build; (None, None) at the end of
    PATCHER_WAIT."""
    povs = os.path.join(cfg.fetch, "povs")
    seen = set()
    deadline = time.time() + cfg.wait_s
    while time.time() < deadline:
        try:
            names = sorted(os.listdir(povs))
        except OSError:
            names = []
        for name in names:
            path = os.path.join(povs, name)
            if name in seen or name.startswith(".") or \
                    not os.path.isfile(path):
                continue
            seen.add(name)
            code, out, err, _ = sc.call("run-pov", path, "--harness",
                                        cfg.harness)
            if code == 1 and REPORT_RE.search(err):
                say("PoV %s: %s" % (name, first_line(out)))
                return path, trim_report(err)
            say("PoV %s does not crash the head build (retcode %d): "
                "skipped" % (name, code))
        time.sleep(1)
    return None, None


def main():
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    cfg = Config()
    if not cfg.harness:
        say("no harness: OSS_CRS_TARGET_HARNESS is not set")
        return 2
    if not cfg.url or not cfg.key_file:
        say("no LLM: OSS_CRS_LLM_API_URL or OSS_CRS_LLM_API_KEY_FILE is "
            "not set (the compose needs an llm_config)")
        return 2
    try:
        gw = Gateway(cfg, say, tries=3)
    except OSError as e:
        say("cannot read the LLM key file: %s" % e.strerror)
        return 2
    os.makedirs(cfg.log_dir, exist_ok=True)
    attempts = Attempts(cfg.log_dir)
    sc = Sidecar(tempfile.mkdtemp(prefix="llm-patcher-"))
    say("model %s, at most %d attempt(s); waiting up to %ds for a PoV" %
        (cfg.model, cfg.max_attempts, cfg.wait_s))
    pov, report = wait_for_crash(cfg, sc)
    if pov is None:
        say("no PoV crashed the head build within %ds" % cfg.wait_s)
        return 1
    if not (os.path.isdir(cfg.source) and os.listdir(cfg.source)):
        cfg.source = os.path.join(sc.work, "source")
        r = subprocess.run(["libCRS", "download-source", "target-source",
                            cfg.source], stdin=subprocess.DEVNULL,
                           check=False)
        if r.returncode != 0:
            say("no source tree: the prompt will have no source files")
    files = stack_files(report, cfg.source)
    say("stack files: %s" % (", ".join(f for f, _ in files) or "none"))
    patch = patch_loop(cfg, gw, sc, attempts, pov, report, files)
    if patch is None:
        return 1
    r = subprocess.run(["libCRS", "submit", "patch", patch],
                       stdin=subprocess.DEVNULL, check=False)
    if r.returncode != 0:
        say("libCRS submit patch %s failed (exit %d)" % (patch, r.returncode))
        return 1
    say("submitted %s" % os.path.basename(patch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
