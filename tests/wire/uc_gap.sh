#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# uc_gap.sh PAIR_SH MLX4EMU_RUN UC_PAIR RC_PAIR CASE
# UC between two processes with the client's wire dropping packets
# (fixed seeds: the client sends nothing but the messages' packets, so
# the same ones are lost in every run): uc_pair checks every message the
# server got, uc_gap.py that they are exactly the ones whose packets all
# arrived (the server's capture).  Seed 5 at 8 % loses the middle packet
# alone of messages 0, 24 and 39, the FIRST of 26 and 45, the LAST of 6
# and 35 (roce_pcap.drops draws the same).  gap: PSNs from 0x100; wrap:
# PSNs from 0xfffff0, across the 24-bit wrap within message 5; then RC from
# 0xfffff0 too (rc_pair -m faults: every WR once, in order, every byte)
# with both wires dropping, the client's capture showing its requests
# cross the wrap.
set -u
pair="$1"; run="$2"; prog="$3"; rc_prog="$4"; case="$5"
dir=$(mktemp -d "${TMPDIR:-/tmp}/uc_gap.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: uc_gap $case: $*"; exit 1; }

case "$case" in
gap)	psn=0x100; faults="--wire-drop=8 --wire-seed=5" ;;
wrap)	psn=0xfffff0; faults="--wire-drop=8 --wire-seed=5" ;;
*)	fail "unknown case" ;;
esac
n=60
PAIR_SERVER_OPTS="--pcap=$dir/server.pcap" PAIR_CLIENT_OPTS="$faults --pcap=$dir/client.pcap" \
	PAIR_TIMEOUT=60 "$pair" "$run" "" "$prog" -n $n -P $psn >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
[ $rc -eq 0 ] || fail "the pair failed"
awk 'index($0, "--- ") == 1 { on = index($0, "--- server") == 1; next } on' "$dir/out" \
	>"$dir/server.out"
python3 "$(dirname "$0")/uc_gap.py" "$dir/server.pcap" "$dir/server.out" $psn $n "$case" ||
	fail "what completed is not what arrived whole"
if [ "$case" = wrap ]; then
	PAIR_SERVER_OPTS="" PAIR_CLIENT_OPTS="--pcap=$dir/rc.pcap" PAIR_TIMEOUT=90 \
		"$pair" "$run" "--wire-drop=5 --wire-seed=3" "$rc_prog" -m faults -n 200 \
		-P $psn >"$dir/out" 2>&1
	rc=$?
	cat "$dir/out"
	[ $rc -eq 0 ] || fail "RC across the wrap"
	python3 - "$dir/rc.pcap" "$(dirname "$0")" <<'PY' || fail "the RC requests do not cross the wrap"
import sys
sys.path.insert(0, sys.argv[2])
import roce_pcap as rp
psns = [p.psn for p in rp.packets(sys.argv[1]) if not p.is_response]
crossed = any(a == 0xffffff and b == 0 for a, b in zip(psns, psns[1:]))
print(f"rc wrap: {len(psns)} requests sent, 0xffffff then 0x000000: {crossed}")
sys.exit(0 if crossed else 1)
PY
fi
echo "PASS: uc_gap $case"
