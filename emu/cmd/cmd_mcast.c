// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ATTACH_MCAST and DETACH_MCAST, with the checks the kernel makes before
 * the driver sees them (drivers/infiniband/core/verbs.c ib_attach_mcast,
 * is_valid_mcast_lid; uverbs_cmd.c ib_uverbs_attach_mcast): the QP is a UD
 * QP of the context, the GID is multicast, and on an InfiniBand port the
 * MLID is a multicast LID (0xc000..0xfffe).  The MLID is not checked when
 * the QP's port is Ethernet, or when the QP has no port yet (RESET) and
 * the device has an Ethernet port (RoCE ignores it).  Every failure is
 * EINVAL; a full group or group table is ENOMEM.
 */
#include "adapter/mcast.h"
#include "adapter/qp.h"
#include "cmd/cmd.h"

static bool port_is_eth(unsigned port)
{
	return port >= 1 && port <= emu_cfg.ports &&
	       emu_cfg.link_layer[port - 1] == EMU_LL_ETH;
}

static bool mlid_ok(const struct emu_qp *qp, uint16_t mlid)
{
	bool eth;

	if (qp->state >= EMU_QPS_INIT) {
		eth = port_is_eth(qp->attr.port);
	} else {
		eth = false;
		for (unsigned p = 1; p <= emu_cfg.ports; p++)
			eth = eth || port_is_eth(p);
	}
	return eth || (mlid >= 0xc000 && mlid != 0xffff);
}

static struct emu_qp *mcast_qp(struct emu_cmd *c, uint32_t handle,
			       const uint8_t gid[16], uint16_t mlid)
{
	struct emu_qp *qp = emu_qp_lookup(c->ctx, handle);

	if (!qp || qp->is_wq || qp->type != EMU_QPT_UD ||
	    !emu_gid_is_multicast(gid) || !mlid_ok(qp, mlid))
		return NULL;
	return qp;
}

int emu_cmd_attach_mcast(struct emu_cmd *c)
{
	const struct ib_uverbs_attach_mcast *q = c->in;
	struct emu_qp *qp = mcast_qp(c, q->qp_handle, q->gid, q->mlid);

	return qp ? emu_mcast_attach(qp, q->gid, q->mlid) : EINVAL;
}

int emu_cmd_detach_mcast(struct emu_cmd *c)
{
	const struct ib_uverbs_detach_mcast *q = c->in;
	struct emu_qp *qp = mcast_qp(c, q->qp_handle, q->gid, q->mlid);

	return qp ? emu_mcast_detach(qp, q->gid, q->mlid) : EINVAL;
}
