#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# stage_mlx4emu.sh DEB_DIR ROOT
# Installs the mlx4emu package alone (none of mlx4dv's others) from
# DEB_DIR into a fresh staging root ROOT with its own dpkg database, the
# way a project that tests its programs on the software device has it.
set -eu
debs=$1 root=$2
rm -rf "$root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: > "$root/var/lib/dpkg/status"
set -- "$debs"/mlx4emu_*.deb
[ -f "$1" ] || { echo "FAIL: no mlx4emu_*.deb in $debs" >&2; exit 1; }
dpkg --root="$root" --force-depends --force-script-chrootless \
	--log="$root/dpkg.log" -i "$1" >/dev/null
