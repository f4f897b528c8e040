#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_check_headers.py - check_headers.py on small git trees
#
# Run by `make check-headers`: a long top comment, a doubled one, a missing one and a
# guard not named after the path each fail the check with file and line;
# a short header with the right guard passes, and files outside the
# checked folders are left alone.
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_headers.py")
SPDX = "/* SPDX-License-Identifier: Apache-2.0 */\n"


def comment(n):
    body = "".join(f" * line {i}\n" for i in range(n))
    return SPDX + "/*\n * x - what it is\n" + body + " */\n"


def header(path, guard, n=2):
    return (comment(n) + f"#ifndef {guard}\n#define {guard}\n"
            "int f(void);\n#endif\n")


class CheckHeaders(unittest.TestCase):
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
            return p.returncode, p.stdout, p.stderr

    def test_clean_tree_passes(self):
        rc, out, _ = self.run_on({
            "common/buf.h": header("common/buf.h", "CRS_COMMON_BUF_H", 7),
            "runner/scan/scan.c": comment(7) + "int x;\n",
            "tests/unit/long.c": comment(30) + "int y;\n",
        })
        self.assertEqual(rc, 0, out)
        self.assertIn("check-headers: 2 files", out)

    def test_long_top_comment_fails(self):
        rc, out, err = self.run_on({
            "runner/phase/select.c": comment(8) + "int x;\n",
        })
        self.assertEqual(rc, 1)
        self.assertIn("runner/phase/select.c:2: top comment has 9 lines, "
                      "at most 8", out)
        self.assertIn("1 file(s) with a missing or long top comment", err)

    def test_second_top_comment_fails(self):
        rc, out, err = self.run_on({
            "runner/http/x.c": comment(2) + "/*\n * x.c - again\n */\n"
                               "int x;\n",
            "runner/http/y.c": comment(2) + "/*\n * a function's note\n"
                               " */\nint y;\n",
        })
        self.assertEqual(rc, 1)
        self.assertIn("runner/http/x.c:7: a second top comment", out)
        self.assertNotIn("runner/http/y.c", out)
        self.assertIn("1 file(s) with a missing or long top comment", err)

    def test_missing_top_comment_fails(self):
        rc, out, _ = self.run_on({"diff/a.c": SPDX + "int x;\n"})
        self.assertEqual(rc, 1)
        self.assertIn("diff/a.c:1: no top-of-file comment", out)

    def test_guard_not_from_path_fails(self):
        rc, out, err = self.run_on({
            "runner/scan/scan.h": header("runner/scan/scan.h",
                                         "CRS_RUNNER_SCAN_H"),
            "sarif/x.h": comment(1) + "int f(void);\n",
        })
        self.assertEqual(rc, 1)
        self.assertIn("runner/scan/scan.h:7: include guard "
                      "CRS_RUNNER_SCAN_H, want CRS_RUNNER_SCAN_SCAN_H", out)
        self.assertIn("sarif/x.h:1: no include guard; want CRS_SARIF_X_H",
                      out)
        self.assertIn("2 header(s) with a wrong guard", err)


if __name__ == "__main__":
    unittest.main()
