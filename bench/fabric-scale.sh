#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# fabric-scale.sh [-b BUILD_DIR] [-s BYTES] [-n MESSAGES] [-a BYTES]
#
# The software ConnectX-3 as a fabric, in one sitting (needs root: the
# hosts are network namespaces, tests/wire/fabric.sh):
#   fan-in   1, 3, 7 and 15 senders, one RC QP each, MESSAGES SENDs of
#            BYTES (default 200 of 65536) to one receiver: aggregate
#            throughput (the payload the receiver took, every byte
#            checked, over the time from the first post to the last
#            completion), the receiver's CPU time per byte (its program
#            and its adapter's engine thread, both polling), and the
#            packets its full receive buffer dropped (recovered by
#            go-back-N);
#   UD fan-in  1, 3, 7 and 15 senders, MESSAGES*10 datagrams of 4096
#            bytes each to one UD QP (512 receive WQEs), with the
#            datagram credits and without (--datagram-credits=off), side
#            by side: what the receiver took, what its full socket buffer
#            dropped, what found no receive WQE, and the credit packets
#            the credits cost per 1000 datagrams;
#   all-to-all  16 hosts, 4 RC QPs between every two, SEND/WRITE/READ/
#            fetch-and-add of -a BYTES (default 4096), MESSAGES/4 per QP,
#            no faults: aggregate throughput of
#            the operations' payload and the slowest QP's rate over the
#            median's.
# Every figure is one run on whatever the machine does at the time: the
# load average is printed before and after.
set -u
build=build/release
size=65536
msgs=200
a2a_size=4096
while getopts "b:s:n:a:" opt; do
	case $opt in
	b) build=$OPTARG ;;
	s) size=$OPTARG ;;
	n) msgs=$OPTARG ;;
	a) a2a_size=$OPTARG ;;
	*) sed -n '3,27s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
fabric="$here/../tests/wire/fabric.sh"
run="$build/emu/mlx4emu-run"
prog="$build/tests/wire/test_wire_fabric"
out=$(mktemp "${TMPDIR:-/tmp}/fabric-scale.XXXXXX")
trap 'rm -f "$out"' EXIT

echo "# fabric-scale: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# RC SENDs of $size bytes, $msgs per sender, an InfiniBand port, hosts in network namespaces on a bridge"
printf '%8s | %10s | %14s | %12s | %s\n' senders "MB/s" "receiver ns/B" "buffer drops" seconds
for senders in 1 3 7 15; do
	if ! "$fabric" $((senders + 1)) "$run" "" "$prog" -m rc_fanin -n "$msgs" -s "$size" \
		-w 16 -r 64 >"$out" 2>&1; then
		printf '%8s | %s\n' "$senders" "failed:"; tail -5 "$out"; continue
	fi
	sed -n 's/.* \([0-9.]*\) MB\/s in all over \([0-9.]*\) s; the hub.s CPU \([0-9.]*\) ns per byte.*; \([0-9]*\) packets dropped.*/\1 \2 \3 \4/p' "$out" |
		while read -r mbs secs nspb drops; do
			printf '%8s | %10s | %14s | %12s | %s\n' "$senders" "$mbs" "$nspb" "$drops" "$secs"
		done
done
echo "# UD fan-in: $((msgs * 10)) datagrams of 4096 bytes per sender to one UD QP, 512 receive WQEs"
printf '%8s | %7s | %10s | %12s | %11s | %12s | %s\n' senders credits received "buffer drops" \
	"other drops" "credits/1000" seconds
for senders in 1 3 7 15; do
	for credits in on off; do
		"$fabric" $((senders + 1)) "$run" "--datagram-credits=$credits" "$prog" -m ud_fanin \
			-n $((msgs * 10)) -s 4096 -r 512 -w 64 >"$out" 2>&1
		line=$(grep '^fabric ud_fanin:' "$out") ||
			{ printf '%8s | %7s | failed\n' "$senders" "$credits"; continue; }
		set -- $(echo "$line" | sed 's/.*posted: //' | tr -c '0-9.\n' ' ')
		# sent, refused, received, counted dropped, percent, seconds, credit
		# packets, buffer drops (the rest of the counted: no receive WQE)
		printf '%8s | %7s | %10s | %12s | %11s | %12s | %s\n' "$senders" "$credits" "$3" "$8" \
			"$(($4 - $8))" "$(($7 * 1000 / ($1 ? $1 : 1)))" "$6"
	done
done
echo "# all-to-all: 16 hosts, 4 RC QPs between every two (480 connections), $((msgs / 4)) operations of $a2a_size bytes per QP"
if "$fabric" 16 "$run" "" "$prog" -m all2all -n $((msgs / 4)) -q 4 -s "$a2a_size" >"$out" 2>&1; then
	grep '^fabric all2all' "$out"
else
	echo "all-to-all failed:"; grep -E '^fabric: |RoCEv2 over|^FAIL' "$out" | head -8
fi
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
