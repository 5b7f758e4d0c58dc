/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Recovery points for the device's own loads and stores in the program's
 * memory (rings, CQ buffers, doorbell records, registered memory): the
 * program may unmap any of it while the objects exist, and a real adapter
 * (whose pages stay pinned) goes on.  A guarded access that faults makes
 * the SIGSEGV/SIGBUS handler jump back to the innermost recovery point of
 * the faulting thread instead of raising the signal in the program:
 *
 *	struct emu_guard g;
 *
 *	if (EMU_GUARD_ENTER(&g)) {
 *		... loads and stores in user memory ...
 *		emu_guard_leave(&g);
 *	} else {
 *		... g.fault_addr is the address that faulted ...
 *	}
 *
 * Recovery points nest (a stack per thread); the handler pops the one it
 * jumps to, so the failure branch must not call emu_guard_leave().  Local
 * variables of the function that enters a guard and are changed inside it
 * are indeterminate in the failure branch (C11 7.13.2.1): keep such state
 * behind pointers.
 */
#ifndef MLX4EMU_GUARD_H
#define MLX4EMU_GUARD_H

#include <setjmp.h>
#include <stdbool.h>

struct emu_guard {
	sigjmp_buf env;
	struct emu_guard *prev;
	void *fault_addr;
	int signo;
};

void emu_guard_push(struct emu_guard *g);
void emu_guard_leave(struct emu_guard *g);

/* The signal mask is not saved (no system call per guarded access): the
 * handler unblocks the signal itself before it jumps. */
#define EMU_GUARD_ENTER(g) \
	(sigsetjmp((g)->env, 0) == 0 ? (emu_guard_push(g), true) : false)

/*
 * Called by the fault handler (async-signal-safe): when the thread is
 * inside a recovery point, pops it, unblocks signo and jumps there (does
 * not return); otherwise returns.
 */
void emu_guard_recover(int signo, void *addr);

#endif
