// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A context's life (context.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "adapter/abi.h"
#include "adapter/clock.h"
#include "adapter/context.h"
#include "adapter/engine.h"
#include "adapter/evq.h"
#include "adapter/inject.h"
#include "adapter/mr.h"
#include "adapter/objects.h"
#include "base/fdtab.h"
#include "base/libc.h"

static uint32_t qp_tab_size(void)
{
	uint32_t n = 256;

	while (n < EMU_FIRST_QPN + emu_cfg.max_qp)
		n <<= 1;
	return n;
}

/* The tables sized by the configuration, set up at the first context. */
static int dev_tables_init(void)
{
	int keys_err;

	if (emu_dev.qp_tab)
		return 0;
	emu_dev.qp_tab_size = qp_tab_size();
	emu_dev.qp_tab = calloc(emu_dev.qp_tab_size, sizeof(*emu_dev.qp_tab));
	emu_dev.active = calloc(emu_dev.qp_tab_size, sizeof(*emu_dev.active));
	emu_dev.qpn_held = calloc(emu_dev.qp_tab_size, 1);
	emu_dev.active_cq = calloc(EMU_MAX_CQ, sizeof(*emu_dev.active_cq));
	keys_err = emu_keys_init();
	if (!emu_dev.qp_tab || !emu_dev.active || !emu_dev.qpn_held || !emu_dev.active_cq ||
	    keys_err)
		return ENOMEM;
	emu_inject_init();
	return 0;
}

/* The device file's two pages, the UAR and the BlueFlame page, mapped
 * for the device. */
static int ctx_pages(struct emu_ctx *ctx, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	p = emu_real_mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, 0);
	if (p == MAP_FAILED)
		return -1;
	ctx->page_fd = fd;
	ctx->pages = p;
	ctx->pages_len = (size_t)(2 * page);
	ctx->uar = p;
	if (emu_cfg.bf_reg_size)
		ctx->bf_page = (uint8_t *)p + page;
	return 0;
}

int emu_ctx_open(int fd)
{
	int index = -1;

	pthread_mutex_lock(&emu_dev.lock);
	for (int i = 0; i < EMU_MAX_CTX; i++) {
		struct emu_ctx *c = &emu_dev.ctx[i];

		if (c->used)
			continue;
		memset(c, 0, sizeof(*c));
		c->cmd_fd = fd;
		c->async_q.rd = -1;
		c->page_fd = -1;
		if (ctx_pages(c, fd))
			break;
		c->used = true;
		emu_table_note(&emu_dev.ctx_end, (uint32_t)i);
		emu_fd_set_ctx(fd, i);
		index = i;
		break;
	}
	pthread_mutex_unlock(&emu_dev.lock);
	return index;
}

struct emu_ctx *emu_ctx_at(int index)
{
	return &emu_dev.ctx[index];
}

int emu_ctx_index(const struct emu_ctx *ctx)
{
	return (int)(ctx - emu_dev.ctx);
}

uint32_t emu_ctx_qp_tab_size(void)
{
	return emu_dev.qp_tab_size;
}

int emu_ctx_create(struct emu_ctx *ctx, int *async_fd)
{
	int err;

	if (ctx->async_q.rd >= 0)
		return EINVAL;
	/* one UAR page per context: mlx4_uar_alloc's ENOMEM when all are taken */
	if (emu_dev.uars_used >= EMU_HCA_MAX_CONTEXTS)
		return ENOMEM;
	err = dev_tables_init();
	if (!err)
		err = emu_clock_init();
	if (err)
		return err;
	*async_fd = emu_evq_open(&ctx->async_q, sizeof(struct ib_uverbs_async_event_desc));
	return *async_fd < 0 ? errno : 0;
}

void emu_ctx_create_undo(struct emu_ctx *ctx, int async_fd)
{
	emu_evq_close(&ctx->async_q);
	emu_real_close(async_fd);
	ctx->async_q.rd = -1;
}

int emu_ctx_activate(struct emu_ctx *ctx, int async_fd)
{
	int err = emu_engine_start();

	if (err) {
		emu_ctx_create_undo(ctx, async_fd);
		return err;
	}
	emu_fd_set_async(async_fd, emu_ctx_index(ctx));
	emu_dev.uars_used++;
	return 0;
}

void emu_ctx_release(struct emu_ctx *ctx)
{
	pthread_mutex_lock(&emu_dev.lock);
	emu_objects_release_ctx(ctx);
	/* the async fd stays the program's, but no longer the device's */
	if (ctx->async_q.rd >= 0) {
		emu_fd_set_async(ctx->async_q.rd, -1);
		emu_dev.uars_used--;
	}
	emu_evq_close(&ctx->async_q);
	ctx->uar = NULL;
	ctx->bf_page = NULL;
	if (ctx->pages)
		emu_real_munmap(ctx->pages, ctx->pages_len);
	ctx->pages = NULL;
	/* the memfd is the device fd itself: close() of it is in progress */
	if (ctx->page_fd >= 0 && ctx->page_fd != ctx->cmd_fd)
		emu_real_close(ctx->page_fd);
	ctx->page_fd = -1;
	ctx->used = false;
	pthread_mutex_unlock(&emu_dev.lock);
}
