#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""state_trace.py OUTPUT: checks the --debug state trace of an RC pair run
with packets dropped (rc_faults.sh trace).

OUTPUT is pair.sh's output: each side's lines after "--- server" or
"--- client".  The device prints one line per change of a role's state,

    mlx4emu: QPN 0x000048 completer: ACK -> TIMEOUT RETRY

and this script fails (exit 1, one "FAIL:" line per finding) when
 - a role or state name is not one of the names below (emu/transport/state.h
   is their definition; written out here so that a renamed state fails);
 - a line's old state is not the new state of the role's line before it
   (first line: IDLE): a change that was not traced;
 - a completer retry (NAK SEQUENCE, TIMEOUT RETRY, RNR RETRY) is not
   followed, as the next line of its QP, by the requester going back
   (-> GO BACK), unless the requester already was in GO BACK;
 - the run never showed what a loss must show somewhere: the requester
   going back, the completer retrying on a timeout and on a sequence NAK,
   the responder seeing a PSN ahead (OUT OF SEQUENCE) and one behind
   (DUPLICATE), the responder executing.
"""
import re
import sys

STATES = {
    "requester": {"IDLE", "SEND", "WAIT WINDOW", "WAIT RD_ATOMIC", "WAIT CREDITS",
                  "GO BACK", "RNR WAIT", "ERROR"},
    "responder": {"IDLE", "EXECUTE", "OUT OF SEQUENCE", "DUPLICATE", "RNR NAK", "NAK",
                  "UC GAP", "UC DROP", "ERROR"},
    "completer": {"IDLE", "ACK", "READ RESPONSE", "ATOMIC ACK", "NAK SEQUENCE",
                  "RNR RETRY", "TIMEOUT RETRY", "ERROR", "FLUSH"},
}
RETRIES = {"NAK SEQUENCE", "TIMEOUT RETRY", "RNR RETRY"}
MUST_SEE = [("requester", "GO BACK"), ("completer", "TIMEOUT RETRY"),
            ("completer", "NAK SEQUENCE"), ("responder", "OUT OF SEQUENCE"),
            ("responder", "DUPLICATE"), ("responder", "EXECUTE")]
LINE = re.compile(r"^mlx4emu: QPN 0x([0-9a-f]{6}) (\w+): (.+?) -> (.+)$")
ANY_STATE_LINE = re.compile(r"^mlx4emu: QPN 0x[0-9a-f]+ \w+: .* -> ")


def main():
    fails = []
    seen = set()
    side = None
    state = {}      # (side, qpn, role) -> state
    awaiting = {}   # (side, qpn) -> line number of a completer retry
    lines = 0
    with open(sys.argv[1], errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("--- "):
                side = line.split()[1]
                continue
            m = LINE.match(line)
            if not m:
                if ANY_STATE_LINE.match(line):
                    fails.append(f"{n}: not a state line of this form: {line}")
                continue
            lines += 1
            qpn, role, old, new = m.groups()
            if role not in STATES:
                fails.append(f"{n}: unknown role {role!r}")
                continue
            for s in (old, new):
                if s not in STATES[role]:
                    fails.append(f"{n}: unknown {role} state {s!r}")
            key = (side, qpn, role)
            prev = state.get(key, "IDLE")
            if old != prev:
                fails.append(f"{n}: {side} QPN 0x{qpn} {role} leaves {old!r}, "
                             f"but its last traced state was {prev!r}")
            if (side, qpn) in awaiting:
                at = awaiting.pop((side, qpn))
                if not (role == "requester" and new == "GO BACK"):
                    fails.append(f"{n}: {side} QPN 0x{qpn}: the completer's retry at "
                                 f"line {at} is not followed by the requester's GO BACK")
            if role == "completer" and new in RETRIES and \
                    state.get((side, qpn, "requester"), "IDLE") != "GO BACK":
                awaiting[(side, qpn)] = n
            state[key] = new
            seen.add((role, new))
    for (s, qpn), at in awaiting.items():
        fails.append(f"{s} QPN 0x{qpn}: the completer's retry at line {at} ends the trace")
    for role, s in MUST_SEE:
        if (role, s) not in seen:
            fails.append(f"no {role} ever entered {s}")
    if not lines:
        fails.append("no state line at all (was --debug on?)")
    for f_ in fails:
        print("FAIL: state trace:", f_)
    print(f"state trace: {lines} transitions, {len(seen)} distinct (role, state)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
