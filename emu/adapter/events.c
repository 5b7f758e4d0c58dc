// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Asynchronous events, written to the context's async fd as the kernel's
 * uverbs layer would deliver them. */
#include "adapter/events.h"

#include "base/libc.h"

int emu_async_event(struct emu_ctx *ctx, uint64_t element, uint32_t type)
{
	struct ib_uverbs_async_event_desc ev = { .element = element,
						 .event_type = type };

	if (!ctx || ctx->async_wr < 0)
		return -1;
	if (emu_real_write(ctx->async_wr, &ev, sizeof(ev)) != sizeof(ev))
		return -1;
	EMU_CTR_INC(async_events);
	EMU_TRACE("async event %u for element 0x%llx", type,
		  (unsigned long long)element);
	return 0;
}
