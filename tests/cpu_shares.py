#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Every test of the build tree takes a share of the resource "cpu" that
the tree's ctest-resources.json can give (tests/CMakeLists.txt): a test
without one would run beside the others unaccounted for under
scripts/test, and one asking more than the spec has could never start.

Usage: cpu_shares.py CTEST BUILD_DIR
"""
import json
import subprocess
import sys


def main():
    ctest, build = sys.argv[1], sys.argv[2]
    with open(f"{build}/ctest-resources.json") as f:
        slots = json.load(f)["local"][0]["cpu"][0]["slots"]
    listing = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"],
                             check=True, capture_output=True, text=True).stdout
    tests = json.loads(listing)["tests"]
    bad = []
    for test in tests:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        groups = props.get("RESOURCE_GROUPS", [])
        shares = [r["slots"] for g in groups for r in g["requirements"] if r[".type"] == "cpu"]
        if len(shares) != 1 or not 0 < shares[0] <= slots:
            bad.append(f"{test['name']}: cpu shares {shares} (the spec has {slots} slots)")
    for line in bad:
        print(line)
    print(f"{'FAIL' if bad else 'PASS'}: {len(tests)} tests, "
          f"{len(bad)} without one share of at most {slots}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
