// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UD destinations from libmlx4's own output: mlx4dv_ud_av_from_ah() of an
 * AH built by ibv_create_ah(), and mlx4dv_pd_number(). The address vector
 * is checked field by field against the attributes (PRM AV layout:
 * port_pd = port << 24 | PD number, g_slid = GRH bit 7 | path bits,
 * dlid, SL in bits 28..31 of sl_tclass_flowlabel with traffic class and
 * flow label, rate + 5, GID index, hop limit, dgid), against
 * mlx4dv_ud_av_init() given the PD number, and by a UD SEND through the
 * handle to a UD QP on the software device.
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "verbs_env.h"
#include "test_exit.h"

enum { QKEY = 0x11111111, MSG = 32, SPIN_LIMIT = 20000000 };

static uint32_t be32_at(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/* Attributes that light every AV field, for this port. */
static void rich_attr(const struct unit_dev *d, struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->port_num = d->port;
	a->sl = d->link_layer == IBV_LINK_LAYER_ETHERNET ? 5 : 11;
	a->src_path_bits = 3;
	a->static_rate = IBV_RATE_10_GBPS;
	a->dlid = d->lid;
	a->is_global = 1;
	a->grh.dgid = d->gid;
	a->grh.sgid_index = 0;
	a->grh.hop_limit = 7;
	a->grh.traffic_class = 0x2a;
	a->grh.flow_label = 0x12345;
}

/* On an Ethernet port: mlx4dv_ud_av_init() given the PD number and the
 * MAC and VLAN that ibv_resolve_eth_l2_from_gid() resolves for attr (as
 * libmlx4 resolves them on a port with IP-based GIDs) builds libmlx4's
 * destination byte for byte. */
static void expect_eth_av_matches(const struct unit_dev *d, uint32_t pdn,
				  struct ibv_ah_attr *attr,
				  const struct mlx4dv_ud_av *libmlx4)
{
	struct ibv_port_attr port;
	struct mlx4dv_ud_av_eth eth;
	struct mlx4dv_ud_av by_hand;

	assert_int_equal(ibv_query_port(d->ctx, d->port, &port), 0);
	assert_true(port.port_cap_flags & IBV_PORT_IP_BASED_GIDS);
	assert_int_equal(ibv_resolve_eth_l2_from_gid(d->ctx, attr, eth.mac,
						     &eth.vlan_id), 0);
	memset(&by_hand, 0x5a, sizeof(by_hand));
	assert_int_equal(mlx4dv_ud_av_init(&by_hand, pdn, attr, &eth), 0);
	assert_memory_equal(&by_hand, libmlx4, sizeof(by_hand));
}

/*
 * A multicast destination, libmlx4's AV against mlx4dv_ud_av_init()'s
 * byte for byte. On an Ethernet port (IP-based GIDs) libmlx4 gives a
 * multicast DGID no bit of its own: dlid 0, port_pd without bit 31, the
 * MAC 33:33 + the DGID's low 32 bits. On InfiniBand the MLID is the
 * caller's dlid.
 */
static void multicast_av(void **state)
{
	static const uint8_t mgid[16] = { 0xff, 0x0e, 0, 0, 0, 0, 0, 0,
					  0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78 };
	static const uint8_t mac[6] = { 0x33, 0x33, 0x12, 0x34, 0x56, 0x78 };
	struct unit_dev *d = unit_dev_open();
	struct mlx4dv_ud_av av, by_hand;
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;
	uint32_t pdn = 0;

	(void)state;
	assert_non_null(d);
	rich_attr(d, &attr);
	memcpy(attr.grh.dgid.raw, mgid, 16);
	attr.dlid = 0xc001;
	ah = ibv_create_ah(d->pd, &attr);
	assert_non_null(ah);
	memset(&av, 0xcc, sizeof(av));
	assert_int_equal(mlx4dv_ud_av_from_ah(&av, ah), 0);
	assert_int_equal(mlx4dv_pd_number(d->pd, &pdn), 0);
	assert_int_equal(be32_at(&av.av.port_pd), (uint32_t)d->port << 24 | pdn);
	if (d->link_layer == IBV_LINK_LAYER_ETHERNET) {
		assert_int_equal(av.av.dlid, 0);
		assert_memory_equal(av.mac, mac, 6);
		assert_int_equal(av.vlan, 0);
		expect_eth_av_matches(d, pdn, &attr, &av);
	} else {
		assert_int_equal(be32_at(&av.av.dlid) >> 16, 0xc001);
		assert_int_equal(mlx4dv_ud_av_init(&by_hand, pdn, &attr, NULL), 0);
		assert_memory_equal(&by_hand, &av, sizeof(av));
	}
	assert_int_equal(ibv_destroy_ah(ah), 0);
	unit_dev_close(d);
}

static void av_fields(void **state)
{
	struct unit_dev *d = unit_dev_open();
	struct mlx4dv_ud_av av, by_hand;
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;
	uint32_t pdn = 0, sl_word;
	int eth;

	(void)state;
	assert_non_null(d);
	eth = d->link_layer == IBV_LINK_LAYER_ETHERNET;
	rich_attr(d, &attr);
	ah = ibv_create_ah(d->pd, &attr);
	assert_non_null(ah);
	memset(&av, 0xcc, sizeof(av));
	assert_int_equal(mlx4dv_ud_av_from_ah(&av, ah), 0);
	assert_int_equal(mlx4dv_pd_number(d->pd, &pdn), 0);
	assert_true(pdn <= 0xffffff);
	assert_int_equal(mlx4dv_ud_av_pdn(&av), pdn);
	assert_int_equal(be32_at(&av.av.port_pd) >> 24 & 0x1f, d->port);
	assert_int_equal(av.av.g_slid & 0x80, 0x80);
	assert_int_equal(av.av.stat_rate, IBV_RATE_10_GBPS + 5);
	assert_int_equal(av.av.hop_limit, 7);
	assert_int_equal(av.av.gid_index, 0);
	assert_memory_equal(av.av.dgid, d->gid.raw, 16);
	sl_word = be32_at(&av.av.sl_tclass_flowlabel);
	assert_int_equal(sl_word & 0xfffff, 0x12345);
	assert_int_equal(sl_word >> 20 & 0xff, 0x2a);
	if (!eth) {
		assert_int_equal(sl_word >> 28, 11);
		assert_int_equal(av.av.g_slid & 0x7f, 3);
		assert_int_equal(be32_at(&av.av.dlid) >> 16, d->lid);
		/* the header's own builder, given the PD number, agrees */
		assert_int_equal(mlx4dv_ud_av_init(&by_hand, pdn, &attr, NULL), 0);
		assert_memory_equal(&by_hand, &av, sizeof(av));
	} else {
		assert_int_equal(sl_word >> 29, 5);
		expect_eth_av_matches(d, pdn, &attr, &av);
	}
	/* refusals leave the output alone */
	memcpy(&by_hand, &av, sizeof(av));
	assert_int_equal(mlx4dv_ud_av_from_ah(&av, NULL), EINVAL);
	assert_int_equal(mlx4dv_ud_av_from_ah(NULL, ah), EINVAL);
	assert_int_equal(mlx4dv_pd_number(NULL, &pdn), EINVAL);
	assert_int_equal(mlx4dv_pd_number(d->pd, NULL), EINVAL);
	assert_memory_equal(&by_hand, &av, sizeof(av));
	assert_int_equal(ibv_destroy_ah(ah), 0);
	unit_dev_close(d);
}

/* Two PDs, two numbers, each the one its AHs carry. */
static void pd_numbers_differ(void **state)
{
	struct unit_dev *d = unit_dev_open();
	struct ibv_pd *other;
	uint32_t a = 0, b = 0;

	(void)state;
	assert_non_null(d);
	other = ibv_alloc_pd(d->ctx);
	assert_non_null(other);
	assert_int_equal(mlx4dv_pd_number(d->pd, &a), 0);
	assert_int_equal(mlx4dv_pd_number(other, &b), 0);
	assert_int_not_equal(a, b);
	assert_int_equal(ibv_dealloc_pd(other), 0);
	unit_dev_close(d);
}

/* What the MLX4DV_DEBUG checks read, as libmlx4dv fills it: a UD SQ
 * handle knows its QP's PD number (an RC one leaves it unknown); the
 * receive CQ of a QP with its own RQ names that QP, the one of a QP on
 * an SRQ names nothing. */
static void handles_know_pd_and_rq(void **state)
{
	struct unit_dev *d = unit_dev_open();
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct mlx4dv_qp_rings ud, on_srq, rc;
	struct ibv_srq_init_attr sa;
	struct ibv_qp *qud, *qsrq, *qrc;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	uint32_t pdn = 0;

	(void)state;
	assert_non_null(d);
	cq = ibv_create_cq(d->ctx, 15, NULL, NULL, 0);
	assert_non_null(cq);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 8;
	sa.attr.max_sge = 1;
	srq = ibv_create_srq(d->pd, &sa);
	assert_non_null(srq);
	qud = unit_qp_create(d, IBV_QPT_UD, cq, cq, NULL, &cap);
	qsrq = unit_qp_create(d, IBV_QPT_UD, cq, cq, srq, &cap);
	qrc = unit_qp_create(d, IBV_QPT_RC, cq, cq, NULL, &cap);
	assert_non_null(qud);
	assert_non_null(qsrq);
	assert_non_null(qrc);
	assert_int_equal(mlx4dv_pd_query_pdn(d->pd, &pdn), 0);

	assert_int_equal(mlx4dv_qp_rings_init(&ud, qud, 0), 0);
	assert_true(ud.sq.flags & MLX4DV_SQ_RING_PDN);
	assert_int_equal(ud.sq.pdn, pdn);
	assert_int_equal(ud.recv_cq.recv_from, MLX4DV_CQ_RECV_RQ | qud->qp_num);
	assert_int_equal(ud.send_cq.recv_from, MLX4DV_CQ_RECV_RQ | qud->qp_num);

	assert_int_equal(mlx4dv_qp_rings_init(&on_srq, qsrq, 0), 0);
	assert_int_equal(on_srq.sq.pdn, pdn);
	assert_int_equal(on_srq.recv_cq.recv_from, 0);

	assert_int_equal(mlx4dv_qp_rings_init(&rc, qrc, 0), 0);
	assert_false(rc.sq.flags & MLX4DV_SQ_RING_PDN);
	assert_int_equal(rc.recv_cq.recv_from, MLX4DV_CQ_RECV_RQ | qrc->qp_num);

	mlx4dv_qp_rings_release(&rc);
	mlx4dv_qp_rings_release(&on_srq);
	mlx4dv_qp_rings_release(&ud);
	assert_int_equal(ibv_destroy_qp(qrc), 0);
	assert_int_equal(ibv_destroy_qp(qsrq), 0);
	assert_int_equal(ibv_destroy_qp(qud), 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	unit_dev_close(d);
}

static void ud_to_rts(struct ibv_qp *qp, uint8_t port)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, port);
	a.qkey = QKEY;
	assert_int_equal(vx_qp_to_rts(qp, &a), 0);
}

/* A UD SEND through the handle with the AH's destination arrives. */
static void ud_send_with_av_from_ah(void **state)
{
	struct unit_dev *d = unit_dev_open();
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct mlx4dv_qp_rings tx, rx;
	struct ibv_qp *qtx, *qrx;
	struct ibv_cq *cq[2];
	struct ibv_ah_attr attr;
	struct mlx4dv_ud_av av;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t *mem = calloc(1, 4096);
	uint64_t wr_id = 0;
	uint32_t len = 0;
	int ret = EAGAIN;

	(void)state;
	assert_non_null(d);
	assert_non_null(mem);
	mr = ibv_reg_mr(d->pd, mem, 4096, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	for (int i = 0; i < 2; i++) {
		cq[i] = ibv_create_cq(d->ctx, 15, NULL, NULL, 0);
		assert_non_null(cq[i]);
	}
	qtx = unit_qp_create(d, IBV_QPT_UD, cq[0], cq[0], NULL, &cap);
	qrx = unit_qp_create(d, IBV_QPT_UD, cq[1], cq[1], NULL, &cap);
	assert_non_null(qtx);
	assert_non_null(qrx);
	assert_int_equal(mlx4dv_qp_rings_init(&tx, qtx, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_qp_rings_init(&rx, qrx, MLX4DV_RING_INIT_WRID), 0);
	ud_to_rts(qtx, d->port);
	ud_to_rts(qrx, d->port);
	rich_attr(d, &attr);
	ah = ibv_create_ah(d->pd, &attr);
	assert_non_null(ah);
	assert_int_equal(mlx4dv_ud_av_from_ah(&av, ah), 0);

	for (int i = 0; i < MSG; i++)
		mem[i] = (uint8_t)(0x40 + i);
	{
		struct ibv_sge dst = { (uintptr_t)(mem + 1024), 40 + MSG, mr->lkey };
		struct ibv_sge src = { (uintptr_t)mem, MSG, mr->lkey };

		assert_int_equal(mlx4dv_rq_post(&rx.rq, 9, &dst, 1), 0);
		assert_int_equal(mlx4dv_sq_write_ud_send(&tx.sq, 0, &av, qrx->qp_num, QKEY,
			&src, 1, IBV_SEND_SIGNALED), 0);
		mlx4dv_sq_ring_doorbell(&tx.sq);
	}
	for (long n = 0; n < SPIN_LIMIT && ret == EAGAIN; n++) {
		ret = mlx4dv_cq_poll_recv(&rx.recv_cq, &rx.rq, &wr_id, &len, NULL);
		if (ret == EAGAIN)
			sched_yield();
	}
	assert_int_equal(ret, 0);
	assert_int_equal(wr_id, 9);
	assert_int_equal(len, 40 + MSG);	/* the GRH room, then the data */
	assert_memory_equal(mem + 1024 + 40, mem, MSG);
	mlx4dv_cq_update_ci(&rx.recv_cq);

	assert_int_equal(ibv_destroy_ah(ah), 0);
	mlx4dv_qp_rings_release(&tx);
	mlx4dv_qp_rings_release(&rx);
	assert_int_equal(ibv_destroy_qp(qtx), 0);
	assert_int_equal(ibv_destroy_qp(qrx), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(ibv_destroy_cq(cq[i]), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	free(mem);
	unit_dev_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(av_fields),
		cmocka_unit_test(pd_numbers_differ),
		cmocka_unit_test(handles_know_pd_and_rq),
		cmocka_unit_test(multicast_av),
		cmocka_unit_test(ud_send_with_av_from_ah),
	};

	t_run_group_tests_name("unit_ud_av", tests, NULL, NULL);
	return t_exit();
}
