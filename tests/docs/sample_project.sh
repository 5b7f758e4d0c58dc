#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# sample_project.sh SOURCE_DIR DEB_DIR WORK
# The sample outside project (tests/sample-project) as a user's project
# builds and tests it: the mlx4emu package alone installed (staged under
# WORK/root), the project configured, built and its own ctest run, with
# the staged /usr/bin on PATH and /usr under CMAKE_PREFIX_PATH (what
# /usr itself is on a machine where the package is installed).
set -eu
src=$1 debs=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
"$here/stage_mlx4emu.sh" "$debs" "$work/root"
PATH="$work/root/usr/bin:$PATH"
export PATH
cmake -S "$src/tests/sample-project" -B "$work/build" \
	-DCMAKE_PREFIX_PATH="$work/root/usr" >"$work/configure.log" ||
	{ cat "$work/configure.log"; exit 1; }
grep -q "MLX4EMU_RUN:FILEPATH=$work/root/usr/bin/mlx4emu-run" "$work/build/CMakeCache.txt" ||
	{ echo "FAIL: the sample did not find the staged mlx4emu-run"; exit 1; }
cmake --build "$work/build" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
ctest --test-dir "$work/build" --output-on-failure --timeout 200
echo "PASS: the sample project built and tested against the mlx4emu package alone"
