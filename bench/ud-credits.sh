#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ud-credits.sh [-b BUILD_DIR] [-r ROUNDS] [-D SECONDS]
#
# One UD stream between two processes (perftest's ib_send_bw -c UD, 2048
# B messages for -D SECONDS, default 4, on an InfiniBand port), with the
# datagram credits (emu/README.md, "Datagram credits") and without
# (--datagram-credits=off), alternating for ROUNDS rounds (default 4),
# side by side in one run.  Per run: the sender's rate (perftest's BW
# average, its MB converted to 10^6 bytes), the packets the sender's
# adapter put on the wire, those the receiver's took, those its full
# socket buffer dropped, and the credit packets both sent; then the
# median rate per setting and their ratio.  The load average is printed
# before and after: every figure is one run on whatever the machine does.
set -u
build=build/release
rounds=4
secs=4
while getopts b:r:D: o; do
	case "$o" in
	b) build="$OPTARG" ;;
	r) rounds="$OPTARG" ;;
	D) secs="$OPTARG" ;;
	*) echo "usage: $0 [-b BUILD_DIR] [-r ROUNDS] [-D SECONDS]" >&2; exit 2 ;;
	esac
done
run="$build/emu/mlx4emu-run"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ud-credits.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# a port's exit line: packets sent, received, buffer drops, credit packets
# sent (0 when it names none)
figures() {
	sed -n 's/.*wire: \([0-9]*\) packets sent, \([0-9]*\) received; lost: [0-9]* on send, \([0-9]*\) receive.*/\1 \2 \3/p' "$1"
	sed -n 's/.*credit packets: \([0-9]*\) sent.*/\1/p' "$1" | grep . || echo 0
}

one() {
	port=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 30000))
	net="127.$((72 + $(od -An -N1 -tu1 /dev/urandom | tr -d ' ') % 100))"
	timeout 60 "$run" --debug --datagram-credits="$1" --addr="$net.0.1" -- \
		ib_send_bw -c UD -D "$secs" -p "$port" >"$dir/server" 2>&1 &
	server=$!
	sleep 1
	timeout 60 "$run" --debug --datagram-credits="$1" --addr="$net.0.2" -- \
		ib_send_bw -c UD -D "$secs" -p "$port" 127.0.0.1 >"$dir/client" 2>&1
	wait "$server"
	mbs=$(awk '/^ *2048 +[0-9]+ +[0-9.]+ +[0-9.]+/ { printf "%.1f", $4 * 1.048576 }' "$dir/client")
	set -- $(figures "$dir/client") x x x x; sent=$1 ccred=$4
	set -- $(figures "$dir/server") x x x x; got=$2 drops=$3 scred=$4
	printf '%7s | %8s | %10s | %10s | %12s | %s\n' "$credits" "${mbs:--}" "$sent" "$got" \
		"$drops" "$((${ccred:-0} + ${scred:-0}))"
	echo "$credits ${mbs:-0}" >>"$dir/rates"
}

echo "# ud-credits: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# ib_send_bw -c UD -D $secs, 2048 B, two processes, an InfiniBand port"
printf '%7s | %8s | %10s | %10s | %12s | %s\n' credits "MB/s" sent received "buffer drops" \
	"credit packets"
r=0
while [ "$r" -lt "$rounds" ]; do
	for credits in on off; do
		one "$credits"
	done
	r=$((r + 1))
done
for credits in on off; do
	echo "$credits $(grep "^$credits " "$dir/rates" | cut -d' ' -f2 | sort -n |
		awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')"
done >"$dir/medians"
awk '{ m[$1] = $2 } END { printf "# median MB/s: credits on %.1f, off %.1f, on/off %.2f\n", m["on"], m["off"], m["off"] ? m["on"] / m["off"] : 0 }' "$dir/medians"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
