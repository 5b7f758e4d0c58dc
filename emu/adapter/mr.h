/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Memory keys' life on the adapter (mr.c): MRs and memory windows, which
 * share the MPT table.  Called with emu_dev.lock held.
 */
#ifndef MLX4EMU_MR_H
#define MLX4EMU_MR_H

#include "adapter/adapter.h"

/* What an MR covers: iova..iova + length at host address host. */
struct emu_mr_attrs {
	uint32_t pdn;
	uint32_t access;	/* IBV_ACCESS_* */
	uint64_t iova, length;
	uint64_t host;
};

/* The MPT table, emu_cfg.max_mr entries past the reserved ones: ENOMEM
 * when it cannot be allocated. */
int emu_keys_init(void);

/* EINVAL for unknown access bits, or remote write or atomics without
 * local write (IB spec C10-10). */
int emu_mr_check_access(uint32_t access);
/* EINVAL for an empty or wrapping range, EFAULT when its pages are not
 * there (the kernel pins them). */
int emu_mr_check_range(uint64_t start, uint64_t length);

/* A new MR, not valid until emu_mr_activate; NULL when every MPT entry
 * is taken (mlx4_mpt_reserve's ENOMEM). */
struct emu_key *emu_mr_create(struct emu_ctx *ctx, const struct emu_mr_attrs *a);
void emu_mr_activate(struct emu_key *mr);
/* REREG_MR: the IBV_REREG_MR_CHANGE_* of flags take their part of a. */
void emu_mr_rereg(struct emu_key *mr, uint32_t flags, const struct emu_mr_attrs *a);
/* A new memory window of type 1 or 2 on the PD; NULL when all are taken. */
struct emu_key *emu_mw_create(struct emu_ctx *ctx, uint8_t kind, uint32_t pdn);
/* The context's MR or window by handle (its MPT index), or NULL. */
struct emu_key *emu_mr_lookup(struct emu_ctx *ctx, uint32_t handle);
struct emu_key *emu_mw_lookup(struct emu_ctx *ctx, uint32_t handle);
/* Deregisters the MR or deallocates the window: its key no longer matches. */
void emu_key_destroy(struct emu_key *k);
/* The MRs and windows of a context whose device fd closes. */
void emu_keys_release_ctx(struct emu_ctx *ctx);

#endif
