// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * CQ commands.  libmlx4 allocates the CQE buffer and the doorbell records
 * (consumer index, then the arm record 4 bytes later) and passes their
 * addresses as driver data; it asks for cqe = N - 1 with N a power of two.
 */
#include <string.h>

#include "cmd/cmd.h"
#include "adapter/cq.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/objects.h"

struct emu_cq *emu_cq_get(struct emu_ctx *ctx, uint32_t h)
{
	if (h >= EMU_MAX_CQ || !emu_dev.cq[h].used || emu_dev.cq[h].ctx != ctx)
		return NULL;
	return &emu_dev.cq[h];
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static uint32_t cq_hint;

static bool cq_used(uint32_t i)
{
	return emu_dev.cq[i].used;
}

static int cq_create(struct emu_cmd *c, uint64_t user_handle, uint32_t cqe,
		     int32_t channel_fd, uint32_t comp_vector, uint32_t *cqn)
{
	struct mlx4_ib_create_cq drv;
	uint64_t cnt = (uint64_t)cqe + 1;
	int channel = -1;
	struct emu_cq *cq = NULL;
	uint32_t n;

	emu_get_drv_in(c, &drv, sizeof(drv));
	if (c->drv_in_len < sizeof(drv) || !is_pow2(cnt) || cqe > emu_cfg.max_cqe ||
	    comp_vector != 0 || (drv.db_addr & 3) || (drv.buf_addr & 63))
		return EINVAL;
	if (channel_fd >= 0) {
		const size_t n = sizeof(emu_dev.channels) / sizeof(emu_dev.channels[0]);

		for (size_t i = 0; i < n; i++)
			if (emu_dev.channels[i].used && emu_dev.channels[i].q.rd == channel_fd)
				channel = (int)i;
		if (channel < 0)
			return EINVAL;
	}
	if (emu_probe_rw(drv.buf_addr, cnt * emu_cfg.cqe_size) ||
	    emu_probe_rw(drv.db_addr, 8))
		return EFAULT;
	/* CQN 0 is kept unused, as on hardware where it is reserved */
	n = emu_table_next_free(1, EMU_MAX_CQ, &cq_hint, cq_used);
	if (!n)
		return ENOMEM;
	cq = &emu_dev.cq[n];
	memset(cq, 0, sizeof(*cq));
	cq->cqn = n;
	emu_table_note(&emu_dev.cq_end, n);
	cq->ctx = c->ctx;
	cq->user_handle = user_handle;
	cq->buf = (uint8_t *)(uintptr_t)drv.buf_addr;
	cq->cnt = (uint32_t)cnt;
	cq->cqe_size = emu_cfg.cqe_size;
	cq->ci_db = (volatile uint32_t *)(uintptr_t)drv.db_addr;
	cq->arm_db = cq->ci_db + 1;
	cq->last_arm_rec = *cq->arm_db;
	cq->channel = channel;
	if (emu_dev.fault_overrun &&
	    (!emu_dev.fault_overrun_cqn || emu_dev.fault_overrun_cqn == cq->cqn)) {
		cq->overrun_after = emu_dev.fault_overrun;
		emu_dev.fault_overrun = 0;
	}
	emu_cq_init_owner(cq->buf, cq->cnt, cq->cqe_size, 0);
	*cqn = cq->cqn;
	return 0;
}

static void cq_activate(struct emu_cq *cq)
{
	cq->used = true;
	emu_active_cq_add(cq);
	EMU_TRACE("create_cq cqn 0x%x entries %u cqe_size %u channel %d", cq->cqn,
		  cq->cnt, cq->cqe_size, cq->channel);
}

int emu_cmd_create_cq(struct emu_cmd *c)
{
	const struct ib_uverbs_create_cq *q = c->in;
	struct ib_uverbs_create_cq_resp r = { 0 };
	struct mlx4_ib_create_cq_resp drv = { 0 };
	uint32_t cqn;
	int err;

	err = cq_create(c, q->user_handle, q->cqe, q->comp_channel,
			q->comp_vector, &cqn);
	if (err)
		return err;
	r.cq_handle = cqn;
	r.cqe = q->cqe;
	drv.cqn = cqn;
	err = emu_put_resp(c, &r, sizeof(r));
	if (!err)
		err = emu_put_drv_resp(c, &drv, sizeof(drv));
	if (err)
		return err;
	cq_activate(&emu_dev.cq[cqn]);
	return 0;
}

int emu_cmd_create_cq_ex(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_create_cq *q = c->in;
	struct ib_uverbs_ex_create_cq_resp r = { 0 };
	struct mlx4_ib_create_cq_resp drv = { 0 };
	uint32_t cqn;
	int err;

	if (q->comp_mask || (q->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION))
		return EINVAL;
	err = cq_create(c, q->user_handle, q->cqe, q->comp_channel,
			q->comp_vector, &cqn);
	if (err)
		return err;
	emu_dev.cq[cqn].timestamp =
		(q->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) != 0;
	r.base.cq_handle = cqn;
	r.base.cqe = q->cqe;
	r.response_length = sizeof(r);
	drv.cqn = cqn;
	err = emu_put_resp(c, &r, sizeof(r));
	if (!err)
		err = emu_put_drv_resp(c, &drv, sizeof(drv));
	if (err)
		return err;
	cq_activate(&emu_dev.cq[cqn]);
	return 0;
}

static bool cq_in_use(const struct emu_cq *cq)
{
	for (uint32_t i = 0; i < emu_dev.qp_end; i++) {
		const struct emu_qp *qp = emu_dev.qp_tab[i];

		if (qp && qp->used && (qp->scq == cq || qp->rcq == cq))
			return true;
	}
	/* XRC SRQs complete on a CQ of their own */
	for (uint32_t i = 0; i < EMU_MAX_SRQ; i++)
		if (emu_dev.srq[i].used && emu_dev.srq[i].cq == cq)
			return true;
	return false;
}

int emu_cmd_destroy_cq(struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_cq *q = c->in;
	struct ib_uverbs_destroy_cq_resp r = { 0 };
	struct emu_cq *cq = emu_cq_get(c->ctx, q->cq_handle);
	int err;

	if (!cq || q->reserved)
		return EINVAL;
	if (cq_in_use(cq))
		return EBUSY;
	emu_events_forget_cq(cq);
	r.comp_events_reported = cq->comp_events;
	r.async_events_reported = cq->async_events;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	cq->used = false;
	emu_active_cq_remove(cq);
	return 0;
}

int emu_cmd_resize_cq(struct emu_cmd *c)
{
	const struct ib_uverbs_resize_cq *q = c->in;
	struct ib_uverbs_resize_cq_resp r = { 0 };
	struct mlx4_ib_resize_cq drv;
	struct emu_cq *cq = emu_cq_get(c->ctx, q->cq_handle);
	uint64_t cnt = (uint64_t)q->cqe + 1;
	uint32_t outstanding;
	struct emu_cqe body = { 0 };
	int err;

	emu_get_drv_in(c, &drv, sizeof(drv));
	if (!cq || c->drv_in_len < sizeof(drv) || !is_pow2(cnt) ||
	    q->cqe > emu_cfg.max_cqe || (drv.buf_addr & 63) || cq->in_error)
		return EINVAL;
	outstanding = (cq->pi - be32toh(*cq->ci_db)) & 0xffffff;
	if (outstanding + 1 >= cnt || outstanding + 1 >= cq->cnt)
		return EINVAL;
	if (emu_probe_rw(drv.buf_addr, cnt * cq->cqe_size))
		return EFAULT;
	r.cqe = q->cqe;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	/* the resize CQE in the old buffer marks where the new one begins;
	 * libmlx4 copies what precedes it to the new buffer */
	emu_cqe_write(cq, &body, EMU_CQE_OPCODE_RESIZE, false);
	emu_cq_init_owner((uint8_t *)(uintptr_t)drv.buf_addr, (uint32_t)cnt,
			  cq->cqe_size, cq->pi);
	cq->buf = (uint8_t *)(uintptr_t)drv.buf_addr;
	cq->cnt = (uint32_t)cnt;
	return 0;
}

int emu_cmd_modify_cq(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_modify_cq *q = c->in;

	if (!emu_cq_get(c->ctx, q->cq_handle) || q->attr_mask & ~1u)
		return EINVAL;
	/* moderation is accepted; every CQE still raises its event at once */
	return 0;
}
