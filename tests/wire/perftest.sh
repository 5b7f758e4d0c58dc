#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# perftest.sh PAIR_SH MLX4EMU_RUN "EMU OPTIONS" PROGRAM [ARGS...]
# A perftest program (Debian perftest) as server and client in two
# processes (pair.sh): both exit 0 and both print a line of figures
# (#bytes, #iterations, then numbers), which perftest prints only after
# every iteration completed.  The servers of ib_read_lat and
# ib_atomic_lat only expose their memory to the client's requests and
# print no figures (perftest measures those latencies on the requester):
# there the client's figures and both exits are checked.
set -u
pair="$1"; shift
if ! command -v "$3" >/dev/null 2>&1; then
	echo "$3 not installed (Debian perftest): skipped"; exit 77
fi
out=$(mktemp "${TMPDIR:-/tmp}/perftest.XXXXXX")
trap 'rm -f "$out"' EXIT
# perftest measures the CPU clock by sampling before it reports, and gives
# up when a loaded host spoils the samples ("Correlation coefficient"):
# that run says nothing about the device, so it is run again (3 tries)
# The stock perftest frees none of its own allocations at exit: under the
# sanitize build LeakSanitizer would report perftest, not the device.
for try in 1 2 3; do
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$pair" "$@" >"$out" 2>&1
	rc=$?
	grep -q "Correlation coefficient" "$out" || break
	echo "perftest could not measure the CPU clock (try $try): run again"
done
cat "$out"
[ $rc -eq 0 ] || exit 1
figures='^ *[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+ '
sides="server client"
case "$(basename "$3")" in
ib_read_lat | ib_atomic_lat) sides=client ;;
esac
for side in $sides; do
	n=$(awk -v s="--- $side" 'index($0, "--- ") == 1 { on = index($0, s) == 1; next } on' "$out" |
		grep -Ec "$figures")
	if [ "$n" -lt 1 ]; then
		echo "FAIL: the $side printed no figures"
		exit 1
	fi
done
echo "PASS: both sides printed figures"
