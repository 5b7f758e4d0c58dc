// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An RSS indirection table's life on the adapter: the WQNs an RSS QP
 * spreads its receives over, by handle (handle 0 is never handed out). */
#include <errno.h>
#include <stdlib.h>

#include "adapter/ind_tbl.h"

static uint32_t ind_tbl_free_handle(void)
{
	for (uint32_t i = 1; i < EMU_MAX_IND_TBL; i++)
		if (!emu_dev.ind[i])
			return i;
	return EMU_MAX_IND_TBL;
}

int emu_ind_tbl_create(struct emu_ctx *ctx, uint32_t log_size, const uint32_t *wqn,
		       struct emu_ind_tbl **out, uint32_t *handle)
{
	uint32_t slot = ind_tbl_free_handle();
	struct emu_ind_tbl *t;

	if (slot == EMU_MAX_IND_TBL)
		return ENOMEM;
	t = calloc(1, sizeof(*t));
	if (!t)
		return ENOMEM;
	t->used = true;
	t->ctx = ctx;
	t->log_size = log_size;
	for (uint32_t i = 0; i < (1u << log_size); i++)
		t->wqn[i] = wqn[i];
	*out = t;
	*handle = slot;
	return 0;
}

void emu_ind_tbl_activate(struct emu_ind_tbl *t, uint32_t handle)
{
	emu_dev.ind[handle] = t;
}

void emu_ind_tbl_discard(struct emu_ind_tbl *t)
{
	free(t);
}

struct emu_ind_tbl *emu_ind_tbl_lookup(struct emu_ctx *ctx, uint32_t handle)
{
	struct emu_ind_tbl *t = handle < EMU_MAX_IND_TBL ? emu_dev.ind[handle] : NULL;

	return t && t->ctx == ctx ? t : NULL;
}

bool emu_ind_tbl_has_wq(uint32_t wqn)
{
	for (unsigned i = 0; i < EMU_MAX_IND_TBL; i++) {
		const struct emu_ind_tbl *t = emu_dev.ind[i];

		if (!t)
			continue;
		for (uint32_t j = 0; j < (1u << t->log_size); j++)
			if (t->wqn[j] == wqn)
				return true;
	}
	return false;
}

static bool ind_tbl_in_use(const struct emu_ind_tbl *t)
{
	for (uint32_t i = 0; i < emu_dev.qp_end; i++)
		if (emu_dev.qp_tab[i] && emu_dev.qp_tab[i]->used &&
		    emu_dev.qp_tab[i]->rss.ind == t)
			return true;
	return false;
}

int emu_ind_tbl_destroy(uint32_t handle)
{
	struct emu_ind_tbl *t = emu_dev.ind[handle];

	if (ind_tbl_in_use(t))
		return EBUSY;
	emu_dev.ind[handle] = NULL;
	free(t);
	return 0;
}

void emu_ind_tbl_release_ctx(struct emu_ctx *ctx)
{
	for (unsigned i = 0; i < EMU_MAX_IND_TBL; i++)
		if (emu_dev.ind[i] && emu_dev.ind[i]->ctx == ctx) {
			free(emu_dev.ind[i]);
			emu_dev.ind[i] = NULL;
		}
}
