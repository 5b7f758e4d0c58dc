#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# run_guide.sh GUIDE SOURCE_DIR DEB_DIR WORK
# Runs every ```sh block of GUIDE (docs/testing-your-program.md), in its
# order, in one bash with -e, in WORK, where mlx4dv is the source tree
# (a symlink) and mlx4emu_<version>_<arch>.deb the package; and checks
# that every ```cmake block is a verbatim part of the sample project's
# CMakeLists.txt. So no command of the guide can stop working unseen.
# What differs from a user's machine, and only this: dpkg installs into a
# staging root of WORK (its own database; the host's is not touched),
# whose usr/bin comes first on PATH, whose man pages are on MANPATH and
# whose /usr is on CMAKE_PREFIX_PATH; sudo runs its command as is (the
# suite runs as root). The guide's network namespaces need root: without
# it the test is skipped (77).
set -eu
guide=$1 src=$2 debs=$3 work=$4
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the guide's network namespaces need root"; exit 77; }
rm -rf "$work"
mkdir -p "$work/root/var/lib/dpkg/info" "$work/root/var/lib/dpkg/updates"
: > "$work/root/var/lib/dpkg/status"
ln -s "$src" "$work/mlx4dv"
cp "$debs"/mlx4emu_*.deb "$work/"

# the ```cmake blocks: each must appear as it is in the sample's CMakeLists.txt
awk '/^```cmake$/ { on = 1; n++; next } /^```/ { on = 0 } on { print > (W "/cmake-block-" n) }' \
	W="$work" "$guide"
for block in "$work"/cmake-block-*; do
	[ -e "$block" ] || break
	python3 - "$block" "$src/tests/sample-project/CMakeLists.txt" <<'PY'
import sys
block, whole = (open(p).read() for p in sys.argv[1:3])
if block not in whole:
    sys.exit("FAIL: this cmake block of the guide is not in the sample's CMakeLists.txt:\n" + block)
PY
done

{
	cat <<PRELUDE
set -e
dpkg() { command dpkg --root="$work/root" --force-depends --force-script-chrootless --log="$work/dpkg.log" "\$@"; }
sudo() { "\$@"; }
export PATH="$work/root/usr/bin:\$PATH" MANPATH="$work/root/usr/share/man"
export CMAKE_PREFIX_PATH="$work/root/usr" MANPAGER=cat PAGER=cat MANWIDTH=80
cd "$work"
PRELUDE
	awk '/^```sh$/ { on = 1; n++; print "echo \"+++ block " n "\""; next }
	     /^```/ { on = 0 } on { print }' "$guide"
} > "$work/guide.sh"

# the guide names its namespaces after its shell's PID: only this run's
# are removed, never those of another run beside it
guide_pid=""
cleanup() {
	[ -n "$guide_pid" ] || return 0
	for ns in $(ip netns list 2>/dev/null | awk -v p="verbs-echo-$guide_pid-" \
			'index($1, p) == 1 { print $1 }'); do
		ip netns del "$ns"
	done
}
trap cleanup EXIT
blocks=$(grep -c '^```sh$' "$guide")
bash -x "$work/guide.sh" > "$work/guide.log" 2>&1 &
guide_pid=$!
if wait "$guide_pid"; then
	tail -n 40 "$work/guide.log"
	echo "PASS: the $blocks sh blocks of $(basename "$guide") ran"
else
	status=$?
	cat "$work/guide.log"
	echo "FAIL: $(basename "$guide") stopped (exit $status); its script is $work/guide.sh"
	exit 1
fi
