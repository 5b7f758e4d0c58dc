#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The layer rule of emu/README.md, checked on the built objects and the sources.

  layer_rule.py NM EMU_SOURCE_DIR OBJECT_LIST_FILE

OBJECT_LIST_FILE names every object file of libmlx4emu.so, one a line; each
lies under <layer>/ (os, cm, cmd, transport, adapter, wire, base), as its
source does under EMU_SOURCE_DIR.  Fails (exit 1) on:

- a call or data reference from an object to a symbol defined by an object
  of a higher layer (a lower layer reaches a higher one only through a
  callback it was handed, which nm does not see as a reference);
- a call from an object below os/ to a name os/ interposes (every global
  that os/ defines outside the emu_/mlx4emu_ prefixes: open, read, mmap,
  munmap, socket, ...): below the OS boundary those go through emu_real_*
  (base/libc.h);
- an #include of a higher layer's header in any emu source.

Each violation is one line, file: symbol (layer -> layer).
"""
import os
import re
import subprocess
import sys

ORDER = ["os", "cm", "cmd", "transport", "adapter", "wire", "base"]
RANK = {layer: i for i, layer in enumerate(ORDER)}
# headers at emu/'s top: the control API that os/ctl.c exports
TOP_HEADERS = {"mlx4emu_ctl.h": "os"}
OWN_PREFIXES = ("emu_", "mlx4emu_")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of_path(path):
    parts = os.path.normpath(path).split(os.sep)
    for part in reversed(parts[:-1]):
        if part in RANK:
            return part
    return None


def nm_symbols(nm, obj):
    """(defined globals, undefined) of one object."""
    out = subprocess.run([nm, "-P", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, undefined


def check_objects(nm, objects):
    layer = {}
    defined = {}
    undefined = {}
    for obj in objects:
        layer[obj] = layer_of_path(obj)
        if layer[obj] is None:
            sys.exit(f"{obj}: in no layer folder ({', '.join(ORDER)})")
        defined[obj], undefined[obj] = nm_symbols(nm, obj)
    owner = {}
    for obj in objects:
        for sym in defined[obj]:
            owner[sym] = obj
    interposed = {sym for obj in objects if layer[obj] == "os"
                  for sym in defined[obj] if not sym.startswith(OWN_PREFIXES)}
    if not {"read", "open", "munmap"} <= interposed:
        sys.exit("os/ interposes neither read, open nor munmap: wrong objects?")
    violations = []
    for obj in objects:
        here = layer[obj]
        name = os.path.basename(obj).removesuffix(".o")
        for sym in sorted(undefined[obj]):
            if here != "os" and sym in interposed:
                violations.append(f"{here}/{name}: {sym} ({here} -> os, "
                                  f"interposed libc name: use emu_real_{sym})")
            elif sym in owner and RANK[layer[owner[sym]]] < RANK[here]:
                there = layer[owner[sym]]
                violations.append(f"{here}/{name}: {sym} ({here} -> {there})")
    return violations, len(interposed)


def check_includes(src):
    violations = []
    nfiles = 0
    for here in ORDER:
        folder = os.path.join(src, here)
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h")):
                continue
            nfiles += 1
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                if os.path.exists(os.path.join(folder, inc)):
                    there = layer_of_path(os.path.join(here, inc)) or here
                elif inc in TOP_HEADERS:
                    there = TOP_HEADERS[inc]
                else:
                    there = layer_of_path(inc)
                if there is None:
                    violations.append(f"{here}/{name}: #include \"{inc}\" "
                                      f"(in no layer)")
                elif RANK[there] < RANK[here]:
                    violations.append(f"{here}/{name}: #include \"{inc}\" "
                                      f"({here} -> {there})")
    return violations, nfiles


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    nm, src, listing = sys.argv[1:]
    with open(listing, encoding="utf-8") as f:
        objects = [line.strip() for line in f if line.strip()]
    if not objects:
        sys.exit(f"{listing}: no objects")
    calls, ninterposed = check_objects(nm, objects)
    includes, nfiles = check_includes(src)
    for v in calls + includes:
        print(v)
    print(f"{len(objects)} objects, {nfiles} sources, {ninterposed} interposed "
          f"names; order {' -> '.join(ORDER)}: "
          f"{len(calls)} upward calls, {len(includes)} upward includes")
    return 1 if calls or includes else 0


if __name__ == "__main__":
    sys.exit(main())
