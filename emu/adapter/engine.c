// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The device engine: one thread that serves what has work.
 *
 * With trapped doorbells (the default on x86-64, adapter/doorbell.c) a
 * pass serves the CQs whose arm doorbell was written and the QPs whose
 * send doorbell or BlueFlame post named them (or that another part of the
 * device scheduled), consuming valid WQEs until one is not the device's;
 * it also polls the few queues that need it: QPs in the error state
 * (receive WQEs posted to them are flushed: the RQ has no UAR doorbell),
 * and every queue of a context whose pages were written without a trap.
 * A valid WQE that was never announced is not executed; with debug on a
 * scan every 100 ms names it ("no doorbell").  Between passes the thread
 * either stays runnable (spins for 50 us after the last work, then yields
 * until 5 ms) or sleeps at once in ppoll() on an eventfd that every
 * doorbell, command and control call kicks, and on the registered
 * sources' descriptors (the wire's sockets) and deadlines.  The idle
 * policy decides per idle spell (adapter/idle.h): it stays runnable while
 * the program comes back within those 5 ms (no wake-up per doorbell, and
 * a yield hands the CPU to the program's thread), and sleeps at once when
 * recent spells were ended by frames from other adapters more than 50 us
 * later: a runnable engine then holds a CPU that the other process and
 * the busy-polling program threads need, and a yielding thread waits out
 * their scheduler slices, milliseconds per hop, where one woken from
 * ppoll() by its socket runs at once.  To make "at once" hold, the thread
 * asks for a 100 us scheduler slice while it sleeps at once (Linux 6.12
 * on, set_short_slice()): a woken thread with a shorter slice than the
 * running one preempts it.
 *
 * With polled doorbells (--doorbell=poll) every pass looks at every CQ's
 * arm record, every context's CQ doorbell and BlueFlame buffers and every
 * QP's send ring (owner bits).  There a data path posts again within
 * microseconds with no wake-up, so the thread spins for 50 us, yields up
 * to 5 ms, then naps in ppoll() with growing timeouts (up to 200 us, 1 ms
 * after about 50 ms more, never past a source's deadline).  Counting time
 * rather than passes keeps a busy program from pushing the engine into
 * its naps when passes happen to be quick.  (There is no kick to wake it,
 * so the idle policy does not apply; nor to a queue waiting out an RNR
 * timer or a BlueFlame writer, due within microseconds.)
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "adapter/cq.h"
#include "adapter/adapter.h"
#include "adapter/engine.h"
#include "adapter/wqe.h"
#include "adapter/doorbell.h"
#include "adapter/idle.h"
#include "adapter/objects.h"
#include "adapter/send.h"
#include "base/guard.h"
#include "base/libc.h"
#include "wire/link.h"
#include "wire/vxlan.h"

#define QP_BUDGET 64
#define SPIN_NS EMU_IDLE_SPIN_NS
#define YIELD_NS EMU_IDLE_YIELD_NS
#define SLEEP_MIN_NS 20000
#define SLEEP_MAX_NS 200000
#define SLEEP_LONG_NS 1000000
#define TRAP_IDLE_LONG_NS 10000000
#define NODB_NS 100000000ull	/* a valid WQE this long unannounced is reported */
#define DRAIN_PASSES 64

#define MAX_SOURCES 8
/* the scheduler slice the engine thread asks for: the shortest Linux grants */
#define SLICE_NS 100000u

/* Zero bytes only (glibc's mutex initializer is zero), so that the
 * tables, tens of MB, sit in .bss and not in the file: one non-zero
 * member initializer would put the whole object in .data.
 * emu_engine_init sets the members that do not start at zero. */
struct emu_dev emu_dev = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* written under emu_dev.lock, read by the engine thread */
static struct emu_engine_source *sources[MAX_SOURCES];
static unsigned nsources;

static atomic_uint_fast64_t last_busy_seq;
static atomic_int pending_work;
/* when the first kick came while the engine slept (0: none since it went
 * to sleep): there its idle spell ended (adapter/idle.h) */
static atomic_uint_fast64_t kicked_asleep_ns;

uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct pass {
	int work;
	int wire;	/* of it: what the sources with a descriptor did (frames
			 * from other adapters, and the frames they sent) */
	int pending;	/* queues waiting out a timer (RNR) or a BlueFlame writer */
	uint64_t now;	/* read once, when first needed */
};

static bool ctx_polled(struct emu_ctx *c)
{
	return !emu_doorbells_trapped(c);
}

static void serve_qp(struct emu_qp *qp, struct pass *p)
{
	int pending = p->pending;
	int work = emu_qp_process(qp, QP_BUDGET, &p->now, &p->pending);

	p->work += work;
	/* more than one budget's worth, or waiting: serve it again next pass */
	if (work >= QP_BUDGET || p->pending != pending)
		emu_db_ring_qpn(qp->qpn);
}

static void serve_rung_qp(uint32_t qpn, void *arg)
{
	struct emu_qp *qp = emu_qp_by_qpn(qpn);

	if (qp)
		serve_qp(qp, arg);
}

static void serve_cq_doorbell(uint32_t ctx_index, uint64_t db, void *arg)
{
	struct pass *p = arg;

	if (ctx_index < EMU_MAX_CTX && emu_dev.ctx[ctx_index].used) {
		emu_cq_doorbell(&emu_dev.ctx[ctx_index], db);
		p->work++;
	}
}

/*
 * With trapped doorbells the device's pages stay zero (the registers are
 * write-only and the handler never writes them): anything else there was
 * stored through a mapping that does not trap (the raw mmap system call),
 * and that context is polled from now on.
 */
static void detect_untrapped(struct emu_ctx *c)
{
	uint64_t any;

	if (!emu_cfg.doorbell_trap || atomic_load_explicit(&c->db_poll, memory_order_relaxed))
		return;
	any = __atomic_load_n((uint64_t *)(c->uar + 0x10), __ATOMIC_RELAXED) |
	      __atomic_load_n((uint64_t *)(c->uar + 0x20), __ATOMIC_RELAXED);
	for (unsigned h = 0; c->bf_page && h < EMU_BF_HALVES; h++)
		any |= __atomic_load_n((uint64_t *)(c->bf_page + h * EMU_BF_HALF_BYTES),
				       __ATOMIC_RELAXED);
	if (!any)
		return;
	atomic_store(&c->db_poll, true);
	emu_dev.active_dirty = true;
	EMU_TRACE("context %d: UAR/BlueFlame page written without a trap (a raw mmap?): "
		  "its doorbells are polled from now on", (int)(c - emu_dev.ctx));
}

/* One pass; the command path runs it too, without the sources. */
static int engine_pass(struct pass *p, bool with_sources)
{
	if (emu_dev.active_dirty) {
		emu_dev.active_dirty = false;
		emu_rebuild_active();
	}
	for (uint32_t i = 0; i < emu_dev.ctx_end; i++) {
		struct emu_ctx *c = &emu_dev.ctx[i];

		if (!c->used || !c->uar)
			continue;
		detect_untrapped(c);
		if (ctx_polled(c)) {
			emu_ctx_poll_cq_doorbell(c);
			emu_ctx_poll_bf(c);
		}
	}
	emu_db_take_cqs(serve_cq_doorbell, p);
	for (uint32_t i = 0; i < emu_dev.nactive_cq; i++)
		p->work += emu_cq_poll_arm(emu_dev.active_cq[i]);
	emu_db_take_qps(serve_rung_qp, p);
	for (uint32_t i = 0; i < emu_dev.nactive; i++)
		serve_qp(emu_dev.active[i], p);
	for (unsigned i = 0; with_sources && i < nsources; i++) {
		int work;

		if (!p->now)
			p->now = emu_now_ns();
		work = sources[i]->poll(sources[i], p->now);
		p->work += work;
		if (sources[i]->fd >= 0)
			p->wire += work;
	}
	p->work += emu_engine_flush_wire();
	return p->work;
}

int emu_engine_flush_wire(void)
{
	return emu_link_flush() + emu_vxlan_flush();
}

void emu_engine_drain(void)
{
	if (!atomic_load(&emu_dev.started) || atomic_load(&emu_dev.paused))
		return;
	for (int i = 0; i < DRAIN_PASSES; i++) {
		struct pass p = { 0 };

		if (!engine_pass(&p, false))
			break;
	}
}

/* ---- forgotten doorbells (debug) ---- */

/* Valid WQEs from sq.pc on: their count and the counter after them. */
static unsigned valid_run(const struct emu_qp *qp, uint32_t *end)
{
	uint32_t n = qp->sq.pc;
	unsigned k = 0;

	while (k < qp->sq.cnt && emu_sq_slot_valid(qp, n)) {
		uint32_t ds = emu_sq_slot(qp, n)[7] & 0x3f;
		uint32_t nbb = ds * 16 > (1u << qp->sq.shift) ?
			       (ds * 16 + (1u << qp->sq.shift) - 1) >> qp->sq.shift : 1;

		n += nbb;
		k++;
	}
	*end = n;
	return k;
}

static void check_no_doorbell(struct emu_qp *qp, uint64_t now)
{
	struct emu_guard g;
	uint32_t end;
	unsigned k;

	if (!EMU_GUARD_ENTER(&g))
		return;	/* the ring is gone: found when the QP is served */
	k = valid_run(qp, &end);
	emu_guard_leave(&g);
	if (!k) {
		qp->debug.nodb_since_ns = 0;
		return;
	}
	if (!qp->debug.nodb_since_ns || qp->debug.nodb_pc != qp->sq.pc) {
		qp->debug.nodb_pc = qp->sq.pc;
		qp->debug.nodb_since_ns = now;
		qp->debug.nodb_reported = false;
		return;
	}
	if (qp->debug.nodb_reported || now - qp->debug.nodb_since_ns < NODB_NS)
		return;
	qp->debug.nodb_reported = true;
	emu_trace("QPN 0x%x: %u valid send WQE(s) at WQEBB counter 0x%x, producer count 0x%x, "
		  "not executed for %llu ms: no doorbell", qp->qpn, k, qp->sq.pc & 0xffff,
		  end & 0xffff, (unsigned long long)((now - qp->debug.nodb_since_ns) / 1000000));
}

static void scan_no_doorbell(uint64_t now)
{
	for (uint32_t i = 0; i < emu_dev.qp_end; i++) {
		struct emu_qp *qp = emu_dev.qp_tab[i];

		if (qp && qp->used && !qp->is_wq && !qp->is_rss && !qp->lost && qp->scq &&
		    qp->state == EMU_QPS_RTS && !ctx_polled(qp->ctx))
			check_no_doorbell(qp, now);
	}
}

void emu_qp_schedule(struct emu_qp *qp)
{
	emu_db_ring_qpn(qp->qpn);
	emu_engine_kick();
}

int emu_engine_add_source(struct emu_engine_source *src)
{
	if (!src || !src->poll)
		return EINVAL;
	if (nsources == MAX_SOURCES)
		return ENOSPC;
	sources[nsources++] = src;
	emu_engine_kick();
	return 0;
}

/* The earliest deadline of any source, as a poll() timeout no longer than
 * max_ns (in whole milliseconds rounded up, or 0 when already due). */
static uint64_t sources_deadline(uint64_t now, uint64_t max_ns)
{
	uint64_t ns = max_ns;

	pthread_mutex_lock(&emu_dev.lock);
	for (unsigned i = 0; i < nsources; i++) {
		uint64_t d = sources[i]->deadline ? sources[i]->deadline(sources[i]) :
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
		if (sources[i]->fd >= 0)
			fds[n++] = (struct pollfd){ .fd = sources[i]->fd, .events = POLLIN };
	pthread_mutex_unlock(&emu_dev.lock);
	atomic_store(&kicked_asleep_ns, 0);
	atomic_store(&emu_dev.sleeping, true);
	/* a kick between the last pass and here must not be slept through */
	if (atomic_load(&emu_dev.kick) == kick_seen && !atomic_load(&emu_dev.stop))
		ppoll(fds, n, &ts, NULL);
	atomic_store(&emu_dev.sleeping, false);
	if (fds[0].revents & POLLIN)
		(void)!emu_real_read(emu_dev.wake_fd, &drain, sizeof(drain));
}

static bool any_ctx_polled(void)
{
	if (!emu_cfg.doorbell_trap)
		return true;
	for (uint32_t i = 0; i < emu_dev.ctx_end; i++)
		if (emu_dev.ctx[i].used && atomic_load(&emu_dev.ctx[i].db_poll))
			return true;
	return false;
}

/*
 * quiet_ns: time since a pass last found work; naps: sleeps taken since
 * then (sets the length of the next one); stay_runnable: the idle policy's
 * word for this spell (adapter/idle.h).  Polled doorbells wake nobody, and
 * a queue waiting out a timer or a BlueFlame writer is due within
 * microseconds: there the engine stays runnable whatever the policy says.
 */
static void idle_wait(uint64_t now, uint64_t quiet_ns, uint64_t naps,
		      uint64_t kick_seen, int pending, bool stay_runnable)
{
	bool polled = any_ctx_polled();
	bool runnable = stay_runnable || polled || pending;
	uint64_t ns;

	if (runnable && quiet_ns < SPIN_NS) {
		__builtin_ia32_pause();
		return;
	}
	if (runnable && quiet_ns < YIELD_NS) {
		sched_yield();
		return;
	}
	ns = (uint64_t)SLEEP_MIN_NS << (naps < 4 ? naps : 4);
	if (ns > SLEEP_MAX_NS)
		ns = SLEEP_MAX_NS;
	/* idle for a while (about 50 ms of naps): nap longer */
	if (naps > 256)
		ns = SLEEP_LONG_NS;
	/* Trapped doorbells kick the engine awake: it wakes by itself only to
	 * look for pages written without a trap (a raw mmap), and for the
	 * debug scan of forgotten doorbells. */
	if (!polled && !pending)
		ns = naps > 256 ? TRAP_IDLE_LONG_NS : SLEEP_LONG_NS;
	ns = sources_deadline(now, ns);
	if (ns)
		sleep_on_sources(ns, kick_seen);
}

/* The layout of struct sched_attr up to sched_period (the kernel's
 * SCHED_ATTR_SIZE_VER0, 48 bytes; glibc 2.36 has no wrapper). */
struct sched_attr_v0 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/* The engine thread's scheduling attributes, read once: a thread the
 * program made real-time (or SCHED_IDLE) keeps what it has. */
static struct sched_attr_v0 engine_attr;
static bool engine_attr_fair;

static void read_engine_attr(void)
{
	engine_attr_fair = syscall(SYS_sched_getattr, 0, &engine_attr, sizeof(engine_attr), 0) == 0 &&
			   (engine_attr.sched_policy == SCHED_OTHER ||
			    engine_attr.sched_policy == SCHED_BATCH);
	engine_attr.size = sizeof(engine_attr);
	engine_attr.sched_flags &= 1;	/* SCHED_FLAG_RESET_ON_FORK; no utilisation clamps */
}

/*
 * While the engine sleeps at once, it asks for a short scheduler slice
 * (sched_runtime of SCHED_OTHER, Linux 6.12 on; earlier kernels accept
 * and ignore it): a thread woken with a shorter slice than the running
 * one may preempt it at once, so the engine, woken by a frame or a
 * doorbell, runs before a thread that busy-polls a CQ has used up its
 * slice (0.7 ms times 1 + log2 of the CPUs).  While it stays runnable it
 * takes the default slice back: a yield moves a thread's deadline by one
 * slice, and a short one would hand the CPU to the program's thread for
 * no time at all.  Policy, nice value and reset-on-fork are kept.
 */
static void set_short_slice(bool short_slice)
{
	static bool is_short;

	if (!engine_attr_fair || short_slice == is_short)
		return;
	is_short = short_slice;
	engine_attr.sched_runtime = short_slice ? SLICE_NS : 0;
	(void)syscall(SYS_sched_setattr, 0, &engine_attr, 0);
}

/* When the work that ends an idle spell came: at the kick that woke the
 * engine, or now when a frame, a deadline or nothing woke it. */
static uint64_t spell_end_ns(void)
{
	uint64_t kicked = atomic_exchange(&kicked_asleep_ns, 0);

	return kicked ? kicked : emu_now_ns();
}

static void *engine_main(void *arg)
{
	uint64_t naps = 0, last_work_ns = emu_now_ns(), now_ns, last_scan_ns = 0;
	struct emu_idle_history idle;
	bool busy = false, stay_runnable = true;

	(void)arg;
	read_engine_attr();
	emu_idle_history_init(&idle);
	while (!atomic_load_explicit(&emu_dev.stop, memory_order_relaxed)) {
		uint64_t kick = atomic_load(&emu_dev.kick);
		uint64_t seq = atomic_load_explicit(&emu_dev.pass_seq, memory_order_relaxed);
		struct pass p = { 0 };

		/* checked under the lock: mlx4emu_pause() returns only after
		 * the pass in progress ended */
		pthread_mutex_lock(&emu_dev.lock);
		if (!atomic_load_explicit(&emu_dev.paused, memory_order_acquire))
			engine_pass(&p, true);
		pthread_mutex_unlock(&emu_dev.lock);
		atomic_store(&pending_work, p.pending);
		if (p.work)
			atomic_store(&last_busy_seq, seq + 1);
		atomic_store_explicit(&emu_dev.pass_seq, seq + 1, memory_order_release);
		EMU_CTR_INC(passes);
		if (p.work) {
			/* the clock is read when a spell begins and ends, not per
			 * busy pass */
			if (!busy) {
				uint64_t end = spell_end_ns();

				/* a frame alone: the wire ended the spell */
				emu_idle_record(&idle, end > last_work_ns ? end - last_work_ns : 0,
						p.wire == p.work);
			}
			busy = true;
			naps = 0;
			continue;
		}
		now_ns = emu_now_ns();
		if (busy) {
			last_work_ns = now_ns;
			busy = false;
			stay_runnable = emu_idle_stay_runnable(&idle) || any_ctx_polled();
			set_short_slice(!stay_runnable);
			if (stay_runnable)
				EMU_CTR_INC(idle_runnable);
			else
				EMU_CTR_INC(idle_asleep);
		}
		if (emu_cfg.debug && emu_cfg.doorbell_trap && now_ns - last_scan_ns >= NODB_NS / 4) {
			last_scan_ns = now_ns;
			pthread_mutex_lock(&emu_dev.lock);
			scan_no_doorbell(now_ns);
			pthread_mutex_unlock(&emu_dev.lock);
		}
		idle_wait(now_ns, now_ns - last_work_ns, naps, kick, p.pending, stay_runnable);
		/* a QP waiting out an RNR timer keeps the pauses short */
		if (!p.pending && now_ns - last_work_ns >= YIELD_NS)
			naps++;
	}
	return NULL;
}

void emu_engine_kick(void)
{
	static const uint64_t one = 1;

	atomic_fetch_add(&emu_dev.kick, 1);
	/* write(2), clock_gettime(2) and lock-free atomics are async-signal-
	 * safe: kicks may come from signal handlers */
	if (atomic_load(&emu_dev.sleeping) && emu_dev.wake_fd >= 0) {
		uint_fast64_t none = 0;

		atomic_compare_exchange_strong(&kicked_asleep_ns, &none, emu_now_ns());
		(void)!emu_real_write(emu_dev.wake_fd, &one, sizeof(one));
	}
}

void emu_engine_pause(void)
{
	/* taking the lock waits for the pass in progress */
	pthread_mutex_lock(&emu_dev.lock);
	atomic_store(&emu_dev.paused, true);
	pthread_mutex_unlock(&emu_dev.lock);
}

void emu_engine_resume(void)
{
	atomic_store(&emu_dev.paused, false);
	emu_engine_kick();
}

void emu_engine_lists_changed(void)
{
	__atomic_store_n(&emu_dev.active_dirty, true, __ATOMIC_RELEASE);
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

void emu_engine_init(void)
{
	emu_dev.wake_fd = -1;
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
