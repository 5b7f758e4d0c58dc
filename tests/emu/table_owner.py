#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The adapter owns its object tables: only adapter/ reaches into emu_dev.

  table_owner.py EMU_SOURCE_DIR ALLOW_LIST

Counts the uses of emu_dev's members (`emu_dev.` and `emu_dev->`, every
occurrence, comments included) in each source of emu/cmd/, emu/os/,
emu/cm/ and emu/transport/ (the layers above the adapter)
and compares them with ALLOW_LIST, which holds the uses left per file
("cmd/cmd_qp.c 15").  Fails (exit 1) when a file has more uses than its
entry allows (a file without an entry allows none), printing each line,
and when it has fewer, so that the entry is lowered with the code and the
list only shrinks.
"""
import os
import re
import sys

LAYERS = ("cmd", "os", "cm", "transport")
USE = re.compile(r"\bemu_dev(\.|->)")


def read_allow_list(path):
    allowed = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, count = line.split()
            if name in allowed:
                sys.exit(f"{path}:{n}: {name} listed twice")
            allowed[name] = int(count)
    return allowed


def uses_per_file(emu_dir):
    uses = {}
    for layer in LAYERS:
        for root, _, files in os.walk(os.path.join(emu_dir, layer)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, emu_dir)
                with open(path, encoding="utf-8") as f:
                    lines = [(n, line.rstrip("\n")) for n, line in enumerate(f, 1)
                             for _ in USE.findall(line)]
                if lines:
                    uses[rel] = lines
    return uses


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    emu_dir, allow_path = sys.argv[1], sys.argv[2]
    allowed = read_allow_list(allow_path)
    uses = uses_per_file(emu_dir)
    bad = 0
    for rel in sorted(set(allowed) | set(uses)):
        found, limit = uses.get(rel, []), allowed.get(rel, 0)
        if len(found) > limit:
            bad += 1
            print(f"{rel}: {len(found)} uses of emu_dev, {limit} allowed "
                  "(an adapter/ function owns the table):")
            for n, line in found:
                print(f"  {rel}:{n}: {line.strip()}")
        elif len(found) < limit:
            bad += 1
            fix = f"lower its entry to {len(found)}" if found else "remove its entry"
            print(f"{rel}: {len(found)} uses of emu_dev, {limit} allowed: "
                  f"{fix} in {os.path.basename(allow_path)}")
    if bad:
        return 1
    print(f"{sum(len(v) for v in uses.values())} uses of emu_dev in "
          f"{len(uses)} files of {' and '.join(l + '/' for l in LAYERS)}, as allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
