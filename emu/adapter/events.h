/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#ifndef MLX4EMU_EVENTS_H
#define MLX4EMU_EVENTS_H

#include "adapter/abi.h"
#include "adapter/adapter.h"

/* Writes struct ib_uverbs_async_event_desc {element, type} to the
 * context's async fd; 0, or -1 when it has none or the pipe is full. */
int emu_async_event(struct emu_ctx *ctx, uint64_t element, uint32_t type);

#endif
