#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pcap_mode.sh MLX4EMU_RUN: a --pcap file is the user's alone (0600) under
# a permissive umask, also when it existed with a wider mode, and it is a
# pcap file (the libpcap magic, little- or big-endian).  The launcher's
# preflight refuses (exit 2, the program never starts) a path whose
# directory does not exist and, as root, a file another user (nobody)
# planted: one of theirs (it would hand them the capture) or a symbolic
# link to a file of root's (it would make root overwrite it).
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

# refused STATUS-PATTERN WHAT -- ARGS: exit 2, the message, no program
refused() {
	pattern=$1; what=$2; shift 3
	rm -f "$dir/started"
	"$run" "$@" sh -c ": >'$dir/started'" >/dev/null 2>"$dir/err"
	st=$?
	if [ $st -ne 2 ] || [ -e "$dir/started" ] || ! grep -q -- "$pattern" "$dir/err"; then
		echo "FAIL: $what: exit $st (want 2), program started: $([ -e "$dir/started" ] &&
			echo yes || echo no), stderr:"
		cat "$dir/err"
		fail=1
	else
		echo "ok: $what: refused: $(grep -- "$pattern" "$dir/err")"
	fi
}
refused "^mlx4emu: --pcap=$dir/none/cap.pcap: No such file or directory$" \
	"a directory that does not exist" -- --pcap="$dir/none/cap.pcap"

nobody_group=$(id -gn nobody 2>/dev/null || echo nogroup)
as_nobody="setpriv --reuid nobody --regid $nobody_group --clear-groups"
if [ "$(id -u)" -eq 0 ] && $as_nobody true 2>/dev/null; then
	chmod 755 "$dir"
	mkdir "$dir/atk"
	chown "nobody:$nobody_group" "$dir/atk"
	# nobody's own file, as wide as a umask of 000 makes it
	$as_nobody sh -c "umask 000; : >'$dir/atk/cap.pcap'"
	refused "^mlx4emu: --pcap=$dir/atk/cap.pcap: owned by another user, refused" \
		"a file nobody created" -- --pcap="$dir/atk/cap.pcap"
	if [ -s "$dir/atk/cap.pcap" ] || [ "$(stat -c %U "$dir/atk/cap.pcap")" != nobody ]; then
		echo "FAIL: nobody's file was written to or taken over"; fail=1
	fi
	# nobody's symbolic link to a file of root's
	echo "root's own data" >"$dir/root.file"
	$as_nobody ln -s "$dir/root.file" "$dir/atk/link.pcap"
	refused "^mlx4emu: --pcap=$dir/atk/link.pcap: a symbolic link, refused$" \
		"a symbolic link nobody planted" -- --pcap="$dir/atk/link.pcap"
	if [ "$(cat "$dir/root.file")" != "root's own data" ]; then
		echo "FAIL: root's file was overwritten through nobody's link"; fail=1
	fi
else
	echo "(not root or no setpriv: the planted-file cases skipped)"
fi
[ $fail -eq 0 ] && echo "PASS: pcap mode"
exit $fail
