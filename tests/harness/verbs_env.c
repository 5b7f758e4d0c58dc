// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The tests' verbs environment (see verbs_env.h). */
#define _GNU_SOURCE
#include "verbs_env.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ibv_context *vx_device_open(const char *name, int index)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "ibv_get_device_list: %s\n", strerror(errno));
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		if (name ? strcmp(ibv_get_device_name(list[i]), name) != 0 : i != index)
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			fprintf(stderr, "ibv_open_device %s: %s\n",
				ibv_get_device_name(list[i]), strerror(errno));
		ibv_free_device_list(list);
		return ctx;
	}
	ibv_free_device_list(list);
	if (name)
		fprintf(stderr, "no RDMA device %s (run under mlx4emu-run)\n", name);
	else
		fprintf(stderr, "no RDMA device #%d (run under mlx4emu-run)\n", index);
	errno = ENODEV;
	return NULL;
}

static int errno_or(int fallback)
{
	return errno ? errno : fallback;
}

int vx_env_open(struct vx_env *e, const char *name, int index, uint8_t port)
{
	int ret;

	memset(e, 0, sizeof(*e));
	e->port = port;
	errno = 0;
	e->ctx = vx_device_open(name, index);
	if (!e->ctx)
		return errno_or(ENODEV);
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd) {
		ret = errno_or(ENOMEM);
		fprintf(stderr, "ibv_alloc_pd: %s\n", strerror(ret));
		goto close;
	}
	ret = ibv_query_port(e->ctx, port, &e->port_attr);
	if (ret == 0)
		ret = ibv_query_gid(e->ctx, port, 0, &e->gid);
	if (ret == 0)
		return 0;
	ret = ret > 0 ? ret : errno_or(EIO);
	fprintf(stderr, "port %u of %s: %s\n", port,
		ibv_get_device_name(e->ctx->device), strerror(ret));
	ibv_dealloc_pd(e->pd);
close:
	ibv_close_device(e->ctx);
	memset(e, 0, sizeof(*e));
	return ret;
}

int vx_env_close(struct vx_env *e)
{
	int ret = e->pd ? ibv_dealloc_pd(e->pd) : 0;
	int closed = e->ctx ? ibv_close_device(e->ctx) : 0;

	memset(e, 0, sizeof(*e));
	if (ret == 0 && closed != 0)
		ret = errno_or(EIO);
	return ret;
}

struct ibv_qp *vx_qp_create(struct ibv_pd *pd, enum ibv_qp_type type,
			    struct ibv_cq *send_cq, struct ibv_cq *recv_cq,
			    struct ibv_srq *srq, const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = type;
	a.send_cq = send_cq;
	a.recv_cq = recv_cq;
	a.srq = srq;
	a.cap = *cap;
	return ibv_create_qp(pd, &a);
}

void vx_qp_attrs_default(struct vx_qp_attrs *a, uint8_t port)
{
	memset(a, 0, sizeof(*a));
	a->port = port;
	a->qkey = VX_QKEY;
	a->access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	a->path_mtu = IBV_MTU_1024;
	a->ah.port_num = port;
	a->max_dest_rd_atomic = 4;
	a->min_rnr_timer = 1;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->max_rd_atomic = 4;
}

int vx_loopback_ah(struct ibv_context *ctx, uint8_t port, struct ibv_ah_attr *ah)
{
	struct ibv_port_attr pa;
	int ret = ibv_query_port(ctx, port, &pa);

	memset(ah, 0, sizeof(*ah));
	ah->port_num = port;
	if (ret == 0 && pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		ah->is_global = 1;
		ah->grh.hop_limit = 1;
		ret = ibv_query_gid(ctx, port, 0, &ah->grh.dgid);
	}
	if (ret) {
		fprintf(stderr, "port %u of %s: %s\n", port,
			ibv_get_device_name(ctx->device), strerror(ret > 0 ? ret : EIO));
		return ret > 0 ? ret : EIO;
	}
	ah->dlid = pa.lid;
	return 0;
}

void vx_peer_ah(struct ibv_ah_attr *ah, uint8_t port, uint16_t dlid,
		int sgid_index, const uint8_t dgid[16])
{
	memset(ah, 0, sizeof(*ah));
	ah->port_num = port;
	ah->dlid = dlid;
	if (sgid_index < 0)
		return;
	ah->is_global = 1;
	ah->grh.hop_limit = 1;
	ah->grh.sgid_index = (uint8_t)sgid_index;
	memcpy(ah->grh.dgid.raw, dgid, 16);
}

/* The attribute masks of one QP type, by target state. */
struct transition_masks {
	int init, rtr, rts;
};

#define MASK_PATH (IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define MASK_RESPONDER (IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define MASK_REQUESTER (IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
			IBV_QP_MAX_QP_RD_ATOMIC)
#define MASK_CONNECTED_INIT (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)

static int masks_of(enum ibv_qp_type type, struct transition_masks *m)
{
	switch (type) {
	case IBV_QPT_RAW_PACKET:
		*m = (struct transition_masks){ IBV_QP_PORT, 0, 0 };
		return 0;
	case IBV_QPT_UD:
		*m = (struct transition_masks){
			IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0, IBV_QP_SQ_PSN };
		return 0;
	case IBV_QPT_UC:
		*m = (struct transition_masks){ MASK_CONNECTED_INIT, MASK_PATH,
						IBV_QP_SQ_PSN };
		return 0;
	case IBV_QPT_RC:
		*m = (struct transition_masks){ MASK_CONNECTED_INIT,
						MASK_PATH | MASK_RESPONDER,
						IBV_QP_SQ_PSN | MASK_REQUESTER };
		return 0;
	case IBV_QPT_XRC_SEND:
		*m = (struct transition_masks){ MASK_CONNECTED_INIT, MASK_PATH,
						IBV_QP_SQ_PSN | MASK_REQUESTER };
		return 0;
	case IBV_QPT_XRC_RECV:
		*m = (struct transition_masks){ MASK_CONNECTED_INIT,
						MASK_PATH | MASK_RESPONDER,
						IBV_QP_SQ_PSN | IBV_QP_TIMEOUT };
		return 0;
	default:
		return EINVAL;
	}
}

static void fill_modify_attr(const struct vx_qp_attrs *a, struct ibv_qp_attr *m)
{
	memset(m, 0, sizeof(*m));
	m->port_num = a->port;
	m->qkey = a->qkey;
	m->qp_access_flags = a->access;
	m->path_mtu = a->path_mtu;
	m->dest_qp_num = a->dest_qpn;
	m->rq_psn = a->rq_psn;
	m->sq_psn = a->sq_psn;
	m->ah_attr = a->ah;
	m->max_dest_rd_atomic = a->max_dest_rd_atomic;
	m->min_rnr_timer = a->min_rnr_timer;
	m->timeout = a->timeout;
	m->retry_cnt = a->retry_cnt;
	m->rnr_retry = a->rnr_retry;
	m->max_rd_atomic = a->max_rd_atomic;
}

static int modify_to(struct ibv_qp *qp, struct ibv_qp_attr *m,
		     enum ibv_qp_state state, int mask, const char *name)
{
	int ret;

	m->qp_state = state;
	ret = ibv_modify_qp(qp, m, IBV_QP_STATE | mask);
	if (ret)
		fprintf(stderr, "QP 0x%06x to %s: %s\n", qp->qp_num, name,
			strerror(ret > 0 ? ret : EINVAL));
	return ret > 0 ? ret : ret ? EINVAL : 0;
}

int vx_qp_to_rts(struct ibv_qp *qp, const struct vx_qp_attrs *a)
{
	struct transition_masks masks;
	struct ibv_qp_attr m;
	int ret = masks_of(qp->qp_type, &masks);

	if (ret) {
		fprintf(stderr, "QP 0x%06x: no transitions known for QP type %d\n",
			qp->qp_num, (int)qp->qp_type);
		return ret;
	}
	fill_modify_attr(a, &m);
	ret = modify_to(qp, &m, IBV_QPS_INIT, masks.init, "INIT");
	if (ret == 0)
		ret = modify_to(qp, &m, IBV_QPS_RTR, masks.rtr, "RTR");
	if (ret == 0)
		ret = modify_to(qp, &m, IBV_QPS_RTS, masks.rts, "RTS");
	return ret;
}

int vx_qp_to_rts_loopback(struct ibv_context *ctx, struct ibv_qp *qp,
			  const struct vx_qp_attrs *a)
{
	struct vx_qp_attrs here = *a;
	int ret = vx_loopback_ah(ctx, a->port, &here.ah);

	return ret ? ret : vx_qp_to_rts(qp, &here);
}

static uint64_t monotonic_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

int vx_cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, unsigned ms)
{
	uint64_t end = monotonic_ms() + ms;

	for (;;) {
		int r = ibv_poll_cq(cq, 1, wc);

		if (r)
			return r;
		if (monotonic_ms() > end)
			return 0;
		usleep(1000);
	}
}

int vx_post_recv_slots(struct ibv_qp *qp, void *base, uint32_t slot_bytes, unsigned count,
		       uint32_t lkey)
{
	for (unsigned i = 0; i < count; i++) {
		struct ibv_sge sge = { (uintptr_t)base + (uintptr_t)i * slot_bytes, slot_bytes, lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;
		int err = ibv_post_recv(qp, &wr, &bad);

		if (err) {
			fprintf(stderr, "ibv_post_recv of WQE %u: %s\n", i, strerror(err));
			return err;
		}
	}
	return 0;
}

int vx_child_exit_status(pid_t child)
{
	int status;

	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	int err = ibv_query_gid(ctx, port, index, gid);

	if (err)
		fprintf(stderr, "ibv_query_gid port %u index %d: %s\n", port, index,
			strerror(err < 0 ? -err : err));
	return err < 0 ? -err : err;
}

int vx_port_ipv4(struct ibv_context *ctx, uint8_t port, uint32_t *addr)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int err = ibv_query_port(ctx, port, &pa);

	if (err) {
		fprintf(stderr, "ibv_query_port %u: %s\n", port, strerror(err));
		return err;
	}
	err = query_gid(ctx, port, pa.link_layer == IBV_LINK_LAYER_ETHERNET, &gid);
	if (err)
		return err;
	*addr = (uint32_t)gid.raw[12] << 24 | (uint32_t)gid.raw[13] << 16 |
		(uint32_t)gid.raw[14] << 8 | gid.raw[15];
	return 0;
}

int vx_port_mac(struct ibv_context *ctx, uint8_t port, uint8_t mac[6])
{
	union ibv_gid gid;
	int err = query_gid(ctx, port, 0, &gid);

	if (err)
		return err;
	/* the EUI-64's universal/local bit flipped back, ff:fe dropped */
	mac[0] = gid.raw[8] ^ 2;
	mac[1] = gid.raw[9];
	mac[2] = gid.raw[10];
	mac[3] = gid.raw[13];
	mac[4] = gid.raw[14];
	mac[5] = gid.raw[15];
	return 0;
}

struct ibv_flow *vx_flow_dst_mac(struct ibv_qp *qp, uint8_t port, const uint8_t mac[6])
{
	/* the spec right after the attribute, as libibverbs reads it */
	union {
		struct ibv_flow_attr attr;
		uint8_t bytes[sizeof(struct ibv_flow_attr) + sizeof(struct ibv_flow_spec_eth)];
	} r;
	struct ibv_flow_spec_eth eth;
	struct ibv_flow *flow;

	memset(&r, 0, sizeof(r));
	memset(&eth, 0, sizeof(eth));
	r.attr.type = IBV_FLOW_ATTR_NORMAL;
	r.attr.size = sizeof(r.bytes);
	r.attr.num_of_specs = 1;
	r.attr.port = port;
	eth.type = IBV_FLOW_SPEC_ETH;
	eth.size = sizeof(eth);
	memcpy(eth.val.dst_mac, mac, 6);
	memset(eth.mask.dst_mac, 0xff, 6);
	memcpy(r.bytes + sizeof(r.attr), &eth, sizeof(eth));
	flow = ibv_create_flow(qp, &r.attr);
	if (!flow)
		fprintf(stderr, "ibv_create_flow QPN 0x%06x: %s\n", qp->qp_num, strerror(errno));
	return flow;
}
