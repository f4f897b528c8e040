#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_check_layers.py - check_layers.py on small git trees
#
# Run by `make check-layers`: an include that climbs to a higher floor,
# one between two folders of the same floor, a private header included
# from outside its folder, a folder on no floor, an
# include cycle and a call cycle each fail with file and line; a tree
# that only includes downwards passes.
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_layers.py")


def c_file(includes=(), body=""):
    return "".join(f'#include "{i}"\n' for i in includes) + body


class CheckLayers(unittest.TestCase):
    def run_on(self, files):
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)),
                            exist_ok=True)
                with open(os.path.join(root, path), "w") as f:
                    f.write(text)
            subprocess.run(["git", "init", "-q", root], check=True)
            subprocess.run(["git", "-C", root, "add", "."], check=True)
            p = subprocess.run([sys.executable, CHECK, root],
                               capture_output=True, text=True)
            return p.returncode, p.stdout + p.stderr

    def test_downward_includes_pass(self):
        rc, out = self.run_on({
            "common/buf.h": "int buf(void);\n",
            "runner/scan/scan.h": c_file(["common/buf.h"]),
            "runner/phase/run.c": c_file(["runner/scan/scan.h"],
                                         "int run(void)\n{\n"
                                         "\treturn buf();\n}\n"),
        })
        self.assertEqual(rc, 0, out)
        self.assertIn("floors ok, no include or call cycle", out)

    def test_include_that_climbs_fails(self):
        rc, out = self.run_on({
            "runner/phase/phase.h": "int p(void);\n",
            "runner/scan/scan.c": c_file(["common/x.h",
                                          "runner/phase/phase.h"]),
            "common/x.h": "\n",
        })
        self.assertEqual(rc, 1)
        self.assertIn('runner/scan/scan.c:2: includes "runner/phase/phase.h"'
                      ': runner/phase/ is on a higher floor than '
                      'runner/scan/', out)

    def test_include_on_the_same_floor_fails(self):
        rc, out = self.run_on({
            "sarif/s.h": "int s(void);\n",
            "diff/d.c": c_file(["sarif/s.h"]),
        })
        self.assertEqual(rc, 1)
        self.assertIn('diff/d.c:1: includes "sarif/s.h": sarif/ is on the '
                      'same floor as diff/', out)

    def test_private_header_outside_its_folder_fails(self):
        rc, out = self.run_on({
            "runner/engine/docker_call.h": "int call(void);\n",
            "runner/engine/docker.c": c_file(["runner/engine/docker_call.h"]),
            "runner/exec/x.c": c_file(["runner/engine/docker_call.h"]),
        })
        self.assertEqual(rc, 1)
        self.assertIn('runner/exec/x.c:1: includes "runner/engine/'
                      'docker_call.h": only runner/engine/ includes it', out)
        self.assertNotIn("runner/engine/docker.c:1", out)

    def test_folder_on_no_floor_fails(self):
        rc, out = self.run_on({"runner/extra/x.c": "int x;\n"})
        self.assertEqual(rc, 1)
        self.assertIn("runner/extra/x.c: runner/extra/ is on no floor", out)

    def test_call_cycle_fails(self):
        rc, out = self.run_on({
            "runner/phase/a.c": "int a(void)\n{\n\treturn b();\n}\n",
            "runner/phase/b.c": "/* a() in a comment is no call */\n"
                                "int b(void)\n{\n\treturn a();\n}\n",
        })
        self.assertEqual(rc, 1)
        self.assertIn("call cycle: runner/phase/a -> runner/phase/b -> "
                      "runner/phase/a (runner/phase/a.c:3 b, "
                      "runner/phase/b.c:4 a)", out)

    def test_include_cycle_fails(self):
        rc, out = self.run_on({
            "runner/phase/a.h": c_file(["runner/phase/b.h"]),
            "runner/phase/b.h": c_file(["runner/phase/a.h"]),
        })
        self.assertEqual(rc, 1)
        self.assertIn("include cycle: runner/phase/a -> runner/phase/b -> "
                      "runner/phase/a", out)


if __name__ == "__main__":
    unittest.main()
