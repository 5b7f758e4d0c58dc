// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "store_trace.h"

#if defined(__x86_64__)
#define TRAP_FLAG 0x100

static uint8_t *trace_base;
static size_t trace_len;
static struct store_trace *trace_out;
static struct sigaction old_segv, old_trap;

static void on_segv(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;
	uint8_t *addr = si->si_addr;

	if (!trace_out || addr < trace_base || addr >= trace_base + trace_len) {
		/* Not ours: a genuine crash. */
		sigaction(sig, &old_segv, NULL);
		return;
	}
	if (trace_out->n < STORE_TRACE_MAX)
		trace_out->off[trace_out->n++] = (uint32_t)(addr - trace_base);
	else
		trace_out->overflow = 1;
	mprotect(trace_base, trace_len, PROT_READ | PROT_WRITE);
	uc->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
}

static void on_trap(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
	if (trace_out)
		mprotect(trace_base, trace_len, PROT_READ);
}

int store_trace_supported(void)
{
	return 1;
}

int store_trace_begin(void *region, size_t len, struct store_trace *t)
{
	struct sigaction sa;

	memset(t, 0, sizeof(*t));
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_segv;
	if (sigaction(SIGSEGV, &sa, &old_segv))
		return -1;
	sa.sa_sigaction = on_trap;
	if (sigaction(SIGTRAP, &sa, &old_trap))
		return -1;
	trace_base = region;
	trace_len = len;
	trace_out = t;
	return mprotect(region, len, PROT_READ);
}

void store_trace_end(void)
{
	mprotect(trace_base, trace_len, PROT_READ | PROT_WRITE);
	trace_out = NULL;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGTRAP, &old_trap, NULL);
}
#else
int store_trace_supported(void)
{
	return 0;
}

int store_trace_begin(void *region, size_t len, struct store_trace *t)
{
	(void)region;
	(void)len;
	memset(t, 0, sizeof(*t));
	return -1;
}

void store_trace_end(void)
{
}
#endif

long store_trace_last_in(const struct store_trace *t, uint32_t lo, uint32_t hi)
{
	size_t i;

	for (i = t->n; i-- > 0;)
		if (t->off[i] >= lo && t->off[i] < hi)
			return (long)i;
	return -1;
}

long store_trace_first_in(const struct store_trace *t, uint32_t lo, uint32_t hi)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->off[i] >= lo && t->off[i] < hi)
			return (long)i;
	return -1;
}
