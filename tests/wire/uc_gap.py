#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""UC across lost packets: what completed is exactly what arrived whole.

usage: uc_gap.py SERVER_PCAP SERVER_OUTPUT FIRST_PSN MESSAGES gap|wrap

The server's capture of a `uc_pair` run (message k: the 3 PSNs from
FIRST_PSN + 3k, modulo 2^24) shows which packets reached its adapter;
SERVER_OUTPUT has its "uc_pair: received K" lines (uc_pair itself checked
each one's order, opcode, length and bytes).  The messages received must
be exactly those whose 3 packets all arrived, each once.  gap: at least
one message lost its middle packet only (its FIRST and LAST arrived) and
the message after it arrived whole, so a responder that let the LAST
finish the broken message, or the next message continue it, is seen.
wrap: the PSNs cross 0xffffff -> 0, and the message across the wrap
arrived whole.  Exit 0 when all holds."""
import re
import sys

import roce_pcap as rp


def main():
    pcap, out, first, n, mode = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), \
        int(sys.argv[4]), sys.argv[5]
    psns = {}
    for p in rp.packets(pcap):
        psns[p.psn] = psns.get(p.psn, 0) + 1
    arrived = [[((first + 3 * k + j) & rp.PSN_MASK) in psns for j in range(3)]
               for k in range(n)]
    whole = [k for k in range(n) if all(arrived[k])]
    got = [int(k) for k in re.findall(r"^uc_pair: received (\d+) ", open(out).read(), re.M)]
    errors = []
    if got != whole:
        errors.append(f"received {got}, whole on arrival {whole}")
    gaps = [k for k in range(n - 1) if arrived[k] == [True, False, True] and all(arrived[k + 1])]
    broken = [k for k in range(n) if not all(arrived[k])]
    if mode == "gap" and not gaps:
        errors.append("no message lost its middle packet alone before a whole one: "
                      "another seed")
    if mode == "wrap":
        k = (0x1000000 - first) // 3 if first > rp.PSN_MASK - 3 * n else None
        if k is None or k >= n:
            errors.append(f"the PSNs from 0x{first:06x} do not cross the wrap")
        elif not all(arrived[k]):
            errors.append(f"message {k}, across the wrap, lost a packet: another seed")
    for e in errors:
        print("FAIL:", e)
    print(f"uc_gap {mode}: {len(got)} of {n} messages received, broken on the wire {broken}, "
          f"middle packet alone lost {gaps}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
