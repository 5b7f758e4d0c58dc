#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# flood.sh MLX4EMU_RUN "EMU OPTIONS" VICTIM FORGER [GIDX]
# A stranger's flood beside a legitimate RC connection: a server and a
# client (trust_victim -s N, N = FLOOD_WRITES or 8192: RDMA WRITEs with immediate of 64 KiB, each to its own
# place, every one checked at the server) run once alone (the baseline)
# and once while the forger, as nobody, floods the server's and the
# client's RoCE ports with well-formed requests (120 000 packets/s; a
# round with fewer than 10 000 flood packets sent does not count).  Passes when the flooded
# run loses nothing and keeps at least half the baseline's rate; a round
# that misses the rate is run again, up to three rounds (baseline and
# flood side by side each time), as the machine's load moves both.  FLOOD_UNFILTERED=1 adds, for
# comparison, a flooded run whose server has --wire-filter=off.  Skipped
# (exit 77) when the caller cannot become nobody.
set -u
run="$1"; opts="$2"; victim="$3"; forger="$4"; gidx="${5:-}"
writes="${FLOOD_WRITES:-8192}"
g=""; [ -n "$gidx" ] && g="-g $gidx"
. "$(dirname "$0")/as_nobody.sh"
top=$(mktemp -d "${TMPDIR:-/tmp}/flood.XXXXXX")
fpid=""
cleanup() {
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
	rm -rf "$top"
}
trap cleanup EXIT
chmod 755 "$top"
cp "$forger" "$top/forger"
chmod 755 "$top/forger"

# run LABEL FLOOD(0|1) SERVER_OPTS: one pair; its rate goes to $rate
run_pair() {
	label="$1"; flood="$2"; sopts="$3"
	dir="$top/$label"
	mkdir -p "$dir/x"; chmod 755 "$dir"; chown "nobody:$nobody_group" "$dir/x"
	port=$(python3 "$(dirname "$0")/free_tcp_port.py")
	# shellcheck disable=SC2086
	timeout -k 5 150 "$run" $opts $sopts -- "$victim" -m server -d "$dir" -p "$port" \
		-s "$writes" $g >"$dir/server.out" 2>&1 &
	s=$!
	# shellcheck disable=SC2086
	timeout -k 5 150 "$run" $opts -- "$victim" -m client -d "$dir" -p "$port" \
		-s "$writes" $g 127.0.0.1 >"$dir/client.out" 2>&1 &
	c=$!
	n=0
	while [ ! -e "$dir/target.server" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
	if [ "$flood" = 1 ]; then
		$as_nobody "$top/forger" --flood "$dir/x/result" "$dir" >"$dir/forger.out" 2>&1 &
		fpid=$!
		n=0
		while [ ! -e "$dir/x/flooding" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
		sleep 0.3	# the flood at full speed before the stream starts
	fi
	touch "$dir/go"
	wait "$c"; crc=$?
	wait "$s"; src=$?
	touch "$dir/stop"
	if [ -n "$fpid" ]; then wait "$fpid"; fpid=""; fi
	rate=$(sed -n 's/.*stream: .* \([0-9.]*\) MB\/s$/\1/p' "$dir/client.out")
	flooded=$(awk '$1 == "sent" { n += $3 } END { print n + 0 }' "$dir/x/result" 2>/dev/null)
	echo "--- $label: server exit $src, client exit $crc, ${rate:-?} MB/s, flood ${flooded:-0} packets"
	cat "$dir/server.out" "$dir/client.out"
	[ -n "$rate" ] && [ "$src" -eq 0 ] && [ "$crc" -eq 0 ]
}

table=""
pass=0
for round in 1 2 3; do
	run_pair "baseline$round" 0 "" || { echo "FAIL: the baseline failed"; exit 1; }
	base=$rate
	run_pair "flood$round" 1 "" || { echo "FAIL: the flooded connection failed or lost WRITEs"; exit 1; }
	fl=$rate
	ratio=$(awk -v a="$fl" -v b="$base" 'BEGIN { printf "%.2f", a / b }')
	table="$table
| $round | $base | $fl | $flooded | $ratio |"
	# a round counts only when the flood really ran beside the stream
	if [ "$flooded" -lt 10000 ]; then
		echo "--- round $round: only $flooded flood packets: not a flood"
		continue
	fi
	if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.5) }'; then pass=1; break; fi
done
if [ "${FLOOD_UNFILTERED:-0}" = 1 ]; then
	if run_pair "unfiltered" 1 "--wire-filter=off"; then u=$rate; else u="failed"; fi
	table="$table
| unfiltered server | $base | $u | $flooded | - |"
fi
echo "| round | alone (MB/s) | flooded (MB/s) | flood packets | ratio |"
echo "|---|---|---|---|---|$table"
if [ $pass -ne 1 ]; then echo "FAIL: the flooded rate fell below half the baseline"; exit 1; fi
echo "PASS: flood"
