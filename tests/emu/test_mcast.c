// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UD multicast on the software ConnectX-3 through libibverbs/libmlx4:
 * attach and detach with the kernel's checks, delivery of one send to
 * every attached QP (GRH in the receive buffer, Q_Key rules, DestQP
 * 0xffffff), a QP attached twice getting one copy, self-loopback and
 * IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, and the QP creation flags a
 * ConnectX-3 takes from user space.  Runs on an InfiniBand port and (with
 * --link-layer=eth) on RoCE.
 */
#include "emu_test.h"

#include <errno.h>
#include "test_exit.h"

#define QKEY 0x11111111u
#define MLID 0xc001
#define MSG 64
#define NRECV 4

struct mc {
	struct emu_env e;
	struct emu_qp s, r[NRECV];	/* sender, receivers */
	union ibv_gid mgid, sgid;
	struct ibv_ah *ah;
	bool roce;
};

static struct ibv_ah *mcast_ah(struct mc *m)
{
	struct ibv_ah_attr ah;

	memset(&ah, 0, sizeof(ah));
	ah.port_num = 1;
	ah.dlid = MLID;
	ah.is_global = 1;
	ah.grh.dgid = m->mgid;
	ah.grh.sgid_index = 0;
	ah.grh.hop_limit = 1;
	return ibv_create_ah(m->e.pd, &ah);
}

static int mc_setup(void **state)
{
	struct mc *m = calloc(1, sizeof(*m));
	static const uint8_t mgid[16] = {
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01
	};

	assert_non_null(m);
	emu_env_open(&m->e, 1);
	m->roce = m->e.port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	memcpy(m->mgid.raw, mgid, 16);
	assert_int_equal(ibv_query_gid(m->e.ctx, 1, 0, &m->sgid), 0);
	emu_qp_create(&m->e, &m->s, IBV_QPT_UD, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(&m->e, m->s.qp, 0, 0);
	for (int i = 0; i < NRECV; i++) {
		emu_qp_create(&m->e, &m->r[i], IBV_QPT_UD, 16, 16, 64, 8192, NULL);
		emu_qp_to_rts(&m->e, m->r[i].qp, 0, 0);
	}
	m->ah = mcast_ah(m);
	assert_non_null(m->ah);
	*state = m;
	return 0;
}

static int mc_teardown(void **state)
{
	struct mc *m = *state;

	/* the kernel destroys no attached QP: detach what a case left */
	(void)ibv_detach_mcast(m->s.qp, &m->mgid, MLID);
	for (int i = 0; i < NRECV; i++)
		(void)ibv_detach_mcast(m->r[i].qp, &m->mgid, MLID);
	assert_int_equal(ibv_destroy_ah(m->ah), 0);
	emu_qp_destroy(&m->s);
	for (int i = 0; i < NRECV; i++)
		emu_qp_destroy(&m->r[i]);
	emu_env_close(&m->e);
	free(m);
	return 0;
}

/* One signaled UD send of MSG bytes (pattern `seed`) from q. */
static void mc_send(struct mc *m, struct emu_qp *q, uint32_t remote_qpn, unsigned seed)
{
	struct ibv_sge sge = { (uintptr_t)q->buf, MSG, q->mr->lkey };
	struct ibv_send_wr wr;

	emu_fill(q->buf, MSG, seed);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = seed;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = m->ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = QKEY;
	assert_int_equal(emu_post_send(q->qp, &wr), 0);
	emu_poll_one(q->scq, IBV_WC_SUCCESS);
}

static void post_recvs(struct emu_qp *q)
{
	/* two receives, so that a duplicate copy would show */
	emu_post_recv(q->qp, 1, q->buf + 4096, 2048, q->mr->lkey);
	emu_post_recv(q->qp, 2, q->buf + 6144, 2048, q->mr->lkey);
}

/* The copy q received: GRH (DGID = MGID, SGID = the port's GID), then the
 * payload; and no second one. */
static void expect_copy(struct mc *m, struct emu_qp *q, uint32_t src_qpn,
			const struct emu_qp *from)
{
	struct ibv_wc wc = emu_poll_one(q->rcq, IBV_WC_SUCCESS);
	const uint8_t *grh = q->buf + 4096;

	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.byte_len, 40 + MSG);
	assert_int_equal(wc.src_qp, src_qpn);
	assert_true(wc.wc_flags & IBV_WC_GRH);
	assert_int_equal(grh[0] >> 4, 6);		/* IP version 6 */
	assert_int_equal(grh[4] << 8 | grh[5], MSG);	/* payload length */
	assert_int_equal(grh[6], 0x1b);			/* next header: BTH */
	assert_memory_equal(grh + 8, m->sgid.raw, 16);
	assert_memory_equal(grh + 24, m->mgid.raw, 16);
	assert_memory_equal(grh + 40, from->buf, MSG);
	emu_assert_cq_empty(&m->e, q->rcq);
}

/* Drains the posted receives of q with a flush, so the next case starts
 * with an empty RQ: a QP to ERR and back to RTS. */
static void reset_rq(struct mc *m, struct emu_qp *q)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[4];

	assert_int_equal(ibv_modify_qp(q->qp, &a, IBV_QP_STATE), 0);
	emu_idle(&m->e);
	while (ibv_poll_cq(q->rcq, 4, wc) > 0)
		;
	a.qp_state = IBV_QPS_RESET;
	assert_int_equal(ibv_modify_qp(q->qp, &a, IBV_QP_STATE), 0);
	emu_qp_to_rts(&m->e, q->qp, 0, 0);
}

static void test_fanout(void **state)
{
	struct mc *m = *state;

	assert_int_equal(ibv_attach_mcast(m->r[0].qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_attach_mcast(m->r[1].qp, &m->mgid, MLID), 0);
	for (int i = 0; i < NRECV; i++)
		post_recvs(&m->r[i]);
	mc_send(m, &m->s, 0xffffff, 11);
	expect_copy(m, &m->r[0], m->s.qp->qp_num, &m->s);
	expect_copy(m, &m->r[1], m->s.qp->qp_num, &m->s);
	/* not attached: nothing */
	emu_assert_cq_empty(&m->e, m->r[2].rcq);
	/* a multicast GID with a DestQP other than 0xffffff reaches nobody */
	reset_rq(m, &m->r[0]);
	reset_rq(m, &m->r[1]);
	post_recvs(&m->r[0]);
	mc_send(m, &m->s, m->r[0].qp->qp_num, 12);
	emu_assert_cq_empty(&m->e, m->r[0].rcq);
	/* detached: nothing; a second detach is EINVAL */
	assert_int_equal(ibv_detach_mcast(m->r[0].qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_detach_mcast(m->r[0].qp, &m->mgid, MLID), EINVAL);
	mc_send(m, &m->s, 0xffffff, 13);
	emu_assert_cq_empty(&m->e, m->r[0].rcq);
	assert_int_equal(ibv_detach_mcast(m->r[1].qp, &m->mgid, MLID), 0);
}

/* Twice the same attachment, or the same group under two MLIDs: one copy.
 * Each attachment is detached on its own. */
static void test_attach_twice(void **state)
{
	struct mc *m = *state;
	struct emu_qp *r = &m->r[0];

	assert_int_equal(ibv_attach_mcast(r->qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_attach_mcast(r->qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_attach_mcast(r->qp, &m->mgid, MLID + 1), 0);
	post_recvs(r);
	mc_send(m, &m->s, 0xffffff, 21);
	expect_copy(m, r, m->s.qp->qp_num, &m->s);
	/* the duplicate was not recorded: one detach removes (gid, MLID) */
	assert_int_equal(ibv_detach_mcast(r->qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_detach_mcast(r->qp, &m->mgid, MLID), EINVAL);
	/* still a member under MLID + 1 */
	mc_send(m, &m->s, 0xffffff, 22);
	assert_int_equal(emu_poll_one(r->rcq, IBV_WC_SUCCESS).wr_id, 2);
	assert_int_equal(ibv_detach_mcast(r->qp, &m->mgid, MLID + 1), 0);
	mc_send(m, &m->s, 0xffffff, 23);
	emu_assert_cq_empty(&m->e, r->rcq);
}

/* A receiver whose Q_Key differs from the datagram's drops it. */
static void test_qkey(void **state)
{
	struct mc *m = *state;
	struct ibv_qp_attr a = { .qkey = 0x22222222 };

	assert_int_equal(ibv_attach_mcast(m->r[0].qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_attach_mcast(m->r[1].qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_modify_qp(m->r[1].qp, &a, IBV_QP_QKEY), 0);
	post_recvs(&m->r[0]);
	post_recvs(&m->r[1]);
	mc_send(m, &m->s, 0xffffff, 31);
	expect_copy(m, &m->r[0], m->s.qp->qp_num, &m->s);
	emu_assert_cq_empty(&m->e, m->r[1].rcq);
}

static struct ibv_qp *create_qp_flags(struct mc *m, enum ibv_qp_type type,
				      uint32_t flags, struct emu_qp *cqs_of)
{
	struct ibv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.qp_type = type;
	a.send_cq = cqs_of->scq;
	a.recv_cq = cqs_of->rcq;
	a.cap.max_send_wr = a.cap.max_recv_wr = 8;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	a.pd = m->e.pd;
	a.create_flags = flags;
	return ibv_create_qp_ex(m->e.ctx, &a);
}

/* The sender attached to its own group gets its datagram back, unless it
 * was created with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB; other attached QPs
 * get theirs either way. */
static void test_self_loopback(void **state)
{
	struct mc *m = *state;
	struct emu_qp b = m->r[3];	/* its CQs, MR and buffer */
	struct ibv_wc wc;

	assert_int_equal(ibv_attach_mcast(m->s.qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_attach_mcast(m->r[0].qp, &m->mgid, MLID), 0);
	post_recvs(&m->s);
	post_recvs(&m->r[0]);
	mc_send(m, &m->s, 0xffffff, 41);
	expect_copy(m, &m->s, m->s.qp->qp_num, &m->s);
	expect_copy(m, &m->r[0], m->s.qp->qp_num, &m->s);

	/* a blocking sender, on r[3]'s CQs and buffer */
	b.qp = create_qp_flags(m, IBV_QPT_UD, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, &m->r[3]);
	assert_non_null(b.qp);
	emu_qp_to_rts(&m->e, b.qp, 0, 0);
	assert_int_equal(ibv_attach_mcast(b.qp, &m->mgid, MLID), 0);
	post_recvs(&b);
	reset_rq(m, &m->r[0]);
	post_recvs(&m->r[0]);
	reset_rq(m, &m->s);
	post_recvs(&m->s);
	mc_send(m, &b, 0xffffff, 42);
	expect_copy(m, &m->r[0], b.qp->qp_num, &b);
	expect_copy(m, &m->s, b.qp->qp_num, &b);
	emu_assert_cq_empty(&m->e, b.rcq);
	/* it still receives what others send */
	mc_send(m, &m->s, 0xffffff, 43);
	wc = emu_poll_one(b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.src_qp, m->s.qp->qp_num);
	assert_int_equal(emu_poll_one(m->r[0].rcq, IBV_WC_SUCCESS).wr_id, 2);
	/* an attached QP cannot be destroyed (uverbs_free_qp: EBUSY) and
	 * stays a member; detached, it can */
	assert_int_equal(ibv_destroy_qp(b.qp), EBUSY);
	post_recvs(&m->r[0]);
	mc_send(m, &m->s, 0xffffff, 44);
	assert_int_equal(emu_poll_one(b.rcq, IBV_WC_SUCCESS).wr_id, 2);
	assert_int_equal(emu_poll_one(m->r[0].rcq, IBV_WC_SUCCESS).wr_id, 1);
	assert_int_equal(ibv_detach_mcast(b.qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_destroy_qp(b.qp), 0);
	mc_send(m, &m->s, 0xffffff, 45);
	assert_int_equal(emu_poll_one(m->r[0].rcq, IBV_WC_SUCCESS).wr_id, 2);
	emu_assert_cq_empty(&m->e, b.rcq);
}

/* A QP of another context of the same adapter is a member like any other. */
static void test_other_context(void **state)
{
	struct mc *m = *state;
	struct emu_env e2;
	struct emu_qp q2;

	emu_env_open(&e2, 1);
	emu_qp_create(&e2, &q2, IBV_QPT_UD, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(&e2, q2.qp, 0, 0);
	assert_int_equal(ibv_attach_mcast(q2.qp, &m->mgid, MLID), 0);
	assert_int_equal(ibv_attach_mcast(m->r[0].qp, &m->mgid, MLID), 0);
	post_recvs(&q2);
	post_recvs(&m->r[0]);
	mc_send(m, &m->s, 0xffffff, 51);
	expect_copy(m, &q2, m->s.qp->qp_num, &m->s);
	expect_copy(m, &m->r[0], m->s.qp->qp_num, &m->s);
	assert_int_equal(ibv_destroy_qp(q2.qp), EBUSY);
	assert_int_equal(ibv_detach_mcast(q2.qp, &m->mgid, MLID), 0);
	emu_qp_destroy(&q2);
	emu_env_close(&e2);
	/* the group lives on without the destroyed member */
	mc_send(m, &m->s, 0xffffff, 52);
	assert_int_equal(emu_poll_one(m->r[0].rcq, IBV_WC_SUCCESS).wr_id, 2);
}

static void test_attach_errors(void **state)
{
	struct mc *m = *state;
	struct emu_qp rc;
	union ibv_gid unicast = m->sgid;
	/* ::ffff:239.1.2.3, an IPv4-mapped multicast GID */
	union ibv_gid v4 = { .raw = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
				      239, 1, 2, 3 } };

	assert_int_equal(ibv_attach_mcast(m->r[0].qp, &unicast, MLID), EINVAL);
	assert_int_equal(ibv_attach_mcast(m->r[0].qp, &v4, MLID), 0);
	assert_int_equal(ibv_detach_mcast(m->r[0].qp, &v4, MLID), 0);
	/* InfiniBand wants a multicast LID; RoCE ignores it */
	assert_int_equal(ibv_attach_mcast(m->r[0].qp, &m->mgid, 0x0001),
			 m->roce ? 0 : EINVAL);
	assert_int_equal(ibv_attach_mcast(m->r[0].qp, &m->mgid, 0xffff),
			 m->roce ? 0 : EINVAL);
	if (m->roce) {
		assert_int_equal(ibv_detach_mcast(m->r[0].qp, &m->mgid, 0x0001), 0);
		assert_int_equal(ibv_detach_mcast(m->r[0].qp, &m->mgid, 0xffff), 0);
	}
	/* only UD QPs */
	emu_qp_create(&m->e, &rc, IBV_QPT_RC, 4, 4, 16, 4096, NULL);
	assert_int_equal(ibv_attach_mcast(rc.qp, &m->mgid, MLID), EINVAL);
	emu_qp_destroy(&rc);
	/* never attached */
	assert_int_equal(ibv_detach_mcast(m->r[1].qp, &m->mgid, MLID), EINVAL);
}

/* mlx4_ib takes IBV_QP_CREATE_BLOCK_SELF_MCAST_LB (any QP type) and
 * refuses every other creation flag libibverbs passes down with EINVAL. */
static void test_create_flags(void **state)
{
	struct mc *m = *state;
	static const uint32_t refused[] = {
		IBV_QP_CREATE_SCATTER_FCS, IBV_QP_CREATE_CVLAN_STRIPPING,
		IBV_QP_CREATE_SOURCE_QPN, IBV_QP_CREATE_PCI_WRITE_END_PADDING,
	};
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	struct ibv_qp *qp;

	for (unsigned t = 0; t < 3; t++) {
		qp = create_qp_flags(m, types[t], IBV_QP_CREATE_BLOCK_SELF_MCAST_LB,
				     &m->r[3]);
		assert_non_null(qp);
		assert_int_equal(ibv_destroy_qp(qp), 0);
		for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			errno = 0;
			qp = create_qp_flags(m, types[t], refused[i], &m->r[3]);
			assert_null(qp);
			assert_int_equal(errno, EINVAL);
		}
	}
}

static void test_device_caps(void **state)
{
	struct mc *m = *state;

	/* mlx4_ib_query_device on a ConnectX-3: num_mgms + num_amgms groups,
	 * num_qp_per_mgm QPs each */
	assert_int_equal(m->e.dev_attr.max_mcast_grp, 8192);
	assert_int_equal(m->e.dev_attr.max_mcast_qp_attach, 248);
	assert_int_equal(m->e.dev_attr.max_total_mcast_qp_attach, 8192 * 248);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fanout, mc_setup, mc_teardown),
		cmocka_unit_test_setup_teardown(test_attach_twice, mc_setup, mc_teardown),
		cmocka_unit_test_setup_teardown(test_qkey, mc_setup, mc_teardown),
		cmocka_unit_test_setup_teardown(test_self_loopback, mc_setup, mc_teardown),
		cmocka_unit_test_setup_teardown(test_other_context, mc_setup, mc_teardown),
		cmocka_unit_test_setup_teardown(test_attach_errors, mc_setup, mc_teardown),
		cmocka_unit_test_setup_teardown(test_create_flags, mc_setup, mc_teardown),
		cmocka_unit_test_setup_teardown(test_device_caps, mc_setup, mc_teardown),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
