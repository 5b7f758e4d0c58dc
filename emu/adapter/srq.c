// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * An SRQ's life on the adapter: its attributes checked, its number handed
 * out, its ring as libmlx4 lays it out (verbs.c mlx4_create_srq, srq.c):
 * roundup_pow_of_two(max_wr + 1) WQEs of a 16-byte next segment plus
 * max_sge data segments, stride a power of two of at least 32 bytes;
 * looked up, its limit set, destroyed and released with its context.
 */
#include <errno.h>
#include <string.h>

#include "adapter/events.h"
#include "adapter/objects.h"
#include "adapter/srq.h"
#include "adapter/xrc.h"
#include "base/sizes.h"
#include "base/usermem.h"

/* next-fit cursor over the SRQ table (see emu_table_next_free) */
static uint32_t srq_hint;

static bool srq_used(uint32_t i)
{
	return emu_dev.srq[i].used;
}

struct emu_srq *emu_srq_lookup(struct emu_ctx *ctx, uint32_t srqn)
{
	if (srqn >= EMU_MAX_SRQ || !emu_dev.srq[srqn].used || emu_dev.srq[srqn].ctx != ctx)
		return NULL;
	return &emu_dev.srq[srqn];
}

static bool srq_attrs_valid(const struct emu_srq_attrs *a)
{
	return a->max_wr <= emu_cfg.max_srq_wr && a->max_sge <= emu_cfg.max_sge - 1 &&
	       !(a->buf_addr & 63) && !(a->db_addr & 3);
}

static uint32_t srq_wqe_cnt(const struct emu_srq_attrs *a)
{
	return emu_pow2_roundup(a->max_wr + 1);
}

static uint32_t srq_wqe_shift(const struct emu_srq_attrs *a)
{
	uint32_t shift = emu_log2_roundup(16 + a->max_sge * 16);

	return shift < 5 ? 5 : shift;
}

int emu_srq_create(const struct emu_srq_attrs *a, uint32_t *srqn, uint32_t *max_wr)
{
	/* libmlx4 finds an XRC SRQ by its number in a table of qp_tab_size
	 * entries (srq.c mlx4_find_xsrq): keep the number inside it */
	uint32_t nsrq = a->xrcd_via && emu_dev.qp_tab_size < EMU_MAX_SRQ ?
			emu_dev.qp_tab_size : EMU_MAX_SRQ;
	uint32_t cnt, shift, n;

	if (!srq_attrs_valid(a))
		return EINVAL;
	cnt = srq_wqe_cnt(a);
	shift = srq_wqe_shift(a);
	if (emu_probe_rw(a->buf_addr, (uint64_t)cnt << shift) ||
	    emu_probe_rw(a->db_addr, 4))
		return EFAULT;
	n = emu_table_next_free(1, nsrq, &srq_hint, srq_used);
	if (!n)
		return ENOMEM;
	emu_table_note(&emu_dev.srq_end, n);
	*srqn = n;
	*max_wr = cnt - 1;
	return 0;
}

struct emu_srq *emu_srq_activate(struct emu_ctx *ctx, uint32_t srqn,
				 const struct emu_srq_attrs *a)
{
	struct emu_srq *srq = &emu_dev.srq[srqn];

	memset(srq, 0, sizeof(*srq));
	srq->srqn = srqn;
	srq->ctx = ctx;
	srq->user_handle = a->user_handle;
	srq->pdn = a->pdn;
	srq->buf = (uint8_t *)(uintptr_t)a->buf_addr;
	srq->cnt = srq_wqe_cnt(a);
	srq->shift = srq_wqe_shift(a);
	srq->max_gs = ((1u << srq->shift) - 16) / 16;
	srq->db = (volatile uint32_t *)(uintptr_t)a->db_addr;
	if (a->xrcd_via) {
		srq->xrcd_via = a->xrcd_via;
		srq->xrcd = a->xrcd_via->xrcd;
		srq->cq = a->cq;
		a->xrcd_via->users++;
	}
	srq->used = true;
	EMU_TRACE("create_srq srqn 0x%x %u x %u bytes%s", srq->srqn, srq->cnt,
		  1u << srq->shift, srq->xrcd ? " (XRC)" : "");
	return srq;
}

int emu_srq_set_limit(struct emu_srq *srq, uint32_t limit)
{
	if (limit >= srq->cnt)
		return EINVAL;
	srq->limit = limit;
	return 0;
}

static bool srq_in_use(const struct emu_srq *srq)
{
	for (uint32_t i = 0; i < emu_dev.qp_end; i++)
		if (emu_dev.qp_tab[i] && emu_dev.qp_tab[i]->used &&
		    emu_dev.qp_tab[i]->srq == srq)
			return true;
	return false;
}

int emu_srq_prepare_destroy(struct emu_srq *srq)
{
	if (srq_in_use(srq))
		return EBUSY;
	emu_events_forget(srq->ctx, &srq->async_events);
	return 0;
}

void emu_srq_destroy(struct emu_srq *srq)
{
	if (srq->xrcd_via)
		srq->xrcd_via->users--;
	srq->used = false;
}

void emu_srq_release_ctx(struct emu_ctx *ctx)
{
	for (unsigned i = 0; i < emu_dev.srq_end; i++)
		if (emu_dev.srq[i].used && emu_dev.srq[i].ctx == ctx)
			emu_dev.srq[i].used = false;
}
