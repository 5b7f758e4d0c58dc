#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pcap_mode.sh MLX4EMU_RUN: a --pcap file is the user's alone (0600) under
# a permissive umask, also when it existed with a wider mode, and it is a
# pcap file (the libpcap magic, little- or big-endian).
set -u
run="$1"
dir=$(mktemp -d "${TMPDIR:-/tmp}/pcap_mode.XXXXXX")
trap 'rm -rf "$dir"' EXIT
umask 022
fail=0
check() {
	mode=$(stat -c %a "$1")
	magic=$(od -An -N4 -tx1 "$1" | tr -d ' ')
	if [ "$mode" != 600 ]; then echo "FAIL: $2: mode $mode, not 600"; fail=1; fi
	case "$magic" in
	d4c3b2a1|a1b2c3d4) ;;
	*) echo "FAIL: $2: not a pcap file (magic '$magic')"; fail=1 ;;
	esac
}
"$run" --pcap="$dir/new.pcap" ibv_devices >/dev/null || { echo "FAIL: run"; exit 1; }
check "$dir/new.pcap" "a new capture"
echo stale >"$dir/old.pcap"; chmod 666 "$dir/old.pcap"
"$run" --pcap="$dir/old.pcap" ibv_devices >/dev/null || { echo "FAIL: run"; exit 1; }
check "$dir/old.pcap" "a capture over a file of mode 666"
[ $fail -eq 0 ] && echo "PASS: pcap mode"
exit $fail
