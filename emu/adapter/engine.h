/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device engine thread and the lists of queues it serves. */
#ifndef MLX4EMU_ENGINE_H
#define MLX4EMU_ENGINE_H

#include <stddef.h>
#include <stdint.h>

struct emu_qp;

/*
 * A part of the device with work of its own (frames arriving on a socket,
 * timers): on every pass the engine calls poll(src, now_ns) with
 * emu_dev.lock held, which returns the work it did (0 for none); when
 * idle, the engine sleeps until fd is readable (fd -1: never) or until
 * the time deadline(src) returns (CLOCK_MONOTONIC ns; UINT64_MAX or a NULL
 * deadline: none).  poll must not block.  The owner embeds the source in
 * its own state and finds that state again from src (EMU_SOURCE_OWNER),
 * so no source is told apart by a value it carries.
 */
struct emu_engine_source {
	int fd;
	int (*poll)(struct emu_engine_source *src, uint64_t now_ns);
	uint64_t (*deadline)(struct emu_engine_source *src);
};

/* The struct of type `type` whose member `member` is the source `src`. */
#define EMU_SOURCE_OWNER(src, type, member) \
	((type *)(void *)((char *)(src) - offsetof(type, member)))

/*
 * Registers a source (emu_dev.lock held); the engine keeps the pointer,
 * so src must live as long as the process (static storage).  0, EINVAL
 * (NULL src or poll), or ENOSPC.
 */
int emu_engine_add_source(struct emu_engine_source *src);

/*
 * Tells the engine that the QP has work (a response or ACK arrived, a
 * timer fired, a doorbell was rung): the engine serves it on its next
 * pass as if its doorbell had been rung.  Any thread, any lock state.
 */
void emu_qp_schedule(struct emu_qp *qp);

/*
 * Executes the work already announced (rung QPs, CQ arms; with polled
 * doorbells every valid WQE) before a command acts on the objects, as a
 * program sees on hardware, where a doorbell rung before a verbs call has
 * long been served when the firmware runs the command (emu_dev.lock held;
 * nothing while paused).
 */
void emu_engine_drain(void);

/*
 * Hands every frame the wire's queues hold to the kernel: the RoCEv2
 * link's (packets queued by reference point into registered memory) and
 * the VXLAN tunnel's (raw Ethernet and multicast frames).  Called before
 * emu_dev.lock is released, at the end of every engine pass and of every
 * command, so that no frame outlives the memory it reads or the process
 * that sent it; returns how many went out.
 */
int emu_engine_flush_wire(void);

/* Sets the device members that do not start at zero (no eventfd yet);
 * called once at load, before the device is visible to any program. */
void emu_engine_init(void);
/* Starts the engine thread once per process; 0 or an errno. */
int emu_engine_start(void);
/* Wakes the engine from an idle wait; async-signal-safe. */
void emu_engine_kick(void);
/* Stops the engine after the pass in progress (emu_engine_pause returns
 * once it ended) and lets it run again. */
void emu_engine_pause(void);
void emu_engine_resume(void);
/* A context fell back to polled doorbells: the engine recomputes what it
 * serves on its next pass.  Any lock state; async-signal-safe. */
void emu_engine_lists_changed(void);
/* Recomputes the queues and CQs the engine serves (emu_dev.lock held). */
void emu_rebuild_active(void);
/* The QP part of it alone (a QP or WQ was created, destroyed or moved). */
void emu_rebuild_active_qps(void);
/* Adds a new CQ to the polled list when its doorbells are polled; removes
 * a destroyed one. */
struct emu_cq;
void emu_active_cq_add(struct emu_cq *cq);
void emu_active_cq_remove(struct emu_cq *cq);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t emu_now_ns(void);
/* 0 once a whole pass that began after the call found nothing to do;
 * ETIMEDOUT, or EBUSY while paused. */
int emu_engine_wait_idle(unsigned timeout_ms);

#endif
