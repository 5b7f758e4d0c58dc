// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Event queues of completion channels and async fds (see evq.h). */
#include "adapter/evq.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/libc.h"
#include "base/trace.h"
#include "base/usermem.h"

/* A pipe holds 65536 token bytes by default; the queue never holds more
 * events than the pipe holds tokens. */
#define EVQ_CAP_FIRST 64u
#define EVQ_CAP_MAX 65536u

static int open_drain(int rd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", rd);
	return emu_real_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
}

int emu_evq_open(struct emu_evq *q, uint32_t desc_size)
{
	int fds[2];

	pthread_mutex_lock(&q->lock);
	q->ring = calloc(EVQ_CAP_FIRST, sizeof(*q->ring));
	if (!q->ring || pipe2(fds, O_CLOEXEC)) {
		free(q->ring);
		q->ring = NULL;
		pthread_mutex_unlock(&q->lock);
		return -1;
	}
	q->drain = open_drain(fds[0]);
	if (q->drain < 0) {
		int err = errno;

		emu_real_close(fds[0]);
		emu_real_close(fds[1]);
		free(q->ring);
		q->ring = NULL;
		pthread_mutex_unlock(&q->lock);
		errno = err;
		return -1;
	}
	/* the device never blocks on a full pipe */
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	q->rd = fds[0];
	q->wr = fds[1];
	q->desc_size = desc_size;
	q->cap = EVQ_CAP_FIRST;
	q->head = q->len = q->ghosts = 0;
	q->open = true;
	pthread_mutex_unlock(&q->lock);
	return fds[0];
}

void emu_evq_close(struct emu_evq *q)
{
	pthread_mutex_lock(&q->lock);
	if (q->open) {
		emu_real_close(q->wr);
		emu_real_close(q->drain);
		free(q->ring);
		q->ring = NULL;
		q->open = false;
		q->len = 0;
	}
	pthread_mutex_unlock(&q->lock);
}

static struct emu_evq_entry *slot(struct emu_evq *q, uint32_t i)
{
	return &q->ring[(q->head + i) & (q->cap - 1)];
}

static int grow(struct emu_evq *q)
{
	struct emu_evq_entry *n;

	if (q->cap >= EVQ_CAP_MAX)
		return -1;
	n = calloc(2 * (size_t)q->cap, sizeof(*n));
	if (!n)
		return -1;
	for (uint32_t i = 0; i < q->len; i++)
		n[i] = *slot(q, i);
	free(q->ring);
	q->ring = n;
	q->head = 0;
	q->cap *= 2;
	return 0;
}

int emu_evq_push(struct emu_evq *q, const void *desc, uint32_t *reported)
{
	const char token = 0;
	struct emu_evq_entry *e;
	int ret = -1;

	pthread_mutex_lock(&q->lock);
	if (!q->open || (q->len == q->cap && grow(q)))
		goto out;
	if (emu_real_write(q->wr, &token, 1) != 1)
		goto out;
	e = slot(q, q->len++);
	memcpy(e->desc, desc, q->desc_size);
	e->reported = reported;
	ret = 0;
out:
	if (ret && q->open)
		EMU_TRACE("event queue of fd %d full: event lost", q->rd);
	pthread_mutex_unlock(&q->lock);
	return ret;
}

/* Takes back the token of an event that left the queue unread. */
static void take_token(struct emu_evq *q)
{
	char token;

	if (emu_real_read(q->drain, &token, 1) != 1)
		q->ghosts++;	/* a reader holds it and will discard it */
}

void emu_evq_forget(struct emu_evq *q, const uint32_t *reported)
{
	uint32_t kept = 0, len;

	pthread_mutex_lock(&q->lock);
	len = q->open ? q->len : 0;
	for (uint32_t i = 0; i < len; i++) {
		struct emu_evq_entry *e = slot(q, i);

		if (e->reported == reported)
			take_token(q);
		else
			*slot(q, kept++) = *e;
	}
	if (q->open)
		q->len = kept;
	pthread_mutex_unlock(&q->lock);
}

/* With the token taken: the event it stands for, or false for a ghost. */
static bool pop(struct emu_evq *q, struct emu_evq_entry *out)
{
	bool got = false;

	pthread_mutex_lock(&q->lock);
	if (q->open && q->len) {
		*out = *slot(q, 0);
		q->head = (q->head + 1) & (q->cap - 1);
		q->len--;
		if (out->reported)
			(*out->reported)++;
		/* a ghost token still in the pipe would make poll() lie */
		if (q->ghosts) {
			char token;

			if (emu_real_read(q->drain, &token, 1) == 1)
				q->ghosts--;
		}
		got = true;
	} else if (q->ghosts) {
		q->ghosts--;
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

ssize_t emu_evq_read(struct emu_evq *q, void *buf, size_t len)
{
	struct emu_evq_entry e;
	char token;

	if (len < q->desc_size) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		ssize_t n = emu_real_read(q->rd, &token, 1);

		if (n <= 0)
			return n;
		if (pop(q, &e))
			break;
	}
	/* as the kernel: the event is consumed even if the copy faults */
	if (emu_copy_out((uintptr_t)buf, e.desc, q->desc_size)) {
		errno = EFAULT;
		return -1;
	}
	return (ssize_t)q->desc_size;
}
