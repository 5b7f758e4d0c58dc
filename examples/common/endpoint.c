// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _GNU_SOURCE
#include "endpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* RC timing, the values rdma-core's ibv_rc_pingpong uses. */
#define RC_MIN_RNR_TIMER	12
#define RC_TIMEOUT		14
#define RC_RETRY_CNT		7
#define RC_RNR_RETRY		7

static uint32_t random_psn(void)
{
	static unsigned seed;

	if (!seed)
		seed = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
	return (uint32_t)rand_r(&seed) & 0xffffff;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err ? err : EIO));
	return -1;
}

static int create_cqs(struct ex_endpoint *ep, const struct ex_endpoint_config *cfg)
{
	struct ibv_context *ctx = ep->dev->ctx;

	ep->send_cq = ibv_create_cq(ctx, (int)cfg->send_cqe, NULL, cfg->channel, 0);
	if (!ep->send_cq)
		return fail("ibv_create_cq (send)", errno);
	if (cfg->shared_cq) {
		ep->recv_cq = ep->send_cq;
		return 0;
	}
	if (cfg->recv_cq) {
		ep->recv_cq = cfg->recv_cq;
		return 0;
	}
	ep->owns_recv_cq = true;
	ep->recv_cq = ibv_create_cq(ctx, (int)cfg->recv_cqe, NULL, cfg->channel, 0);
	if (!ep->recv_cq)
		return fail("ibv_create_cq (receive)", errno);
	return 0;
}

static int create_buffer(struct ex_endpoint *ep, const struct ex_endpoint_config *cfg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (cfg->buf_size + page - 1) / page * page;
	void *p;

	if (posix_memalign(&p, page, len))
		return fail("buffer allocation", ENOMEM);
	memset(p, 0, len);
	ep->buf = p;
	ep->buf_size = cfg->buf_size;
	ep->mr = ibv_reg_mr(ep->dev->pd, ep->buf, cfg->buf_size,
			    IBV_ACCESS_LOCAL_WRITE | cfg->access);
	if (!ep->mr)
		return fail("ibv_reg_mr", errno);
	return 0;
}

static int create_qp(struct ex_endpoint *ep, const struct ex_endpoint_config *cfg)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = ep->send_cq,
		.recv_cq = ep->recv_cq,
		.srq = cfg->srq,
		.cap = {
			.max_send_wr = cfg->max_send_wr,
			.max_recv_wr = cfg->srq ? 0 : cfg->max_recv_wr,
			.max_send_sge = cfg->max_send_sge ? cfg->max_send_sge : 1,
			.max_recv_sge = cfg->srq ? 0 :
				(cfg->max_recv_sge ? cfg->max_recv_sge : 1),
			.max_inline_data = cfg->max_inline_data,
		},
		.qp_type = cfg->qp_type,
		.sq_sig_all = 0,
	};

	ep->qp = ibv_create_qp(ep->dev->pd, &attr);
	if (!ep->qp)
		return fail("ibv_create_qp", errno);
	return 0;
}

static int move_to_init(struct ex_endpoint *ep)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = ep->dev->port,
	};
	int mask = IBV_QP_STATE | IBV_QP_PORT;
	int ret;

	switch (ep->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
		attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			(ep->qp_type == IBV_QPT_RC ?
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC : 0);
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPT_UD:
		attr.qkey = EX_UD_QKEY;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_QKEY;
		break;
	default:	/* raw packet: state and port only */
		break;
	}
	ret = ibv_modify_qp(ep->qp, &attr, mask);
	if (ret)
		return fail("ibv_modify_qp (RESET->INIT)", ret);
	return 0;
}

int ex_endpoint_create(struct ex_endpoint *ep, struct ex_device *dev,
		       const struct ex_endpoint_config *cfg)
{
	memset(ep, 0, sizeof(*ep));
	ep->dev = dev;
	ep->qp_type = cfg->qp_type;
	ep->psn = random_psn();
	ep->max_rd_atomic = cfg->max_rd_atomic ? cfg->max_rd_atomic : 1;
	if (ep->max_rd_atomic > dev->attr.max_qp_rd_atom && dev->attr.max_qp_rd_atom > 0)
		ep->max_rd_atomic = (uint8_t)dev->attr.max_qp_rd_atom;
	if (create_cqs(ep, cfg) || create_buffer(ep, cfg) || create_qp(ep, cfg) ||
	    move_to_init(ep)) {
		ex_endpoint_destroy(ep);
		return -1;
	}
	return 0;
}

void ex_endpoint_destroy(struct ex_endpoint *ep)
{
	if (ep->qp)
		ibv_destroy_qp(ep->qp);
	if (ep->mr)
		ibv_dereg_mr(ep->mr);
	free(ep->buf);
	if (ep->recv_cq && ep->owns_recv_cq)
		ibv_destroy_cq(ep->recv_cq);
	if (ep->send_cq)
		ibv_destroy_cq(ep->send_cq);
	memset(ep, 0, sizeof(*ep));
}

void ex_endpoint_local_info(const struct ex_endpoint *ep,
			    struct ex_endpoint_info *info)
{
	memset(info, 0, sizeof(*info));
	info->qpn = ep->qp->qp_num;
	info->psn = ep->psn;
	info->lid = ep->dev->port_attr.lid;
	memcpy(info->gid, ep->dev->gid.raw, 16);
	if (ex_device_is_ethernet(ep->dev))
		(void)ex_device_mac(ep->dev, info->mac);
	info->qkey = ep->qp_type == IBV_QPT_UD ? EX_UD_QKEY : 0;
	info->rkey = ep->mr->rkey;
	info->addr = (uint64_t)(uintptr_t)ep->buf;
	info->length = ep->buf_size;
}

void ex_endpoint_ah_attr(const struct ex_endpoint *ep,
			 const struct ex_endpoint_info *remote,
			 struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = remote->lid;
	ah->port_num = ep->dev->port;
	if (ep->dev->use_grh) {
		ah->is_global = 1;
		memcpy(ah->grh.dgid.raw, remote->gid, 16);
		ah->grh.sgid_index = ep->dev->gid_index;
		ah->grh.hop_limit = 1;
	}
}

static int connect_connected(struct ex_endpoint *ep,
			     const struct ex_endpoint_info *remote)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = ep->dev->port_attr.active_mtu,
		.dest_qp_num = remote->qpn,
		.rq_psn = remote->psn,
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		   IBV_QP_RQ_PSN;
	int ret;

	ex_endpoint_ah_attr(ep, remote, &attr.ah_attr);
	if (ep->qp_type == IBV_QPT_RC) {
		attr.max_dest_rd_atomic = ep->max_rd_atomic;
		attr.min_rnr_timer = RC_MIN_RNR_TIMER;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ret = ibv_modify_qp(ep->qp, &attr, mask);
	if (ret)
		return fail("ibv_modify_qp (INIT->RTR)", ret);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = ep->psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (ep->qp_type == IBV_QPT_RC) {
		attr.timeout = RC_TIMEOUT;
		attr.retry_cnt = RC_RETRY_CNT;
		attr.rnr_retry = RC_RNR_RETRY;
		attr.max_rd_atomic = ep->max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ret = ibv_modify_qp(ep->qp, &attr, mask);
	if (ret)
		return fail("ibv_modify_qp (RTR->RTS)", ret);
	return 0;
}

/* UD and raw packet QPs have no peer in their state: a UD sender
 * addresses each datagram (ibv_create_ah() or mlx4dv_ud_av_from_attr() from
 * ex_endpoint_ah_attr()). */
static int connect_datagram(struct ex_endpoint *ep)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTR };
	int ret;

	ret = ibv_modify_qp(ep->qp, &attr, IBV_QP_STATE);
	if (ret)
		return fail("ibv_modify_qp (INIT->RTR)", ret);
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = ep->psn;
	ret = ibv_modify_qp(ep->qp, &attr, IBV_QP_STATE |
			    (ep->qp_type == IBV_QPT_UD ? IBV_QP_SQ_PSN : 0));
	if (ret)
		return fail("ibv_modify_qp (RTR->RTS)", ret);
	return 0;
}

int ex_endpoint_connect(struct ex_endpoint *ep,
			const struct ex_endpoint_info *remote)
{
	ep->remote = *remote;
	if (ep->qp_type == IBV_QPT_RC || ep->qp_type == IBV_QPT_UC)
		return connect_connected(ep, remote);
	return connect_datagram(ep);
}

int ex_endpoint_connect_pair(struct ex_endpoint *a, struct ex_endpoint *b)
{
	struct ex_endpoint_info a_info, b_info, a_seen_by_b, b_seen_by_a;

	ex_endpoint_local_info(a, &a_info);
	ex_endpoint_local_info(b, &b_info);
	if (ex_endpoint_info_transfer(&a_info, &a_seen_by_b) ||
	    ex_endpoint_info_transfer(&b_info, &b_seen_by_a))
		return -1;
	if (ex_endpoint_connect(a, &b_seen_by_a) ||
	    ex_endpoint_connect(b, &a_seen_by_b))
		return -1;
	return 0;
}
