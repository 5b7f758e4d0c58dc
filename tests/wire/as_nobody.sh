# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by the tests that play an unprivileged local attacker: sets
# $as_nobody, the command prefix that runs a program as the user nobody
# (setpriv, all groups dropped), and exits 77 (skipped) when the caller
# cannot become nobody (not root, or no setpriv).
nobody_group=$(id -gn nobody 2>/dev/null || echo nogroup)
as_nobody="setpriv --reuid nobody --regid $nobody_group --clear-groups"
if [ "$(id -u)" -ne 0 ] || ! $as_nobody true 2>/dev/null; then
	echo "SKIP: cannot run a program as nobody (needs root and setpriv)"
	exit 77
fi
