// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A CQ's life on the adapter: its attributes checked, its table entry
 * handed out and filled from libmlx4's buffer and doorbell records,
 * looked up by CQN, resized, destroyed and released with its context.
 * Everything here runs with emu_dev.lock held.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "adapter/cq.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/objects.h"
#include "base/usermem.h"

/* next-fit cursor over the CQ table (see emu_table_next_free) */
static uint32_t cq_hint;

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static bool cq_used(uint32_t i)
{
	return emu_dev.cq[i].used;
}

struct emu_cq *emu_cq_lookup(struct emu_ctx *ctx, uint32_t cqn)
{
	if (cqn >= EMU_MAX_CQ || !emu_dev.cq[cqn].used || emu_dev.cq[cqn].ctx != ctx)
		return NULL;
	return &emu_dev.cq[cqn];
}

/* The completion channel whose read end is fd, or -1. */
static int channel_of_fd(int32_t fd)
{
	const size_t n = sizeof(emu_dev.channels) / sizeof(emu_dev.channels[0]);
	int channel = -1;

	for (size_t i = 0; i < n; i++)
		if (emu_dev.channels[i].used && emu_dev.channels[i].q.rd == fd)
			channel = (int)i;
	return channel;
}

/* libmlx4 asks for cqe = N - 1 with N a power of two, on one vector,
 * with a 64-byte aligned buffer and a 4-byte aligned doorbell record. */
static bool cq_attrs_valid(const struct emu_cq_attrs *a)
{
	return is_pow2((uint64_t)a->cqe + 1) && a->cqe <= emu_cfg.max_cqe &&
	       a->comp_vector == 0 && !(a->db_addr & 3) && !(a->buf_addr & 63);
}

/* The fault "overrun at CQE n" goes to the first CQ it names. */
static void cq_take_overrun_fault(struct emu_cq *cq)
{
	if (emu_dev.fault_overrun &&
	    (!emu_dev.fault_overrun_cqn || emu_dev.fault_overrun_cqn == cq->cqn)) {
		cq->overrun_after = emu_dev.fault_overrun;
		emu_dev.fault_overrun = 0;
	}
}

static void cq_init(struct emu_cq *cq, uint32_t cqn, struct emu_ctx *ctx,
		    const struct emu_cq_attrs *a, int channel)
{
	memset(cq, 0, sizeof(*cq));
	cq->cqn = cqn;
	cq->ctx = ctx;
	cq->user_handle = a->user_handle;
	cq->buf = (uint8_t *)(uintptr_t)a->buf_addr;
	cq->cnt = a->cqe + 1;
	cq->cqe_size = emu_cfg.cqe_size;
	cq->ci_db = (volatile uint32_t *)(uintptr_t)a->db_addr;
	cq->arm_db = cq->ci_db + 1;
	cq->last_arm_rec = *cq->arm_db;
	cq->channel = channel;
	cq->timestamp = a->timestamp;
	cq_take_overrun_fault(cq);
	emu_cq_init_owner(cq->buf, cq->cnt, cq->cqe_size, 0);
}

int emu_cq_create(struct emu_ctx *ctx, const struct emu_cq_attrs *a,
		  struct emu_cq **out)
{
	uint64_t cnt = (uint64_t)a->cqe + 1;
	int channel = -1;
	uint32_t cqn;

	if (!cq_attrs_valid(a))
		return EINVAL;
	if (a->channel_fd >= 0) {
		channel = channel_of_fd(a->channel_fd);
		if (channel < 0)
			return EINVAL;
	}
	if (emu_probe_rw(a->buf_addr, cnt * emu_cfg.cqe_size) ||
	    emu_probe_rw(a->db_addr, 8))
		return EFAULT;
	/* CQN 0 is kept unused, as on hardware where it is reserved */
	cqn = emu_table_next_free(1, EMU_MAX_CQ, &cq_hint, cq_used);
	if (!cqn)
		return ENOMEM;
	emu_table_note(&emu_dev.cq_end, cqn);
	cq_init(&emu_dev.cq[cqn], cqn, ctx, a, channel);
	*out = &emu_dev.cq[cqn];
	return 0;
}

void emu_cq_activate(struct emu_cq *cq)
{
	cq->used = true;
	emu_active_cq_add(cq);
	EMU_TRACE("create_cq cqn 0x%x entries %u cqe_size %u channel %d", cq->cqn,
		  cq->cnt, cq->cqe_size, cq->channel);
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

int emu_cq_prepare_destroy(struct emu_cq *cq)
{
	if (cq_in_use(cq))
		return EBUSY;
	emu_events_forget_cq(cq);
	return 0;
}

void emu_cq_destroy(struct emu_cq *cq)
{
	cq->used = false;
	emu_active_cq_remove(cq);
}

int emu_cq_check_resize(const struct emu_cq *cq, uint32_t cqe, uint64_t buf_addr)
{
	uint64_t cnt = (uint64_t)cqe + 1;
	uint32_t outstanding;

	if (!is_pow2(cnt) || cqe > emu_cfg.max_cqe || (buf_addr & 63) || cq->in_error)
		return EINVAL;
	/* the CQEs not yet polled and the resize CQE must fit in both buffers */
	outstanding = (cq->pi - be32toh(*cq->ci_db)) & 0xffffff;
	if (outstanding + 1 >= cnt || outstanding + 1 >= cq->cnt)
		return EINVAL;
	if (emu_probe_rw(buf_addr, cnt * cq->cqe_size))
		return EFAULT;
	return 0;
}

void emu_cq_resize(struct emu_cq *cq, uint32_t cqe, uint64_t buf_addr)
{
	struct emu_cqe body = { 0 };
	uint32_t cnt = cqe + 1;

	/* the resize CQE in the old buffer marks where the new one begins;
	 * libmlx4 copies what precedes it to the new buffer */
	emu_cqe_write(cq, &body, EMU_CQE_OPCODE_RESIZE, false);
	emu_cq_init_owner((uint8_t *)(uintptr_t)buf_addr, cnt, cq->cqe_size, cq->pi);
	cq->buf = (uint8_t *)(uintptr_t)buf_addr;
	cq->cnt = cnt;
}

void emu_cq_channel_closed(int channel)
{
	for (unsigned i = 0; i < emu_dev.cq_end; i++)
		if (emu_dev.cq[i].used && emu_dev.cq[i].channel == channel)
			emu_dev.cq[i].channel = -1;
}

void emu_cq_release_ctx(struct emu_ctx *ctx)
{
	for (unsigned i = 0; i < emu_dev.cq_end; i++)
		if (emu_dev.cq[i].used && emu_dev.cq[i].ctx == ctx) {
			emu_events_forget_cq(&emu_dev.cq[i]);
			emu_dev.cq[i].used = false;
		}
}
