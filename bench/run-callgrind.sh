#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# Instructions per operation of the direct path and of libmlx4's verbs path.
#
# Runs mlx4dv_bench on the software ConnectX-3 under
#   valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes
#            --fair-sched=yes
# (fair scheduling hands the CPU to the engine thread when the application
# waits for it; without it the full loops run some six times slower).
# The program switches instrumentation on around its measured loops only and
# dumps the application thread's counts once per case and path
# (CALLGRIND_DUMP_STATS_AT "case=... path=... ops=... calls=..."). A dump
# made by a client request holds the calling thread only; the device
# engine's thread is written at exit, with everything it executed while
# instrumentation was on: that figure is reported apart, never added.
#
# Output: a table on stdout, instructions.csv, the raw dumps and, per dump,
# callgrind_annotate's inclusive profile (annotate/CASE.PATH.txt), all in
# the output directory; for the direct path also the cost of every function
# of <infiniband/mlx4dv.h> per operation (header-functions.txt, made by
# header-costs.awk from the annotated source).
#
# Each row says how each path handed its send WQEs to the device
# ("BlueFlame" or "doorbell", from the device's BlueFlame count, checked by
# the program); d/v is given only when both did the same. libmlx4 sends a
# small inline WQE by BlueFlame whenever the device has BlueFlame, so the
# doorbell-against-doorbell pair of the inline send comes from a run with
# --no-bf.
#
# usage: bench/run-callgrind.sh [-b BUILD_DIR] [-o OUT_DIR] [-l LAUNCHER]
#                               [--per-case] [--no-bf] [-- mlx4dv_bench options]
#   --per-case   one valgrind run per case, so that the engine's count is
#                attributed to a case (slower)
#   --no-bf      the software device without BlueFlame (mlx4emu-run --no-bf)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=""
out=""
launcher=""
per_case=0
emu_opts=()
while [ $# -gt 0 ]; do
	case "$1" in
	-b) build=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-l) launcher=$2; shift 2 ;;
	--per-case) per_case=1; shift ;;
	--no-bf) emu_opts+=(--no-bf); shift ;;
	--) shift; break ;;
	-h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "run-callgrind.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# The script is copied next to the program in the build tree; from the
# source tree, -b names the build directory.
if [ -z "$build" ]; then
	if [ -x "$here/mlx4dv_bench" ]; then
		build=$(cd "$here/.." && pwd)
	else
		echo "run-callgrind.sh: give the build directory with -b" >&2
		exit 2
	fi
fi
bench="$build/bench/mlx4dv_bench"
[ -x "$bench" ] || { echo "run-callgrind.sh: $bench not built" >&2; exit 2; }
if [ -z "$launcher" ]; then
	for c in "$build/emu/mlx4emu-run" "$(command -v mlx4emu-run || true)"; do
		if [ -n "$c" ] && [ -x "$c" ]; then launcher=$c; break; fi
	done
fi
[ -n "$launcher" ] || { echo "run-callgrind.sh: mlx4emu-run not found (-l)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "run-callgrind.sh: valgrind not installed" >&2; exit 2; }
[ -n "$out" ] || out="$build/bench/callgrind-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out/annotate"
out=$(cd "$out" && pwd)
# The tables below are made from every dump in the directory: the dumps
# and annotations of an earlier run there would be counted as this run's.
rm -f "$out"/cg.* "$out"/log.* "$out"/annotate/*.txt

# The software device puts its sysfs tree under TMPDIR; under valgrind the
# launcher process makes one too and neither is removed, so they go to a
# scratch directory that is deleted at the end.
scratch="$out/tmp"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT

run() { # tag, bench args...
	local tag=$1; shift
	# polled doorbells: a trapped store would run the device's fault
	# handler on the measured thread (valgrind picks poll by default too)
	TMPDIR="$scratch" MLX4EMU_DOORBELL=poll "$launcher" ${emu_opts[@]+"${emu_opts[@]}"} -- \
		valgrind --tool=callgrind --instr-atstart=no \
		--separate-threads=yes --fair-sched=yes \
		--callgrind-out-file="$out/cg.$tag.%p" \
		"$bench" "$@" \
		>"$out/log.$tag" 2>&1 || {
		echo "run-callgrind.sh: the run '$tag' failed; its log:" >&2
		tail -n 30 "$out/log.$tag" >&2
		exit 1
	}
}

start=$(date +%s)
if [ "$per_case" = 1 ]; then
	for c in $("$bench" --list); do
		run "$c" --case "$c" "$@"
	done
else
	run all "$@"
fi
elapsed=$(( $(date +%s) - start ))

# Per-thread files: cg.TAG.PID.PART-TID are dumps of client requests,
# cg.TAG.PID-TID the final dump of each thread at exit. Thread 1 is the
# application thread; any other thread belongs to the device engine.
main_rows="$out/main.rows"
: >"$main_rows"
: >"$out/header-functions.txt"
# The header and its parts as the program was built (copied by the
# build), else the source tree's, which must not have changed since.
include="$build/bench/include.built"
if [ ! -d "$include" ]; then
	src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
	include="$src/include"
	for h in "$include"/infiniband/mlx4dv.h "$include"/infiniband/mlx4dv/*.h; do
		if [ "$h" -nt "$bench" ]; then
			echo "run-callgrind.sh: $h changed after mlx4dv_bench was built;" \
			     "rebuild, or the per-function costs name the wrong lines" >&2
		fi
	done
fi
headers=("$include"/infiniband/mlx4dv.h)
for h in "$include"/infiniband/mlx4dv/*.h; do
	[ -e "$h" ] && headers+=("$h")
done
for f in "$out"/cg.*.*.*-01; do
	[ -e "$f" ] || continue
	desc=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
	case "$desc" in case=*) ;; *) continue ;; esac
	ir=$(sed -n 's/^totals: //p' "$f" | awk '{print $1}')
	# case=NAME path=P ops=N calls=C handover=H
	set -- $desc
	c=${1#case=}; p=${2#path=}; ops=${3#ops=}; calls=${4#calls=}; h=${5#handover=}
	echo "$c $p $ops $calls ${ir:-0} ${h:--}" >>"$main_rows"
	callgrind_annotate --inclusive=yes "$f" >"$out/annotate/$c.$p.txt" 2>/dev/null || true
	if [ "$p" = direct ]; then
		callgrind_annotate --auto=yes --context=1 "$f" >"$out/annotate/$c.$p.source.txt" 2>/dev/null || true
		{
			echo "== $c: Ir per operation by header function"
			awk -v ops="$ops" -f "$here/header-costs.awk" \
				"${headers[@]}" "$out/annotate/$c.$p.source.txt"
			echo
		} >"$out/annotate/$c.$p.header-functions.txt"
	fi
done
for c in $("$bench" --list); do
	f="$out/annotate/$c.direct.header-functions.txt"
	if [ -f "$f" ]; then cat "$f" >>"$out/header-functions.txt"; fi
done

engine_rows="$out/engine.rows"
: >"$engine_rows"
for f in "$out"/cg.*; do
	case "$f" in *-01) continue ;; esac
	# exit dumps only: cg.TAG.PID-TID (no part number before the dash)
	case "$f" in *-[0-9][0-9]) ;; *) continue ;; esac
	base=${f##*/}
	rest=${base#cg.}
	tag=${rest%%.*}
	tail=${rest#*.}
	case "$tail" in *.*) continue ;; esac
	ir=$(sed -n 's/^totals: //p' "$f" | awk '{print $1}')
	echo "$tag ${tail#*-} ${ir:-0}" >>"$engine_rows"
	callgrind_annotate --inclusive=yes "$f" >"$out/annotate/engine.$tag.thread${tail#*-}.txt" 2>/dev/null || true
done

csv="$out/instructions.csv"
awk -v csv="$csv" -v engine="$engine_rows" -v order="$("$bench" --list | tr '\n' ' ')" '
	BEGIN {
		while ((getline line < engine) > 0) {
			split(line, fld, " ")
			eng[fld[1]] += fld[3]
		}
	}
	{
		c = $1; p = $2
		seen[c] = 1
		ops[c] = $3; calls[c] = $4; ir[c, p] = $5; by[c, p] = $6
	}
	END {
		print "case,ops,calls,verbs_handover,direct_handover,verbs_ir_per_op,direct_ir_per_op,direct_over_verbs,verbs_ir_per_call,direct_ir_per_call,engine_ir_per_op" > csv
		printf "%-23s %8s %-9s %-9s %12s %12s %8s %12s %12s %12s\n", "case", "ops",
			"verbs by", "direct by", "verbs Ir/op", "direct Ir/op", "d/v",
			"verbs Ir/call", "direct Ir/call", "engine Ir/op"
		n = split(order, names, " ")
		for (i = 1; i <= n; i++) {
			c = names[i]
			if (!(c in seen))
				continue
			v = ir[c, "verbs"] / ops[c]; d = ir[c, "direct"] / ops[c]
			vc = ir[c, "verbs"] / calls[c]; dc = ir[c, "direct"] / calls[c]
			bv = by[c, "verbs"]; bd = by[c, "direct"]
			# BlueFlame against a doorbell is different work: no ratio
			r = (v > 0 && bv == bd) ? sprintf("%.3f", d / v) : "-"
			e = (c in eng) ? sprintf("%.1f", eng[c] / (2 * ops[c])) : "-"
			printf "%-23s %8d %-9s %-9s %12.1f %12.1f %8s %12.1f %12.1f %12s\n",
				c, ops[c], bv, bd, v, d, r, vc, dc, e
			printf "%s,%d,%d,%s,%s,%.2f,%.2f,%s,%.2f,%.2f,%s\n", c, ops[c],
				calls[c], bv, bd, v, d, (r == "-" ? "" : r), vc, dc,
				(e == "-" ? "" : e) > csv
		}
		if ("all" in eng)
			printf "device engine thread(s), whole run, instrumented windows only: %.0f Ir (not in the rows above)\n", eng["all"]
	}' "$main_rows"
echo "# software device: ${emu_opts[*]:-BlueFlame on}; d/v only where both paths handed the WQEs over the same way"
echo "# valgrind time: ${elapsed}s; dumps, logs and annotations in $out"
echo "# CSV: $csv; cost by header function: $out/header-functions.txt"
