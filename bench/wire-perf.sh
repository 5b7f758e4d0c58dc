#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# wire-perf.sh [-b BUILD_DIR] [-s "SIZES"] [-n MESSAGES] [-l ROUND_TRIPS]
#
# The software ConnectX-3 between two processes (RoCEv2 over loopback
# UDP) side by side with its in-process path, in one run, per message
# size (default 64 B to 64 KiB), on an InfiniBand port (path MTU 2048):
#
# bandwidth, MB/s (10^6 bytes per second)
#   1-proc, 2-proc   examples/rdma_write_bw: RDMA WRITEs through mlx4dv.h,
#                    16 per doorbell, a completion every 16; writer and
#                    target QPs in one process, then in two
#   ratio            2-proc / 1-proc
#   ib_write_bw, ib_read_bw, ib_send_bw
#                    perftest between two processes (BW average; perftest's
#                    MB is 2^20 bytes, converted here)
# latency, usec
#   1-proc, 2-proc   examples/rc_pingpong: SEND/RECV round trip, median
#   ratio            2-proc / 1-proc
#   ib_write_lat, ib_send_lat
#                    perftest t_typical: the median of half round trips
#   ib_read_lat      perftest t_typical: one READ, a whole round trip
#
# Every figure is one run on whatever the machine is doing at the time:
# the load average is printed before and after.  A "-" is a run that
# failed (its output is kept in the directory printed at the end when
# any did).
set -u
build=build/release
sizes="64 256 1024 4096 16384 65536"
msgs=20000
rtts=2000
while getopts b:s:n:l: o; do
	case "$o" in
	b) build="$OPTARG" ;;
	s) sizes="$OPTARG" ;;
	n) msgs="$OPTARG" ;;
	l) rtts="$OPTARG" ;;
	*) echo "usage: $0 [-b BUILD_DIR] [-s \"SIZES\"] [-n MESSAGES] [-l ROUND_TRIPS]" >&2; exit 2 ;;
	esac
done
run="$build/emu/mlx4emu-run"
ex="$build/examples"
for f in "$run" "$ex/rdma_write_bw" "$ex/rc_pingpong"; do
	[ -x "$f" ] || { echo "$0: $f not built" >&2; exit 2; }
done
for p in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat; do
	command -v "$p" >/dev/null 2>&1 || { echo "$0: $p not installed (Debian perftest)" >&2; exit 2; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/wire-perf.XXXXXX")
port=$((30000 + $$ % 20000))

# a TCP port nobody listens on
free_port() {
	port=$((port + 1))
	while ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; do
		port=$((port + 1))
	done
}

# pair OUT PROGRAM ARGS...: server and client (-p PORT; the client names
# 127.0.0.1), each its own adapter, outputs in OUT.server and OUT.client;
# every process is bounded (300 s) and waited for
pair() {
	out="$1"; shift
	free_port
	timeout -k 5 300 "$run" -- "$@" -p "$port" >"$out.server" 2>&1 &
	spid=$!
	tries=0
	while ! ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && [ $tries -lt 400 ]; do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05; tries=$((tries + 1))
	done
	timeout -k 5 300 "$run" -- "$@" -p "$port" 127.0.0.1 >"$out.client" 2>&1
	wait "$spid"
}

# one process
solo() {
	out="$1"; shift
	timeout -k 5 300 "$run" -- "$@" >"$out" 2>&1
}

# figures of the examples and of perftest; "-" when absent
dash() { if [ -n "$1" ]; then echo "$1"; else : >"$dir/failed"; echo "-"; fi; }
ex_mbps() { awk '/direct .*writes\/s/ { for (i = 1; i < NF; i++) if ($(i + 1) == "MB/s") print $i }' "$1"; }
ex_p50() { awk '/round trip:/ { for (i = 1; i < NF; i++) if ($i == "p50") { v = $(i + 1); sub(/us$/, "", v); print v } }' "$1"; }
pt_bw() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $2 ~ /^[0-9]+$/ { printf "%.1f\n", $4 * 1048576 / 1e6 }' "$1"; }
pt_lat() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $2 ~ /^[0-9]+$/ { print $5 }' "$1"; }
ratio() {
	case "$1$2" in *-*) echo "-"; return ;; esac
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "-" }'
}

# counts KIND SIZE: the messages ($n) of one run of that size and the
# example's arguments ($exargs): bandwidth runs of 16 KiB and more send a
# quarter as many
counts() {
	if [ "$1" = bw ]; then
		n=$msgs
		[ "$2" -ge 16384 ] && n=$((msgs / 4))
		exargs="-s $2 -n $n -b 16 --signal-every 16"
	else
		n=$rtts
		exargs="-s $2 -n $n"
	fi
}

# table KIND EXAMPLE EX_FIGURE PT_FIGURE WIDTH OP...: a row per size: the
# example in one process and in two (EX_FIGURE of each output), 2-proc /
# 1-proc, then ib_<OP>_<KIND> between two processes (PT_FIGURE) for each
# OP, in columns WIDTH wide
table() {
	kind=$1 prog=$2 ex_fig=$3 pt_fig=$4 width=$5
	shift 5
	printf "%8s | %9s %9s %6s |" bytes 1-proc 2-proc ratio
	for p in "$@"; do printf " %${width}s" "ib_${p}_$kind"; done
	echo
	for s in $sizes; do
		counts "$kind" "$s"
		# shellcheck disable=SC2086
		solo "$dir/$kind.1.$s" "$prog" $exargs
		# shellcheck disable=SC2086
		pair "$dir/$kind.2.$s" "$prog" $exargs
		for p in "$@"; do
			pair "$dir/$p.$kind.$s" "ib_${p}_$kind" -s "$s" -n "$n" -F
		done
		one=$(dash "$("$ex_fig" "$dir/$kind.1.$s")")
		two=$(dash "$("$ex_fig" "$dir/$kind.2.$s.client")")
		row=$(printf "%8s | %9s %9s %6s |" "$s" "$one" "$two" "$(ratio "$two" "$one")")
		for p in "$@"; do
			row="$row$(printf " %${width}s" "$(dash "$("$pt_fig" "$dir/$p.$kind.$s.client")")")"
		done
		echo "$row"
	done
}

echo "# wire-perf: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# bandwidth, MB/s (10^6 B/s)"
table bw "$ex/rdma_write_bw" ex_mbps pt_bw 11 write read send
echo "# latency, usec (examples: round trip; ib_write_lat, ib_send_lat: half; ib_read_lat: one READ)"
table lat "$ex/rc_pingpong" ex_p50 pt_lat 12 write send read
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -e "$dir/failed" ]; then
	echo "# some runs failed: their output is in $dir"
else
	rm -rf "$dir"
fi
