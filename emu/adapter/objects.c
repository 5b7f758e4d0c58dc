// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Cross-object bookkeeping: PD users, context teardown, the engine's lists. */
#include <stdlib.h>
#include <string.h>

#include "adapter/cq.h"
#include "adapter/doorbell.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/ind_tbl.h"
#include "adapter/mr.h"
#include "adapter/pd.h"
#include "adapter/objects.h"
#include "adapter/qp.h"
#include "adapter/qpn.h"
#include "adapter/srq.h"
#include "adapter/xrc.h"

bool emu_pd_in_use(uint32_t pdn)
{
	for (uint32_t i = 0; i < emu_dev.key_end; i++)
		if (emu_dev.keys[i].kind != EMU_KEY_FREE && emu_dev.keys[i].pdn == pdn)
			return true;
	for (uint32_t i = 0; i < emu_dev.qp_end; i++)
		if (emu_dev.qp_tab[i] && emu_dev.qp_tab[i]->used &&
		    emu_dev.qp_tab[i]->pdn == pdn)
			return true;
	for (uint32_t i = 0; i < emu_dev.srq_end; i++)
		if (emu_dev.srq[i].used && emu_dev.srq[i].pdn == pdn)
			return true;
	return false;
}

/* QPs and WQs in use, against the configured max_qp. */
uint32_t emu_qps_in_use(void)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < emu_dev.qp_end; i++)
		if (emu_dev.qp_tab[i] && emu_dev.qp_tab[i]->used)
			n++;
	return n;
}

void emu_objects_release_ctx(struct emu_ctx *ctx)
{
	if (!emu_dev.qp_tab)
		return;
	emu_flow_remove_ctx(ctx);
	emu_qpn_release_ctx(ctx);
	/* shared XRC target QPs stay while another context holds a handle */
	emu_xrc_release_ctx(ctx);
	emu_qp_release_ctx(ctx);
	emu_ind_tbl_release_ctx(ctx);
	emu_srq_release_ctx(ctx);
	emu_cq_release_ctx(ctx);
	emu_keys_release_ctx(ctx);
	emu_pd_release_ctx(ctx);
	emu_rebuild_active();
}

/*
 * The queues the engine polls on every pass: all of them with polled
 * doorbells; with trapped ones only the QPs in an error state (receive
 * WQEs posted to them must be flushed, and the RQ has no UAR doorbell) and
 * those of contexts that fell back to polling.
 */
void emu_rebuild_active_qps(void)
{
	uint32_t n = 0;

	if (!emu_dev.qp_tab)
		return;
	for (uint32_t i = 0; i < emu_dev.qp_end; i++) {
		struct emu_qp *qp = emu_dev.qp_tab[i];

		if (qp && qp->used && !qp->is_rss && !qp->lost &&
		    (!emu_doorbells_trapped(qp->ctx) || qp->state == EMU_QPS_ERR ||
		     qp->state == EMU_QPS_SQE))
			emu_dev.active[n++] = qp;
	}
	emu_dev.nactive = n;
}

void emu_rebuild_active(void)
{
	uint32_t n = 0;

	if (!emu_dev.qp_tab)
		return;
	emu_rebuild_active_qps();
	for (uint32_t i = 0; i < emu_dev.cq_end; i++)
		if (emu_dev.cq[i].used && !emu_doorbells_trapped(emu_dev.cq[i].ctx))
			emu_dev.active_cq[n++] = &emu_dev.cq[i];
	emu_dev.nactive_cq = n;
}

/* A CQ created or destroyed changes only its own entry of the polled
 * list: creating thousands of CQs must not rescan them all each time. */
void emu_active_cq_add(struct emu_cq *cq)
{
	if (emu_dev.active_cq && !emu_doorbells_trapped(cq->ctx))
		emu_dev.active_cq[emu_dev.nactive_cq++] = cq;
}

void emu_active_cq_remove(struct emu_cq *cq)
{
	for (uint32_t i = 0; i < emu_dev.nactive_cq; i++)
		if (emu_dev.active_cq[i] == cq) {
			emu_dev.active_cq[i] = emu_dev.active_cq[--emu_dev.nactive_cq];
			return;
		}
}
