// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The receive checks of connected QPs and the port filter's peer set
 * (transport/admission.h).
 */
#include "transport/admission.h"

#include "adapter/remote.h"
#include "adapter/responder.h"
#include "adapter/xrc.h"
#include "transport/xrc_wire.h"
#include "wire/peer_filter.h"

static unsigned qp_port(const struct emu_qp *qp)
{
	return qp->attr.port ? qp->attr.port : 1;
}

static bool is_connected_type(uint8_t type)
{
	return type == EMU_QPT_RC || type == EMU_QPT_UC || type == EMU_QPT_XRC_INI ||
	       type == EMU_QPT_XRC_TGT;
}

struct emu_qp *emu_admit_connected(const struct emu_rx *rx, const struct emu_bth *bth,
				   uint32_t *path)
{
	struct emu_qp *d = emu_qp_by_dest_qpn(bth->dest_qpn);

	if (!d || !d->used || d->is_wq || d->is_rss || d->lost ||
	    d->type != emu_wire_qp_type(bth->opcode) || qp_port(d) != rx->port ||
	    !emu_qp_can_receive(d) || !emu_qp_remote_addr(d, path) || *path != rx->src) {
		emu_admit_refuse(rx);
		return NULL;
	}
	return d;
}

void emu_admit_refuse(const struct emu_rx *rx)
{
	emu_link_count_refused(rx->port);
}

/* The filter's entries of the QP become what its state and path say. */
static void follow(struct emu_qp *qp, bool ready)
{
	uint32_t peer = 0;
	bool ud = ready && qp->type == EMU_QPT_UD && !qp->is_wq && !qp->is_rss;
	unsigned port = qp_port(qp);

	if (ready && is_connected_type(qp->type) && !emu_qp_remote_addr(qp, &peer))
		peer = 0;
	if (qp->admitted_peer && (qp->admitted_peer != peer || qp->admitted_port != port)) {
		emu_peer_filter_remove(qp->admitted_port, qp->admitted_peer);
		qp->admitted_peer = 0;
	}
	if (peer && !qp->admitted_peer) {
		emu_peer_filter_add(port, peer);
		qp->admitted_peer = peer;
		qp->admitted_port = (uint8_t)port;
	}
	if (qp->admitted_ud && (!ud || qp->admitted_port != port)) {
		emu_peer_filter_ud(qp->admitted_port, false);
		qp->admitted_ud = false;
	}
	if (ud && !qp->admitted_ud) {
		emu_peer_filter_ud(port, true);
		qp->admitted_ud = true;
		qp->admitted_port = (uint8_t)port;
	}
}

void emu_admission_qp_modified(struct emu_qp *qp, int next)
{
	follow(qp, next >= EMU_QPS_RTR && next <= EMU_QPS_SQE);
}

void emu_admission_qp_destroyed(struct emu_qp *qp)
{
	follow(qp, false);
}
