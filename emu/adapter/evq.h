/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * An event queue as the kernel's uverbs layer keeps one per completion
 * channel and per context (the async fd): the device appends event
 * descriptors, the program takes them one per read(), and an object's
 * "events reported" counter counts the events the program has *read*
 * (ib_uverbs_event_read), not those the device wrote.  Destroying an
 * object drops its unread events (ib_uverbs_release_ucq/uevent), so
 * libibverbs' wait for acknowledgements never waits for an event nobody
 * will read.
 *
 * The fd the program reads is the read end of a pipe that holds one
 * token byte per queued event: poll/select/epoll readiness, O_NONBLOCK
 * (EAGAIN) and signal semantics (EINTR, SA_RESTART) are those of the real
 * read() that takes the token.  The descriptor itself comes from the
 * device's queue.  Tokens of dropped events are taken back through a
 * second, non-blocking open file description of the same pipe; a token a
 * reader already took for an event dropped meanwhile is a "ghost" the
 * reader discards.  Invariant under the queue lock:
 *   tokens in the pipe + tokens taken by readers not yet served
 *     = queued events + ghosts.
 */
#ifndef MLX4EMU_EVQ_H
#define MLX4EMU_EVQ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EMU_EVQ_DESC_MAX 16	/* struct ib_uverbs_async_event_desc */

struct emu_evq_entry {
	uint8_t desc[EMU_EVQ_DESC_MAX];
	uint32_t *reported;	/* object's read counter, or NULL */
};

struct emu_evq {
	pthread_mutex_t lock;	/* zero-initialised storage is a valid mutex in glibc */
	bool open;
	int rd;			/* the program's fd */
	int wr;			/* device: token writer, O_NONBLOCK */
	int drain;		/* device: non-blocking reader of the same pipe */
	uint32_t desc_size;	/* 8 (completion) or 16 (async) */
	struct emu_evq_entry *ring;
	uint32_t cap, head, len;
	uint32_t ghosts;
};

/* Sets the queue up; returns the fd for the program, or -1 with errno. */
int emu_evq_open(struct emu_evq *q, uint32_t desc_size);
/* Drops every event and closes the device's descriptors (not q->rd,
 * which the program owns). */
void emu_evq_close(struct emu_evq *q);
/* Appends an event counted in *reported once read; 0, or -1 when the
 * queue is closed or full (the event is lost, as it is in the kernel
 * when it cannot allocate one). */
int emu_evq_push(struct emu_evq *q, const void *desc, uint32_t *reported);
/* Drops the unread events counted in *reported. */
void emu_evq_forget(struct emu_evq *q, const uint32_t *reported);
/* read() on the program's fd: one descriptor per call, as
 * ib_uverbs_event_read; EINVAL when len is smaller than one. */
ssize_t emu_evq_read(struct emu_evq *q, void *buf, size_t len);

#endif
