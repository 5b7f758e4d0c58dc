/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#ifndef MLX4EMU_EVENTS_H
#define MLX4EMU_EVENTS_H

#include "adapter/abi.h"
#include "adapter/adapter.h"

/* Queues struct ib_uverbs_async_event_desc {element, type} on the
 * context's async fd, counted in *reported (the object's async
 * events_reported, NULL for none) once the program reads it; 0, or -1
 * when the context has no async fd or the queue is full. */
int emu_async_event(struct emu_ctx *ctx, uint64_t element, uint32_t type,
		    uint32_t *reported);
/* Drop the unread events of an object being destroyed, as the kernel
 * does, so that its events_reported stays the count the program read. */
void emu_events_forget(struct emu_ctx *ctx, const uint32_t *reported);
void emu_events_forget_cq(struct emu_cq *cq);

#endif
