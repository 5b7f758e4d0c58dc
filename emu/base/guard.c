// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "base/guard.h"

#include <signal.h>
#include <stddef.h>

/* initial-exec: the handler must not allocate a thread's TLS block */
static __thread struct emu_guard *guard_top __attribute__((tls_model("initial-exec")));

void emu_guard_push(struct emu_guard *g)
{
	g->prev = guard_top;
	g->fault_addr = NULL;
	g->signo = 0;
	guard_top = g;
}

void emu_guard_leave(struct emu_guard *g)
{
	guard_top = g->prev;
}

void emu_guard_recover(int signo, void *addr)
{
	struct emu_guard *g = guard_top;
	sigset_t set;

	if (!g)
		return;
	guard_top = g->prev;
	g->fault_addr = addr;
	g->signo = signo;
	sigemptyset(&set);
	sigaddset(&set, signo);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	siglongjmp(g->env, 1);
}
