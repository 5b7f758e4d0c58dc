/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Resources of the benchmark: one device context, one PD, one registered
 * area, and per path (verbs, direct) an RC pair and a UD pair of QPs
 * created with the same attributes. The direct lane's QPs get their
 * queue handles from libmlx4dv before anything is posted to them.
 */
#include "bench.h"
#include "rc_connect.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LANE_REGIONS	4u	/* src, dst, rcv, udrcv */
#define LANE_BYTES	((size_t)LANE_REGIONS * BENCH_ROUND * BENCH_SLOT)

void bench_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("mlx4dv_bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static struct ibv_device *pick_device(struct ibv_device **list, int n,
				      const char *want)
{
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (want ? !strcmp(name, want) : !strncmp(name, "mlx4", 4))
			return list[i];
	}
	return NULL;
}

static struct ibv_cq *make_cq(struct bench_env *env)
{
	/* Room for a whole round of completions of one kind, twice. */
	struct ibv_cq *cq = ibv_create_cq(env->ctx, 2 * BENCH_ROUND, NULL, NULL, 0);

	if (!cq)
		bench_die("ibv_create_cq: %s", strerror(errno));
	return cq;
}

static struct ibv_qp *make_qp(struct bench_env *env, struct ibv_cq *cq,
			      enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 2 * BENCH_ROUND,
			/* libmlx4 keeps one receive slot empty: ask for one
			 * more than a round. */
			.max_recv_wr = BENCH_ROUND + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = BENCH_MAX_INLINE,
		},
		.qp_type = type,
		.sq_sig_all = 0,
	};
	struct ibv_qp *qp = ibv_create_qp(env->pd, &attr);

	if (!qp)
		bench_die("ibv_create_qp(type %d): %s", (int)type, strerror(errno));
	return qp;
}

static void fill_ah_attr(const struct bench_env *env, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = env->lid;
	ah->port_num = env->port;
	if (env->ethernet) {
		ah->is_global = 1;
		ah->grh.dgid = env->gid;
		ah->grh.sgid_index = 0;
		ah->grh.hop_limit = 64;
	}
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		   const char *step)
{
	int err = ibv_modify_qp(qp, attr, mask);

	if (err)
		bench_die("ibv_modify_qp(%s, QPN 0x%x): %s", step, qp->qp_num,
			  strerror(err));
}

static void connect_rc(struct bench_env *env, struct ibv_qp *qp, uint32_t peer)
{
	struct bench_rc_path path = {
		.mtu = env->mtu,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ,
	};
	const char *step;
	int err;

	fill_ah_attr(env, &path.ah);
	err = bench_rc_connect(qp, peer, &path, &step);
	if (err)
		bench_die("ibv_modify_qp(%s, QPN 0x%x): %s", step, qp->qp_num,
			  strerror(err));
}

static void ready_ud(struct bench_env *env, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = env->port,
		.qkey = BENCH_QKEY,
	};

	modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_QKEY, "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	modify(qp, &a, IBV_QP_STATE, "RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");
}

static void make_pair(struct bench_env *env, struct bench_pair *p,
		      enum ibv_qp_type type)
{
	for (int i = 0; i < 2; i++) {
		p->cq[i] = make_cq(env);
		p->qp[i] = make_qp(env, p->cq[i], type);
	}
	if (type == IBV_QPT_RC) {
		connect_rc(env, p->qp[0], p->qp[1]->qp_num);
		connect_rc(env, p->qp[1], p->qp[0]->qp_num);
	} else {
		struct ibv_ah_attr ah;

		ready_ud(env, p->qp[0]);
		ready_ud(env, p->qp[1]);
		fill_ah_attr(env, &ah);
		p->ah = ibv_create_ah(env->pd, &ah);
		if (!p->ah)
			bench_die("ibv_create_ah: %s", strerror(errno));
	}
}

static void take_rings(struct bench_pair *p)
{
	for (int i = 0; i < 2; i++) {
		int err = mlx4dv_qp_rings_init(&p->rings[i], p->qp[i],
					       MLX4DV_RING_INIT_WRID |
					       MLX4DV_RING_INIT_BLUEFLAME);

		if (err)
			bench_die("mlx4dv_qp_rings_init(QPN 0x%x): %s",
				  p->qp[i]->qp_num, strerror(err));
	}
}

static void make_lane(struct bench_env *env, enum bench_path path)
{
	struct bench_lane *l = &env->lane[path];
	uint8_t *base = env->area + (size_t)path * LANE_BYTES;
	const size_t region = (size_t)BENCH_ROUND * BENCH_SLOT;

	l->path = path;
	l->src = base;
	l->dst = base + region;
	l->rcv = base + 2 * region;
	l->udrcv = base + 3 * region;
	l->lkey = env->mr->lkey;
	l->rkey = env->mr->rkey;
	l->stamp = (uint64_t)(path + 1) << 56;
	l->rx_flags = env->ethernet ? MLX4DV_CQE_RX_ETHERNET : 0;
	make_pair(env, &l->rc, IBV_QPT_RC);
	make_pair(env, &l->ud, IBV_QPT_UD);
	l->ud_qpn = l->ud.qp[1]->qp_num;
	if (path == BENCH_DIRECT) {
		take_rings(&l->rc);
		take_rings(&l->ud);
	}
}

int bench_env_open(struct bench_env *env, const char *dev_name)
{
	struct ibv_device **list;
	struct ibv_device *dev;
	struct ibv_port_attr pa;
	int n = 0;

	memset(env, 0, sizeof(*env));
	list = ibv_get_device_list(&n);
	if (!list || !n) {
		fprintf(stderr, "mlx4dv_bench: no RDMA device (run it under mlx4emu-run)\n");
		if (list)
			ibv_free_device_list(list);
		return -1;
	}
	dev = pick_device(list, n, dev_name);
	if (!dev) {
		fprintf(stderr, "mlx4dv_bench: no device %s\n", dev_name ? dev_name : "mlx4*");
		ibv_free_device_list(list);
		return -1;
	}
	env->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!env->ctx)
		bench_die("ibv_open_device: %s", strerror(errno));
	env->port = 1;
	if (ibv_query_port(env->ctx, env->port, &pa))
		bench_die("ibv_query_port: %s", strerror(errno));
	env->lid = pa.lid;
	env->mtu = pa.active_mtu;
	env->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (env->ethernet && ibv_query_gid(env->ctx, env->port, 0, &env->gid))
		bench_die("ibv_query_gid: %s", strerror(errno));
	env->pd = ibv_alloc_pd(env->ctx);
	if (!env->pd)
		bench_die("ibv_alloc_pd: %s", strerror(errno));
	env->area_len = BENCH_NPATHS * LANE_BYTES;
	env->area = aligned_alloc(4096, env->area_len);
	if (!env->area)
		bench_die("out of memory");
	memset(env->area, 0, env->area_len);
	env->mr = ibv_reg_mr(env->pd, env->area, env->area_len,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ);
	if (!env->mr)
		bench_die("ibv_reg_mr: %s", strerror(errno));
	make_lane(env, BENCH_VERBS);
	make_lane(env, BENCH_DIRECT);
	return 0;
}

static void free_pair(struct bench_pair *p, bool direct)
{
	if (p->ah)
		ibv_destroy_ah(p->ah);
	for (int i = 0; i < 2; i++) {
		if (direct)
			mlx4dv_qp_rings_release(&p->rings[i]);
		if (p->qp[i])
			ibv_destroy_qp(p->qp[i]);
		if (p->cq[i])
			ibv_destroy_cq(p->cq[i]);
	}
}

void bench_env_close(struct bench_env *env)
{
	for (int path = 0; path < BENCH_NPATHS; path++) {
		free_pair(&env->lane[path].rc, path == BENCH_DIRECT);
		free_pair(&env->lane[path].ud, path == BENCH_DIRECT);
		free(env->lane[path].verbs);
		free(env->lane[path].direct);
	}
	if (env->mr)
		ibv_dereg_mr(env->mr);
	free(env->area);
	if (env->pd)
		ibv_dealloc_pd(env->pd);
	if (env->ctx)
		ibv_close_device(env->ctx);
}
