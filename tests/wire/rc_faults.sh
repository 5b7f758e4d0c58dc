#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rc_faults.sh PAIR_SH MLX4EMU_RUN RC_PAIR CASE
# RC between two processes recovers exactly under faults on the wire:
# rc_pair -m faults (or -m ops) checks every completion, byte, receive
# and returned atomic value on both sides (see rc_pair.c); this script
# picks the faults of CASE (fixed seeds) and checks from each side's
# "mlx4emu: wire faults" line that they really happened.  Case trace
# checks the requester's, responder's and completer's state changes that
# --debug prints (state_trace.py).
set -u
pair="$1"; run="$2"; prog="$3"; case="$4"
out=$(mktemp "${TMPDIR:-/tmp}/rc_faults.XXXXXX")
caps=$(mktemp -d "${TMPDIR:-/tmp}/rc_faults_pcap.XXXXXX")
trap 'rm -f "$out"; rm -rf "$caps"' EXIT

fail() { echo "FAIL: rc_faults $case: $*"; exit 1; }

# run OPTS "SERVER OPTS" "CLIENT OPTS" RC_PAIR ARGS...: the pair, both
# sides with OPTS and each with its own
run_pair() {
	opts="$1"; PAIR_SERVER_OPTS="$2"; PAIR_CLIENT_OPTS="$3"; shift 3
	export PAIR_SERVER_OPTS PAIR_CLIENT_OPTS
	PAIR_TIMEOUT=90 "$pair" "$run" "$opts" "$prog" "$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	[ $rc -eq 0 ] || fail "the pair failed"
}

# count SIDE WORD: the side's count of WORD (dropped, duplicated,
# reordered, delayed) at exit; 0 without a fault line
count() {
	awk -v s="--- $1" 'index($0, "--- ") == 1 { on = index($0, s) == 1; next } on' "$out" |
		sed -n "s/^mlx4emu: wire faults .* \([0-9][0-9]*\) $2.*/\1/p" | head -1 | grep . || echo 0
}

# need SIDE WORD: the side's wire really did it
need() {
	n=$(count "$1" "$2")
	echo "$1: $n $2"
	[ "$n" -gt 0 ] || fail "the $1's wire $2 no packet"
}

case "$case" in
drop)		# go-back-N: lost requests, ACKs, responses
	run_pair "--wire-drop=5 --wire-seed=3" "" "" -m faults -n 300
	need server dropped; need client dropped ;;
dup)		# duplicates re-ACKed, not delivered again
	run_pair "--wire-dup=10 --wire-seed=3" "" "" -m faults -n 300
	need server duplicated; need client duplicated ;;
reorder)	# a PSN ahead: NAK sequence error, then the missing one
	run_pair "--wire-reorder=10 --wire-seed=3" "" "" -m faults -n 300
	need server reordered; need client reordered ;;
delay)		# 20 ms late: overtaken by later packets, and retransmitted
	run_pair "--wire-delay=20000:3 --wire-seed=3" "" "" -m faults -n 200
	need server delayed; need client delayed ;;
atomics)	# retried and duplicated atomics answered from the replay cache
	run_pair "--wire-dup=10 --wire-drop=3 --wire-seed=4" "" "" -m faults -o fc -n 400
	need server dropped; need server duplicated
	need client dropped; need client duplicated ;;
read_loss)	# READ responses lost (the responder's side only)
	run_pair "" "--wire-drop=10 --wire-seed=3" "" -m faults -o r -n 200
	need server dropped
	[ "$(count client dropped)" -eq 0 ] || fail "the client dropped requests" ;;
ops)		# rc_pair's every operation with lost packets
	run_pair "--wire-drop=15 --wire-seed=1" "" "" -m ops -T 16 -R 7
	need server dropped; need client dropped ;;
mixed.eth)	# everything at once on an Ethernet port
	run_pair "--link-layer=eth --wire-drop=3 --wire-dup=5 --wire-reorder=5 --wire-seed=9" \
		"" "" -m faults -g 0 -n 300
	for w in dropped duplicated reordered; do need server $w; need client $w; done ;;
go_back)	# a sequence-error NAK: the requester resumes at its PSN
	# (go_back.py on both captures).  Only the client's wire drops, its
	# frames 24, 32, 60, 83, 112, ... with seed 7 (the Nth frame meets
	# the same fate in every run): go_back.py draws the same to tell a
	# dropped retransmission from a resumption at the wrong PSN
	seed=7; drop=5
	run_pair "" "--pcap=$caps/server.pcap" \
		"--wire-drop=$drop --wire-seed=$seed --pcap=$caps/client.pcap" -m faults -o wsi -n 200
	need client dropped
	sq_psn=$(awk 'index($0, "--- client") == 1 { on = 1 } on' "$out" |
		sed -n 's/^rc_pair: local QPN 0x[0-9a-f]* PSN \(0x[0-9a-f]*\).*/\1/p' | head -1)
	[ -n "$sq_psn" ] || fail "no rc_pair line from the client"
	python3 "$(dirname "$0")/go_back.py" "$caps/client.pcap" "$caps/server.pcap" "$sq_psn" \
		$seed $drop ||
		fail "go-back-N did not resume at the NAKed PSN" ;;
trace)		# the --debug trace names the states a loss steps through
	run_pair "--debug --wire-drop=5 --wire-seed=3" "" "" -m faults -n 300
	need server dropped; need client dropped
	python3 "$(dirname "$0")/state_trace.py" "$out" || fail "the state trace" ;;
*)
	fail "unknown case" ;;
esac
echo "PASS: rc_faults $case"
