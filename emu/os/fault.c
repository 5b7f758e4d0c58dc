// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * SIGSEGV/SIGBUS: the device's handler stays installed for the life of
 * the process.  The program's own signal()/sigaction() calls for these
 * signals are recorded here (and reported back by later calls) instead of
 * replacing it, and its handler is called for every fault that is not the
 * device's.  A sanitizer runtime loaded before the library forwards the
 * program's calls here in the same way, and its own handler is the one
 * found at start-up, to which the device chains.
 *
 * Everything on the fault path is async-signal-safe: table lookups with
 * atomic loads, the store decoder, lock-free doorbell state, write(2).
 */
#include "os/fault.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "adapter/adapter.h"
#include "adapter/context.h"
#include "adapter/doorbell.h"
#include "adapter/engine.h"
#include "base/guard.h"
#include "base/libc.h"
#include "os/store_decode.h"

#define EXPORT __attribute__((visibility("default")))
/* every context maps its UAR and BlueFlame pages once, a few map them twice */
#define MAX_MAPPINGS (2 * EMU_MAX_CTX + 64)

struct trap_map {
	atomic_uintptr_t page;	/* 0: free */
	int ctx_index;
	int bf;
};

static struct trap_map maps[MAX_MAPPINGS];
static atomic_int nmaps;	/* entries ever used (a bound for lookups) */
static uintptr_t page_size;

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
/* what the program asked for (or found before us): [0] SIGSEGV, [1] SIGBUS */
static struct sigaction app_act[2];
static atomic_bool installed;

static int slot(int sig)
{
	return sig == SIGBUS;
}

bool emu_fault_add_mapping(void *page, int ctx_index, int bf)
{
	for (int i = 0; i < MAX_MAPPINGS; i++) {
		uintptr_t free_page = 0;

		if (atomic_load(&maps[i].page))
			continue;
		maps[i].ctx_index = ctx_index;
		maps[i].bf = bf;
		if (!atomic_compare_exchange_strong(&maps[i].page, &free_page,
						    (uintptr_t)page))
			continue;
		if (atomic_load(&nmaps) <= i)
			atomic_store(&nmaps, i + 1);
		return true;
	}
	return false;
}

void emu_fault_forget_range(void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr, n = (uintptr_t)atomic_load(&nmaps);

	for (uintptr_t i = 0; i < n; i++) {
		uintptr_t p = atomic_load(&maps[i].page);

		if (p && p >= a && p - a < len)
			atomic_store(&maps[i].page, 0);
	}
}

static const struct trap_map *find_mapping(uintptr_t addr)
{
	uintptr_t page = addr & ~(page_size - 1);
	int n = atomic_load_explicit(&nmaps, memory_order_acquire);

	for (int i = 0; i < n; i++)
		if (atomic_load_explicit(&maps[i].page, memory_order_acquire) == page)
			return &maps[i];
	return NULL;
}

/* One line on stderr from a signal handler: text and one hex number. */
static void say(const char *text, uintptr_t num)
{
	char buf[160], *p = buf;
	size_t n = strlen(text);

	if (!emu_cfg.debug)
		return;
	memcpy(p, "mlx4emu: ", 9);
	p += 9;
	if (n > 100)
		n = 100;
	memcpy(p, text, n);
	p += n;
	*p++ = '0';
	*p++ = 'x';
	for (int s = 60; s >= 0; s -= 4) {
		unsigned d = (num >> s) & 15;

		if (d || p[-1] != 'x' || s == 0)
			*p++ = (char)(d < 10 ? '0' + d : 'a' + d - 10);
	}
	*p++ = '\n';
	(void)!syscall(SYS_write, 2, buf, (size_t)(p - buf));
}

/*
 * A store the decoder does not know: the page becomes writable for the
 * program and the context falls back to polling (the engine finds the
 * store in the page).  The instruction is then simply executed again.
 */
static void fall_back(struct emu_ctx *ctx, uintptr_t page, uintptr_t rip)
{
	say("doorbell store by an instruction the device does not decode, at rip ", rip);
	atomic_store(&ctx->db_poll, true);
	emu_engine_lists_changed();
	(void)!syscall(SYS_mprotect, page, page_size, PROT_READ | PROT_WRITE);
	emu_engine_kick();
}

static bool trap_store(siginfo_t *si, ucontext_t *uc)
{
	uintptr_t addr = (uintptr_t)si->si_addr;
	const struct trap_map *m;
	struct emu_ctx *ctx;
	struct emu_store st;
	uint32_t off;

	if (si->si_code != SEGV_ACCERR || !(m = find_mapping(addr)))
		return false;
	ctx = emu_ctx_at(m->ctx_index);
	off = (uint32_t)(addr & (page_size - 1));
	if (emu_decode_store(uc, &st) || off + st.width > page_size) {
		fall_back(ctx, addr & ~(page_size - 1),
			  (uintptr_t)uc->uc_mcontext.gregs[REG_RIP]);
		return true;
	}
	/* a closed context's doorbells reach nothing */
	if (ctx->used) {
		if (m->bf)
			emu_db_bf_store(ctx, off, st.value, st.width);
		else
			emu_db_uar_store(ctx, off, st.value, st.width);
	}
	if (st.xchg_reg >= 0)
		uc->uc_mcontext.gregs[st.xchg_reg] = 0;
	uc->uc_mcontext.gregs[REG_RIP] += st.insn_len;
	return true;
}

static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *a = &app_act[slot(sig)];

	if (a->sa_flags & SA_SIGINFO) {
		void (*fn)(int, siginfo_t *, void *) = a->sa_sigaction;

		if (a->sa_flags & SA_RESETHAND)
			a->sa_handler = SIG_DFL, a->sa_flags = 0;
		if (fn)
			fn(sig, si, uc);
		return;
	}
	if (a->sa_handler == SIG_DFL || a->sa_handler == SIG_IGN) {
		/* the fault repeats on return and takes the default action */
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		real_sigaction(sig, &dfl, NULL);
		return;
	}
	a->sa_handler(sig);
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;

	/* the device's own access to memory the program took away */
	emu_guard_recover(sig, si->si_addr);
	if (sig == SIGSEGV && emu_cfg.doorbell_trap && trap_store(si, ucv)) {
		errno = saved;
		return;
	}
	errno = saved;
	chain(sig, si, ucv);
}

int emu_fault_install(void)
{
	struct sigaction sa;
	int sigs[2] = { SIGSEGV, SIGBUS };

	if (atomic_load(&installed))
		return 0;
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	*(void **)&real_sigaction = emu_next_symbol("sigaction");
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* SA_ONSTACK: a program's alternate stack (for its own stack-overflow
	 * handling) is used as if its handler were called directly */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 2; i++)
		if (real_sigaction(sigs[i], &sa, &app_act[i]))
			return errno;
	atomic_store(&installed, true);
	return 0;
}

/* ---- the program's view of SIGSEGV and SIGBUS ---- */

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!atomic_load(&installed) || (sig != SIGSEGV && sig != SIGBUS)) {
		if (!real_sigaction)
			*(void **)&real_sigaction = emu_next_symbol("sigaction");
		return real_sigaction(sig, act, old);
	}
	if (old)
		*old = app_act[slot(sig)];
	if (act)
		app_act[slot(sig)] = *act;
	return 0;
}

static sighandler_t set_handler(int sig, sighandler_t h, int flags)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* glibc's signal() has BSD semantics: restart, no reset */
EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART);
}

EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART);
}

sighandler_t __sysv_signal(int sig, sighandler_t h);
EXPORT sighandler_t __sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}
