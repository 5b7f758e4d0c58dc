// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The device engine: one thread that repeatedly scans every CQ's arm
 * record, every context's CQ doorbell and BlueFlame buffers, and every
 * QP's send ring (owner bits) and, in the error state, its receive ring.
 * Doorbells are plain stores, so there is nothing to wait on. How the
 * thread waits between passes depends on how long ago a pass last found
 * work: a data path posts again within microseconds, so for 50 us it
 * spins, up to 5 ms it yields the CPU, and only then does it sleep, with
 * growing pauses (up to 200 us, 1 ms after about 50 ms more), until
 * anything (a command, the control API) kicks it. Counting time rather
 * than passes keeps a busy program from pushing the engine into its naps
 * when passes happen to be quick.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "adapter/cq.h"
#include "adapter/adapter.h"
#include "adapter/engine.h"
#include "adapter/wqe.h"

#define QP_BUDGET 64
#define SPIN_NS 50000
#define YIELD_NS 5000000
#define SLEEP_MIN_NS 20000
#define SLEEP_MAX_NS 200000
#define SLEEP_LONG_NS 1000000

struct emu_dev emu_dev = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.sleep_lock = PTHREAD_MUTEX_INITIALIZER,
};

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
	return work;
}

/*
 * quiet_ns: time since a pass last found work; naps: sleeps taken since
 * then (sets the length of the next one).
 */
static void idle_wait(uint64_t quiet_ns, uint64_t naps, uint64_t kick_seen)
{
	struct timespec ts;
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
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += (long)ns;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&emu_dev.sleep_lock);
	if (atomic_load(&emu_dev.kick) == kick_seen && !atomic_load(&emu_dev.stop))
		pthread_cond_timedwait(&emu_dev.sleep_cond, &emu_dev.sleep_lock, &ts);
	pthread_mutex_unlock(&emu_dev.sleep_lock);
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
		idle_wait(now_ns - last_work_ns, naps, kick);
		/* a QP waiting out an RNR timer keeps the pauses short */
		if (!pending && now_ns - last_work_ns >= YIELD_NS)
			naps++;
	}
	return NULL;
}

void emu_engine_kick(void)
{
	atomic_fetch_add(&emu_dev.kick, 1);
	pthread_mutex_lock(&emu_dev.sleep_lock);
	pthread_cond_signal(&emu_dev.sleep_cond);
	pthread_mutex_unlock(&emu_dev.sleep_lock);
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
	pthread_condattr_t attr;
	int err;

	if (atomic_load(&emu_dev.started))
		return 0;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&emu_dev.sleep_cond, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&emu_dev.thread, NULL, engine_main, NULL);
	if (err)
		return err;
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
