"""test_run_fuzzer_args.py - run_fuzzer.sh (the libFuzzer CRS) refuses bad
settings before it touches anything: exit 2 and a line naming the variable.

The hedge's length, DIRECTED_WARMUP, comes from the CRS entry's
environment; a value that is not a number of seconds must stop the
script, not turn into a shell expression. The fuzzing itself (the hedge,
the directed runs) runs on the real engine: tests/integration/
test_demo_scan.sh and `make bench-directed`.
Run: python3 -m unittest discover -s tests/crs (make crs-unit).
"""

import os
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "container", "crs", "libfuzzer", "bin",
                      "run_fuzzer.sh")


def run(env):
    full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "OSS_CRS_TARGET_HARNESS": "fuzz_me", "FUZZ_TIME": "5"}
    full.update(env)
    return subprocess.run(["bash", SCRIPT], env=full, capture_output=True,
                          text=True, timeout=30, check=False)


class BadSettings(unittest.TestCase):
    def refused(self, name, value):
        r = run({name: value})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("%s '%s'" % (name, value), r.stderr)

    def test_warmup_not_a_number(self):
        for value in ("ten", "-1", "1.5", "$(touch /tmp/x)", "2 3"):
            self.refused("DIRECTED_WARMUP", value)

    def test_fuzz_time_not_a_number(self):
        self.refused("FUZZ_TIME", "1e3")

    def test_no_harness(self):
        r = run({"OSS_CRS_TARGET_HARNESS": ""})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no harness", r.stderr)


if __name__ == "__main__":
    unittest.main()
