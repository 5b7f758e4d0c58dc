// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Raw Ethernet between raw packet QPs on a RoCE port (run with
 * --link-layer=eth): delivery by destination MAC, flow steering rules,
 * checksum offload and receive checksum flags, RSS over receive WQs by
 * Toeplitz hash (checked against the published Microsoft RSS test
 * vectors), and LSO posted by hand.
 */
#include "emu_test.h"
#include "raw_frame.h"

#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/mlx4dv.h>
#include "test_exit.h"
#pragma GCC diagnostic pop

#define ACC IBV_ACCESS_LOCAL_WRITE

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Microsoft "Verifying the RSS Hash Calculation", IPv4 with TCP ports */
static const struct {
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
	uint32_t hash;
} vectors[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024, 0x5c2b394a },
	{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217, 0xafc7327f },
	{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303, 0x10e828a2 },
};

struct raw {
	struct emu_env e;
	struct emu_qp a, b;
	uint8_t mac[6];
	uint32_t received;	/* CQEs on b's receive CQ (rx_cqe_status) */
};

static int setup(void **state)
{
	struct raw *r = calloc(1, sizeof(*r));

	emu_env_open(&r->e, 1);
	if (r->e.port_attr.link_layer != IBV_LINK_LAYER_ETHERNET) {
		print_message("raw packet tests need --link-layer=eth\n");
		return -1;
	}
	raw_port_mac(&r->e, 1, r->mac);
	emu_qp_create(&r->e, &r->a, IBV_QPT_RAW_PACKET, 16, 16, 64, 1 << 16, NULL);
	emu_qp_create(&r->e, &r->b, IBV_QPT_RAW_PACKET, 16, 16, 64, 1 << 16, NULL);
	emu_qp_to_rts(&r->e, r->a.qp, 0, 0);
	emu_qp_to_rts(&r->e, r->b.qp, 0, 0);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct raw *r = *state;

	emu_qp_destroy(&r->a);
	emu_qp_destroy(&r->b);
	emu_env_close(&r->e);
	free(r);
	return 0;
}

static void test_deliver_by_mac(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 0, 0, 1 }, d[4] = { 10, 0, 0, 2 };
	uint8_t other[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	size_t len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 1000, 2000, 17, 100, 1);
	struct ibv_wc wc;

	emu_post_recv(r->b.qp, 3, r->b.buf, 2048, r->b.mr->lkey);
	raw_send(&r->a, len, 0);
	wc = emu_poll_one(r->b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.byte_len, len);
	assert_memory_equal(r->b.buf, r->a.buf, len);
	/* checksums were right: the CQE says so */
	assert_true(wc.wc_flags & IBV_WC_IP_CSUM_OK);
	/* the sender does not hear itself */
	emu_assert_cq_empty(&r->e, r->a.rcq);
	/* another unicast MAC: nobody without a flow rule takes it */
	emu_post_recv(r->b.qp, 4, r->b.buf, 2048, r->b.mr->lkey);
	len = raw_frame_ipv4(r->a.buf, other, s, d, 1, 2, 17, 10, 1);
	raw_send(&r->a, len, 0);
	emu_assert_cq_empty(&r->e, r->b.rcq);
	/* broadcast reaches everyone else */
	len = raw_frame_ipv4(r->a.buf, (const uint8_t *)"\xff\xff\xff\xff\xff\xff", s, d,
			  1, 2, 17, 10, 1);
	raw_send(&r->a, len, 0);
	assert_int_equal(emu_poll_one(r->b.rcq, IBV_WC_SUCCESS).wr_id, 4);
}

static void test_checksum_offload(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 192, 168, 1, 1 }, d[4] = { 192, 168, 1, 2 };
	uint8_t proto[2] = { 17, 6 };
	struct ibv_wc wc;

	for (int i = 0; i < 2; i++) {
		size_t len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 5, 6, proto[i], 333, 0);
		uint8_t *ip = r->b.buf + 14, *l4 = r->b.buf + 34;

		/* no offload: the zero IP checksum is wrong */
		emu_post_recv(r->b.qp, 4, r->b.buf, 2048, r->b.mr->lkey);
		raw_send(&r->a, len, 0);
		wc = emu_poll_one(r->b.rcq, IBV_WC_SUCCESS);
		assert_false(wc.wc_flags & IBV_WC_IP_CSUM_OK);
		/* offload: the device fills both checksums */
		emu_post_recv(r->b.qp, 5, r->b.buf, 2048, r->b.mr->lkey);
		raw_send(&r->a, len, 1);
		wc = emu_poll_one(r->b.rcq, IBV_WC_SUCCESS);
		assert_true(wc.wc_flags & IBV_WC_IP_CSUM_OK);
		assert_int_equal(raw_csum(ip, 20, 0), 0);
		assert_int_equal(raw_l4_csum(ip, l4, len - 34, proto[i]), 0);
		/* the sender's buffer is not modified */
		assert_int_equal(r->a.buf[24] | r->a.buf[25], 0);
	}
}

static void test_flow_rule(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 1, 1, 1, 1 }, d[4] = { 2, 2, 2, 2 };
	static const uint8_t x[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };
	union {
		struct ibv_flow_attr attr;
		uint64_t raw[(sizeof(struct ibv_flow_attr) +
			      sizeof(struct ibv_flow_spec_eth) + 7) / 8];
	} fa;
	struct ibv_flow_spec_eth *eth =
		(struct ibv_flow_spec_eth *)((uint8_t *)&fa + sizeof(struct ibv_flow_attr));
	struct emu_qp c;
	struct ibv_flow *flow;
	size_t len;

	emu_qp_create(&r->e, &c, IBV_QPT_RAW_PACKET, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(&r->e, c.qp, 0, 0);
	memset(&fa, 0, sizeof(fa));
	fa.attr.type = IBV_FLOW_ATTR_NORMAL;
	fa.attr.size = sizeof(struct ibv_flow_attr) + sizeof(struct ibv_flow_spec_eth);
	fa.attr.num_of_specs = 1;
	fa.attr.port = 1;
	eth->type = IBV_FLOW_SPEC_ETH;
	eth->size = sizeof(*eth);
	memcpy(eth->val.dst_mac, x, 6);
	memset(eth->mask.dst_mac, 0xff, 6);
	flow = ibv_create_flow(c.qp, &fa.attr);
	assert_non_null(flow);
	emu_post_recv(c.qp, 1, c.buf, 2048, c.mr->lkey);
	emu_post_recv(r->b.qp, 2, r->b.buf, 2048, r->b.mr->lkey);
	len = raw_frame_ipv4(r->a.buf, x, s, d, 1, 2, 17, 20, 1);
	raw_send(&r->a, len, 0);
	assert_int_equal(emu_poll_one(c.rcq, IBV_WC_SUCCESS).byte_len, len);
	emu_assert_cq_empty(&r->e, r->b.rcq);
	/* the port MAC is not in c's rule */
	len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 1, 2, 17, 20, 1);
	emu_post_recv(c.qp, 3, c.buf, 2048, c.mr->lkey);
	raw_send(&r->a, len, 0);
	assert_int_equal(emu_poll_one(r->b.rcq, IBV_WC_SUCCESS).wr_id, 2);
	emu_assert_cq_empty(&r->e, c.rcq);
	assert_int_equal(ibv_destroy_flow(flow), 0);
	emu_qp_destroy(&c);
}

static void test_rss(void **state)
{
	struct raw *r = *state;
	struct ibv_wq *wq[8];
	struct ibv_cq *cq[8];
	struct ibv_rwq_ind_table *tbl;
	struct ibv_rwq_ind_table_init_attr ta;
	struct ibv_qp_init_attr_ex qa;
	struct ibv_qp *rss;
	struct ibv_qp_attr a;
	uint8_t *rbuf = calloc(8, 4096);
	struct ibv_mr *rmr = ibv_reg_mr(r->e.pd, rbuf, 8 * 4096, ACC);

	assert_non_null(rmr);
	/* an indirection table takes 8 consecutive WQNs, the first aligned */
	assert_int_equal(mlx4dv_set_context_attr(r->e.ctx, MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ,
						 &(uint8_t){ 3 }), 0);
	for (int i = 0; i < 8; i++) {
		struct ibv_wq_init_attr wa;
		struct ibv_wq_attr m = { .attr_mask = IBV_WQ_ATTR_STATE,
					 .wq_state = IBV_WQS_RDY };
		struct ibv_sge s = { (uintptr_t)rbuf + (uint64_t)i * 4096, 4096, rmr->lkey };
		struct ibv_recv_wr rw = { .wr_id = (uint64_t)i, .sg_list = &s,
					  .num_sge = 1 }, *bad;

		cq[i] = ibv_create_cq(r->e.ctx, 16, NULL, NULL, 0);
		memset(&wa, 0, sizeof(wa));
		wa.wq_type = IBV_WQT_RQ;
		wa.max_wr = 4;
		wa.max_sge = 1;
		wa.pd = r->e.pd;
		wa.cq = cq[i];
		wq[i] = ibv_create_wq(r->e.ctx, &wa);
		assert_non_null(wq[i]);
		assert_int_equal(ibv_modify_wq(wq[i], &m), 0);
		assert_int_equal(ibv_post_wq_recv(wq[i], &rw, &bad), 0);
	}
	ta.log_ind_tbl_size = 3;
	ta.ind_tbl = wq;
	ta.comp_mask = 0;
	tbl = ibv_create_rwq_ind_table(r->e.ctx, &ta);
	assert_non_null(tbl);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
		       IBV_QP_INIT_ATTR_IND_TABLE;
	qa.pd = r->e.pd;
	qa.rwq_ind_tbl = tbl;
	qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa.rx_hash_conf.rx_hash_key_len = 40;
	qa.rx_hash_conf.rx_hash_key = (uint8_t *)ms_key;
	qa.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
					      IBV_RX_HASH_SRC_PORT_TCP |
					      IBV_RX_HASH_DST_PORT_TCP;
	rss = ibv_create_qp_ex(r->e.ctx, &qa);
	assert_non_null(rss);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(ibv_modify_qp(rss, &a, IBV_QP_STATE | IBV_QP_PORT), 0);
	a.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(rss, &a, IBV_QP_STATE), 0);

	/* b would also match the port MAC: drain it afterwards */
	for (unsigned v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
		unsigned want = vectors[v].hash & 7;
		size_t len = raw_frame_ipv4(r->a.buf, r->mac, vectors[v].src, vectors[v].dst,
					 vectors[v].sport, vectors[v].dport, 6, 16, 1);
		struct ibv_wc wc;

		raw_send(&r->a, len, 0);
		wc = emu_poll_one(cq[want], IBV_WC_SUCCESS);
		assert_int_equal(wc.byte_len, len);
		assert_int_equal(wc.qp_num, wq[want]->wq_num);
		assert_memory_equal(rbuf + want * 4096, r->a.buf, len);
		for (int i = 0; i < 8; i++) {
			struct ibv_sge s = { (uintptr_t)rbuf + (uint64_t)i * 4096, 4096,
					     rmr->lkey };
			struct ibv_recv_wr rw = { .wr_id = (uint64_t)i, .sg_list = &s,
						  .num_sge = 1 }, *bad;

			if ((unsigned)i == want)
				assert_int_equal(ibv_post_wq_recv(wq[i], &rw, &bad), 0);
			else
				emu_assert_cq_empty(&r->e, cq[i]);
		}
	}
	assert_int_equal(ibv_destroy_qp(rss), 0);
	assert_int_equal(ibv_destroy_rwq_ind_table(tbl), 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(ibv_destroy_wq(wq[i]), 0);
		assert_int_equal(ibv_destroy_cq(cq[i]), 0);
	}
	assert_int_equal(ibv_dereg_mr(rmr), 0);
	free(rbuf);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

/*
 * Posts one LSO WQE by hand on q's send queue: ctrl(16), the LSO segment
 * {mss << 16 | hdr_len, header} padded to 16 bytes, one data segment of
 * payload bytes at addr (lkey).
 */
static void post_lso(struct ibv_qp *qp, const uint8_t *hdr, uint32_t hdr_len,
		     uint32_t mss, const void *addr, uint32_t payload, uint32_t lkey)
{
	struct mlx4dv_qp dq = { 0 };
	struct mlx4dv_obj obj;
	uint32_t n = 0, lso_seg = (4 + hdr_len + 15) & ~15u;
	uint8_t *w;
	uint64_t v;

	memset(&obj, 0, sizeof(obj));
	obj.qp.in = qp;
	obj.qp.out = &dq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	w = (uint8_t *)dq.buf.buf + dq.sq.offset;
	/* the next free slot: the first whose owner bit still says
	 * "software" for its counter on lap 0 */
	while (n < dq.sq.wqe_cnt && !(w[(size_t)n << dq.sq.wqe_shift] & 0x80))
		n++;
	w += (size_t)n << dq.sq.wqe_shift;
	put_be32(w + 16, mss << 16 | hdr_len);
	memcpy(w + 20, hdr, hdr_len);
	put_be32(w + 16 + lso_seg, payload);
	put_be32(w + 16 + lso_seg + 4, lkey);
	v = htobe64((uintptr_t)addr);
	memcpy(w + 16 + lso_seg + 8, &v, 8);
	w[7] = (uint8_t)((16 + lso_seg + 16) / 16);
	put_be32(w + 8, 3 << 2);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	put_be32(w, ((n & dq.sq.wqe_cnt) ? 1u << 31 : 0) | 0x0e);
	*(volatile uint32_t *)dq.sdb = dq.doorbell_qpn;
}

static void test_lso(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 1, 1, 1 }, d[4] = { 10, 1, 1, 2 };
	uint8_t hdr[54];
	const uint32_t mss = 1000, payload = 2500, hdr_len = 54;
	uint32_t seq0;

	/* header template and payload */
	raw_frame_ipv4(hdr, r->mac, s, d, 7000, 80, 6, 0, 0);
	seq0 = 0x01020304;
	put_be32(hdr + 34 + 4, seq0);
	emu_fill(r->a.buf + 4096, payload, 3);
	for (int i = 0; i < 3; i++)
		emu_post_recv(r->b.qp, 10 + (uint64_t)i, r->b.buf + i * 2048, 2048,
			      r->b.mr->lkey);
	post_lso(r->a.qp, hdr, hdr_len, mss, r->a.buf + 4096, payload, r->a.mr->lkey);
	emu_poll_one(r->a.scq, IBV_WC_SUCCESS);
	for (uint32_t i = 0; i < 3; i++) {
		struct ibv_wc wc = emu_poll_one(r->b.rcq, IBV_WC_SUCCESS);
		uint8_t *f = r->b.buf + i * 2048;
		uint32_t n = i < 2 ? mss : payload - 2 * mss;
		uint32_t seq;

		assert_int_equal(wc.byte_len, hdr_len + n);
		assert_true(wc.wc_flags & IBV_WC_IP_CSUM_OK);
		memcpy(&seq, f + 34 + 4, 4);
		assert_int_equal(be32toh(seq), seq0 + i * mss);
		assert_int_equal(f[16] << 8 | f[17], 20 + 20 + n);
		assert_memory_equal(f + hdr_len, r->a.buf + 4096 + i * mss, n);
	}
}

/* One byte more payload than tso_caps.max_tso: a local length error CQE
 * and no segment on the wire (never a silently shortened send). */
static void test_lso_over_max_tso(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 1, 1, 1 }, d[4] = { 10, 1, 1, 2 };
	struct ibv_device_attr_ex attr = { 0 };
	uint8_t hdr[54];
	struct ibv_mr *mr;
	uint8_t *big;
	uint32_t payload;

	assert_int_equal(ibv_query_device_ex(r->e.ctx, NULL, &attr), 0);
	assert_true(attr.tso_caps.max_tso > 0);
	payload = attr.tso_caps.max_tso + 1;
	big = calloc(1, payload);
	assert_non_null(big);
	mr = ibv_reg_mr(r->e.pd, big, payload, ACC);
	assert_non_null(mr);
	raw_frame_ipv4(hdr, r->mac, s, d, 7000, 80, 6, 0, 0);
	emu_post_recv(r->b.qp, 20, r->b.buf, 2048, r->b.mr->lkey);
	post_lso(r->a.qp, hdr, sizeof(hdr), 1000, big, payload, mr->lkey);
	emu_poll_one(r->a.scq, IBV_WC_LOC_LEN_ERR);
	emu_assert_cq_empty(&r->e, r->b.rcq);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	free(big);
}

static void test_vlan_insert(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 2, 2, 1 }, d[4] = { 10, 2, 2, 2 };
	struct mlx4dv_qp dq = { 0 };
	struct mlx4dv_obj obj;
	size_t len;
	uint8_t *w;
	uint32_t n = 0;
	uint64_t v;
	struct ibv_wc wc;

	memset(&obj, 0, sizeof(obj));
	obj.qp.in = r->a.qp;
	obj.qp.out = &dq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	len = raw_frame_ipv4(r->a.buf + 8192, r->mac, s, d, 9, 10, 17, 64, 1);
	emu_post_recv(r->b.qp, 30, r->b.buf, 2048, r->b.mr->lkey);
	w = (uint8_t *)dq.buf.buf + dq.sq.offset;
	while (n < dq.sq.wqe_cnt && !(w[(size_t)n << dq.sq.wqe_shift] & 0x80))
		n++;
	w += (size_t)n << dq.sq.wqe_shift;
	/* ctrl: tag 0x2064 (PCP 1, VID 100), insert an 802.1Q tag */
	w[4] = 0x20;
	w[5] = 0x64;
	w[6] = 0x40;
	w[7] = 2;
	put_be32(w + 8, 3 << 2);
	put_be32(w + 12, 0);
	put_be32(w + 16 + 4, r->a.mr->lkey);
	v = htobe64((uintptr_t)r->a.buf + 8192);
	memcpy(w + 16 + 8, &v, 8);
	put_be32(w + 16, (uint32_t)len);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	put_be32(w, ((n & dq.sq.wqe_cnt) ? 1u << 31 : 0) | 0x0a);
	*(volatile uint32_t *)dq.sdb = dq.doorbell_qpn;
	emu_poll_one(r->a.scq, IBV_WC_SUCCESS);
	wc = emu_poll_one(r->b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.byte_len, len + 4);
	assert_memory_equal(r->b.buf, r->a.buf + 8192, 12);
	assert_int_equal(r->b.buf[12], 0x81);
	assert_int_equal(r->b.buf[13], 0x00);
	assert_int_equal(r->b.buf[14], 0x20);
	assert_int_equal(r->b.buf[15], 0x64);
	assert_memory_equal(r->b.buf + 16, r->a.buf + 8192 + 12, len - 12);
	/* the checksums still verify behind the tag */
	assert_true(wc.wc_flags & IBV_WC_IP_CSUM_OK);
}

/* libmlx4 leaves the doorbell QPN of a BlueFlame post in bytes 4..6 of
 * the ring slot; later posts through the same slot are not tagged. */
static void test_no_vlan_from_blueflame_leftovers(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 3, 3, 1 }, d[4] = { 10, 3, 3, 2 };
	struct emu_qp tx, rx;
	size_t len;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	/* fresh QPs: the others were driven by hand, behind libmlx4's back */
	emu_qp_create(&r->e, &tx, IBV_QPT_RAW_PACKET, 16, 16, 64, 8192, NULL);
	emu_qp_create(&r->e, &rx, IBV_QPT_RAW_PACKET, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(&r->e, tx.qp, 0, 0);
	emu_qp_to_rts(&r->e, rx.qp, 0, 0);
	len = raw_frame_ipv4(tx.buf, r->mac, s, d, 11, 12, 17, 8, 1);
	sge = (struct ibv_sge){ (uintptr_t)tx.buf, (uint32_t)len, tx.mr->lkey };

	for (int i = 0; i < 300; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		/* every third post is a small inline one (BlueFlame if on) */
		wr.send_flags = IBV_SEND_SIGNALED | (i % 3 ? 0 : IBV_SEND_INLINE);
		emu_post_recv(rx.qp, (uint64_t)i, rx.buf, 2048, rx.mr->lkey);
		emu_post_recv(r->b.qp, (uint64_t)i, r->b.buf, 2048, r->b.mr->lkey);
		emu_post_recv(r->a.qp, (uint64_t)i, r->a.buf, 2048, r->a.mr->lkey);
		assert_int_equal(emu_post_send(tx.qp, &wr), 0);
		emu_poll_one(tx.scq, IBV_WC_SUCCESS);
		wc = emu_poll_one(rx.rcq, IBV_WC_SUCCESS);
		assert_int_equal(wc.byte_len, len);
		assert_memory_equal(rx.buf, tx.buf, len);
		/* a and b hear the frame too (port MAC) */
		emu_poll_one(r->a.rcq, IBV_WC_SUCCESS);
		emu_poll_one(r->b.rcq, IBV_WC_SUCCESS);
	}
	emu_qp_destroy(&tx);
	emu_qp_destroy(&rx);
}


/* CQE status bits (big-endian word at byte 16 of the CQE), as DPDK's
 * mlx4_prm.h and the kernel's mlx4/cq.h place them. */
#define ST_L4_OK (1u << 2)
#define ST_IPV6F (1u << 12)
#define ST_IPV4 (1u << 22)
#define ST_IPV4F (1u << 23)
#define ST_IPV6 (1u << 24)
#define ST_IPV4OPT (1u << 25)
#define ST_TCP (1u << 26)
#define ST_UDP (1u << 27)
#define ST_IPOK (1u << 28)
/* ConnectX-3 Pro tunnel bits in the word at byte 0 (above the QPN) */
#define PI_TUNNEL_IPV4 (1u << 25)
#define PI_TUNNEL_L4_OK (1u << 26)
#define PI_TUNNEL (1u << 27)
#define PI_TUNNEL_IPOK (1u << 31)

/* Receives the frame in a.buf on b and returns the CQE's status word and,
 * in *pinfo, its first word's bits above the QPN. */
static uint32_t rx_cqe_status(struct raw *r, size_t len, uint32_t *pinfo)
{
	struct mlx4dv_cq dc = { 0 };
	struct mlx4dv_obj obj = { .cq = { .in = r->b.rcq, .out = &dc } };
	const uint8_t *cqe;
	uint32_t w0, st;
	struct ibv_wc wc;

	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	emu_post_recv(r->b.qp, 9, r->b.buf, 4096, r->b.mr->lkey);
	raw_send(&r->a, len, 0);
	wc = emu_poll_one(r->b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.byte_len, len);
	/* the CQE stays in the ring after the poll: index = CQEs seen - 1 */
	cqe = (const uint8_t *)dc.buf.buf +
	      (size_t)(r->received++ & (dc.cqe_cnt - 1)) * dc.cqe_size;
	if (dc.cqe_size == 64)
		cqe += 32;
	memcpy(&w0, cqe, 4);
	memcpy(&st, cqe + 16, 4);
	w0 = be32toh(w0);
	assert_int_equal(w0 & 0xffffff, r->b.qp->qp_num);
	*pinfo = w0 & 0xff000000u;
	return be32toh(st);
}

#define ST_PARSE_MASK (ST_IPV6F | ST_IPV4 | ST_IPV4F | ST_IPV6 | ST_IPV4OPT | \
		       ST_TCP | ST_UDP | ST_IPOK | ST_L4_OK)

/* Rewrites the IPv4 frame of build_frame as IPv6 (same L4 and payload). */
static size_t to_ipv6(uint8_t *f, size_t len, uint8_t next_header)
{
	uint8_t l4[2048];
	size_t l4len = len - 34;

	memcpy(l4, f + 34, l4len);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(f + 14, 0, 40);
	f[14] = 0x60;
	f[18] = (uint8_t)(l4len >> 8);
	f[19] = (uint8_t)l4len;
	f[20] = next_header;
	f[21] = 64;
	f[22] = 0xfe;
	f[23] = 0x80;
	f[37] = 1;
	f[38] = 0xfe;
	f[39] = 0x80;
	f[53] = 2;
	memcpy(f + 54, l4, l4len);
	return len + 20;
}

static void test_rx_status_bits(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 1, 0, 1 }, d[4] = { 10, 1, 0, 2 };
	uint32_t pinfo;
	size_t len;

	len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 7, 8, 17, 64, 1);
	assert_int_equal(rx_cqe_status(r, len, &pinfo) & ST_PARSE_MASK,
			 ST_IPV4 | ST_UDP | ST_IPOK | ST_L4_OK);
	assert_int_equal(pinfo, 0);
	len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 7, 8, 6, 64, 1);
	assert_int_equal(rx_cqe_status(r, len, &pinfo) & ST_PARSE_MASK,
			 ST_IPV4 | ST_TCP | ST_IPOK | ST_L4_OK);
	/* a bad TCP checksum: parsed, not OK */
	r->a.buf[34 + 16] ^= 0xff;
	assert_int_equal(rx_cqe_status(r, len, &pinfo) & ST_PARSE_MASK,
			 ST_IPV4 | ST_TCP | ST_IPOK);
	/* first fragment (MF): no L4 for the parser */
	len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 7, 8, 17, 64, 0);
	r->a.buf[14 + 6] = 0x20;
	{
		uint16_t c;

		c = raw_csum(r->a.buf + 14, 20, 0);
		r->a.buf[24] = (uint8_t)(c >> 8);
		r->a.buf[25] = (uint8_t)c;
	}
	assert_int_equal(rx_cqe_status(r, len, &pinfo) & ST_PARSE_MASK,
			 ST_IPV4 | ST_IPV4F | ST_IPOK);
	/* IPv6 UDP, and an IPv6 fragment header */
	len = to_ipv6(r->a.buf, raw_frame_ipv4(r->a.buf, r->mac, s, d, 7, 8, 17, 64, 0), 17);
	assert_int_equal(rx_cqe_status(r, len, &pinfo) & (ST_PARSE_MASK & ~ST_L4_OK),
			 ST_IPV6 | ST_UDP);
	len = to_ipv6(r->a.buf, raw_frame_ipv4(r->a.buf, r->mac, s, d, 7, 8, 17, 64, 0), 44);
	assert_int_equal(rx_cqe_status(r, len, &pinfo) & (ST_PARSE_MASK & ~ST_L4_OK),
			 ST_IPV6 | ST_IPV6F);
}

/* IPv4 options: the header grows by 4 bytes of NOP options. */
static void test_rx_status_ipv4_options(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 1, 0, 1 }, d[4] = { 10, 1, 0, 2 };
	size_t len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 7, 8, 17, 64, 0);
	uint8_t *ip = r->a.buf + 14;
	uint32_t pinfo;
	uint16_t c;

	memmove(ip + 24, ip + 20, len - 34);
	memset(ip + 20, 1, 4);
	ip[0] = 0x46;
	ip[3] = (uint8_t)(ip[3] + 4);
	c = raw_csum(ip, 24, 0);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	assert_int_equal(rx_cqe_status(r, len + 4, &pinfo) & (ST_IPV4 | ST_IPV4OPT | ST_UDP | ST_IPOK),
			 ST_IPV4 | ST_IPV4OPT | ST_UDP | ST_IPOK);
}

/*
 * VXLAN (outer IPv4/UDP to port 4789, VXLAN header, inner Ethernet/IPv4/
 * TCP): on a ConnectX-3 Pro the first word carries the tunnel bits for the
 * outer headers and the status word describes the inner ones; a
 * ConnectX-3 describes the outer UDP packet only.
 */
static void test_rx_status_vxlan(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 1, 0, 1 }, d[4] = { 10, 1, 0, 2 };
	uint8_t inner[256];
	size_t ilen = raw_frame_ipv4(inner, r->mac, d, s, 80, 81, 6, 32, 1);
	size_t len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 5000, 4789, 17, 8 + ilen, 0);
	uint8_t *ip = r->a.buf + 14, *udp = r->a.buf + 34;
	uint32_t st, pinfo;
	uint16_t c;

	memset(udp + 8, 0, 8);
	udp[8] = 0x08;	/* VNI valid */
	memcpy(udp + 16, inner, ilen);
	c = raw_csum(ip, 20, 0);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	/* outer UDP checksum 0: not computed, which counts as good */
	st = rx_cqe_status(r, len, &pinfo);
	if (r->e.dev_attr.vendor_part_id == 0x1007) {
		assert_int_equal(pinfo, PI_TUNNEL | PI_TUNNEL_IPV4 | PI_TUNNEL_IPOK |
					PI_TUNNEL_L4_OK);
		assert_int_equal(st & ST_PARSE_MASK, ST_IPV4 | ST_TCP | ST_IPOK | ST_L4_OK);
	} else {
		assert_int_equal(pinfo, 0);
		assert_int_equal(st & ST_PARSE_MASK, ST_IPV4 | ST_UDP | ST_IPOK | ST_L4_OK);
	}
}

/* A frame longer than the receive WQE: a local length error CQE for that
 * WQE, and the queue (raw QP or WQ) goes on with its next WQE. */
static void test_rx_too_long(void **state)
{
	struct raw *r = *state;
	static const uint8_t s[4] = { 10, 0, 0, 1 }, d[4] = { 10, 0, 0, 2 };
	static const uint8_t x[6] = { 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e };
	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = 4, .max_sge = 1,
				       .pd = r->e.pd };
	struct ibv_wq_attr rdy = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = r->e.pd,
		.rx_hash_conf = { .rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				  .rx_hash_key_len = 40, .rx_hash_key = (uint8_t *)ms_key,
				  .rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 },
	};
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} rule = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(rule),
			  .num_of_specs = 1, .port = 1 },
		.eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(rule.eth),
			 .mask.dst_mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_init_attr ia;
	struct ibv_rwq_ind_table *tbl;
	struct ibv_flow *flow;
	struct ibv_wq *wq;
	struct ibv_qp *rss;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	size_t len = raw_frame_ipv4(r->a.buf, r->mac, s, d, 1, 2, 17, 200, 1);

	/* raw QP */
	emu_post_recv(r->b.qp, 10, r->b.buf, 64, r->b.mr->lkey);
	emu_post_recv(r->b.qp, 11, r->b.buf, 2048, r->b.mr->lkey);
	raw_send(&r->a, len, 0);
	wc = emu_poll_one(r->b.rcq, IBV_WC_LOC_LEN_ERR);
	assert_int_equal(wc.wr_id, 10);
	assert_int_equal(ibv_query_qp(r->b.qp, &a, IBV_QP_STATE, &ia), 0);
	assert_int_equal(a.qp_state, IBV_QPS_RTS);
	raw_send(&r->a, len, 0);
	wc = emu_poll_one(r->b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 11);
	assert_int_equal(wc.byte_len, len);
	assert_memory_equal(r->b.buf, r->a.buf, len);

	/* WQ behind an RSS QP */
	cq = ibv_create_cq(r->e.ctx, 8, NULL, NULL, 0);
	wa.cq = cq;
	wq = ibv_create_wq(r->e.ctx, &wa);
	assert_non_null(wq);
	assert_int_equal(ibv_modify_wq(wq, &rdy), 0);
	tbl = ibv_create_rwq_ind_table(r->e.ctx, &(struct ibv_rwq_ind_table_init_attr){
						 .log_ind_tbl_size = 0, .ind_tbl = &wq });
	assert_non_null(tbl);
	qa.rwq_ind_tbl = tbl;
	rss = ibv_create_qp_ex(r->e.ctx, &qa);
	assert_non_null(rss);
	a.qp_state = IBV_QPS_INIT;
	assert_int_equal(ibv_modify_qp(rss, &a, IBV_QP_STATE | IBV_QP_PORT), 0);
	a.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(rss, &a, IBV_QP_STATE), 0);
	memcpy(rule.eth.val.dst_mac, x, 6);
	flow = ibv_create_flow(rss, &rule.attr);
	assert_non_null(flow);
	for (uint64_t i = 0; i < 2; i++) {
		struct ibv_sge sg = { (uintptr_t)r->b.buf, i ? 2048 : 100, r->b.mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 20 + i, .sg_list = &sg, .num_sge = 1 }, *bad;

		assert_int_equal(ibv_post_wq_recv(wq, &rw, &bad), 0);
	}
	len = raw_frame_ipv4(r->a.buf, x, s, d, 1, 2, 17, 200, 1);
	raw_send(&r->a, len, 0);
	assert_int_equal(emu_poll_one(cq, IBV_WC_LOC_LEN_ERR).wr_id, 20);
	raw_send(&r->a, len, 0);
	wc = emu_poll_one(cq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 21);
	assert_int_equal(wc.byte_len, len);
	assert_int_equal(ibv_destroy_flow(flow), 0);
	assert_int_equal(ibv_destroy_qp(rss), 0);
	assert_int_equal(ibv_destroy_rwq_ind_table(tbl), 0);
	assert_int_equal(ibv_destroy_wq(wq), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deliver_by_mac),
		cmocka_unit_test(test_checksum_offload),
		cmocka_unit_test(test_flow_rule),
		cmocka_unit_test(test_rss),
		cmocka_unit_test(test_lso),
		cmocka_unit_test(test_vlan_insert),
		cmocka_unit_test(test_no_vlan_from_blueflame_leftovers),
	};
	/* fresh QPs: the CQE index is counted from the first receive, and
	 * libmlx4's send queue count knows nothing of WQEs posted by hand;
	 * an error CQE leaves the QP in the error state */
	const struct CMUnitTest status_tests[] = {
		cmocka_unit_test_setup_teardown(test_rx_status_bits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_status_ipv4_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_status_vxlan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lso_over_max_tso, setup, teardown),
	};

	t_run_group_tests(tests, setup, teardown);
	t_run_group_tests(status_tests, NULL, NULL);
	return t_exit();
}
