/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Differential test of the send path against libmlx4, on the software
 * ConnectX-3 (run under mlx4emu-run).
 *
 * Two QPs of the same type and geometry share one PD and one set of MRs:
 * QP A is driven by libmlx4's ibv_post_send(), QP B by this header
 * (mlx4dv_sq_write_send_wr() + doorbell or BlueFlame, with the handle filled
 * by hand from mlx4dv_init_obj()). For every random work request (opcodes
 * of the QP type, 0..max SGEs including empty ones, inline sizes
 * 0..max_inline, every flag) the request goes to A, the device runs it,
 * its effects are recorded (remote memory, local read/atomic results,
 * received bytes and completions), the memory is restored, and the same
 * request goes to B. Then:
 *  - A's and B's whole SQ rings must be byte-identical (WQE and stamps),
 *    except the QPN that a BlueFlame WQE carries in bytes 4..6;
 *  - the effects must be identical;
 *  - the device must not have refused any WQE (strict checks).
 * Requests libmlx4 refuses must be refused by B too, leaving its ring
 * untouched. B's send CQ is polled by hand and completions are accounted
 * with mlx4dv_sq_complete().
 *
 * On RC and UC a third test sends chains of same-shaped requests to A and
 * the same WQEs as template batches (mlx4dv_sq_batch_*) to B, with B's
 * ring_stamped set and cleared in turn, under the same comparisons.
 *
 * Argument: rc | uc | ud | raw (raw needs an Ethernet port), then the
 * number of requests per geometry (default 1500). SEND_DIFF_TRACE=1 in
 * the environment prints every request before it is posted.
 *
 * XRC is left out: the software device does not run XRC yet; the golden
 * tests cover its WQE bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "verbs_env.h"
#include "test_exit.h"

enum { MEM = 1 << 16, SRC_OFF = 0, FRAME_OFF = 16384, RES_OFF = 32768,
       RECV_OFF = 49152,
       RECV_LEN = 16384, TGT_LEN = 32768, MAX_SGE_LEN = 200 };

static const char *g_type = "rc";
static unsigned g_count = 1500;

struct side {
	struct ibv_qp *qp;		/* sender */
	struct ibv_qp *peer;		/* receiver (RC/UC) */
	struct ibv_cq *scq, *rcq, *peer_scq, *peer_rcq;
	struct mlx4dv_sq_ring sq;	/* B only */
	struct mlx4dv_cq dvcq;		/* B only: send CQ, driven by hand */
	uint32_t cq_ci;
	uint64_t wrid[1024];
};

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct mlx4emu_ctl ctl;
	uint8_t *local, *remote;
	struct ibv_mr *lmr, *rmr;
	enum ibv_qp_type type;
	struct side a, b;
	struct ibv_qp *ud_dst;		/* UD: both senders target this QP */
	struct ibv_cq *ud_dst_cq;
	struct ibv_ah *ah;
	struct ibv_ah_attr ah_attr;
	struct mlx4dv_ud_av av;
	uint16_t lid;
	uint8_t *bf_page;
	int raw_csum;			/* IBV_DEVICE_RAW_IP_CSUM */
	unsigned seed;
};

static unsigned rnd(struct env *e)
{
	e->seed = e->seed * 1103515245u + 12345u;
	return (e->seed >> 8) & 0xffffff;
}

/* RC/UC towards dqpn on port 1 (no GRH: an InfiniBand port), UD with
 * VX_QKEY, raw packet on port 1 alone. */
static void to_rts(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, 1);
	a.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_ATOMIC;
	a.dest_qpn = dqpn;
	a.ah.dlid = e->lid;
	assert_int_equal(vx_qp_to_rts(qp, &a), 0);
}

static struct ibv_qp *make_qp(struct env *e, struct ibv_cq *scq,
			      struct ibv_cq *rcq, uint32_t sge, uint32_t inl)
{
	struct ibv_qp_cap cap = { .max_send_wr = 48, .max_recv_wr = 64,
				  .max_send_sge = sge, .max_recv_sge = 1,
				  .max_inline_data = inl };
	struct ibv_qp *qp = vx_qp_create(e->pd, e->type, scq, rcq, NULL, &cap);

	assert_non_null(qp);
	return qp;
}

static void make_side(struct env *e, struct side *s, uint32_t sge, uint32_t inl)
{
	s->scq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
	s->rcq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
	assert_non_null(s->scq);
	assert_non_null(s->rcq);
	s->qp = make_qp(e, s->scq, s->rcq, sge, inl);
	if (e->type != IBV_QPT_UD && e->type != IBV_QPT_RAW_PACKET) {
		s->peer_scq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
		s->peer_rcq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
		assert_non_null(s->peer_scq);
		assert_non_null(s->peer_rcq);
		s->peer = make_qp(e, s->peer_scq, s->peer_rcq, 1, 0);
	}
}

/* The SQ handle of B, filled by hand from libmlx4's raw layout. */
static void fill_ring(struct env *e, struct side *s)
{
	struct mlx4dv_obj obj;
	struct mlx4dv_qp dq;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	memset(&obj, 0, sizeof(obj));
	memset(&dq, 0, sizeof(dq));
	memset(&s->dvcq, 0, sizeof(s->dvcq));
	dq.comp_mask = 0;
	s->dvcq.comp_mask = 0;
	obj.qp.in = s->qp;
	obj.qp.out = &dq;
	obj.cq.in = s->scq;
	obj.cq.out = &s->dvcq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP | MLX4DV_OBJ_CQ), 0);
	assert_int_equal(ibv_query_qp(s->qp, &attr, IBV_QP_CAP, &init), 0);

	memset(&s->sq, 0, sizeof(s->sq));
	s->sq.buf = (uint8_t *)dq.buf.buf + dq.sq.offset;
	s->sq.wqe_cnt = dq.sq.wqe_cnt;
	s->sq.wqe_shift = (uint32_t)dq.sq.wqe_shift;
	s->sq.spare_wqes = (2048u >> s->sq.wqe_shift) + 1;
	s->sq.max_post = s->sq.wqe_cnt - s->sq.spare_wqes;
	assert_int_equal(s->sq.max_post, init.cap.max_send_wr);
	s->sq.max_inline = init.cap.max_inline_data;
	s->sq.max_gather = init.cap.max_send_sge;
	s->sq.qpn = s->qp->qp_num;
	s->sq.doorbell_qpn = dq.doorbell_qpn;
	s->sq.qp_type = (uint32_t)e->type;
	s->sq.doorbell = dq.sdb;
	/* libmlx4 stamped the whole ring at RESET->INIT (to_rts ran
	 * before): the posts may skip stamping until a WQE over 64 bytes,
	 * and the ring comparisons below check that skipping leaves
	 * exactly libmlx4's stamps. */
	s->sq.ring_stamped = 1;
	assert_true(s->sq.wqe_cnt <= 1024);
	s->sq.wrid = s->wrid;
	mlx4dv_sq_fast_path_init(&s->sq);
	assert_int_equal(s->sq.fast_path, MLX4DV_SQ_FAST_WRID |
			 (e->type == IBV_QPT_UD || e->type == IBV_QPT_RAW_PACKET ?
			  0 : MLX4DV_SQ_FAST_CONNECTED));
	if (e->bf_page) {
		s->sq.bf_reg = e->bf_page;
		s->sq.bf_buf_size = 256;	/* bf_reg_size 512 / 2 */
		s->sq.flags = MLX4DV_SQ_RING_BLUEFLAME;
	}
	s->cq_ci = 0;
}

/* Poll B's send CQ by hand: owner test, barrier, then the CQE; account
 * the completion on the ring. Returns the number consumed. */
static int poll_b(struct side *s, uint64_t *last_wr_id)
{
	int n = 0;

	for (;;) {
		uint32_t cnt = s->dvcq.cqe_cnt;
		uint8_t *p = (uint8_t *)s->dvcq.buf.buf +
			(size_t)(s->cq_ci & (cnt - 1)) * (uint32_t)s->dvcq.cqe_size;
		struct mlx4_cqe *cqe = (struct mlx4_cqe *)
			(p + (s->dvcq.cqe_size == 64 ? 32 : 0));
		uint8_t own = cqe->owner_sr_opcode;

		if (!!(own & MLX4_CQE_OWNER_MASK) != !!(s->cq_ci & cnt))
			break;
		mlx4dv_barrier_from_device();
		assert_int_not_equal(cqe->owner_sr_opcode & MLX4_CQE_OPCODE_MASK,
				     MLX4_CQE_OPCODE_ERROR);
		assert_true(mlx4dv_sq_complete(&s->sq,
			    mlx4dv_be16_to_cpu(cqe->wqe_index), last_wr_id) > 0);
		s->cq_ci++;
		mlx4dv_barrier_to_device();
		*s->dvcq.set_ci_db = mlx4dv_cpu_to_be32(s->cq_ci & 0xffffff);
		n++;
	}
	return n;
}

static void open_env(struct env *e, enum ibv_qp_type type, uint32_t sge,
		     uint32_t inl)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	long page = sysconf(_SC_PAGESIZE);
	int n = 0;

	memset(e, 0, sizeof(*e));
	e->type = type;
	e->seed = 12345u + sge * 7u + inl;
	assert_int_equal(mlx4emu_ctl_load(&e->ctl), 0);
	list = ibv_get_device_list(&n);
	assert_non_null(list);
	assert_true(n >= 1);
	e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	assert_non_null(e->ctx);
	assert_int_equal(ibv_query_port(e->ctx, 1, &pa), 0);
	e->lid = pa.lid;
	e->pd = ibv_alloc_pd(e->ctx);
	assert_non_null(e->pd);
	e->local = (uint8_t *)aligned_alloc(4096, MEM);
	e->remote = (uint8_t *)aligned_alloc(4096, MEM);
	assert_non_null(e->local);
	assert_non_null(e->remote);
	memset(e->local, 0, MEM);
	memset(e->remote, 0, MEM);
	e->lmr = ibv_reg_mr(e->pd, e->local, MEM, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC);
	e->rmr = ibv_reg_mr(e->pd, e->remote, MEM, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC);
	assert_non_null(e->lmr);
	assert_non_null(e->rmr);

	make_side(e, &e->a, sge, inl);
	make_side(e, &e->b, sge, inl);
	{
		struct ibv_device_attr da;

		assert_int_equal(ibv_query_device(e->ctx, &da), 0);
		e->raw_csum = !!(da.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM);
	}
	if (type == IBV_QPT_RAW_PACKET) {
		static const uint8_t hdr[14] = {
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* broadcast */
			0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x88, 0xb5,
		};

		memcpy(e->local + FRAME_OFF, hdr, sizeof(hdr));
		e->ud_dst_cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
		assert_non_null(e->ud_dst_cq);
		e->ud_dst = make_qp(e, e->ud_dst_cq, e->ud_dst_cq, 1, 0);
		to_rts(e, e->a.qp, 0);
		to_rts(e, e->b.qp, 0);
		to_rts(e, e->ud_dst, 0);
	} else if (type == IBV_QPT_UD) {
		e->ud_dst_cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
		assert_non_null(e->ud_dst_cq);
		e->ud_dst = make_qp(e, e->ud_dst_cq, e->ud_dst_cq, 1, 0);
		to_rts(e, e->a.qp, 0);
		to_rts(e, e->b.qp, 0);
		to_rts(e, e->ud_dst, 0);
		memset(&e->ah_attr, 0, sizeof(e->ah_attr));
		e->ah_attr.dlid = e->lid;
		e->ah_attr.sl = 3;
		e->ah_attr.port_num = 1;
		e->ah = ibv_create_ah(e->pd, &e->ah_attr);
		assert_non_null(e->ah);
		{
			/* libmlx4 keeps the PD number private; rdma-core 44.0's
			 * struct mlx4_ah is struct ibv_ah, then the 32-byte AV
			 * (port_pd first), then vlan (host order) and mac. */
			const uint8_t *mah = (const uint8_t *)e->ah +
					     sizeof(struct ibv_ah);
			__be32 port_pd;
			uint16_t vlan;
			uint32_t pdn;

			memcpy(&port_pd, mah, 4);
			pdn = mlx4dv_be32_to_cpu(port_pd) & 0xffffff;
			assert_int_equal(mlx4dv_ud_av_init(&e->av, pdn,
					 &e->ah_attr, NULL), 0);
			/* the address vector must be libmlx4's */
			assert_memory_equal(&e->av.av, mah, 32);
			/* On InfiniBand ports libmlx4 leaves vlan and mac of
			 * its AH uninitialised (malloc, only the AV is
			 * cleared) and copies them into every WQE; take its
			 * bytes so that the rings stay comparable. */
			memcpy(&vlan, mah + 32, 2);
			e->av.vlan = mlx4dv_cpu_to_be16(vlan);
			memcpy(e->av.mac, mah + 34, 6);
		}
	} else {
		to_rts(e, e->a.qp, e->a.peer->qp_num);
		to_rts(e, e->a.peer, e->a.qp->qp_num);
		to_rts(e, e->b.qp, e->b.peer->qp_num);
		to_rts(e, e->b.peer, e->b.qp->qp_num);
	}
	e->bf_page = (uint8_t *)mmap(NULL, (size_t)page, PROT_WRITE, MAP_SHARED,
				     e->ctx->cmd_fd, page);
	if (e->bf_page == MAP_FAILED)
		e->bf_page = NULL;
	fill_ring(e, &e->b);
}

static void close_env(struct env *e)
{
	struct side *s[2] = { &e->a, &e->b };
	int i;

	if (e->bf_page)
		munmap(e->bf_page, (size_t)sysconf(_SC_PAGESIZE));
	if (e->ah)
		ibv_destroy_ah(e->ah);
	for (i = 0; i < 2; i++) {
		assert_int_equal(ibv_destroy_qp(s[i]->qp), 0);
		if (s[i]->peer) {
			assert_int_equal(ibv_destroy_qp(s[i]->peer), 0);
			ibv_destroy_cq(s[i]->peer_scq);
			ibv_destroy_cq(s[i]->peer_rcq);
		}
		ibv_destroy_cq(s[i]->scq);
		ibv_destroy_cq(s[i]->rcq);
	}
	if (e->ud_dst) {
		ibv_destroy_qp(e->ud_dst);
		ibv_destroy_cq(e->ud_dst_cq);
	}
	ibv_dereg_mr(e->lmr);
	ibv_dereg_mr(e->rmr);
	ibv_dealloc_pd(e->pd);
	ibv_close_device(e->ctx);
	free(e->local);
	free(e->remote);
}

/* A random request valid for the QP type (and, now and then, one that is
 * too big, to check that both sides refuse it). */
struct req {
	struct ibv_send_wr wr;
	struct ibv_sge sg[64];
	int oversize;
};

static void make_req(struct env *e, struct req *r, uint32_t max_sge,
		     uint32_t max_inl, int force_signal)
{
	static const enum ibv_wr_opcode rc_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	static const enum ibv_wr_opcode ud_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM,
	};
	const enum ibv_wr_opcode *ops = e->type == IBV_QPT_UD ||
		e->type == IBV_QPT_RAW_PACKET ? ud_ops : rc_ops;
	unsigned nops = e->type == IBV_QPT_RAW_PACKET ? 1 :
		e->type == IBV_QPT_UD ? 2 : e->type == IBV_QPT_UC ? 4 : 7;
	unsigned i, total = 0;
	int is_atomic, inl;

	memset(r, 0, sizeof(*r));
	r->wr.wr_id = ((uint64_t)rnd(e) << 24) | rnd(e);
	r->wr.opcode = ops[rnd(e) % nops];
	r->wr.sg_list = r->sg;
	is_atomic = r->wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    r->wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
	inl = !is_atomic && r->wr.opcode != IBV_WR_RDMA_READ && (rnd(e) & 1);
	if (rnd(e) & 1)
		r->wr.send_flags |= IBV_SEND_SIGNALED;
	if (force_signal)
		r->wr.send_flags |= IBV_SEND_SIGNALED;
	if (rnd(e) & 1)
		r->wr.send_flags |= IBV_SEND_SOLICITED;
	if ((rnd(e) & 3) == 0)
		r->wr.send_flags |= IBV_SEND_FENCE;
	if (e->type != IBV_QPT_UD && (rnd(e) & 3) == 0 &&
	    (e->type != IBV_QPT_RAW_PACKET || e->raw_csum))
		r->wr.send_flags |= IBV_SEND_IP_CSUM;	/* ignored on RC/UC */
	if (inl)
		r->wr.send_flags |= IBV_SEND_INLINE;
	r->wr.imm_data = mlx4dv_cpu_to_be32(rnd(e));

	if (is_atomic) {
		r->wr.num_sge = 1;
		r->sg[0].addr = (uintptr_t)(e->local + RES_OFF + 8 * (rnd(e) % 512));
		r->sg[0].length = 8;
		r->sg[0].lkey = e->lmr->lkey;
		r->wr.wr.atomic.remote_addr =
			(uintptr_t)(e->remote + 8 * (rnd(e) % (TGT_LEN / 8)));
		r->wr.wr.atomic.rkey = e->rmr->rkey;
		r->wr.wr.atomic.compare_add = rnd(e) & 1 ? 0 : rnd(e);
		r->wr.wr.atomic.swap = ((uint64_t)rnd(e) << 32) | rnd(e);
		return;
	}
	r->wr.num_sge = (int)(rnd(e) % (max_sge + 1));
	if (e->type == IBV_QPT_RAW_PACKET && !r->wr.num_sge)
		r->wr.num_sge = 1;	/* the frame starts in entry 0 */
	if ((rnd(e) % 50) == 0) {	/* refused by both */
		r->oversize = 1;
		r->wr.num_sge = (int)e->b.sq.max_gather + 1;
		assert_true(r->wr.num_sge <= 64);
	}
	for (i = 0; i < (unsigned)r->wr.num_sge; i++) {
		/* UD and raw messages stay below the path MTU */
		uint32_t cap = e->type == IBV_QPT_UD ||
			e->type == IBV_QPT_RAW_PACKET ? 60 : MAX_SGE_LEN;
		uint32_t len = (rnd(e) % 4) == 0 ? 0 : rnd(e) % cap;
		uint8_t *base = r->wr.opcode == IBV_WR_RDMA_READ ?
			e->local + RES_OFF : e->local + SRC_OFF;

		if (inl && total + len > max_inl)
			len = max_inl - total;
		r->sg[i].addr = (uintptr_t)(base + rnd(e) % (16384 - MAX_SGE_LEN));
		if (e->type == IBV_QPT_RAW_PACKET && i == 0) {
			/* Ethernet header (broadcast) and some payload */
			r->sg[0].addr = (uintptr_t)(e->local + FRAME_OFF);
			len = 14 + len % 100;
			if (inl && len > max_inl)
				len = max_inl;
		}
		r->sg[i].length = len;
		r->sg[i].lkey = e->lmr->lkey;
		total += len;
	}
	if (inl && !r->oversize && (rnd(e) % 40) == 0 && r->wr.num_sge) {
		r->sg[0].length += max_inl - total + 1;	/* one byte too many */
		r->oversize = 1;
	}
	r->wr.wr.rdma.remote_addr =
		(uintptr_t)(e->remote + rnd(e) % (TGT_LEN - 32 * MAX_SGE_LEN));
	r->wr.wr.rdma.rkey = e->rmr->rkey;
	if (e->type == IBV_QPT_UD) {
		r->wr.wr.ud.ah = e->ah;
		r->wr.wr.ud.remote_qpn = e->ud_dst->qp_num;
		r->wr.wr.ud.remote_qkey = 0x11111111;
	}
}

/* Everything an executed request changed that the test can see. */
struct effect {
	uint8_t *remote, *results, *recv;
	struct ibv_wc wc[4];
	int nwc;
};

static int wants_recv(const struct env *e, enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       (op == IBV_WR_RDMA_WRITE_WITH_IMM && e->type != IBV_QPT_UD);
}

static struct ibv_qp *receiver(struct env *e, struct side *s)
{
	return e->ud_dst ? e->ud_dst : s->peer;
}

static struct ibv_cq *receiver_cq(struct env *e, struct side *s)
{
	return e->ud_dst ? e->ud_dst_cq : s->peer_rcq;
}

static void post_recv(struct env *e, struct side *s)
{
	struct ibv_sge sg = { (uintptr_t)(e->local + RECV_OFF), RECV_LEN,
			      e->lmr->lkey };
	struct ibv_recv_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	assert_int_equal(ibv_post_recv(receiver(e, s), &wr, &bad), 0);
}

static void wait_idle(struct env *e)
{
	assert_int_equal(e->ctl.wait_idle(5000), 0);
}

static void capture(struct env *e, struct side *s, struct effect *f,
		    const uint8_t *saved_remote, const uint8_t *saved_local)
{
	struct ibv_wc wc;
	int n;

	memcpy(f->remote, e->remote, TGT_LEN);
	memcpy(f->results, e->local + RES_OFF, RECV_OFF - RES_OFF);
	memcpy(f->recv, e->local + RECV_OFF, RECV_LEN);
	f->nwc = 0;
	while ((n = ibv_poll_cq(receiver_cq(e, s), 1, &wc)) > 0) {
		assert_true(f->nwc < 4);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		f->wc[f->nwc] = wc;
		f->wc[f->nwc].qp_num = 0;	/* differs by design */
		f->wc[f->nwc].src_qp = 0;
		f->nwc++;
	}
	assert_int_equal(n, 0);
	/* restore for the other side */
	memcpy(e->remote, saved_remote, TGT_LEN);
	memcpy(e->local + RES_OFF, saved_local + RES_OFF, MEM - RES_OFF);
}

static void compare_wc(const struct effect *x, const struct effect *y)
{
	int i;

	assert_int_equal(x->nwc, y->nwc);
	for (i = 0; i < x->nwc; i++) {
		assert_int_equal(x->wc[i].opcode, y->wc[i].opcode);
		assert_int_equal(x->wc[i].byte_len, y->wc[i].byte_len);
		assert_int_equal(x->wc[i].wc_flags, y->wc[i].wc_flags);
		if (x->wc[i].wc_flags & IBV_WC_WITH_IMM)
			assert_int_equal(x->wc[i].imm_data, y->wc[i].imm_data);
	}
}

/*
 * Ring of A vs ring of B. Bytes 4..6 of a control segment hold the QP's
 * own number after a BlueFlame post (A's in ring A, B's in ring B), and
 * libmlx4 never rewrites them for a later WQE in the same slot (it writes
 * only byte 7), while this header writes them as 0 (they are the VLAN
 * insertion fields). So in ring A they may be A's QPN where ring B has
 * B's QPN or 0; every other byte must be equal. Whether a WQE went by
 * BlueFlame still shows: the WQE counter in word 0 is compared as is.
 */
static void compare_rings(struct env *e, const uint8_t *ring_a,
			  uint32_t wqe_count)
{
	struct mlx4dv_sq_ring *sq = &e->b.sq;
	size_t stride = (size_t)1 << sq->wqe_shift;
	size_t size = (size_t)sq->wqe_cnt << sq->wqe_shift;
	uint8_t *a = (uint8_t *)malloc(size);
	size_t s, i;

	assert_non_null(a);
	memcpy(a, ring_a, size);
	for (s = 0; s < size; s += stride) {
		uint32_t qa = mlx4dv_be32_to_cpu(*(__be32 *)(a + s + 4)) >> 8;
		uint32_t qb = mlx4dv_be32_to_cpu(*(__be32 *)(sq->buf + s + 4)) >> 8;

		if (qa == e->a.qp->qp_num && (qb == e->b.qp->qp_num || !qb))
			memcpy(a + s + 4, sq->buf + s + 4, 3);
	}
	for (i = 0; i < size; i++)
		if (a[i] != sq->buf[i]) {
			print_error("ring byte %zu (slot %zu +%zu): libmlx4 %02x, "
				    "mlx4dv %02x; WQE at count %u\n", i,
				    i >> sq->wqe_shift, i & (stride - 1), a[i],
				    sq->buf[i], wqe_count);
			fail();
		}
	free(a);
}

static void run(struct env *e, uint32_t sge, uint32_t inl)
{
	struct effect fa, fb;
	uint8_t *saved_local = (uint8_t *)malloc(MEM);
	uint8_t *saved_remote = (uint8_t *)malloc(TGT_LEN);
	uint8_t *ring_a;
	struct mlx4dv_qp da;
	struct mlx4dv_obj obj;
	struct mlx4emu_counters c0, c1;
	uint64_t bf_before;
	unsigned i, posted = 0, refused = 0, bf = 0;
	int pending_a = 0;

	fa.remote = (uint8_t *)malloc(TGT_LEN);
	fa.results = (uint8_t *)malloc(RECV_OFF - RES_OFF);
	fa.recv = (uint8_t *)malloc(RECV_LEN);
	fb.remote = (uint8_t *)malloc(TGT_LEN);
	fb.results = (uint8_t *)malloc(RECV_OFF - RES_OFF);
	fb.recv = (uint8_t *)malloc(RECV_LEN);
	assert_non_null(saved_local);
	assert_non_null(saved_remote);

	memset(&obj, 0, sizeof(obj));
	memset(&da, 0, sizeof(da));
	obj.qp.in = e->a.qp;
	obj.qp.out = &da;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	ring_a = (uint8_t *)da.buf.buf + da.sq.offset;
	assert_int_equal(da.sq.wqe_cnt, e->b.sq.wqe_cnt);
	assert_int_equal(da.sq.wqe_shift, (int)e->b.sq.wqe_shift);
	compare_rings(e, ring_a, 0);	/* both prepared by libmlx4 */
	assert_int_equal(e->ctl.get_counters(&c0), 0);
	bf_before = c0.bf_posts;

	for (i = 0; i < 16384; i++)
		e->local[i] = (uint8_t)(i * 13 + 1);
	for (i = 0; i < g_count; i++) {
		struct req r;
		struct ibv_send_wr *bad = NULL;
		uint32_t at = e->b.sq.head;
		uint64_t wr_id = 0;
		int ra, rb, bf_cand, used_bf = 0;

		make_req(e, &r, sge, inl, pending_a >= 8);
		if (getenv("SEND_DIFF_TRACE"))
			print_message("req %u: op %d nsge %d flags 0x%x oversize %d\n",
				      i, r.wr.opcode, r.wr.num_sge,
				      r.wr.send_flags, r.oversize);
		memcpy(saved_local, e->local, MEM);
		memcpy(saved_remote, e->remote, TGT_LEN);

		/* A: libmlx4 */
		if (wants_recv(e, r.wr.opcode) && !r.oversize)
			post_recv(e, &e->a);
		ra = ibv_post_send(e->a.qp, &r.wr, &bad);
		if (r.oversize) {
			/* both refuse; B writes nothing */
			uint8_t *before = (uint8_t *)malloc((size_t)e->b.sq.wqe_cnt
						     << e->b.sq.wqe_shift);

			assert_non_null(before);
			memcpy(before, e->b.sq.buf,
			       (size_t)e->b.sq.wqe_cnt << e->b.sq.wqe_shift);
			assert_int_not_equal(ra, 0);
			rb = mlx4dv_sq_write_send_wr(&e->b.sq, &r.wr, &e->av);
			assert_int_equal(rb, EINVAL);
			assert_memory_equal(before, e->b.sq.buf,
				(size_t)e->b.sq.wqe_cnt << e->b.sq.wqe_shift);
			assert_int_equal(e->b.sq.head, at);
			free(before);
			/* libmlx4 may have written srcrb_flags, imm and part of
			 * a refused inline request into the (still
			 * software-owned) slot; give bytes 8.. B's values again
			 * so that later comparisons stay exact */
			{
				size_t off = (size_t)(at & (e->b.sq.wqe_cnt - 1))
					     << e->b.sq.wqe_shift;

				memcpy(ring_a + off + 8, e->b.sq.buf + off + 8,
				       ((size_t)1 << e->b.sq.wqe_shift) - 8);
			}
			refused++;
			continue;
		}
		assert_int_equal(ra, 0);
		wait_idle(e);
		if (r.wr.send_flags & IBV_SEND_SIGNALED) {
			struct ibv_wc wc;

			assert_int_equal(ibv_poll_cq(e->a.scq, 1, &wc), 1);
			assert_int_equal(wc.status, IBV_WC_SUCCESS);
			assert_int_equal(wc.wr_id, r.wr.wr_id);
			pending_a = 0;
		} else {
			pending_a++;
		}
		capture(e, &e->a, &fa, saved_remote, saved_local);
		/* the data did arrive */
		assert_int_equal(fa.nwc, wants_recv(e, r.wr.opcode) ? 1 : 0);

		/* B: this header */
		if (wants_recv(e, r.wr.opcode))
			post_recv(e, &e->b);
		bf_cand = mlx4dv_send_wr_bf_candidate(&e->b.sq, &r.wr);
		rb = mlx4dv_sq_write_send_wr(&e->b.sq, &r.wr, &e->av);
		assert_int_equal(rb, 0);
		if (bf_cand)
			used_bf = mlx4dv_sq_ring_bf(&e->b.sq, at);
		else
			mlx4dv_sq_ring_doorbell(&e->b.sq);
		bf += (unsigned)used_bf;
		compare_rings(e, ring_a, at);
		wait_idle(e);
		if (r.wr.send_flags & IBV_SEND_SIGNALED) {
			assert_int_equal(poll_b(&e->b, &wr_id), 1);
			assert_int_equal(wr_id, r.wr.wr_id);
			assert_int_equal(e->b.sq.tail, e->b.sq.head);
		} else {
			assert_int_equal(poll_b(&e->b, &wr_id), 0);
		}
		capture(e, &e->b, &fb, saved_remote, saved_local);

		assert_memory_equal(fa.remote, fb.remote, TGT_LEN);
		assert_memory_equal(fa.results, fb.results, RECV_OFF - RES_OFF);
		assert_memory_equal(fa.recv, fb.recv, RECV_LEN);
		compare_wc(&fa, &fb);
		/* keep the effects (atomics and writes accumulate) */
		memcpy(e->remote, fb.remote, TGT_LEN);
		memcpy(e->local + RES_OFF, fb.results, RECV_OFF - RES_OFF);
		posted++;
	}
	assert_int_equal(e->ctl.get_counters(&c1), 0);
	assert_int_equal(c1.strict_errors, c0.strict_errors);
	print_message("%s: %u requests compared, %u refused by both, %u by "
		      "BlueFlame (device saw %llu), ring %u x %u bytes\n",
		      g_type, posted, refused, bf,
		      (unsigned long long)(c1.bf_posts - bf_before),
		      e->b.sq.wqe_cnt, 1u << e->b.sq.wqe_shift);
	assert_true(posted > g_count / 2);
	free(saved_local);
	free(saved_remote);
	free(fa.remote); free(fa.results); free(fa.recv);
	free(fb.remote); free(fb.results); free(fb.recv);
}

/* One signaled RDMA write of 3 gather entries (80 bytes: over one
 * 64-byte chunk) on both sides; the rings must stay equal. After it B's
 * ring_stamped is 0 for good, and stale chunks come round the ring. */
static void post_long_write(struct env *e, const uint8_t *ring_a)
{
	struct ibv_sge sg[3];
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_wc wc;
	uint32_t at = e->b.sq.head, j;
	uint64_t wr_id = 0;

	memset(&wr, 0, sizeof(wr));
	for (j = 0; j < 3; j++) {
		sg[j].addr = (uintptr_t)(e->local + SRC_OFF + 100 * j);
		sg[j].length = 8;
		sg[j].lkey = e->lmr->lkey;
	}
	wr.wr_id = 0x10c;
	wr.sg_list = sg;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)(e->remote + 20000);
	wr.wr.rdma.rkey = e->rmr->rkey;
	assert_int_equal(ibv_post_send(e->a.qp, &wr, &bad), 0);
	wait_idle(e);
	assert_int_equal(ibv_poll_cq(e->a.scq, 1, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(mlx4dv_sq_write_send_wr(&e->b.sq, &wr, NULL), 0);
	assert_int_equal(e->b.sq.ring_stamped, 0);
	mlx4dv_sq_ring_doorbell(&e->b.sq);
	compare_rings(e, ring_a, at);
	wait_idle(e);
	assert_int_equal(poll_b(&e->b, &wr_id), 1);
	assert_int_equal(wr_id, wr.wr_id);
}

/*
 * Template batches against chains: k same-shaped work requests (2..24,
 * 2..4 when each needs a receive) go to A as one ibv_post_send() chain and
 * to B as one template batch (mlx4dv_sq_batch_*), one doorbell each. Every
 * WQE is signaled. Rings, completions and effects must match as in run().
 * In the first half ring_stamped alternates between 1 (no stamping) and 0
 * (the batch stamps the WQEBBs it brings into the prefetch window before
 * writing); in the second half an 80-byte WQE now and then leaves stale
 * chunks behind and ring_stamped stays 0, so the batches' stamps are the
 * ones that matter. Either way the ring must be libmlx4's, which stamps at
 * every post.
 */
static void run_batches(struct env *e, unsigned batches)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
	};
	struct effect fa, fb;
	uint8_t *saved_local = (uint8_t *)malloc(MEM);
	uint8_t *saved_remote = (uint8_t *)malloc(TGT_LEN);
	uint8_t *ring_a;
	struct mlx4dv_qp da;
	struct mlx4dv_obj obj;
	unsigned i, wqes = 0;

	fa.remote = (uint8_t *)malloc(TGT_LEN);
	fa.results = (uint8_t *)malloc(RECV_OFF - RES_OFF);
	fa.recv = (uint8_t *)malloc(RECV_LEN);
	fb.remote = (uint8_t *)malloc(TGT_LEN);
	fb.results = (uint8_t *)malloc(RECV_OFF - RES_OFF);
	fb.recv = (uint8_t *)malloc(RECV_LEN);
	assert_non_null(saved_local);
	assert_non_null(saved_remote);
	memset(&obj, 0, sizeof(obj));
	memset(&da, 0, sizeof(da));
	obj.qp.in = e->a.qp;
	obj.qp.out = &da;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	ring_a = (uint8_t *)da.buf.buf + da.sq.offset;
	compare_rings(e, ring_a, 0);
	for (i = 0; i < 16384; i++)
		e->local[i] = (uint8_t)(i * 29 + 3);

	for (i = 0; i < batches; i++) {
		enum ibv_wr_opcode op = ops[rnd(e) % (e->type == IBV_QPT_UC ? 4 : 5)];
		int recv = wants_recv(e, op);
		uint32_t k = 2 + rnd(e) % (recv ? 3 : 23);
		uint32_t len = rnd(e) % (MAX_SGE_LEN + 1);
		uint32_t flags = IBV_SEND_SIGNALED |
			((rnd(e) & 1) ? IBV_SEND_FENCE : 0) |
			((rnd(e) & 1) ? IBV_SEND_SOLICITED : 0);
		__be32 imm = mlx4dv_cpu_to_be32(rnd(e));
		struct ibv_send_wr wr[24], *bad = NULL;
		struct ibv_sge sg[24];
		struct mlx4dv_sq_wqe_template tp;
		struct mlx4dv_sq_batch b;
		uint32_t at = e->b.sq.head, j;
		uint64_t wr_id = 0;
		int n;

		if (i >= batches / 2 && i % 4 == 0)
			post_long_write(e, ring_a);
		at = e->b.sq.head;
		memset(wr, 0, sizeof(wr));
		for (j = 0; j < k; j++) {
			uint8_t *l = op == IBV_WR_RDMA_READ ?
				e->local + RES_OFF + j * 256 :
				e->local + SRC_OFF + rnd(e) % 8000;
			uint8_t *r = op == IBV_WR_RDMA_READ ?
				e->remote + rnd(e) % 8000 :
				e->remote + j * 256 + rnd(e) % 32;

			sg[j].addr = (uintptr_t)l;
			sg[j].length = len;
			sg[j].lkey = e->lmr->lkey;
			wr[j].wr_id = ((uint64_t)rnd(e) << 24) | rnd(e);
			wr[j].next = j + 1 < k ? &wr[j + 1] : NULL;
			wr[j].sg_list = &sg[j];
			wr[j].num_sge = 1;
			wr[j].opcode = op;
			wr[j].send_flags = flags;
			wr[j].imm_data = imm;
			wr[j].wr.rdma.remote_addr = (uintptr_t)r;
			wr[j].wr.rdma.rkey = e->rmr->rkey;
		}
		memcpy(saved_local, e->local, MEM);
		memcpy(saved_remote, e->remote, TGT_LEN);

		/* A: one chain through libmlx4 */
		for (j = 0; recv && j < k; j++)
			post_recv(e, &e->a);
		assert_int_equal(ibv_post_send(e->a.qp, wr, &bad), 0);
		wait_idle(e);
		for (j = 0; j < k; j++) {
			struct ibv_wc wc;

			assert_int_equal(ibv_poll_cq(e->a.scq, 1, &wc), 1);
			assert_int_equal(wc.status, IBV_WC_SUCCESS);
			assert_int_equal(wc.wr_id, wr[j].wr_id);
		}
		capture(e, &e->a, &fa, saved_remote, saved_local);

		/* B: one template batch */
		for (j = 0; recv && j < k; j++)
			post_recv(e, &e->b);
		if (i < batches / 2)
			e->b.sq.ring_stamped = i & 1;
		assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &e->b.sq, op,
			e->rmr->rkey, e->lmr->lkey, len, flags, imm), 0);
		assert_int_equal(mlx4dv_sq_batch_begin(&e->b.sq, &b, &tp, k), 0);
		for (j = 0; j < k; j++)
			assert_int_equal(mlx4dv_sq_batch_write(&b, wr[j].wr_id,
				wr[j].wr.rdma.remote_addr, sg[j].addr), 0);
		assert_int_equal(mlx4dv_sq_batch_write(&b, 0, 0, 0), ENOSPC);
		assert_int_equal(mlx4dv_sq_batch_end(&e->b.sq, &b), k);
		assert_int_equal(e->b.sq.head, at + k);
		mlx4dv_sq_ring_doorbell(&e->b.sq);
		compare_rings(e, ring_a, at);
		wait_idle(e);
		n = poll_b(&e->b, &wr_id);
		assert_int_equal(n, (int)k);
		assert_int_equal(wr_id, wr[k - 1].wr_id);
		assert_int_equal(e->b.sq.tail, e->b.sq.head);
		capture(e, &e->b, &fb, saved_remote, saved_local);

		assert_memory_equal(fa.remote, fb.remote, TGT_LEN);
		assert_memory_equal(fa.results, fb.results, RECV_OFF - RES_OFF);
		assert_memory_equal(fa.recv, fb.recv, RECV_LEN);
		compare_wc(&fa, &fb);
		memcpy(e->remote, fb.remote, TGT_LEN);
		memcpy(e->local + RES_OFF, fb.results, RECV_OFF - RES_OFF);
		wqes += k;
	}
	print_message("%s: %u template batches (%u WQEs) compared, ring %u x %u "
		      "bytes\n", g_type, batches, wqes, e->b.sq.wqe_cnt,
		      1u << e->b.sq.wqe_shift);
	/* several laps, so that slots came round with their stamps */
	assert_true(wqes > 3 * e->b.sq.wqe_cnt);
	free(saved_local);
	free(saved_remote);
	free(fa.remote); free(fa.results); free(fa.recv);
	free(fb.remote); free(fb.results); free(fb.recv);
}

static enum ibv_qp_type type_of(const char *s)
{
	if (!strcmp(s, "uc"))
		return IBV_QPT_UC;
	if (!strcmp(s, "ud"))
		return IBV_QPT_UD;
	if (!strcmp(s, "raw"))
		return IBV_QPT_RAW_PACKET;
	return IBV_QPT_RC;
}

/* Two geometries: small WQEs (stride 128) and larger ones (stride 512). */
static void test_small_geometry(void **state)
{
	struct env e;

	(void)state;
	open_env(&e, type_of(g_type), 3, 60);
	run(&e, 3, e.b.sq.max_inline);
	close_env(&e);
}

static void test_large_geometry(void **state)
{
	struct env e;

	(void)state;
	open_env(&e, type_of(g_type), 16, 300);
	run(&e, e.b.sq.max_gather > 30 ? 30 : e.b.sq.max_gather,
	    e.b.sq.max_inline);
	close_env(&e);
}

/* Template batches: connected QPs only (the templates' QP types), the
 * only configurations main() registers it for. */
static void test_template_batches(void **state)
{
	struct env e;
	enum ibv_qp_type type = type_of(g_type);

	(void)state;
	assert_true(type == IBV_QPT_RC || type == IBV_QPT_UC);
	open_env(&e, type, 3, 60);
	run_batches(&e, g_count / 10 + 40);
	close_env(&e);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_geometry),
		cmocka_unit_test(test_large_geometry),
		cmocka_unit_test(test_template_batches),	/* last */
	};
	enum ibv_qp_type type;

	if (argc > 1)
		g_type = argv[1];
	if (argc > 2)
		g_count = (unsigned)strtoul(argv[2], NULL, 0);
	type = type_of(g_type);
	t_run("send_diff", tests, sizeof(tests) / sizeof(tests[0]) -
	      (type != IBV_QPT_RC && type != IBV_QPT_UC), NULL, NULL);
	return t_exit();
}
