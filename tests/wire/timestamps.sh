#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# timestamps.sh PAIR_SH MLX4EMU_RUN "EMU OPTIONS" ibv_rc_pingpong -t [ARGS...]
# ibv_rc_pingpong with completion timestamps (-t: an extended CQ with
# IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) between two processes: both sides
# exit 0 and both print the receive completion clock figures, which the
# program prints only when it read timestamps of consecutive receive
# completions; the smallest gap between two of them must be positive
# (the device clock moves forward between completions).
set -u
pair="$1"; shift
out=$(mktemp "${TMPDIR:-/tmp}/timestamps.XXXXXX")
trap 'rm -f "$out"' EXIT
"$pair" "$@" >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || { echo "FAIL: the pair failed"; exit 1; }
for side in server client; do
	figures=$(awk -v s="--- $side" 'index($0, "--- ") == 1 { on = index($0, s) == 1; next } on' "$out")
	avg=$(echo "$figures" | grep -c '^Average receive completion clock cycles = ')
	min=$(echo "$figures" | sed -n 's/^Min receive completion clock cycles = \([0-9]*\)$/\1/p')
	if [ "$avg" -ne 1 ] || [ -z "$min" ]; then
		echo "FAIL: the $side printed no receive completion clock figures"
		exit 1
	fi
	if [ "$min" -le 0 ]; then
		echo "FAIL: the $side saw two receive completions with the same timestamp"
		exit 1
	fi
	echo "$side: timestamps read, smallest gap $min cycles"
done
echo "PASS: both sides read completion timestamps"
