// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* QP and WQ numbers (qpn.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adapter/objects.h"
#include "adapter/qpn.h"

static bool qpn_free(uint32_t qpn)
{
	return !emu_dev.qpn_held[qpn] && !emu_qp_by_qpn(qpn);
}

/* The table's object for qpn, zeroed, or NULL when out of memory. */
static struct emu_qp *slot_take(uint32_t qpn)
{
	struct emu_qp *qp = emu_dev.qp_tab[qpn];

	if (!qp) {
		qp = aligned_alloc(64, (sizeof(*qp) + 63) & ~(size_t)63);
		if (!qp)
			return NULL;
		emu_dev.qp_tab[qpn] = qp;
	}
	memset(qp, 0, sizeof(*qp));
	qp->qpn = qpn;
	emu_table_note(&emu_dev.qp_end, qpn);
	return qp;
}

/*
 * The first free block of `size` numbers aligned to `size`, searched
 * from the rotating hint as mlx4's QP bitmap does (a number just freed is
 * not handed out again at once); 0 when there is none.
 */
static uint32_t find_block(uint32_t size)
{
	uint32_t first = (EMU_FIRST_QPN + size - 1) & ~(size - 1);
	uint32_t nblocks = first < emu_dev.qp_tab_size ?
			   (emu_dev.qp_tab_size - first) / size : 0;
	uint32_t start = EMU_FIRST_QPN + emu_dev.qpn_hint;

	start = start > first ? (start - first + size - 1) / size : 0;
	for (uint32_t n = 0; n < nblocks; n++) {
		uint32_t base = first + ((start + n) % nblocks) * size;
		uint32_t i = 0;

		while (i < size && qpn_free(base + i))
			i++;
		if (i == size) {
			emu_dev.qpn_hint = (base + size - EMU_FIRST_QPN) %
					   (emu_dev.qp_tab_size - EMU_FIRST_QPN);
			return base;
		}
	}
	return 0;
}

struct emu_qp *emu_qpn_alloc_qp(void)
{
	uint32_t qpn;

	if (emu_qps_in_use() >= emu_cfg.max_qp)
		return NULL;
	qpn = find_block(1);
	return qpn ? slot_take(qpn) : NULL;
}

static struct emu_wqn_range *range_open(struct emu_ctx *ctx, uint32_t size)
{
	uint32_t base;

	for (uint16_t i = 0; i < EMU_MAX_WQN_RANGE; i++) {
		struct emu_wqn_range *r = &emu_dev.wqn_range[i];

		if (r->used)
			continue;
		base = find_block(size);
		if (!base)
			return NULL;
		memset(r, 0, sizeof(*r));
		r->used = true;
		r->ctx = ctx;
		r->base = base;
		r->size = size;
		memset(emu_dev.qpn_held + base, 1, size);
		ctx->wqn_range = (uint16_t)(i + 1);
		return r;
	}
	return NULL;
}

static void range_close(struct emu_wqn_range *r)
{
	memset(emu_dev.qpn_held + r->base, 0, r->size);
	if (r->ctx->wqn_range == r - emu_dev.wqn_range + 1)
		r->ctx->wqn_range = 0;
	r->used = false;
}

struct emu_qp *emu_qpn_alloc_wq(struct emu_ctx *ctx, unsigned log_range, int *err)
{
	struct emu_wqn_range *r = ctx->wqn_range ? &emu_dev.wqn_range[ctx->wqn_range - 1] : NULL;
	struct emu_qp *wq;

	*err = ENOMEM;
	if (emu_qps_in_use() >= emu_cfg.max_qp)
		return NULL;
	if (!r || r->refcount == r->size || r->dirty) {
		r = range_open(ctx, 1u << log_range);
		if (!r)
			return NULL;
	} else if (log_range) {
		/* mlx4_ib_alloc_wqn: a new range while one is open */
		*err = EINVAL;
		return NULL;
	}
	wq = slot_take(r->base + r->refcount);
	if (!wq) {
		if (!r->refcount)
			range_close(r);
		return NULL;
	}
	r->refcount++;
	wq->wqn_range = (uint16_t)(r - emu_dev.wqn_range + 1);
	*err = 0;
	return wq;
}

void emu_qpn_release_wq(struct emu_qp *wq)
{
	struct emu_wqn_range *r;

	if (!wq->wqn_range)
		return;
	r = &emu_dev.wqn_range[wq->wqn_range - 1];
	wq->wqn_range = 0;
	if (--r->refcount)
		r->dirty = true;
	else
		range_close(r);
}

void emu_qpn_release_ctx(struct emu_ctx *ctx)
{
	for (uint32_t i = 0; i < EMU_MAX_WQN_RANGE; i++)
		if (emu_dev.wqn_range[i].used && emu_dev.wqn_range[i].ctx == ctx)
			range_close(&emu_dev.wqn_range[i]);
}
