// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UC and UD through libmlx4: the opcodes each transport has, UC's silent
 * drops (no RNR), UD's 40-byte GRH area, Q_Key filtering and the GRH
 * flag.  Runs on an InfiniBand port and (with --link-layer=eth) on RoCE.
 */
#include "emu_test.h"

#include <string.h>
#include "test_exit.h"

static void test_uc(void **state)
{
	struct emu_env e;
	struct emu_qp a, b;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM
	};

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &a, IBV_QPT_UC, 16, 16, 64, 8192, NULL);
	emu_qp_create(&e, &b, IBV_QPT_UC, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(&e, a.qp, b.qp->qp_num, IBV_ACCESS_REMOTE_WRITE);
	emu_qp_to_rts(&e, b.qp, a.qp->qp_num, IBV_ACCESS_REMOTE_WRITE);

	for (unsigned i = 0; i < 4; i++) {
		uint32_t len = 100 + i * 50;
		bool recv = ops[i] != IBV_WR_RDMA_WRITE;

		memset(b.buf, 0, 8192);
		emu_fill(a.buf, len, i);
		if (recv)
			emu_post_recv(b.qp, 10 + i, b.buf, 4096, b.mr->lkey);
		sge = (struct ibv_sge){ (uintptr_t)a.buf, len, a.mr->lkey };
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 20 + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = ops[i];
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.imm_data = htobe32(0x600d + i);
		wr.wr.rdma.remote_addr = (uintptr_t)b.buf + 4096;
		wr.wr.rdma.rkey = b.mr->rkey;
		assert_int_equal(emu_post_send(a.qp, &wr), 0);
		assert_int_equal(emu_poll_one(a.scq, IBV_WC_SUCCESS).wr_id, 20 + i);
		if (recv) {
			wc = emu_poll_one(b.rcq, IBV_WC_SUCCESS);
			assert_int_equal(wc.wr_id, 10 + i);
			assert_int_equal(wc.byte_len, len);
			if (ops[i] != IBV_WR_SEND)
				assert_int_equal(be32toh(wc.imm_data), 0x600d + i);
		}
		assert_memory_equal(ops[i] == IBV_WR_SEND || ops[i] == IBV_WR_SEND_WITH_IMM ?
				    b.buf : b.buf + 4096, a.buf, len);
	}
	/* no receive posted: UC drops the message, the send still completes */
	assert_int_equal(emu_post_send(a.qp, &wr), 0);
	emu_poll_one(a.scq, IBV_WC_SUCCESS);
	emu_assert_cq_empty(&e, b.rcq);
	emu_qp_destroy(&a);
	emu_qp_destroy(&b);
	emu_env_close(&e);
}

struct ud {
	struct emu_env e;
	struct emu_qp a, b;
	struct ibv_ah *ah;
	bool roce;
};

static int ud_setup(void **state)
{
	struct ud *u = calloc(1, sizeof(*u));
	struct ibv_ah_attr ah;

	emu_env_open(&u->e, 1);
	u->roce = u->e.port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	emu_qp_create(&u->e, &u->a, IBV_QPT_UD, 16, 16, 64, 8192, NULL);
	emu_qp_create(&u->e, &u->b, IBV_QPT_UD, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(&u->e, u->a.qp, 0, 0);
	emu_qp_to_rts(&u->e, u->b.qp, 0, 0);
	memset(&ah, 0, sizeof(ah));
	ah.port_num = 1;
	ah.dlid = u->e.port_attr.lid;
	ah.sl = 3;
	if (u->roce) {
		ah.is_global = 1;
		assert_int_equal(ibv_query_gid(u->e.ctx, 1, 0, &ah.grh.dgid), 0);
		ah.grh.hop_limit = 64;
	}
	u->ah = ibv_create_ah(u->e.pd, &ah);
	assert_non_null(u->ah);
	*state = u;
	return 0;
}

static int ud_teardown(void **state)
{
	struct ud *u = *state;

	assert_int_equal(ibv_destroy_ah(u->ah), 0);
	emu_qp_destroy(&u->a);
	emu_qp_destroy(&u->b);
	emu_env_close(&u->e);
	free(u);
	return 0;
}

static void ud_send(struct ud *u, struct ibv_ah *ah, uint32_t qkey, uint32_t len,
		    enum ibv_wr_opcode op, int inl)
{
	struct ibv_sge sge = { (uintptr_t)u->a.buf, len, u->a.mr->lkey };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	wr.imm_data = htobe32(0xfeed);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = u->b.qp->qp_num;
	wr.wr.ud.remote_qkey = qkey;
	assert_int_equal(emu_post_send(u->a.qp, &wr), 0);
	assert_int_equal(emu_poll_one(u->a.scq, IBV_WC_SUCCESS).wr_id, 77);
}

static void test_ud_send(void **state)
{
	struct ud *u = *state;
	struct ibv_wc wc;

	for (uint32_t len = 0; len <= 1024; len = len * 2 + 1) {
		memset(u->b.buf, 0xcc, 2048);
		emu_fill(u->a.buf, len, len);
		emu_post_recv(u->b.qp, 5, u->b.buf, 2048, u->b.mr->lkey);
		ud_send(u, u->ah, 0x11111111, len, IBV_WR_SEND, len <= 32);
		wc = emu_poll_one(u->b.rcq, IBV_WC_SUCCESS);
		assert_int_equal(wc.byte_len, len + 40);
		assert_int_equal(wc.src_qp, u->a.qp->qp_num);
		assert_int_equal(wc.sl, 3 & (u->roce ? 7 : 15));
		assert_int_equal(!!(wc.wc_flags & IBV_WC_GRH), u->roce);
		if (!u->roce) {
			/* no GRH: the first 40 bytes are left untouched */
			for (int i = 0; i < 40; i++)
				assert_int_equal(u->b.buf[i], 0xcc);
		}
		assert_memory_equal(u->b.buf + 40, u->a.buf, len);
	}
}

static void test_ud_send_imm_and_grh(void **state)
{
	struct ud *u = *state;
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;
	union ibv_gid gid;
	struct ibv_wc wc;

	memset(&attr, 0, sizeof(attr));
	assert_int_equal(ibv_query_gid(u->e.ctx, 1, 0, &gid), 0);
	attr.port_num = 1;
	attr.dlid = u->e.port_attr.lid;
	attr.is_global = 1;
	attr.grh.dgid = gid;
	attr.grh.hop_limit = 9;
	ah = ibv_create_ah(u->e.pd, &attr);
	assert_non_null(ah);
	emu_fill(u->a.buf, 200, 1);
	emu_post_recv(u->b.qp, 6, u->b.buf, 2048, u->b.mr->lkey);
	ud_send(u, ah, 0x11111111, 200, IBV_WR_SEND_WITH_IMM, 0);
	wc = emu_poll_one(u->b.rcq, IBV_WC_SUCCESS);
	assert_true(wc.wc_flags & IBV_WC_GRH);
	assert_true(wc.wc_flags & IBV_WC_WITH_IMM);
	assert_int_equal(be32toh(wc.imm_data), 0xfeed);
	/* GRH: IP version 6, hop limit, destination GID */
	assert_int_equal(u->b.buf[0] >> 4, 6);
	assert_int_equal(u->b.buf[7], 9);
	assert_memory_equal(u->b.buf + 24, gid.raw, 16);
	assert_memory_equal(u->b.buf + 40, u->a.buf, 200);
	assert_int_equal(ibv_destroy_ah(ah), 0);
}

static void test_ud_qkey_mismatch_dropped(void **state)
{
	struct ud *u = *state;

	emu_post_recv(u->b.qp, 7, u->b.buf, 2048, u->b.mr->lkey);
	ud_send(u, u->ah, 0x22222222, 10, IBV_WR_SEND, 0);
	emu_assert_cq_empty(&u->e, u->b.rcq);
	/* a Q_Key with bit 31 set means "use the sender QP's Q_Key" */
	ud_send(u, u->ah, 0x80000000, 10, IBV_WR_SEND, 0);
	assert_int_equal(emu_poll_one(u->b.rcq, IBV_WC_SUCCESS).wr_id, 7);
}

static void test_ud_no_receive_dropped(void **state)
{
	struct ud *u = *state;

	ud_send(u, u->ah, 0x11111111, 10, IBV_WR_SEND, 0);
	emu_assert_cq_empty(&u->e, u->b.rcq);
}

static uint16_t csum16(const uint8_t *p, size_t n, uint32_t acc)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

/* IPoIB: 4-byte encapsulation header (type 0x0800), IPv4, UDP. */
static uint32_t ipoib_udp(uint8_t *m, uint32_t payload)
{
	uint8_t *ip = m + 4, *udp = m + 24;
	uint32_t ulen = 8 + payload;

	memset(m, 0, 24 + ulen);
	m[0] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((20 + ulen) >> 8);
	ip[3] = (uint8_t)(20 + ulen);
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	udp[1] = 7;
	udp[3] = 9;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	emu_fill(udp + 8, payload, 4);
	return 24 + ulen;
}

static void test_ud_ipoib_checksum(void **state)
{
	struct ud *u = *state;
	uint32_t len = ipoib_udp(u->a.buf, 100);
	struct ibv_sge sge = { (uintptr_t)u->a.buf, len, u->a.mr->lkey };
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	uint8_t *ip = u->b.buf + 40 + 4, *udp = u->b.buf + 40 + 24;
	uint32_t acc = 17 + (len - 24);

	if (u->roce)
		t_skip_case("libmlx4 offers UD checksums over InfiniBand only");
	for (int flags = 0; flags < 2; flags++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 8;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED | (flags ? IBV_SEND_IP_CSUM : 0);
		wr.wr.ud.ah = u->ah;
		wr.wr.ud.remote_qpn = u->b.qp->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
		emu_post_recv(u->b.qp, 9, u->b.buf, 2048, u->b.mr->lkey);
		assert_int_equal(emu_post_send(u->a.qp, &wr), 0);
		emu_poll_one(u->a.scq, IBV_WC_SUCCESS);
		wc = emu_poll_one(u->b.rcq, IBV_WC_SUCCESS);
		assert_int_equal(wc.byte_len, len + 40);
		/* zero checksums are wrong unless the device filled them in */
		assert_int_equal(!!(wc.wc_flags & IBV_WC_IP_CSUM_OK), flags);
		if (flags) {
			assert_int_equal(csum16(ip, 20, 0), 0);
			for (int i = 12; i < 20; i += 2)
				acc += (uint32_t)(ip[i] << 8 | ip[i + 1]);
			assert_int_equal(csum16(udp, len - 24, acc), 0);
		}
		/* the payload itself is untouched */
		assert_memory_equal(udp + 8, u->a.buf + 32, 100);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uc),
		cmocka_unit_test_setup_teardown(test_ud_send, ud_setup, ud_teardown),
		cmocka_unit_test_setup_teardown(test_ud_send_imm_and_grh, ud_setup,
						ud_teardown),
		cmocka_unit_test_setup_teardown(test_ud_qkey_mismatch_dropped, ud_setup,
						ud_teardown),
		cmocka_unit_test_setup_teardown(test_ud_no_receive_dropped, ud_setup,
						ud_teardown),
		cmocka_unit_test_setup_teardown(test_ud_ipoib_checksum, ud_setup,
						ud_teardown),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
