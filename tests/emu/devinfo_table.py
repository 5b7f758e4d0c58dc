#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Compares `ibv_devinfo -v` with the tables of emu/docs/attributes.md.

usage: devinfo_table.py DOC DEVICE_COLUMN PORT_COLUMNS -- COMMAND...

DEVICE_COLUMN names the column of the "Device" table that applies, and
PORT_COLUMNS (comma-separated, one per port) those of the "Port" table.
Every line ibv_devinfo prints must have a row, and every row must match:
a value is compared as text, `*` accepts any non-empty value, an empty
cell means the line is absent or has no value.  Exit 0 when everything
matches, 1 with one message per difference otherwise.
"""
import subprocess
import sys


def read_table(doc, heading):
    """Rows of the first table after `heading`, as {line: {column: value}}."""
    lines = open(doc, encoding="utf-8").read().splitlines()
    start = lines.index(heading)
    rows, header = {}, None
    for text in lines[start + 1:]:
        if text.startswith("## "):
            break
        if not text.startswith("|"):
            if header:
                break
            continue
        cells = [c.strip() for c in text.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not set(cells[0]) <= set("-"):
            rows[cells[0]] = dict(zip(header[1:], cells[1:]))
    if not rows:
        sys.exit(f"{doc}: no table after {heading!r}")
    return rows


def parse_devinfo(text):
    """({key: value} of the device, [{key: value} per port])."""
    device, ports = {}, []
    current, last_key, section = device, None, ""
    for raw in text.splitlines():
        if not raw.strip():
            continue
        depth = len(raw) - len(raw.lstrip("\t"))
        content = raw.strip("\t")
        if ":" not in content:
            if depth >= 4 and last_key is not None:
                # a flag name under the line before: kept only when that
                # line has no value of its own (a hex mask has its names)
                if current[last_key] == "" or current.get("+" + last_key):
                    current[last_key] = (current[last_key] + " " + content).strip()
                    current["+" + last_key] = True
                continue
            key, value = content, ""
        else:
            key, value = (s.strip() for s in content.split(":", 1))
        if key == "port" and depth == 2:
            current = {}
            ports.append(current)
        elif current is device and depth == 1:
            section = key if value == "" else ""
        elif current is device and depth == 2 and section:
            key = section + "." + key
        if key in current:
            raise SystemExit(f"ibv_devinfo printed {key!r} twice")
        current[key] = value
        last_key = key
    strip = lambda d: {k: v for k, v in d.items() if not k.startswith("+")}
    return strip(device), [strip(p) for p in ports]


def compare(what, table, column, seen):
    errors = []
    for key, cols in table.items():
        want = cols[column]
        got = seen.get(key)
        if want == "*":
            ok = bool(got)
        elif want == "":
            ok = got in (None, "")
        else:
            ok = got == want
        if not ok:
            errors.append(f"{what} {key!r}: device says {got!r}, table says {want!r}")
    for key in seen:
        if key not in table:
            errors.append(f"{what} {key!r} = {seen[key]!r} has no row in the table")
    return errors


def main():
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.exit(__doc__)
    doc, dev_col, port_cols = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    out = subprocess.run(sys.argv[5:], stdout=subprocess.PIPE, timeout=100,
                         check=True, text=True).stdout
    device, ports = parse_devinfo(out)
    errors = compare("device", read_table(doc, "## Device"), dev_col, device)
    port_table = read_table(doc, "## Port")
    if len(ports) != len(port_cols):
        errors.append(f"{len(ports)} ports printed, {len(port_cols)} expected")
    for n, (col, seen) in enumerate(zip(port_cols, ports), 1):
        errors += compare(f"port {n}", port_table, col, seen)
    for e in errors:
        print(e)
    print(f"{len(device)} device lines, {sum(map(len, ports))} port lines, "
          f"{len(errors)} differences")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
