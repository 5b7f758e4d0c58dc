// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Asynchronous events, queued on the context's async fd as the kernel's
 * uverbs layer would deliver them. */
#include "adapter/events.h"

int emu_async_event(struct emu_ctx *ctx, uint64_t element, uint32_t type,
		    uint32_t *reported)
{
	struct ib_uverbs_async_event_desc ev = { .element = element,
						 .event_type = type };

	if (!ctx || emu_evq_push(&ctx->async_q, &ev, reported))
		return -1;
	EMU_CTR_INC(async_events);
	EMU_TRACE("async event %u for element 0x%llx", type,
		  (unsigned long long)element);
	return 0;
}

void emu_events_forget(struct emu_ctx *ctx, const uint32_t *reported)
{
	emu_evq_forget(&ctx->async_q, reported);
}

void emu_events_forget_cq(struct emu_cq *cq)
{
	if (cq->channel >= 0)
		emu_evq_forget(&emu_dev.channels[cq->channel].q, &cq->comp_events);
	emu_evq_forget(&cq->ctx->async_q, &cq->async_events);
}
