/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Differential test of every post form and segment kind libmlx4 can post,
 * against libmlx4 itself, on the software ConnectX-3 (mlx4emu-run
 * --no-bf: libmlx4 then writes every WQE to the ring, without the
 * BlueFlame-only QPN and counter words).
 *
 * QP A gets each request through ibv_post_send() (ibv_bind_mw() for a
 * type 1 window), QP B the same request through one of this header's
 * typed one-call posts (mlx4dv_sq_write_send/_inline/_imm/_inv/_write/
 * _read/_cas/_faa/_ud_send/_eth...) or mlx4dv_sq_write_send_wr() for the
 * kinds that have no typed post (bind, local invalidate); B's handle comes
 * from mlx4dv_qp_rings_init(). After every pair both whole SQ rings, WQEs
 * and stamps, must be byte-identical. UD destinations are built by
 * mlx4dv_ud_av_init() from the same ibv_ah_attr libmlx4's address handle
 * got: with a GRH on InfiniBand, and on RoCE (Ethernet port) with the
 * MAC and VLAN libmlx4 resolved; their 32-byte address vectors must equal
 * libmlx4's too.
 *
 * The device is paused for the whole test: the ring is only written by
 * the two posting paths, so nothing the device does can blur the
 * comparison.
 *
 * Argument: rc | uc | ud | raw (ud on an Ethernet port is RoCE; raw needs
 * an Ethernet port).
 *
 * Not here, because libmlx4 (rdma-core 44.0) has no post for them: LSO,
 * VLAN insertion and masked atomics; the golden tests of
 * test_send_segments.c and test_send_posts.c and the device tests cover
 * them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "test_exit.h"

enum { MEM = 1 << 16, REMOTE_OFF = 32768, SEND_WR = 256, MAX_SGE = 4,
       MAX_INLINE = 220 };

static enum ibv_qp_type g_type = IBV_QPT_RC;

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct mlx4dv_qp_rings rb;	/* B's handle */
	uint8_t *ring_a;		/* A's SQ ring */
	size_t ring_bytes;
	uint8_t *mem;
	struct ibv_mr *mr;
	struct mlx4emu_ctl ctl;
	struct ibv_port_attr port;
	struct ibv_mw *mw[2];		/* type 1, type 2 */
	unsigned pairs;
};

static struct ibv_qp *make_qp(struct env *e)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp_attr m;
	struct ibv_qp *qp;
	int mask = IBV_QP_STATE | IBV_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.send_cq = e->cq;
	a.recv_cq = e->cq;
	a.qp_type = g_type;
	a.cap.max_send_wr = SEND_WR;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = MAX_SGE;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = MAX_INLINE;
	qp = ibv_create_qp(e->pd, &a);
	assert_non_null(qp);
	/* INIT: libmlx4 stamps the ring on RESET->INIT */
	memset(&m, 0, sizeof(m));
	m.qp_state = IBV_QPS_INIT;
	m.port_num = 1;
	if (g_type == IBV_QPT_UD) {
		m.qkey = 0x11111111;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_QKEY;
	} else if (g_type != IBV_QPT_RAW_PACKET) {
		m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS;
	}
	assert_int_equal(ibv_modify_qp(qp, &m, mask), 0);
	return qp;
}

static int setup(void **state)
{
	static struct env env;
	struct env *e = &env;
	struct ibv_device **list;
	struct mlx4dv_obj obj;
	struct mlx4dv_qp dq;
	int n = 0;

	memset(e, 0, sizeof(*e));
	if (mlx4emu_ctl_load(&e->ctl))
		fail_msg("the software ConnectX-3 is not loaded: run under mlx4emu-run");
	list = ibv_get_device_list(&n);
	assert_non_null(list);
	assert_true(n >= 1);
	e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	assert_non_null(e->ctx);
	assert_int_equal(ibv_query_port(e->ctx, 1, &e->port), 0);
	if (g_type == IBV_QPT_RAW_PACKET &&
	    e->port.link_layer != IBV_LINK_LAYER_ETHERNET)
		fail_msg("raw packet QPs need an Ethernet port (--link-layer=eth)");
	e->pd = ibv_alloc_pd(e->ctx);
	assert_non_null(e->pd);
	e->cq = ibv_create_cq(e->ctx, 4 * SEND_WR, NULL, NULL, 0);
	assert_non_null(e->cq);
	e->mem = aligned_alloc(4096, MEM);
	assert_non_null(e->mem);
	for (size_t i = 0; i < MEM; i++)
		e->mem[i] = (uint8_t)(i * 7 + (i >> 8));
	e->mr = ibv_reg_mr(e->pd, e->mem, MEM, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	assert_non_null(e->mr);
	e->a = make_qp(e);
	e->b = make_qp(e);

	memset(&obj, 0, sizeof(obj));
	memset(&dq, 0, sizeof(dq));
	obj.qp.in = e->a;
	obj.qp.out = &dq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	e->ring_a = (uint8_t *)dq.buf.buf + dq.sq.offset;
	e->ring_bytes = (size_t)dq.sq.wqe_cnt << dq.sq.wqe_shift;
	assert_int_equal(mlx4dv_qp_rings_init(&e->rb, e->b, 0), 0);
	assert_int_equal((size_t)e->rb.sq.wqe_cnt << e->rb.sq.wqe_shift,
			 e->ring_bytes);
	/* both rings as libmlx4 left them at INIT */
	assert_memory_equal(e->ring_a, e->rb.sq.buf, e->ring_bytes);
	assert_int_equal(e->ctl.pause(), 0);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	if (!e)
		return 0;
	print_message("%u request pairs compared\n", e->pairs);
	e->ctl.resume();
	mlx4dv_qp_rings_release(&e->rb);
	ibv_destroy_qp(e->a);
	ibv_destroy_qp(e->b);
	for (int i = 0; i < 2; i++)
		if (e->mw[i])
			ibv_dealloc_mw(e->mw[i]);
	ibv_destroy_cq(e->cq);
	ibv_dereg_mr(e->mr);
	ibv_dealloc_pd(e->pd);
	ibv_close_device(e->ctx);
	free(e->mem);
	return 0;
}

/* The two rings must be equal; on a difference, the first WQEBB that
 * differs is dumped from both. */
static void compare_rings(struct env *e, const char *what)
{
	size_t stride = (size_t)1 << e->rb.sq.wqe_shift;

	e->pairs++;
	for (size_t off = 0; off < e->ring_bytes; off += stride) {
		if (!memcmp(e->ring_a + off, e->rb.sq.buf + off, stride))
			continue;
		print_error("%s: WQEBB %zu differs (libmlx4 / header):\n", what,
			    off / stride);
		for (size_t i = 0; i < stride && i < 128; i += 16) {
			char la[64], lb[64];

			for (int k = 0; k < 16; k++) {
				snprintf(la + 3 * k, 4, "%02x ", e->ring_a[off + i + k]);
				snprintf(lb + 3 * k, 4, "%02x ", e->rb.sq.buf[off + i + k]);
			}
			print_error("  +%03zu %s| %s\n", i, la, lb);
		}
		fail_msg("%s: the rings differ", what);
	}
}

static void post_a(struct env *e, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;

	assert_int_equal(ibv_post_send(e->a, wr, &bad), 0);
}

/* Gather entries of lengths len[0..n) from distinct places of mem. */
static void make_sges(struct env *e, struct ibv_sge *sg, const uint32_t *len,
		      int n)
{
	for (int i = 0; i < n; i++) {
		sg[i].addr = (uintptr_t)(e->mem + 1000 * (uint32_t)i + 3);
		sg[i].length = len[i];
		sg[i].lkey = e->mr->lkey;
	}
}

/* wr zeroed but for its gather list sg[0..n) and send_flags; the caller
 * sets the opcode and what it needs. */
static void gather_wr(struct ibv_send_wr *wr, struct ibv_sge *sg, int n, uint32_t flags)
{
	memset(wr, 0, sizeof(*wr));
	wr->sg_list = sg;
	wr->num_sge = n;
	wr->send_flags = flags;
}

static const uint32_t send_flag_sets[] = {
	0,
	IBV_SEND_SIGNALED,
	IBV_SEND_SIGNALED | IBV_SEND_SOLICITED,
	IBV_SEND_FENCE | IBV_SEND_SOLICITED,
};

/* Gather lists: none, one, four with an empty one. */
static const struct { int n; uint32_t len[MAX_SGE]; } gathers[] = {
	{ 0, { 0 } }, { 1, { 100 } }, { 4, { 17, 0, 300, 8 } },
};

/* Inline sizes around the 64-byte chunk edges the inline split follows. */
static const uint32_t inline_sizes[] = { 1, 44, 45, 60, 108, 109, MAX_INLINE };

/* The connected sends, writes and reads, gathered and inline. */
static void test_connected_typed(void **state)
{
	struct env *e = *state;
	struct mlx4dv_sq_ring *sq = &e->rb.sq;
	const int rc = g_type == IBV_QPT_RC;
	const uint64_t raddr = (uintptr_t)(e->mem + REMOTE_OFF);
	const uint32_t rkey = e->mr->rkey;
	const __be32 imm = mlx4dv_cpu_to_be32(0x12345678);
	const uint32_t inv_rkey = 0xa1b2c3d4;

	for (size_t f = 0; f < sizeof(send_flag_sets) / sizeof(send_flag_sets[0]); f++) {
		uint32_t flags = send_flag_sets[f];

		for (size_t g = 0; g < sizeof(gathers) / sizeof(gathers[0]); g++) {
			struct ibv_sge sg[MAX_SGE];
			struct ibv_send_wr wr;
			int n = gathers[g].n;

			make_sges(e, sg, gathers[g].len, n);
			gather_wr(&wr, sg, n, flags);

			wr.opcode = IBV_WR_SEND;
			post_a(e, &wr);
			assert_int_equal(mlx4dv_sq_write_send(sq, 0, sg, (uint32_t)n, flags), 0);
			compare_rings(e, "post_send");

			wr.opcode = IBV_WR_SEND_WITH_IMM;
			wr.imm_data = imm;
			post_a(e, &wr);
			assert_int_equal(mlx4dv_sq_write_send_imm(sq, 0, sg, (uint32_t)n, flags, imm), 0);
			compare_rings(e, "post_send_imm");

			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = raddr;
			wr.wr.rdma.rkey = rkey;
			post_a(e, &wr);
			assert_int_equal(mlx4dv_sq_write_rdma_write(sq, 0, rkey, raddr, sg, (uint32_t)n, flags), 0);
			compare_rings(e, "post_write");

			wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			post_a(e, &wr);
			assert_int_equal(mlx4dv_sq_write_rdma_write_imm(sq, 0, rkey, raddr, sg, (uint32_t)n, flags, imm), 0);
			compare_rings(e, "post_write_imm");

			if (!rc)
				continue;
			wr.opcode = IBV_WR_SEND_WITH_INV;
			wr.invalidate_rkey = inv_rkey;
			post_a(e, &wr);
			assert_int_equal(mlx4dv_sq_write_send_inv(sq, 0, sg, (uint32_t)n, flags, inv_rkey), 0);
			compare_rings(e, "post_send_inv");

			wr.opcode = IBV_WR_RDMA_READ;
			post_a(e, &wr);
			assert_int_equal(mlx4dv_sq_write_rdma_read(sq, 0, rkey, raddr, sg, (uint32_t)n, flags), 0);
			compare_rings(e, "post_read");
		}
	}
}

static void test_connected_inline(void **state)
{
	struct env *e = *state;
	struct mlx4dv_sq_ring *sq = &e->rb.sq;
	const uint64_t raddr = (uintptr_t)(e->mem + REMOTE_OFF + 64);
	const uint32_t rkey = e->mr->rkey;
	const __be32 imm = mlx4dv_cpu_to_be32(0x9abcdef0);

	for (size_t i = 0; i < sizeof(inline_sizes) / sizeof(inline_sizes[0]); i++) {
		uint32_t len = inline_sizes[i];
		uint32_t flags = IBV_SEND_INLINE | send_flag_sets[i % 4];
		const void *data = e->mem + 5 + i;
		struct ibv_sge sg = { (uintptr_t)data, len, e->mr->lkey };
		struct ibv_send_wr wr;

		gather_wr(&wr, &sg, 1, flags);
		wr.opcode = IBV_WR_SEND;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_send_inline(sq, 0, data, len, flags), 0);
		compare_rings(e, "post_send_inline");

		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = imm;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_send_imm_inline(sq, 0, data, len, flags, imm), 0);
		compare_rings(e, "post_send_imm_inline");

		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_rdma_write_inline(sq, 0, rkey, raddr, data, len, flags), 0);
		compare_rings(e, "post_write_inline");

		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_rdma_write_imm_inline(sq, 0, rkey, raddr, data, len, flags, imm), 0);
		compare_rings(e, "post_write_imm_inline");

		if (g_type != IBV_QPT_RC)
			continue;
		wr.opcode = IBV_WR_SEND_WITH_INV;
		wr.invalidate_rkey = 0x0badcafe;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_send_inv_inline(sq, 0, data, len, flags, 0x0badcafe), 0);
		compare_rings(e, "post_send_inv_inline");
	}
}

static void test_atomics(void **state)
{
	struct env *e = *state;
	struct mlx4dv_sq_ring *sq = &e->rb.sq;
	const uint64_t raddr = (uintptr_t)(e->mem + REMOTE_OFF + 8);
	struct ibv_sge res = { (uintptr_t)(e->mem + 16), 8, e->mr->lkey };
	struct ibv_send_wr wr;

	for (size_t f = 0; f < 4; f++) {
		uint32_t flags = send_flag_sets[f];

		gather_wr(&wr, &res, 1, flags);
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = e->mr->rkey;
		/* compare and swap with distinct bytes: a swapped pair shows */
		wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.compare_add = 0x0102030405060708ull;
		wr.wr.atomic.swap = 0x1112131415161718ull;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_cas(sq, 0, e->mr->rkey, raddr, 0x0102030405060708ull,
						    0x1112131415161718ull,
						    &res, flags), 0);
		compare_rings(e, "post_cas");

		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.compare_add = 0x2122232425262728ull;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_faa(sq, 0, e->mr->rkey, raddr, 0x2122232425262728ull,
						    &res, flags), 0);
		compare_rings(e, "post_faa");
	}
}

/* Local invalidate, and binds of type 2 windows through ibv_post_send and
 * of type 1 windows through ibv_bind_mw: each access bit, type 2 and zero
 * based each on its own. */
static void test_bind_and_invalidate(void **state)
{
	static const unsigned accesses[] = {
		0,
		IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_ATOMIC,
	};
	struct env *e = *state;
	struct mlx4dv_sq_ring *sq = &e->rb.sq;
	struct ibv_mw *mw1, *mw2;

	/* freed at teardown, after the device has run the binds */
	mw1 = e->mw[0] = ibv_alloc_mw(e->pd, IBV_MW_TYPE_1);
	mw2 = e->mw[1] = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	assert_non_null(mw1);
	assert_non_null(mw2);
	for (size_t i = 0; i < sizeof(accesses) / sizeof(accesses[0]); i++) {
		uint32_t flags = send_flag_sets[i % 4];
		struct ibv_send_wr wr;
		struct ibv_mw_bind mb;

		/* local invalidate of an rkey with distinct bytes */
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_LOCAL_INV;
		wr.send_flags = flags;
		wr.invalidate_rkey = 0x31323334u + (uint32_t)i;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_send_wr(sq, &wr, NULL), 0);
		compare_rings(e, "local invalidate");

		/* type 2 */
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = flags;
		wr.bind_mw.mw = mw2;
		wr.bind_mw.rkey = ibv_inc_rkey(mw2->rkey) + (uint32_t)(i << 8);
		wr.bind_mw.bind_info.mr = e->mr;
		wr.bind_mw.bind_info.addr = (uintptr_t)(e->mem + 0x1234);
		wr.bind_mw.bind_info.length = 0x5678 + i;
		wr.bind_mw.bind_info.mw_access_flags = accesses[i];
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_send_wr(sq, &wr, NULL), 0);
		compare_rings(e, "bind type 2");

		/* type 1, as libmlx4's ibv_bind_mw builds it: the next rkey of
		 * the window, the caller's flags */
		memset(&mb, 0, sizeof(mb));
		mb.wr_id = i;
		mb.send_flags = flags;
		mb.bind_info = wr.bind_mw.bind_info;
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = flags;
		wr.bind_mw.mw = mw1;
		wr.bind_mw.rkey = ibv_inc_rkey(mw1->rkey);
		wr.bind_mw.bind_info = mb.bind_info;
		assert_int_equal(ibv_bind_mw(e->a, mw1, &mb), 0);
		assert_int_equal(mlx4dv_sq_write_send_wr(sq, &wr, NULL), 0);
		compare_rings(e, "bind type 1");
	}
}

/* libmlx4's AV, which it keeps private: rdma-core 44.0's struct mlx4_ah
 * is struct ibv_ah, the 32-byte AV, then vlan (host order) and mac. */
static const uint8_t *libmlx4_av(const struct ibv_ah *ah)
{
	return (const uint8_t *)ah + sizeof(struct ibv_ah);
}

/* The destination the header builds for attr, checked against libmlx4's
 * address handle for the same attr. */
static void ud_dest(struct env *e, struct ibv_ah *ah,
		    const struct ibv_ah_attr *attr, struct mlx4dv_ud_av *av)
{
	const uint8_t *mah = libmlx4_av(ah);
	struct mlx4dv_ud_av_eth eth;
	__be32 port_pd;
	uint16_t vlan;
	uint32_t pdn;

	memcpy(&port_pd, mah, 4);
	pdn = mlx4dv_be32_to_cpu(port_pd) & 0xffffff;
	memcpy(&vlan, mah + 32, 2);
	if (e->port.link_layer == IBV_LINK_LAYER_ETHERNET) {
		/* the MAC and VLAN libmlx4 resolved from the GID */
		memcpy(eth.mac, mah + 34, 6);
		eth.vlan_id = mlx4dv_be32_to_cpu(port_pd) & (1u << 29) ?
			(uint16_t)(vlan & 0xfff) : 0xffff;
		assert_int_equal(mlx4dv_ud_av_init(av, pdn, attr, &eth), 0);
		/* without a VLAN libmlx4 leaves its vlan as malloc gave it
		 * (the device ignores it then): take its bytes */
		if (eth.vlan_id == 0xffff)
			av->vlan = mlx4dv_cpu_to_be16(vlan);
	} else {
		assert_int_equal(mlx4dv_ud_av_init(av, pdn, attr, NULL), 0);
		/* libmlx4 leaves vlan and mac of an InfiniBand AH as malloc
		 * gave them and copies them into every WQE: take its bytes */
		av->vlan = mlx4dv_cpu_to_be16(vlan);
		memcpy(av->mac, mah + 34, 6);
	}
	assert_memory_equal(&av->av, mah, 32);
}

static void ud_pairs(struct env *e, struct ibv_ah *ah,
		     const struct mlx4dv_ud_av *av, const char *what)
{
	struct mlx4dv_sq_ring *sq = &e->rb.sq;
	const uint32_t qpn = 0x00abcdef, qkey = 0x80010203;

	for (size_t g = 0; g < sizeof(gathers) / sizeof(gathers[0]); g++) {
		struct ibv_sge sg[MAX_SGE];
		struct ibv_send_wr wr;
		uint32_t flags = send_flag_sets[g % 4];
		int n = gathers[g].n;

		make_sges(e, sg, gathers[g].len, n);
		gather_wr(&wr, sg, n, flags);
		wr.opcode = IBV_WR_SEND;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qpn;
		wr.wr.ud.remote_qkey = qkey;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_ud_send(sq, 0, av, qpn, qkey, sg,
							(uint32_t)n, flags), 0);
		compare_rings(e, what);

		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = mlx4dv_cpu_to_be32(0xfedcba98);
		/* libmlx4 offers UD checksum offload over InfiniBand only */
		if (g == 1 && e->port.link_layer != IBV_LINK_LAYER_ETHERNET)
			wr.send_flags |= IBV_SEND_IP_CSUM;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_send_wr(sq, &wr, av), 0);
		compare_rings(e, what);
	}
	for (size_t i = 0; i < sizeof(inline_sizes) / sizeof(inline_sizes[0]); i++) {
		uint32_t len = inline_sizes[i] > 160 ? 160 : inline_sizes[i];
		uint32_t flags = IBV_SEND_INLINE | send_flag_sets[i % 4];
		const void *data = e->mem + 77 + i;
		struct ibv_sge sg = { (uintptr_t)data, len, e->mr->lkey };
		struct ibv_send_wr wr;

		gather_wr(&wr, &sg, 1, flags);
		wr.opcode = IBV_WR_SEND;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qpn;
		wr.wr.ud.remote_qkey = qkey;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_ud_send_inline(sq, 0, av, qpn, qkey,
							       data, len, flags), 0);
		compare_rings(e, what);
	}
}

static void test_ud(void **state)
{
	struct env *e = *state;
	int eth = e->port.link_layer == IBV_LINK_LAYER_ETHERNET;
	struct ibv_ah_attr attr;
	struct mlx4dv_ud_av av;
	struct ibv_ah *ah;

	/* GRH with every field distinct: sl 5, path bits 0x3, rate 40 Gb/s
	 * (7), gid index 0, hop limit 0x40, class 0xa5, flow label 0x12345 */
	memset(&attr, 0, sizeof(attr));
	attr.dlid = eth ? 0 : 0x1234;
	attr.sl = 5;
	attr.src_path_bits = eth ? 0 : 3;
	attr.static_rate = IBV_RATE_40_GBPS;
	attr.port_num = 1;
	attr.is_global = 1;
	attr.grh.sgid_index = 0;
	attr.grh.hop_limit = 0x40;
	attr.grh.traffic_class = 0xa5;
	attr.grh.flow_label = 0x12345;
	assert_int_equal(ibv_query_gid(e->ctx, 1, 0, &attr.grh.dgid), 0);
	ah = ibv_create_ah(e->pd, &attr);
	assert_non_null(ah);
	ud_dest(e, ah, &attr, &av);
	ud_pairs(e, ah, &av, eth ? "RoCE UD" : "UD with GRH");
	ibv_destroy_ah(ah);

	if (eth)
		return;
	/* InfiniBand without a GRH, sl 0xf (all four bits) */
	memset(&attr, 0, sizeof(attr));
	attr.dlid = 0xbeef;
	attr.sl = 0xf;
	attr.src_path_bits = 0x7f;
	attr.port_num = 1;
	ah = ibv_create_ah(e->pd, &attr);
	assert_non_null(ah);
	ud_dest(e, ah, &attr, &av);
	ud_pairs(e, ah, &av, "UD without GRH");
	ibv_destroy_ah(ah);
}

static void test_raw(void **state)
{
	struct env *e = *state;
	struct mlx4dv_sq_ring *sq = &e->rb.sq;

	for (size_t g = 1; g < sizeof(gathers) / sizeof(gathers[0]); g++) {
		struct ibv_sge sg[MAX_SGE];
		struct ibv_send_wr wr;
		uint32_t flags = send_flag_sets[g % 4];
		uint32_t len[MAX_SGE];
		int n = gathers[g].n;

		/* the first entry holds the destination MAC */
		memcpy(len, gathers[g].len, sizeof(len));
		if (len[0] < 14)
			len[0] = 14;
		make_sges(e, sg, len, n);
		gather_wr(&wr, sg, n, flags);
		wr.opcode = IBV_WR_SEND;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_eth(sq, 0, sg, (uint32_t)n, flags, 0), 0);
		compare_rings(e, "post_eth");
	}
	for (size_t i = 0; i < sizeof(inline_sizes) / sizeof(inline_sizes[0]); i++) {
		uint32_t len = inline_sizes[i] < 14 ? 14 : inline_sizes[i];
		uint32_t flags = IBV_SEND_INLINE | send_flag_sets[i % 4];
		const void *frame = e->mem + 200 + i;
		struct ibv_sge sg = { (uintptr_t)frame, len, e->mr->lkey };
		struct ibv_send_wr wr;

		gather_wr(&wr, &sg, 1, flags);
		wr.opcode = IBV_WR_SEND;
		post_a(e, &wr);
		assert_int_equal(mlx4dv_sq_write_eth_inline(sq, 0, frame, len, flags, 0), 0);
		compare_rings(e, "post_eth_inline");
	}
}

int main(int argc, char **argv)
{
	/* the tests of each QP type (libmlx4 posts no read, atomic or
	 * SEND_WITH_INV on UC) */
	const struct CMUnitTest rc[] = {
		cmocka_unit_test(test_connected_typed),
		cmocka_unit_test(test_connected_inline),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_bind_and_invalidate),
	};
	const struct CMUnitTest ud[] = { cmocka_unit_test(test_ud) };
	const struct CMUnitTest raw[] = { cmocka_unit_test(test_raw) };
	const char *t = argc > 1 ? argv[1] : "rc";

	if (!strcmp(t, "rc") || !strcmp(t, "uc")) {
		g_type = t[0] == 'r' ? IBV_QPT_RC : IBV_QPT_UC;
		/* UC: no atomics (the third entry) */
		const struct CMUnitTest uc[] = { rc[0], rc[1], rc[3] };

		if (g_type == IBV_QPT_RC)
			t_run_group_tests_name("send_diff_forms_rc", rc, setup, teardown);
		else
			t_run_group_tests_name("send_diff_forms_uc", uc, setup, teardown);
		return t_exit();
	}
	if (!strcmp(t, "ud")) {
		g_type = IBV_QPT_UD;
		t_run_group_tests_name("send_diff_forms_ud", ud, setup, teardown);
		return t_exit();
	}
	if (!strcmp(t, "raw")) {
		g_type = IBV_QPT_RAW_PACKET;
		t_run_group_tests_name("send_diff_forms_raw", raw, setup, teardown);
		return t_exit();
	}
	fprintf(stderr, "usage: %s rc|uc|ud|raw\n", argv[0]);
	return 2;
}
