/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An RSS indirection table's life on the adapter (ind_tbl.c), called with
 * emu_dev.lock held. */
#ifndef MLX4EMU_IND_TBL_H
#define MLX4EMU_IND_TBL_H

#include "adapter/adapter.h"

/*
 * A table of 1 << log_size WQNs, with its handle; ENOMEM when every handle
 * is taken or memory is short.  It is found by its handle once
 * emu_ind_tbl_activate runs, after its creator answered the program;
 * emu_ind_tbl_discard drops one that never went live.
 */
int emu_ind_tbl_create(struct emu_ctx *ctx, uint32_t log_size, const uint32_t *wqn,
		       struct emu_ind_tbl **t, uint32_t *handle);
void emu_ind_tbl_activate(struct emu_ind_tbl *t, uint32_t handle);
void emu_ind_tbl_discard(struct emu_ind_tbl *t);
/* The context's table of that handle, or NULL. */
struct emu_ind_tbl *emu_ind_tbl_lookup(struct emu_ctx *ctx, uint32_t handle);
/* true while a table spreads over the WQ */
bool emu_ind_tbl_has_wq(uint32_t wqn);
/* EBUSY while an RSS QP spreads over the table of that (looked up) handle. */
int emu_ind_tbl_destroy(uint32_t handle);
/* The tables of a context whose device fd closes. */
void emu_ind_tbl_release_ctx(struct emu_ctx *ctx);

#endif
