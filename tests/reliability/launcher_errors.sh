#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_launcher_errors: bad invocations of mlx4emu-run and bad device
# settings get the exit status and message docs/errors.md gives, the
# launcher starts no program the device would refuse, and a badly
# configured device is absent rather than half there.
# Usage: launcher_errors.sh MLX4EMU_RUN [GROUP]
set -u
run=$1
fails=0
out=$(mktemp)
started="$out.started"
trap 'rm -f "$out" "$started"' EXIT

# expect STATUS PATTERN -- COMMAND...: exit status and a line of stderr
expect() {
	want_status=$1
	pattern=$2
	shift 3
	"$@" >/dev/null 2>"$out"
	status=$?
	if [ "$status" -ne "$want_status" ] || ! grep -q -- "$pattern" "$out"; then
		echo "FAIL: $*: status $status (want $want_status), stderr:" >&2
		cat "$out" >&2
		fails=$((fails + 1))
	else
		echo "ok: $* -> $status, '$pattern'"
	fi
}

# refused STATUS PATTERN -- LAUNCHER ARGS...: as expect, and the program
# the arguments end with (touch FILE) never ran
refused() {
	rm -f "$started"
	expect "$@" sh -c "touch $started"
	if [ -e "$started" ]; then
		echo "FAIL: $*: the program was started" >&2
		fails=$((fails + 1))
	fi
}

# the same arguments start the program
accepted() {
	rm -f "$started"
	"$@" sh -c "touch $started" >/dev/null 2>"$out"
	if [ ! -e "$started" ]; then
		echo "FAIL: $*: the program did not start, stderr:" >&2
		cat "$out" >&2
		fails=$((fails + 1))
	else
		echo "ok: $* -> started"
	fi
}

# no device at all: ibv_devices fails and lists nothing
expect_no_device() {
	"$@" >"$out.stdout" 2>"$out"
	if grep -q mlx4_0 "$out.stdout" || \
	   ! grep -q "bad configuration, device disabled" "$out"; then
		echo "FAIL: $*: device present or no message" >&2
		cat "$out" >&2
		fails=$((fails + 1))
	else
		echo "ok: $* -> no device"
	fi
	rm -f "$out.stdout"
}

# bad invocations: an unknown option, a program missing or not executable, no program
cases_usage() {
	expect 2 "mlx4emu-run: unknown option --bogus" -- "$run" --bogus -- true
	# a program that is not there or cannot run: a shell's status and message,
	# without the launcher's line number
	expect 127 "^mlx4emu-run: mlx4emu_no_such_program: command not found$" -- \
		"$run" mlx4emu_no_such_program
	expect 127 "^mlx4emu-run: ./mlx4emu_no_such_program: no such file$" -- \
		"$run" --ports=2 -- ./mlx4emu_no_such_program
	expect 126 "^mlx4emu-run: $out: not an executable file$" -- "$run" "$out" --help
	expect 126 "^mlx4emu-run: /: not an executable file$" -- "$run" /
	expect 2 "^usage: mlx4emu-run" -- "$run"
	expect 2 "^usage: mlx4emu-run" -- "$run" --cqe-size=64 --
}

# a bad setting is named both ways a user gives it: the option and the
# variable it sets
cases_settings() {
	expect 2 "^mlx4emu: --cqe-size / MLX4EMU_CQE_SIZE: 48: must be 32 or 64$" -- \
		"$run" --cqe-size=48 -- ibv_devices
	expect 2 "^mlx4emu: --ports / MLX4EMU_PORTS: 3 is not in \[1, 2\]$" -- "$run" --ports=3 -- ibv_devices
	expect 2 "^mlx4emu: --fault-cqe / MLX4EMU_FAULT_CQE: 0: expected N\[:syndrome\]\[:id\] with N >= 1$" -- \
		"$run" --fault-cqe=0 -- ibv_devices
	expect 2 "^mlx4emu: --fault-qp-err / MLX4EMU_FAULT_QP_ERR: -1: expected N\[:id\] with N >= 1$" -- \
		"$run" --fault-qp-err=-1 -- ibv_devices
	expect 2 "^mlx4emu: --device-id / MLX4EMU_DEVICE_ID: 0x1234: must be 0x1003 or 0x1007$" -- \
		"$run" --device-id=0x1234 -- ibv_devices
	expect 2 "^mlx4emu: --doorbell / MLX4EMU_DOORBELL: ring: expected trap or poll$" -- \
		"$run" --doorbell=ring -- ibv_devices
	expect 2 "^mlx4emu: --link-layer / MLX4EMU_LINK_LAYER: bad value 'fddi' (ib, infiniband, eth, ethernet or roce)$" -- \
		"$run" --ports=2 --link-layer=ib,fddi -- ibv_devices
	expect 2 "^mlx4emu: --wire-reorder / MLX4EMU_WIRE_REORDER: 5:0: expected PCT\[:USEC\] (PCT 0..100, USEC 1..10000000)$" -- \
		"$run" --wire-reorder=5:0 -- ibv_devices
	# the variable set directly gets the same message
	expect 2 "^mlx4emu: --ports / MLX4EMU_PORTS: 3 is not in \[1, 2\]$" -- \
		env MLX4EMU_PORTS=3 "$run" -- ibv_devices
}

# every --NAME=VALUE option without a bare --NAME form takes "--NAME VALUE"
cases_option_forms() {
	for name in $(sed -n 's/^[[:space:]]*--\([a-z-]*\)=\*).*/\1/p' "$run"); do
		# and none takes an empty value (an empty variable is an unset one)
		refused 2 "^mlx4emu-run: --$name needs a value, got an empty one$" -- "$run" "--$name="
		if grep -q -- "^[[:space:]]*--$name)" "$run"; then
			continue
		fi
		expect 2 "mlx4emu-run: --$name needs a value" -- "$run" "--$name"
		refused 2 "^mlx4emu-run: --$name needs a value, got the option --ports=1$" -- \
			"$run" "--$name" --ports=1 --
	done
	# "--opt VALUE" is "--opt=VALUE": the value reaches the device
	expect 2 "^mlx4emu: --ports / MLX4EMU_PORTS: 3 is not in \[1, 2\]$" -- "$run" --ports 3 ibv_devices
}

# A value left out: the option takes the program's name, and the launcher
# says so instead of running what follows.
cases_value_left_out() {
	refused 2 "^mlx4emu-run: unknown option -c (--addr took 'sh' as its value)$" -- "$run" --addr
	refused 2 "^mlx4emu: --addr / MLX4EMU_ADDR: bad IPv4 address 'ib_write_bw'$" -- \
		"$run" --addr ib_write_bw
	refused 2 "^mlx4emu-run: the device would not start with this configuration; sh not started$" -- \
		"$run" --addr ib_write_bw
}

# Every refusal below is the library's own parser, run before the program.
cases_parsers() {
	refused 2 "^mlx4emu: --addr / MLX4EMU_ADDR: bad IPv4 address '127.0.0'$" -- "$run" --addr=127.0.0
	refused 2 "^mlx4emu: --addr / MLX4EMU_ADDR: 127.0.0.5,127.0.0.6: 2 values for 1 port$" -- \
		"$run" --addr=127.0.0.5,127.0.0.6
	refused 2 "^mlx4emu: --addr / MLX4EMU_ADDR: 127.0.0.5,,127.0.0.6: 3 values for 2 ports$" -- \
		"$run" --ports=2 --addr=127.0.0.5,,127.0.0.6
	refused 2 "^mlx4emu: --addr / MLX4EMU_ADDR: ,127.0.0.6: an empty value in the list$" -- \
		"$run" --ports=2 --addr=,127.0.0.6
	# an address the device cannot claim (an InfiniBand LID of 0)
	refused 2 "^mlx4emu: MLX4EMU_ADDR 127.1.0.0: the low 16 bits are the LID" -- \
		"$run" --addr=127.1.0.0
	refused 2 "^mlx4emu: --link-layer / MLX4EMU_LINK_LAYER: eth,eth: 2 values for 1 port$" -- \
		"$run" --link-layer=eth,eth
	refused 2 "^mlx4emu: --mac / MLX4EMU_MAC: 02:11:22:33:44:55,02:11:22:33:44:56: 2 values for 1 port$" -- \
		"$run" --mac=02:11:22:33:44:55,02:11:22:33:44:56
	refused 2 "^mlx4emu: --ifname / MLX4EMU_IFNAME: a,b: 2 values for 1 port$" -- \
		"$run" --ifname=a,b
	refused 2 "^mlx4emu: --ports / MLX4EMU_PORTS: two is not a number$" -- "$run" --ports=two
	refused 2 "^mlx4emu: --max-qp / MLX4EMU_MAX_QP: 64k is not a number$" -- "$run" --max-qp=64k
	refused 2 "^mlx4emu: --max-qp / MLX4EMU_MAX_QP: -64 is not a number$" -- "$run" --max-qp=-64
	refused 2 "^mlx4emu: --wire-seed / MLX4EMU_WIRE_SEED: 7x is not a number$" -- "$run" --wire-seed=7x
	refused 2 "^mlx4emu: --max-qp / MLX4EMU_MAX_QP: 15 is not in \[16, 131000\]$" -- "$run" --max-qp=15
	# the whole entry is quoted, not the LID alone
	refused 2 "^mlx4emu: --lid-map / MLX4EMU_LID_MAP: bad entry '5=bad' (LID=IPv4" -- \
		"$run" --lid-map=5=bad
	refused 2 "^mlx4emu: --lid-map / MLX4EMU_LID_MAP: bad entry '7' (LID=IPv4" -- \
		"$run" --lid-map=7
	refused 2 "^mlx4emu: --fault-cqe / MLX4EMU_FAULT_CQE: 5abc: expected N\[:syndrome\]\[:id\] with N >= 1$" -- \
		"$run" --fault-cqe=5abc
	refused 2 "^mlx4emu: --fault-qp-err / MLX4EMU_FAULT_QP_ERR: 5:1:2: expected N\[:id\] with N >= 1$" -- \
		"$run" --fault-qp-err=5:1:2
}

# percentages: a number 0..100, fractions, an optional % after it
cases_percentages() {
	for bad in 101 100.5 -1 5%% 1e1 0x10 five 5:3; do
		refused 2 "^mlx4emu: --wire-drop / MLX4EMU_WIRE_DROP: $bad: expected PCT (0..100)$" -- \
			"$run" --wire-drop="$bad"
	done
	refused 2 "^mlx4emu: --wire-dup / MLX4EMU_WIRE_DUP: 5x: expected PCT (0..100)$" -- "$run" --wire-dup=5x
	refused 2 "^mlx4emu: --wire-delay / MLX4EMU_WIRE_DELAY: 100:5%x: expected USEC\[:PCT\]" -- \
		"$run" --wire-delay=100:5%x
	refused 2 "^mlx4emu: --wire-reorder / MLX4EMU_WIRE_REORDER: 5%%:100: expected PCT\[:USEC\]" -- \
		"$run" --wire-reorder=5%%:100
	for good in --wire-drop=5% --wire-drop=0.5 --wire-drop=100% --wire-dup=.5% \
		    --wire-reorder=5%:100 --wire-delay=100:50% --wire-delay=100; do
		accepted "$run" "$good" --
	done
}

# the variables set directly, not by an option: refused the same way
cases_variables() {
	refused 2 "^mlx4emu: --ports / MLX4EMU_PORTS: 3 is not in \[1, 2\]$" -- \
		env MLX4EMU_PORTS=3 "$run" --
	refused 2 "^mlx4emu: --addr / MLX4EMU_ADDR: bad IPv4 address 'foo'$" -- \
		env MLX4EMU_ADDR=foo "$run" --
	# no stray check request reaches the program
	accepted env MLX4EMU_CHECK=1 "$run" --
	accepted "$run" --
}

# The library preloaded alone, with no launcher to check first: the
# device is absent (the sanitizer runtime first, as the launcher does).
cases_preload() {
	lib=$(sed -n 's/^lib="\(.*\)"$/\1/p' "$run")
	asan=$(ldd "$lib" | awk '/libasan\.so/ { print $3; exit }')
	preloaded() {
		env LD_PRELOAD="${asan:+$asan:}$lib" ASAN_OPTIONS=verify_asan_link_order=0 "$@"
	}
	expect_no_device preloaded MLX4EMU_CQE_SIZE=48 ibv_devices
	expect_no_device preloaded MLX4EMU_DOORBELL=ring ibv_devices
	# a good setting still gives the device, in either option form
	"$run" --link-layer eth -- ibv_devinfo | grep -q "link_layer:.*Ethernet" || \
		{ echo "FAIL: --link-layer eth did not give an Ethernet port" >&2; fails=$((fails + 1)); }
	# roce and ethernet are eth, infiniband is ib (one value: every port)
	"$run" --ports=2 --link-layer=roce -- ibv_devinfo | grep -c "link_layer:.*Ethernet" | grep -qx 2 || \
		{ echo "FAIL: --link-layer=roce did not give two Ethernet ports" >&2; fails=$((fails + 1)); }
	"$run" --ports=2 --link-layer=infiniband,ethernet -- ibv_devinfo | \
		tr -d '\n' | grep -q "link_layer:.*InfiniBand.*link_layer:.*Ethernet" || \
		{ echo "FAIL: --link-layer=infiniband,ethernet" >&2; fails=$((fails + 1)); }
	# a good setting still gives the device
	"$run" -- ibv_devices | grep -q mlx4_0 || { echo "FAIL: no device with good settings" >&2; fails=$((fails + 1)); }
}

# GROUP: one of the groups above (each its own ctest), or all of them
groups="usage settings option_forms value_left_out parsers percentages variables preload"
for group in ${2:-$groups}; do
	case " $groups " in
	*" $group "*) "cases_$group" ;;
	*) echo "FAIL: no case group $group" >&2; exit 2 ;;
	esac
done
exit $fails
