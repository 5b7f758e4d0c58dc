// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The device engine: one thread that repeatedly scans every CQ's arm
 * record, every context's CQ doorbell and BlueFlame buffers, and every
 * QP's send ring (owner bits) and, in the error state, its receive ring,
 * and serves the registered sources (descriptors and timers of other
 * parts of the device).  Doorbells are plain stores, so there is nothing
 * to wait on. How the thread waits between passes depends on how long ago
 * a pass last found work: a data path posts again within microseconds, so
 * for 50 us it spins, up to 5 ms it yields the CPU, and only then does it
 * sleep in poll() on the sources' descriptors and an eventfd, with growing
 * timeouts (up to 200 us, 1 ms after about 50 ms more, never past a
 * source's deadline), until anything (a command, the control API, a
 * source's descriptor) wakes it. Counting time rather than passes keeps a
 * busy program from pushing the engine into its naps when passes happen
 * to be quick.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "adapter/cq.h"
#include "adapter/adapter.h"
#include "adapter/engine.h"
#include "adapter/wqe.h"
#include "base/libc.h"

#define QP_BUDGET 64
#define SPIN_NS 50000
#define YIELD_NS 5000000
#define SLEEP_MIN_NS 20000
#define SLEEP_MAX_NS 200000
#define SLEEP_LONG_NS 1000000

#define MAX_SOURCES 8

struct emu_dev emu_dev = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake_fd = -1,
};

/* written under emu_dev.lock, read by the engine thread */
static struct emu_engine_source sources[MAX_SOURCES];
static unsigned nsources;

static atomic_uint_fast64_t last_busy_seq;
static atomic_int pending_work;

uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int engine_pass(int *pending)
{
	uint64_t now = 0;
	int work = 0;

	for (int i = 0; i < EMU_MAX_CTX; i++) {
		struct emu_ctx *c = &emu_dev.ctx[i];

		if (!c->used)
			continue;
		emu_ctx_poll_cq_doorbell(c);
		emu_ctx_poll_bf(c);
	}
	for (uint32_t i = 0; i < emu_dev.nactive_cq; i++)
		work += emu_cq_poll_arm(emu_dev.active_cq[i]);
	for (uint32_t i = 0; i < emu_dev.nactive; i++)
		work += emu_qp_process(emu_dev.active[i], QP_BUDGET, &now, pending);
	for (unsigned i = 0; i < nsources; i++) {
		if (!now)
			now = emu_now_ns();
		work += sources[i].poll(sources[i].arg, now);
	}
	return work;
}

void emu_qp_schedule(struct emu_qp *qp)
{
	/* every pass visits every active QP */
	(void)qp;
}

int emu_engine_add_source(const struct emu_engine_source *src)
{
	if (!src || !src->poll)
		return EINVAL;
	if (nsources == MAX_SOURCES)
		return ENOSPC;
	sources[nsources++] = *src;
	emu_engine_kick();
	return 0;
}

void emu_engine_remove_source(void *arg)
{
	for (unsigned i = 0; i < nsources; i++) {
		if (sources[i].arg != arg)
			continue;
		sources[i] = sources[--nsources];
		return;
	}
}

/* The earliest deadline of any source, as a poll() timeout no longer than
 * max_ns (in whole milliseconds rounded up, or 0 when already due). */
static uint64_t sources_deadline(uint64_t now, uint64_t max_ns)
{
	uint64_t ns = max_ns;

	pthread_mutex_lock(&emu_dev.lock);
	for (unsigned i = 0; i < nsources; i++) {
		uint64_t d = sources[i].deadline ? sources[i].deadline(sources[i].arg) :
			     UINT64_MAX;

		if (d <= now)
			ns = 0;
		else if (d - now < ns)
			ns = d - now;
	}
	pthread_mutex_unlock(&emu_dev.lock);
	return ns;
}

/* Sleeps up to ns in poll() on the wake eventfd and the sources' fds. */
static void sleep_on_sources(uint64_t ns, uint64_t kick_seen)
{
	struct pollfd fds[MAX_SOURCES + 1];
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	nfds_t n = 0;
	uint64_t drain;

	pthread_mutex_lock(&emu_dev.lock);
	fds[n++] = (struct pollfd){ .fd = emu_dev.wake_fd, .events = POLLIN };
	for (unsigned i = 0; i < nsources; i++)
		if (sources[i].fd >= 0)
			fds[n++] = (struct pollfd){ .fd = sources[i].fd, .events = POLLIN };
	pthread_mutex_unlock(&emu_dev.lock);
	atomic_store(&emu_dev.sleeping, true);
	/* a kick between the last pass and here must not be slept through */
	if (atomic_load(&emu_dev.kick) == kick_seen && !atomic_load(&emu_dev.stop))
		ppoll(fds, n, &ts, NULL);
	atomic_store(&emu_dev.sleeping, false);
	if (fds[0].revents & POLLIN)
		(void)!read(emu_dev.wake_fd, &drain, sizeof(drain));
}

/*
 * quiet_ns: time since a pass last found work; naps: sleeps taken since
 * then (sets the length of the next one).
 */
static void idle_wait(uint64_t now, uint64_t quiet_ns, uint64_t naps,
		      uint64_t kick_seen)
{
	uint64_t ns;

	if (quiet_ns < SPIN_NS) {
		__builtin_ia32_pause();
		return;
	}
	if (quiet_ns < YIELD_NS) {
		sched_yield();
		return;
	}
	ns = (uint64_t)SLEEP_MIN_NS << (naps < 4 ? naps : 4);
	if (ns > SLEEP_MAX_NS)
		ns = SLEEP_MAX_NS;
	/* idle for a while (about 50 ms of naps): nap longer */
	if (naps > 256)
		ns = SLEEP_LONG_NS;
	ns = sources_deadline(now, ns);
	if (ns)
		sleep_on_sources(ns, kick_seen);
}

static void *engine_main(void *arg)
{
	uint64_t naps = 0, last_work_ns = emu_now_ns(), now_ns;
	int busy = 0;

	(void)arg;
	while (!atomic_load_explicit(&emu_dev.stop, memory_order_relaxed)) {
		uint64_t kick = atomic_load(&emu_dev.kick);
		uint64_t seq = atomic_load_explicit(&emu_dev.pass_seq, memory_order_relaxed);
		int work = 0, pending = 0;

		/* checked under the lock: mlx4emu_pause() returns only after
		 * the pass in progress ended */
		pthread_mutex_lock(&emu_dev.lock);
		if (!atomic_load_explicit(&emu_dev.paused, memory_order_acquire))
			work = engine_pass(&pending);
		pthread_mutex_unlock(&emu_dev.lock);
		atomic_store(&pending_work, pending);
		if (work)
			atomic_store(&last_busy_seq, seq + 1);
		atomic_store_explicit(&emu_dev.pass_seq, seq + 1, memory_order_release);
		EMU_CTR_INC(passes);
		if (work) {
			/* the clock is read on the first idle pass, not per busy one */
			busy = 1;
			naps = 0;
			continue;
		}
		now_ns = emu_now_ns();
		if (busy) {
			last_work_ns = now_ns;
			busy = 0;
		}
		idle_wait(now_ns, now_ns - last_work_ns, naps, kick);
		/* a QP waiting out an RNR timer keeps the pauses short */
		if (!pending && now_ns - last_work_ns >= YIELD_NS)
			naps++;
	}
	return NULL;
}

void emu_engine_kick(void)
{
	static const uint64_t one = 1;

	atomic_fetch_add(&emu_dev.kick, 1);
	/* write(2) is async-signal-safe: kicks may come from signal handlers */
	if (atomic_load(&emu_dev.sleeping) && emu_dev.wake_fd >= 0)
		(void)!emu_real_write(emu_dev.wake_fd, &one, sizeof(one));
}

static void engine_stop(void)
{
	if (!atomic_load(&emu_dev.started))
		return;
	atomic_store(&emu_dev.stop, true);
	emu_engine_kick();
	pthread_join(emu_dev.thread, NULL);
	atomic_store(&emu_dev.started, false);
}

int emu_engine_start(void)
{
	int err;

	if (atomic_load(&emu_dev.started))
		return 0;
	emu_dev.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (emu_dev.wake_fd < 0)
		return errno;
	err = pthread_create(&emu_dev.thread, NULL, engine_main, NULL);
	if (err) {
		emu_real_close(emu_dev.wake_fd);
		emu_dev.wake_fd = -1;
		return err;
	}
	pthread_setname_np(emu_dev.thread, "mlx4emu");
	atomic_store(&emu_dev.started, true);
	atexit(engine_stop);
	return 0;
}

/* ---- used by the control API ---- */

int emu_engine_wait_idle(unsigned timeout_ms)
{
	uint64_t deadline = emu_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	uint64_t start;

	if (!atomic_load(&emu_dev.started))
		return 0;
	if (atomic_load(&emu_dev.paused))
		return EBUSY;
	start = atomic_load_explicit(&emu_dev.pass_seq, memory_order_acquire);
	for (;;) {
		uint64_t seq = atomic_load_explicit(&emu_dev.pass_seq, memory_order_acquire);

		/* a whole pass that began after the call found nothing to do */
		if (seq >= start + 2 && atomic_load(&last_busy_seq) < seq &&
		    !atomic_load(&pending_work))
			return 0;
		if (emu_now_ns() > deadline)
			return ETIMEDOUT;
		emu_engine_kick();
		sched_yield();
	}
}
