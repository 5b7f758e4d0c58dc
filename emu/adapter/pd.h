/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A PD's life on the adapter (pd.c), called with emu_dev.lock held. */
#ifndef MLX4EMU_PD_H
#define MLX4EMU_PD_H

#include "adapter/adapter.h"

/* Hands out a PD number (ENOMEM when all are taken, as mlx4_pd_alloc);
 * the PD is the context's once emu_pd_activate runs, after its creator
 * answered the program. */
int emu_pd_create(uint32_t *pdn);
void emu_pd_activate(struct emu_ctx *ctx, uint32_t pdn);
/* The context's PD number pdn, or NULL when it is not a live PD of it. */
struct emu_pd *emu_pd_lookup(struct emu_ctx *ctx, uint32_t pdn);
/* EBUSY while an MR, MW, QP, SRQ or WQ still uses the PD. */
int emu_pd_destroy(struct emu_pd *pd);
/* The PDs of a context whose device fd closes. */
void emu_pd_release_ctx(struct emu_ctx *ctx);

#endif
