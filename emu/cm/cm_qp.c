// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The QP attributes a connection implies, as rdma_init_qp_attr() returns
 * them (the kernel's rdma_init_qp_attr: cma_ib_init_qp_attr before a
 * connection, ib_cm_init_qp_attr once one is under way), so that
 * librdmacm moves the program's QP through INIT, RTR and RTS:
 *
 *   INIT  port, P_Key index 0; RC: access flags 0 before the connection,
 *         REMOTE_WRITE (| REMOTE_READ | REMOTE_ATOMIC with responder
 *         resources) once the peer is known; UD: the Q_Key
 *   RTR   the path to the peer (DLID on InfiniBand; on Ethernet the GRH:
 *         DGID ::ffff:<peer>, SGID index 1, hop limit 64, TOS), path MTU,
 *         the peer's QPN, its starting PSN; RC: max_dest_rd_atomic from
 *         the responder resources, min_rnr_timer 0
 *   RTS   this side's starting PSN; RC: the local ACK timeout, retry and
 *         RNR retry counts of the REQ, max_rd_atomic from the initiator
 *         depth
 */
#include "cm/cm.h"

#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "base/config.h"
#include "wire/identity.h"

void cm_peer_ah(const struct cm_id *id, void *out)
{
	struct ib_uverbs_ah_attr *ah = out;

	memset(ah, 0, sizeof(*ah));
	ah->port_num = id->port;
	if (emu_cfg.link_layer[id->port - 1] == EMU_LL_IB) {
		ah->dlid = (uint16_t)id->peer;
		return;
	}
	ah->is_global = 1;
	memcpy(ah->grh.dgid, id->peer_gid, 16);
	ah->grh.sgid_index = 1;
	ah->grh.hop_limit = 64;
	ah->grh.traffic_class = id->tos;
}

static bool connected(const struct cm_id *id)
{
	return id->state >= CM_REQ_SENT && id->remote_comm_id | id->local_comm_id;
}

int cm_init_qp_attr(const struct cm_id *id, uint32_t qp_state, void *out)
{
	struct ib_uverbs_qp_attr *a = out;
	bool rc = id->qp_type != IBV_QPT_UD;

	memset(a, 0, sizeof(*a));
	if (!id->port)
		return EINVAL;
	a->qp_state = qp_state;
	switch (qp_state) {
	case IBV_QPS_INIT:
		a->qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		a->port_num = id->port;
		if (!rc) {
			a->qkey = id->qkey ? id->qkey : CM_UDP_QKEY;
			a->qp_attr_mask |= IBV_QP_QKEY;
			return 0;
		}
		a->qp_attr_mask |= IBV_QP_ACCESS_FLAGS;
		if (connected(id)) {
			a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
			if (id->responder_resources)
				a->qp_access_flags |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		}
		return 0;
	case IBV_QPS_RTR:
		if (!rc || !connected(id))
			return EINVAL;
		a->qp_attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		cm_peer_ah(id, &a->ah_attr);
		a->path_mtu = id->path_mtu;
		a->dest_qp_num = id->remote_qpn;
		a->rq_psn = id->rq_psn;
		a->max_dest_rd_atomic = id->responder_resources;
		a->min_rnr_timer = 0;
		return 0;
	case IBV_QPS_RTS:
		if (!rc || !connected(id))
			return EINVAL;
		a->qp_attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		a->sq_psn = id->sq_psn;
		a->timeout = id->ack_timeout;
		a->retry_cnt = id->retry_count;
		a->rnr_retry = id->rnr_retry_count;
		a->max_rd_atomic = id->initiator_depth;
		return 0;
	default:
		return EINVAL;
	}
}
