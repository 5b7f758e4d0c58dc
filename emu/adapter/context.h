/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A context's life on the adapter (context.c): the device's tables set up
 * with the first one, a UAR page and an async event queue each, released
 * with every object of it when its device fd closes.
 */
#ifndef MLX4EMU_CONTEXT_H
#define MLX4EMU_CONTEXT_H

#include "adapter/adapter.h"

/*
 * The context of device file fd, the memfd holding its UAR and BlueFlame
 * pages (mapped here for the device): its index, or -1 when every
 * context is taken or the pages cannot be mapped.  Takes emu_dev.lock.
 */
int emu_ctx_open(int fd);
/* The context of that index (emu_fd_ctx, emu_ctx_index). */
struct emu_ctx *emu_ctx_at(int index);
int emu_ctx_index(const struct emu_ctx *ctx);

/*
 * Called with emu_dev.lock held.  emu_ctx_create opens the context's
 * async event queue (*async_fd, the program's end): EINVAL when it has
 * one, ENOMEM when every UAR page is taken or memory is short.  The
 * context is the device's once emu_ctx_activate starts the engine, after
 * its creator answered the program; emu_ctx_create_undo closes a queue
 * whose creator could not.  emu_ctx_activate fails (and undoes) only when
 * the engine does not start.
 */
int emu_ctx_create(struct emu_ctx *ctx, int *async_fd);
void emu_ctx_create_undo(struct emu_ctx *ctx, int async_fd);
int emu_ctx_activate(struct emu_ctx *ctx, int async_fd);
/* libmlx4's QP table size (a power of two above every QPN): what
 * GET_CONTEXT reports, set up with the first context. */
uint32_t emu_ctx_qp_tab_size(void);

/* Releases every object of a context whose device fd closes; takes
 * emu_dev.lock. */
void emu_ctx_release(struct emu_ctx *ctx);

#endif
