// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Ids, files and their event queues.  An id's handle is its index in the
 * table (reused once freed, as the kernel's xarray reuses them); an event
 * is queued on the file of the id it counts for and makes the file's
 * eventfd one more readable, so that the count the eventfd holds is always
 * the number of events queued.
 */
#include "cm/cm.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/libc.h"

struct cm_file cm_files[CM_MAX_FILES];

static struct cm_id *ids[CM_MAX_IDS];
static uint32_t ids_end;	/* one past the highest handle in use */
static uint32_t next_comm;

struct cm_id *cm_id_new(unsigned file, uint16_t ps, uint8_t qp_type)
{
	struct cm_id *id;
	uint32_t h;

	for (h = 0; h < CM_MAX_IDS && ids[h]; h++)
		;
	if (h == CM_MAX_IDS || !(id = calloc(1, sizeof(*id))))
		return NULL;
	id->handle = h;
	id->file = file;
	id->ps = ps;
	id->qp_type = qp_type;
	id->ack_timeout = CM_PACKET_LIFETIME + 1;
	ids[h] = id;
	if (h >= ids_end)
		ids_end = h + 1;
	return id;
}

struct cm_id *cm_id_get(uint32_t handle)
{
	return handle < ids_end ? ids[handle] : NULL;
}

struct cm_id *cm_id_in_file(unsigned file, uint32_t handle)
{
	struct cm_id *id = cm_id_get(handle);

	return id && id->file == file ? id : NULL;
}

void cm_id_free(struct cm_id *id)
{
	ids[id->handle] = NULL;
	while (ids_end && !ids[ids_end - 1])
		ids_end--;
	free(id);
}

void cm_id_each(void (*fn)(struct cm_id *id, void *arg), void *arg)
{
	for (uint32_t h = 0; h < ids_end; h++)
		if (ids[h])
			fn(ids[h], arg);
}

struct cm_id *cm_id_by_local_comm(uint32_t comm_id)
{
	for (uint32_t h = 0; h < ids_end; h++)
		if (ids[h] && ids[h]->local_comm_id == comm_id && comm_id)
			return ids[h];
	return NULL;
}

struct cm_id *cm_id_by_remote_comm(uint32_t peer, uint32_t remote_comm_id)
{
	for (uint32_t h = 0; h < ids_end; h++) {
		struct cm_id *id = ids[h];

		if (id && id->passive && id->peer == peer && id->remote_comm_id == remote_comm_id)
			return id;
	}
	return NULL;
}

static uint32_t random32(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint32_t)(uintptr_t)&v ^ (uint32_t)rand();
	return v;
}

uint32_t cm_new_comm_id(void)
{
	/* a random start, as the kernel's xarray-allocated IDs are mixed with
	 * a random value: a restarted process does not reuse its comm IDs */
	if (!next_comm)
		next_comm = random32() | 1;
	do
		next_comm++;
	while (!next_comm || cm_id_by_local_comm(next_comm));
	return next_comm;
}

uint32_t cm_random_psn(void)
{
	return random32() & 0xffffff;
}

void cm_event_queue(struct cm_id *charged, struct cm_id *subject, uint32_t event, int32_t status,
		    const struct rdma_ucm_event_resp *param)
{
	struct cm_file *f = &cm_files[charged->file];
	struct cm_event *e = calloc(1, sizeof(*e));
	uint64_t one = 1;

	if (!e)
		return;	/* as the kernel's ucma drops an event it cannot allocate */
	if (param)
		e->resp = *param;
	e->charged = charged->handle;
	e->subject = subject->handle;
	e->resp.uid = charged->uid;
	e->resp.id = subject->handle;
	e->resp.event = event;
	e->resp.status = (uint32_t)status;
	if (f->tail)
		f->tail->next = e;
	else
		f->head = e;
	f->tail = e;
	f->nevents++;
	(void)!emu_real_write(f->fd, &one, sizeof(one));
}

static void unlink_event(struct cm_file *f, struct cm_event *prev, struct cm_event *e)
{
	uint64_t v;

	if (prev)
		prev->next = e->next;
	else
		f->head = e->next;
	if (f->tail == e)
		f->tail = prev;
	f->nevents--;
	/* semaphore mode: takes one; the count is at least one per event */
	(void)!emu_real_read(f->fd, &v, sizeof(v));
}

struct cm_event *cm_event_peek(unsigned file)
{
	return cm_files[file].head;
}

void cm_event_take(unsigned file)
{
	struct cm_file *f = &cm_files[file];
	struct cm_event *e = f->head;

	if (e) {
		unlink_event(f, NULL, e);
		free(e);
	}
}

void cm_events_drop(struct cm_id *id)
{
	struct cm_file *f = &cm_files[id->file];
	struct cm_event *prev = NULL, *e = f->head;

	while (e) {
		struct cm_event *next = e->next;

		if (e->charged == id->handle || e->subject == id->handle) {
			unlink_event(f, prev, e);
			free(e);
		} else {
			prev = e;
		}
		e = next;
	}
}

void cm_events_move(struct cm_id *id, unsigned from)
{
	struct cm_file *f = &cm_files[from], *t = &cm_files[id->file];
	struct cm_event *prev = NULL, *e = f->head;
	uint64_t one = 1;

	while (e) {
		struct cm_event *next = e->next;

		if (e->charged == id->handle) {
			unlink_event(f, prev, e);
			e->next = NULL;
			if (t->tail)
				t->tail->next = e;
			else
				t->head = e;
			t->tail = e;
			t->nevents++;
			(void)!emu_real_write(t->fd, &one, sizeof(one));
		} else {
			prev = e;
		}
		e = next;
	}
}
