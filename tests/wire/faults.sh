#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# faults.sh MLX4EMU_RUN PAIR_SH UD_COUNT CASE
# Faults on the wire, seen by UD between two processes (ud_count): the
# client's adapter applies the fault to every datagram it sends and
# reports its counts at exit ("mlx4emu: wire faults ..."); the server
# counts what arrived.  Each case checks the counts against each other
# and against the range the share allows (binomial, well beyond 5 sigma).
set -u
run="$1"; pair="$2"; prog="$3"; case="$4"
n=500
dir=$(mktemp -d "${TMPDIR:-/tmp}/faults.XXXXXX")
trap 'rm -rf "$dir"' EXIT

fail() { echo "FAIL: $case: $*"; exit 1; }

# pair OPTIONS: runs the pair, the client with OPTIONS; sets the figures
pair() {
	PAIR_CLIENT_OPTS="$1" PAIR_TIMEOUT=60 "$pair" "$run" "" "$prog" -n "$n" \
		>"$dir/out" 2>&1
	rc=$?
	cat "$dir/out"
	[ $rc -eq 0 ] || fail "the pair failed"
	line=$(grep '^ud_count:' "$dir/out") || fail "no ud_count line"
	set -- $(echo "$line" | tr -c '0-9\n' ' ')
	sent=$1 received=$2 distinct=$3 dups=$4 ooo=$5
	flt=$(grep 'mlx4emu: wire faults' "$dir/out" | grep -v ' of 0 frames') ||
		fail "the client reported no fault counts"
	set -- $(echo "$flt" | sed 's/.*seed [0-9]*)//' | tr -c '0-9\n' ' ')
	frames=$1 dropped=$2 duplicated=$3 reordered=$4 delayed=$5
	echo "figures: received $received distinct $distinct dups $dups out-of-order $ooo;" \
	     "wire: frames $frames dropped $dropped duplicated $duplicated" \
	     "reordered $reordered delayed $delayed"
	# datagrams the client's adapter discarded for a peer that took none
	# (its datagram credits: the wire lost every request and update); the
	# server sends none, so the largest count is the client's
	discarded=$(sed -n 's/.*RoCEv2 over the wire: .* lost: \([0-9]*\) on send.*/\1/p' \
		"$dir/out" | sort -n | tail -1)
	discarded=${discarded:-0}
	[ $((frames + discarded)) -eq "$n" ] ||
		fail "the client's wire saw $frames frames and it discarded $discarded, not $n"
}

in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ] || fail "$4 = $1, not in [$2, $3]"; }

case "$case" in
drop_all)
	# the credit requests are dropped too: after the head-of-queue
	# lifetime the sender discards the rest itself, counted
	pair "--wire-drop=100"
	[ "$received" -eq 0 ] || fail "$received datagrams arrived through a 100 % drop"
	[ "$dropped" -eq "$frames" ] || fail "dropped $dropped of the $frames frames sent"
	;;
drop)
	pair "--wire-drop=20"
	in_range "$dropped" 50 150 "dropped"
	[ "$received" -eq $((n - dropped)) ] || fail "received $received, sent $n, dropped $dropped"
	[ "$distinct" -eq "$received" ] || fail "duplicates without --wire-dup"
	;;
dup)
	pair "--wire-dup=10 --pcap=$dir/client.pcap"
	in_range "$duplicated" 15 85 "duplicated"
	[ "$received" -eq $((n + duplicated)) ] || fail "received $received, expected $((n + duplicated))"
	[ "$dups" -eq "$duplicated" ] || fail "the server saw $dups duplicates, the wire made $duplicated"
	[ "$distinct" -eq "$n" ] || fail "distinct $distinct of $n"
	if command -v tshark >/dev/null 2>&1; then
		# each duplicate is a second frame with the same PSN; the
		# datagram credits (opcode 0xc0, link packets) are not data
		data='infiniband.bth.opcode != 0xc0'
		twice=$(tshark -r "$dir/client.pcap" -d udp.port==4791,infiniband -Y "$data" \
			-T fields -e infiniband.bth.psn 2>/dev/null | sort | uniq -d | wc -l)
		frames_cap=$(tshark -r "$dir/client.pcap" -d udp.port==4791,infiniband \
			-Y "$data" 2>/dev/null | wc -l)
		echo "capture: $frames_cap frames, $twice PSNs twice"
		[ "$twice" -eq "$duplicated" ] || fail "the capture has $twice PSNs twice"
		[ "$frames_cap" -eq $((n + duplicated)) ] || fail "the capture has $frames_cap frames"
	fi
	;;
reorder)
	pair "--wire-reorder=10"
	in_range "$reordered" 15 85 "reordered"
	[ "$received" -eq "$n" ] && [ "$distinct" -eq "$n" ] || fail "datagrams lost or doubled"
	in_range "$ooo" 1 "$reordered" "out of order"
	;;
delay)
	# 20 ms: later datagrams overtake the delayed ones even on a loaded host
	pair "--wire-delay=20000:10"
	in_range "$delayed" 15 85 "delayed"
	[ "$received" -eq "$n" ] && [ "$distinct" -eq "$n" ] || fail "datagrams lost or doubled"
	in_range "$ooo" 1 "$delayed" "out of order"
	;;
seed)
	pair "--wire-drop=20 --wire-seed=7"; a="$dropped"
	pair "--wire-drop=20 --wire-seed=7"; b="$dropped"
	pair "--wire-drop=20 --wire-seed=8"; c="$dropped"
	[ "$a" -eq "$b" ] || fail "seed 7 dropped $a, then $b"
	[ "$a" -ne "$c" ] || fail "seeds 7 and 8 dropped the same number ($a)"
	;;
*)
	fail "unknown case"
	;;
esac
echo "PASS: $case"
