/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An SRQ's life on the adapter (srq.c), called with emu_dev.lock held. */
#ifndef MLX4EMU_SRQ_H
#define MLX4EMU_SRQ_H

#include "adapter/adapter.h"

/* What an SRQ is created with: basic, or XRC (made through an XRC domain
 * handle, completing on cq), and libmlx4's ring and doorbell record. */
struct emu_srq_attrs {
	uint64_t user_handle;
	uint32_t pdn, max_wr, max_sge;
	uint64_t buf_addr, db_addr;
	struct emu_xrcd_handle *xrcd_via;	/* NULL: a basic SRQ */
	struct emu_cq *cq;
};

/*
 * Checks the attributes (EINVAL, EFAULT for memory that is not there,
 * ENOMEM when no SRQ number is free) and hands out an SRQ number; the SRQ
 * is filled in and goes live at emu_srq_activate, once its creator
 * answered the program.  *max_wr is the capacity libmlx4 will see.
 */
int emu_srq_create(const struct emu_srq_attrs *a, uint32_t *srqn, uint32_t *max_wr);
struct emu_srq *emu_srq_activate(struct emu_ctx *ctx, uint32_t srqn,
				 const struct emu_srq_attrs *a);
/* The context's SRQ number srqn, or NULL when it is not a live SRQ of it. */
struct emu_srq *emu_srq_lookup(struct emu_ctx *ctx, uint32_t srqn);
/* The limit event threshold; EINVAL when not below the ring's size. */
int emu_srq_set_limit(struct emu_srq *srq, uint32_t limit);
/* EBUSY while a QP receives on the SRQ; else 0, with its pending events
 * dropped so that the count it reports is final. */
int emu_srq_prepare_destroy(struct emu_srq *srq);
void emu_srq_destroy(struct emu_srq *srq);
/* The SRQs of a context whose device fd closes. */
void emu_srq_release_ctx(struct emu_ctx *ctx);

#endif
