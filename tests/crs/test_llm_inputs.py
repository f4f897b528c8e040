"""test_llm_inputs.py - unit tests of container/crs/llm-inputs/bin/llm_inputs.py

What the CRS takes from the model's answer and from files a container or
the pull request controls (diffs/change.json, the source tree): strict
decoding and caps, the answer's formats, links and FIFOs never opened,
hostile change.json ignored or reduced to plain names. Model-written
generators are never run here (they run only inside the CRS container,
in gen_sandbox.py): tests/integration/test_llm_inputs.sh covers them.
Run: python3 -m unittest discover -s tests/crs (make crs-unit).
"""

import importlib.util
import json
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPEC = importlib.util.spec_from_file_location(
    "llm_inputs", os.path.join(ROOT, "container", "crs", "llm-inputs", "bin",
                               "llm_inputs.py"))
M = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(M)


class DecodeInput(unittest.TestCase):
    def dec(self, item, cap=16):
        return M.decode_input(item, cap)

    def test_encodings(self):
        self.assertEqual(self.dec({"name": "a", "base64": "UlAB"}),
                         ("a", b"RP\x01", None))
        self.assertEqual(self.dec({"hex": "52 50\n01"}),
                         ("input", b"RP\x01", None))
        self.assertEqual(self.dec({"text": "RP"}), ("input", b"RP", None))
        self.assertEqual(self.dec({"base64": "QUJD\nREVG"})[1], b"ABCDEF")

    def test_bad_base64_refused(self):
        for bad in ("UlAB!!", "QQ", "Q===", "QU=J", "UlA*", "=QUJD"):
            name, data, why = self.dec({"name": "x", "base64": bad})
            self.assertIsNone(data, bad)
            self.assertEqual(why, "not valid base64", bad)

    def test_bad_hex_refused(self):
        for bad in ("zz", "525", "0x52", "52-50"):
            self.assertEqual(self.dec({"hex": bad})[2], "not valid hex", bad)

    def test_caps(self):
        # refused before decoding (the encoded text is too long) and after
        self.assertEqual(self.dec({"hex": "41" * 17})[2],
                         "over the 16-byte cap")
        self.assertEqual(self.dec({"base64": "QUFB" * 100})[2],
                         "over the 16-byte cap")
        self.assertEqual(self.dec({"base64": "QUFB" * 6})[2],
                         "over the 16-byte cap")     # 18 bytes
        self.assertEqual(self.dec({"text": "\u00e9" * 9})[2],
                         "over the 16-byte cap")     # 18 UTF-8 bytes
        self.assertEqual(len(self.dec({"hex": "41" * 16})[1]), 16)

    def test_shapes_refused(self):
        self.assertEqual(self.dec(5)[2], "not an object")
        self.assertEqual(self.dec({"hex": "41", "text": "A"})[2],
                         "needs exactly one of base64, hex, text")
        self.assertEqual(self.dec({"name": "n"})[2],
                         "needs exactly one of base64, hex, text")
        self.assertEqual(self.dec({"hex": 41})[2], "hex is not a string")

    def test_names_are_labels(self):
        name = self.dec({"name": "../../OSS_CRS_SUBMIT_DIR/povs/x\n::error::",
                         "hex": "41"})[0]
        self.assertNotIn("/", name)
        self.assertNotIn("\n", name)
        self.assertLessEqual(len(name), 48)
        self.assertEqual(self.dec({"name": {"a": 1}, "hex": "41"})[0],
                         "__a___1_")


class ParseReply(unittest.TestCase):
    def test_json_and_python_blocks(self):
        reply = ('Here:\n```json\n{"inputs": [{"hex": "41"}]}\n```\n'
                 '```python\ndef generate():\n    yield b"x"\n```\n')
        inputs, gen, problems = M.parse_reply(reply)
        self.assertEqual(inputs, [{"hex": "41"}])
        self.assertIn("def generate", gen)
        self.assertEqual(problems, [])

    def test_generator_in_json_wins(self):
        reply = ('```json\n{"generator": "def generate():\\n  return []"}\n'
                 '```\n```python\nother\n```\n')
        self.assertIn("return []", M.parse_reply(reply)[1])

    def test_raw_json(self):
        self.assertEqual(M.parse_reply('{"inputs": [{"text": "a"}]}')[0],
                         [{"text": "a"}])

    def test_bad_answers(self):
        for reply, want in (
                ("```json\n{not json\n```", "the json block is not valid "
                 "JSON"),
                ('```json\n[1, 2]\n```', "the JSON is not an object"),
                ('```json\n{"inputs": "x"}\n```', '"inputs" is not a list'),
                ('```json\n{"generator": 5}\n```',
                 '"generator" is not a string'),
                ("no idea", "no inputs and no generator in the answer")):
            problems = M.parse_reply(reply)[2]
            self.assertIn(want, problems, reply)


class HostileFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.secret = os.path.join(self.d, "secret.key")
        with open(self.secret, "w") as f:
            f.write("sk-crsci-secret")

    def tearDown(self):
        self.tmp.cleanup()

    def cfg(self, **kw):
        c = M.Config()
        c.fetch = os.path.join(self.d, "fetch")
        c.source = os.path.join(self.d, "src")
        c.fuzz_proj = ""
        c.harness = "fuzz_records"
        for k, v in kw.items():
            setattr(c, k, v)
        os.makedirs(os.path.join(c.fetch, "diffs"), exist_ok=True)
        os.makedirs(c.source, exist_ok=True)
        return c

    def write_change(self, cfg, data):
        path = os.path.join(cfg.fetch, "diffs", "change.json")
        with open(path, "wb") as f:
            f.write(data)

    def test_read_nofollow(self):
        link = os.path.join(self.d, "link")
        os.symlink(self.secret, link)
        self.assertIsNone(M.read_nofollow(link, 100))
        fifo = os.path.join(self.d, "fifo")
        os.mkfifo(fifo)
        self.assertIsNone(M.read_nofollow(fifo, 100))     # no hang either
        self.assertIsNone(M.read_nofollow(self.d, 100))
        self.assertEqual(M.read_nofollow(self.secret, 5), b"sk-cr")

    def test_change_json(self):
        cfg = self.cfg()
        doc = {"version": 1, "files": [
            {"path": "src/x.c", "functions": [
                {"name": "parse_extended"}, {"name": "a; rm -rf /"},
                {"name": "x" * 200}, {"name": 5}, "junk"]},
            "junk", {"functions": "no"}],
            "literals": ["EXT", "0x7f", 7, "y" * 65, ""]}
        self.write_change(cfg, json.dumps(doc).encode())
        self.assertEqual(M.change_facts(cfg),
                         (["parse_extended"], ["EXT", "0x7f"]))

    def test_change_json_hostile(self):
        cfg = self.cfg()
        for data in (b"{not json", b"\xff\xfe", b"[1,2]", b'"text"',
                     b'{"files": 5, "literals": {"a": 1}}',
                     b" " * (M.CHANGE_JSON_MAX + 1)):
            self.write_change(cfg, data)
            self.assertEqual(M.change_facts(cfg), ([], []), data[:20])
        # a link to the key is not followed
        path = os.path.join(cfg.fetch, "diffs", "change.json")
        os.unlink(path)
        os.symlink(self.secret, path)
        self.assertEqual(M.change_facts(cfg), ([], []))

    def test_inside(self):
        cfg = self.cfg()
        os.makedirs(os.path.join(cfg.source, "src"))
        os.symlink(self.d, os.path.join(cfg.source, "up"))
        self.assertEqual(M.inside(cfg.source, "src/x.c"),
                         os.path.join(cfg.source, "src", "x.c"))
        for bad in ("../secret.key", "/etc/passwd", "src/../../x", "",
                    "up/secret.key", "src//x.c", "./x"):
            self.assertIsNone(M.inside(cfg.source, bad), bad)

    def test_harness_source_not_through_links(self):
        cfg = self.cfg()
        fuzz = os.path.join(cfg.source, "fuzz")
        os.makedirs(fuzz)
        with open(self.secret, "a") as f:
            f.write(" LLVMFuzzerTestOneInput")
        os.symlink(self.secret, os.path.join(fuzz, "fuzz_records.c"))
        self.assertEqual(M.find_harness_source(cfg), (None, None))
        os.unlink(os.path.join(fuzz, "fuzz_records.c"))
        with open(os.path.join(fuzz, "fuzz_records.cc"), "w") as f:
            f.write("int LLVMFuzzerTestOneInput(const char *d) {}\n")
        rel, text = M.find_harness_source(cfg)
        self.assertEqual(rel, "fuzz/fuzz_records.cc")
        self.assertIn("LLVMFuzzerTestOneInput", text)

    def test_diff_facts(self):
        with open(os.path.join(ROOT, "tests", "fixtures", "delta", "magic",
                               "change.patch")) as f:
            files, funcs = M.diff_facts(f.read())
        self.assertEqual(files, ["src/recparse.c", "src/recparse.h"])
        self.assertEqual(funcs, ["seal_key_hash", "unseal", "parse_record"])


class FakeGateway:
    """Answers from a list; an LLMError in the list is raised."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = []

    def chat(self, messages, timeout):
        self.calls.append([dict(m) for m in messages])
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a


class FakeHarness:
    """Crashes on inputs that start with CRASH."""

    def run(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data.startswith(b"CRASH"):
            return ("crash", "==1==ERROR: AddressSanitizer: boom",
                    "boom--parse")
        return "none", "", None

    def coverage(self, dirs):
        return (10, 20)


class Rounds(unittest.TestCase):
    """The round loop: what it shares, when it stops."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        os.makedirs(os.path.join(self.d, "inputs"))
        os.makedirs(os.path.join(self.d, "seeds"))
        self.shared = []
        self.saved = M.libcrs
        M.libcrs = lambda *args: (self.shared.append(args[:2]) or (0, ""))

    def tearDown(self):
        M.libcrs = self.saved
        self.tmp.cleanup()

    def loop(self, answers, stop_on_first, rounds=4):
        cfg = M.Config()
        cfg.rounds = rounds
        cfg.stop_on_first = stop_on_first
        cfg.log_dir = self.d
        cfg.time_limit = 3600
        gw = FakeGateway(answers)
        code, st = M.run_rounds(cfg, gw, FakeHarness(), M.Rounds(self.d),
                                [{"role": "user", "content": "go"}], self.d,
                                os.path.join(self.d, "seeds"), (9, 18),
                                M.time.time())
        with open(os.path.join(self.d, "rounds.jsonl")) as f:
            recs = [json.loads(line) for line in f]
        return code, st, gw, recs

    @staticmethod
    def answer(*hexes):
        return "```json\n%s\n```" % json.dumps(
            {"inputs": [{"hex": h} for h in hexes]})

    def test_budget_spent_stops(self):
        code, st, gw, recs = self.loop([
            self.answer("41"),
            M.LLMError(429, "HTTP 429: budget of CRS 'x' exceeded"),
            self.answer("42")], stop_on_first=True)
        self.assertEqual(code, 0)
        self.assertEqual([r["verdict"] for r in recs], ["no-crash", "budget"])
        self.assertEqual(len(gw.calls), 2)
        self.assertEqual(self.shared, [("submit", "seed")])
        # the second request carried what the first input did
        fb = gw.calls[1][-1]["content"]
        self.assertIn("no crash; with the seed corpus it covers 10 edges",
                      fb)
        self.assertIn("it reaches code the seeds do not", fb)

    def test_other_errors_go_on(self):
        code, st, gw, recs = self.loop([
            M.LLMError(502, "HTTP 502: upstream"), self.answer("41")],
            stop_on_first=True, rounds=2)
        self.assertEqual([r["verdict"] for r in recs], ["failed", "no-crash"])

    def test_first_pov_stops(self):
        crash = b"CRASH!".hex()
        code, st, gw, recs = self.loop(
            [self.answer("41", crash, crash + "00"), self.answer("42")],
            stop_on_first=True)
        self.assertEqual([r["verdict"] for r in recs], ["pov"])
        self.assertEqual((recs[0]["povs"], recs[0]["crashes"]), (1, 2))
        self.assertEqual(len(gw.calls), 1)
        # one PoV per DEDUP_TOKEN; with STOP_ON_FIRST_POV the crashing
        # inputs are seeds too (a fuzzer that takes one stops as well)
        self.assertEqual(self.shared.count(("submit", "pov")), 1)
        self.assertEqual(self.shared.count(("submit", "seed")), 3)

    def test_crashing_input_no_seed_when_going_on(self):
        crash = b"CRASH!".hex()
        code, st, gw, recs = self.loop(
            [self.answer("41", crash), self.answer("41", "43")],
            stop_on_first=False, rounds=2)
        self.assertEqual([r["verdict"] for r in recs], ["pov", "no-crash"])
        self.assertEqual(self.shared, [("submit", "seed"), ("submit", "pov"),
                                       ("submit", "seed")])
        fb = gw.calls[1][-1]["content"]
        self.assertIn("crash: ==1==ERROR: AddressSanitizer: boom", fb)
        last = recs[1]
        self.assertEqual(last["inputs"], 2)
        self.assertEqual(st.povs, 1)


if __name__ == "__main__":
    unittest.main()
