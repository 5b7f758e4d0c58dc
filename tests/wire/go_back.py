#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Go-back-N resumes at exactly the PSN a sequence-error NAK names.

usage: go_back.py CLIENT_PCAP SERVER_PCAP CLIENT_SQ_PSN SEED DROP_PERCENT

The captures of `rc_pair -m faults -o wsi` (every request one PSN: no
READ), the client's wire dropping some of its requests.  On the server's
capture: every NAK of kind PSN sequence error carries the responder's
expected PSN at that point (one past the last request taken in order,
counted from CLIENT_SQ_PSN).  On the client's capture: after each such
NAK, the first request the client sends again (a PSN not beyond the
highest sent so far; a new request the window let out before the NAK was
taken does not count) carries the NAK's PSN, not one before or after it.
The client's wire dropped frames with --wire-drop=DROP_PERCENT
--wire-seed=SEED, the only fault: which frames it dropped is computed
here as the device draws them, so a retransmission the wire dropped is
not mistaken for a resumption at the next PSN.
Exit 0 when both hold for every NAK and there were at least MIN_NAKS."""
import sys

import roce_pcap as rp

MIN_NAKS = 3


def check_server(path, epsn):
    errors, naks = [], 0
    for p in rp.packets(path):
        if p.is_response:
            if p.is_seq_nak:
                naks += 1
                if p.psn != epsn:
                    errors.append(f"server frame {p.index}: NAK sequence error for PSN "
                                  f"0x{p.psn:06x}, the responder expected 0x{epsn:06x}")
            continue
        if p.psn == epsn:
            epsn = (epsn + 1) & rp.PSN_MASK
    return naks, errors


def check_client(path, fates):
    """fates: the drop draws of the client's port (roce_pcap.drops): a
    frame it dropped is not in its capture, so a NAK after which a
    dropped frame was offered before the first retransmission seen is
    left undecided (the dropped one may have been the retransmission)."""
    errors, resumed, undecided = [], 0, 0
    highest = nak = None
    for p in rp.packets(path):
        if p.is_response:
            if p.is_seq_nak:
                nak = p
            continue
        dropped_before = 0
        while next(fates):
            dropped_before += 1
        again = highest is not None and rp.psn_diff(p.psn, highest) <= 0
        if nak is not None and dropped_before:
            undecided += 1
            nak = None
        if nak is not None and again:
            resumed += 1
            if p.psn != nak.psn:
                errors.append(f"client frame {p.index}: after the NAK of frame {nak.index} "
                              f"(PSN 0x{nak.psn:06x}) the requester resumed at "
                              f"0x{p.psn:06x} ({rp.psn_diff(p.psn, nak.psn):+d})")
            nak = None
        if highest is None or rp.psn_diff(p.psn, highest) > 0:
            highest = p.psn
    return resumed, undecided, errors


def main():
    client_pcap, server_pcap, sq_psn = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
    fates = rp.drops(int(sys.argv[4]), float(sys.argv[5]))
    naks, errors = check_server(server_pcap, sq_psn)
    resumed, undecided, client_errors = check_client(client_pcap, fates)
    errors += client_errors
    for e in errors:
        print("FAIL:", e)
    print(f"go_back: {naks} sequence-error NAKs sent, {resumed} resumptions after one "
          f"({undecided} more hidden by a drop), {len(errors)} wrong")
    if resumed < MIN_NAKS:
        print(f"FAIL: fewer than {MIN_NAKS} resumptions after a sequence-error NAK")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
