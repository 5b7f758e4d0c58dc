// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * XRC on the software ConnectX-3, through libibverbs and libmlx4 in one
 * process: XRC domains opened on a file (shared by inode, reference
 * counted, EBUSY while used), XRC SRQs, initiator and target QPs, the
 * target QP opened from a second context, sends naming each SRQ of a
 * domain, and the errors of requests naming an SRQ they may not reach.
 *
 * Receive completions are checked field by field as libmlx4 decodes them:
 * wc.qp_num is the target QP's number (bit 23 set, as mlx4_ib reports
 * it), wc.src_qp the SRQ's number (the CQE's rqpn field, where libmlx4
 * finds the SRQ), wc.wr_id the receive posted to the named SRQ, on that
 * SRQ's CQ.  Expected values come from the requests, never the device.
 */
#include "emu_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "test_exit.h"

#define NSRQ 3
#define MSG 512
#define XRC_QPN_BIT 0x800000u

struct xrc {
	struct emu_env e;
	char path[64];
	int fd;
	struct ibv_xrcd *xrcd;
	struct ibv_cq *cq[2];		/* SRQ 0 and 1 on cq[0], SRQ 2 on cq[1] */
	struct ibv_cq *scq;
	struct ibv_srq *srq[NSRQ];
	uint32_t srqn[NSRQ];
	struct ibv_qp *ini, *tgt;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd, .oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &a);
}

static struct ibv_srq *create_xsrq(struct ibv_context *ctx, struct ibv_pd *pd,
				   struct ibv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC, .xrcd = xrcd, .cq = cq, .pd = pd,
	};

	return ibv_create_srq_ex(ctx, &a);
}

static struct ibv_qp *create_tgt(struct ibv_context *ctx, struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd,
	};

	return ibv_create_qp_ex(ctx, &a);
}

static struct ibv_qp *create_ini(struct emu_env *e, struct ibv_cq *scq)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_SEND, .send_cq = scq,
		.cap = { .max_send_wr = 32, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = e->pd,
	};

	return ibv_create_qp_ex(e->ctx, &a);
}

/* The values of ibv_xsrq_pingpong: no reads or atomics either way, only
 * the target QP open to remote writes and reads; the harness sends the
 * masks the kernel requires of each XRC type. */
static void to_rts(struct emu_env *e, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, e->port);
	a.access = qp->qp_type == IBV_QPT_XRC_RECV ?
		   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ : 0;
	a.dest_qpn = dest_qpn;
	a.max_dest_rd_atomic = 0;
	a.max_rd_atomic = 0;
	assert_int_equal(vx_qp_to_rts_loopback(e->ctx, qp, &a), 0);
}

static void xrc_open(struct xrc *x)
{
	memset(x, 0, sizeof(*x));
	emu_env_open(&x->e, 1);
	snprintf(x->path, sizeof(x->path), "/tmp/mlx4emu-xrc-%d", (int)getpid());
	x->fd = open(x->path, O_RDONLY | O_CREAT, 0600);
	assert_true(x->fd >= 0);
	x->xrcd = open_xrcd(x->e.ctx, x->fd, O_CREAT);
	assert_non_null(x->xrcd);
	for (int i = 0; i < 2; i++) {
		x->cq[i] = ibv_create_cq(x->e.ctx, 64, NULL, NULL, 0);
		assert_non_null(x->cq[i]);
	}
	x->scq = ibv_create_cq(x->e.ctx, 64, NULL, NULL, 0);
	assert_non_null(x->scq);
	for (int i = 0; i < NSRQ; i++) {
		x->srq[i] = create_xsrq(x->e.ctx, x->e.pd, x->xrcd, x->cq[i == 2]);
		assert_non_null(x->srq[i]);
		assert_int_equal(ibv_get_srq_num(x->srq[i], &x->srqn[i]), 0);
	}
	x->buf = aligned_alloc(4096, 1 << 16);
	assert_non_null(x->buf);
	memset(x->buf, 0, 1 << 16);
	x->mr = ibv_reg_mr(x->e.pd, x->buf, 1 << 16, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	assert_non_null(x->mr);
	x->tgt = create_tgt(x->e.ctx, x->xrcd);
	assert_non_null(x->tgt);
	x->ini = create_ini(&x->e, x->scq);
	assert_non_null(x->ini);
	to_rts(&x->e, x->tgt, x->ini->qp_num);
	to_rts(&x->e, x->ini, x->tgt->qp_num);
}

static void xrc_close(struct xrc *x)
{
	assert_int_equal(ibv_destroy_qp(x->ini), 0);
	if (x->tgt)
		assert_int_equal(ibv_destroy_qp(x->tgt), 0);
	for (int i = 0; i < NSRQ; i++)
		assert_int_equal(ibv_destroy_srq(x->srq[i]), 0);
	assert_int_equal(ibv_close_xrcd(x->xrcd), 0);
	assert_int_equal(close(x->fd), 0);
	unlink(x->path);
	assert_int_equal(ibv_destroy_cq(x->scq), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(ibv_destroy_cq(x->cq[i]), 0);
	assert_int_equal(ibv_dereg_mr(x->mr), 0);
	free(x->buf);
	emu_env_close(&x->e);
}

/* Receive buffer of SRQ i (its own 4 KiB); the sender's data at 48 KiB. */
static uint8_t *rbuf(struct xrc *x, int i)
{
	return x->buf + (size_t)i * 4096;
}

static void post_srq_recv(struct xrc *x, int i, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)rbuf(x, i), .length = MSG,
			       .lkey = x->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	assert_int_equal(ibv_post_srq_recv(x->srq[i], &wr, &bad), 0);
}

/* One signaled request of the initiator naming SRQ srqn; an RDMA write
 * goes to 32 KiB into the buffer with rkey. */
static void post_xrc_rkey(struct xrc *x, uint32_t srqn, enum ibv_wr_opcode op,
			  uint32_t len, uint64_t wr_id, uint32_t imm, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)x->buf + 0xc000, .length = len,
			       .lkey = x->mr->lkey };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htobe32(imm);
	wr.qp_type.xrc.remote_srqn = srqn;
	if (op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = (uintptr_t)x->buf + 0x8000;
		wr.wr.rdma.rkey = rkey;
	}
	assert_int_equal(emu_post_send(x->ini, &wr), 0);
}

static void post_xrc(struct xrc *x, uint32_t srqn, enum ibv_wr_opcode op,
		     uint32_t len, uint64_t wr_id, uint32_t imm)
{
	post_xrc_rkey(x, srqn, op, len, wr_id, imm, x->mr->rkey);
}

static void test_sends_reach_the_named_srq(void **state)
{
	struct xrc x;
	struct ibv_wc wc;

	(void)state;
	xrc_open(&x);
	assert_true(x.tgt->qp_num & XRC_QPN_BIT);
	assert_false(x.ini->qp_num & XRC_QPN_BIT);
	for (int i = 0; i < NSRQ; i++)
		post_srq_recv(&x, i, 0x5000 + (uint64_t)i);
	/* last SRQ first, so that order alone cannot pass */
	for (int i = NSRQ - 1; i >= 0; i--) {
		uint32_t len = 100 + (uint32_t)i * 50;

		emu_fill(x.buf + 0xc000, len, (unsigned)i + 1);
		post_xrc(&x, x.srqn[i], i == 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, len,
			 0x700 + (uint64_t)i, 0xabc0 + (uint32_t)i);
		wc = emu_poll_one(x.scq, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 0x700 + (uint64_t)i);
		assert_int_equal(wc.qp_num, x.ini->qp_num);
		assert_int_equal(wc.opcode, IBV_WC_SEND);

		wc = emu_poll_one(x.cq[i == 2], IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 0x5000 + (uint64_t)i);
		assert_int_equal(wc.qp_num, x.tgt->qp_num);
		assert_int_equal(wc.src_qp, x.srqn[i]);
		assert_int_equal(wc.opcode, IBV_WC_RECV);
		assert_int_equal(wc.byte_len, len);
		assert_int_equal(wc.wc_flags & IBV_WC_WITH_IMM, i == 1 ? IBV_WC_WITH_IMM : 0);
		if (i == 1)
			assert_int_equal(be32toh(wc.imm_data), 0xabc0 + (uint32_t)i);
		assert_memory_equal(rbuf(&x, i), x.buf + 0xc000, len);
	}
	emu_assert_cq_empty(&x.e, x.cq[0]);
	emu_assert_cq_empty(&x.e, x.cq[1]);
	/* a second round reuses the WQEs libmlx4 freed from the CQEs */
	for (int round = 0; round < 20; round++) {
		int i = round % NSRQ;

		post_srq_recv(&x, i, 0x9000 + (uint64_t)round);
		post_xrc(&x, x.srqn[i], IBV_WR_SEND, 64, (uint64_t)round, 0);
		emu_poll_one(x.scq, IBV_WC_SUCCESS);
		wc = emu_poll_one(x.cq[i == 2], IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 0x9000 + (uint64_t)round);
		assert_int_equal(wc.src_qp, x.srqn[i]);
	}
	xrc_close(&x);
}

/* RDMA writes check the rkey against the XRC SRQ's PD. */
static void test_rdma_write_through_xrc(void **state)
{
	struct xrc x;
	struct ibv_pd *other;
	struct ibv_mr *foreign;

	(void)state;
	xrc_open(&x);
	emu_fill(x.buf + 0xc000, 256, 9);
	post_xrc(&x, x.srqn[0], IBV_WR_RDMA_WRITE, 256, 1, 0);
	emu_poll_one(x.scq, IBV_WC_SUCCESS);
	assert_memory_equal(x.buf + 0x8000, x.buf + 0xc000, 256);
	emu_assert_cq_empty(&x.e, x.cq[0]);

	other = ibv_alloc_pd(x.e.ctx);
	assert_non_null(other);
	foreign = ibv_reg_mr(other, x.buf + 0x8000, 4096,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(foreign);
	post_xrc_rkey(&x, x.srqn[0], IBV_WR_RDMA_WRITE, 64, 2, 0, foreign->rkey);
	emu_poll_one(x.scq, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dereg_mr(foreign), 0);
	assert_int_equal(ibv_dealloc_pd(other), 0);
	xrc_close(&x);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	assert_int_equal(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia), 0);
	return a.qp_state;
}

/*
 * A request naming an SRQ that is not an XRC SRQ of the target's domain
 * (none, a basic SRQ, one of another domain) is an invalid request: the
 * initiator gets REMOTE_INVAL_REQ_ERR and flushes what follows, the target
 * goes to ERR, no SRQ gets a completion.
 */
static void bad_srq(uint32_t (*pick)(struct xrc *x, void **keep))
{
	struct xrc x;
	void *keep = NULL;
	struct ibv_wc wc;
	uint32_t srqn;

	xrc_open(&x);
	srqn = pick(&x, &keep);
	for (int i = 0; i < NSRQ; i++)
		post_srq_recv(&x, i, 0x100 + (uint64_t)i);
	post_xrc(&x, srqn, IBV_WR_SEND, 32, 1, 0);
	post_xrc(&x, x.srqn[0], IBV_WR_SEND, 32, 2, 0);
	wc = emu_poll_one(x.scq, IBV_WC_REM_INV_REQ_ERR);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.qp_num, x.ini->qp_num);
	wc = emu_poll_one(x.scq, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(wc.wr_id, 2);
	assert_int_equal(qp_state(x.tgt), IBV_QPS_ERR);
	assert_int_equal(qp_state(x.ini), IBV_QPS_ERR);
	emu_assert_cq_empty(&x.e, x.cq[0]);
	emu_assert_cq_empty(&x.e, x.cq[1]);
	pick(NULL, &keep);
	xrc_close(&x);
}

static uint32_t no_such_srq(struct xrc *x, void **keep)
{
	(void)keep;
	return x ? 0xfff : 0;
}

static uint32_t basic_srq(struct xrc *x, void **keep)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *s;
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (!x)
		return (uint32_t)ibv_destroy_srq(*keep);
	s = ibv_create_srq(x->e.pd, &a);
	assert_non_null(s);
	sge = (struct ibv_sge){ .addr = (uintptr_t)x->buf + 0xa000, .length = 64,
				.lkey = x->mr->lkey };
	assert_int_equal(ibv_post_srq_recv(s, &wr, &bad), 0);
	*keep = s;
	/* SRQ numbers are SRQ handles on this device */
	return s->handle;
}

struct other_domain {
	struct ibv_xrcd *xrcd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
};

static uint32_t foreign_srq(struct xrc *x, void **keep)
{
	struct other_domain *o = *keep;
	uint32_t n;

	if (!x) {
		assert_int_equal(ibv_destroy_srq(o->srq), 0);
		assert_int_equal(ibv_destroy_cq(o->cq), 0);
		assert_int_equal(ibv_close_xrcd(o->xrcd), 0);
		free(o);
		return 0;
	}
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	o->xrcd = open_xrcd(x->e.ctx, -1, O_CREAT);	/* a private domain */
	assert_non_null(o->xrcd);
	o->cq = ibv_create_cq(x->e.ctx, 8, NULL, NULL, 0);
	assert_non_null(o->cq);
	o->srq = create_xsrq(x->e.ctx, x->e.pd, o->xrcd, o->cq);
	assert_non_null(o->srq);
	assert_int_equal(ibv_get_srq_num(o->srq, &n), 0);
	*keep = o;
	return n;
}

static void test_bad_srq_number(void **state)
{
	(void)state;
	bad_srq(no_such_srq);
}

static void test_basic_srq_number(void **state)
{
	(void)state;
	bad_srq(basic_srq);
}

static void test_srq_of_another_domain(void **state)
{
	(void)state;
	bad_srq(foreign_srq);
}

/* The domain by inode, its reference count and the errors uverbs gives. */
static void test_domain_lifetime(void **state)
{
	struct xrc x;
	struct ibv_xrcd *again, *priv;
	struct ibv_qp_init_attr qa;
	char path2[80];
	int fd2;

	(void)state;
	xrc_open(&x);
	/* the same file through another fd: the same domain */
	fd2 = open(x.path, O_RDONLY);
	assert_true(fd2 >= 0);
	again = open_xrcd(x.e.ctx, fd2, 0);
	assert_non_null(again);
	errno = 0;
	assert_null(open_xrcd(x.e.ctx, fd2, O_CREAT | O_EXCL));
	assert_int_equal(errno, EINVAL);
	/* an SRQ made through the second handle is an SRQ of the domain */
	{
		struct ibv_srq *s = create_xsrq(x.e.ctx, x.e.pd, again, x.cq[0]);
		uint32_t n;
		struct ibv_wc wc;

		assert_non_null(s);
		assert_int_equal(ibv_get_srq_num(s, &n), 0);
		{
			struct ibv_sge sge = { .addr = (uintptr_t)rbuf(&x, 5), .length = MSG,
					       .lkey = x.mr->lkey };
			struct ibv_recv_wr wr = { .wr_id = 55, .sg_list = &sge, .num_sge = 1 };
			struct ibv_recv_wr *bad;

			assert_int_equal(ibv_post_srq_recv(s, &wr, &bad), 0);
		}
		post_xrc(&x, n, IBV_WR_SEND, 16, 9, 0);
		emu_poll_one(x.scq, IBV_WC_SUCCESS);
		wc = emu_poll_one(x.cq[0], IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 55);
		assert_int_equal(wc.src_qp, n);
		errno = 0;
		assert_int_equal(ibv_close_xrcd(again), EBUSY);
		assert_int_equal(ibv_destroy_srq(s), 0);
	}
	assert_int_equal(ibv_close_xrcd(again), 0);
	assert_int_equal(close(fd2), 0);
	/* used by SRQs and a target QP: busy; their CQ too */
	assert_int_equal(ibv_close_xrcd(x.xrcd), EBUSY);
	assert_int_equal(ibv_destroy_cq(x.cq[1]), EBUSY);
	/* a file with no domain yet needs O_CREAT; a bad fd is EBADF */
	snprintf(path2, sizeof(path2), "%s.b", x.path);
	fd2 = open(path2, O_RDONLY | O_CREAT, 0600);
	assert_true(fd2 >= 0);
	errno = 0;
	assert_null(open_xrcd(x.e.ctx, fd2, 0));
	assert_int_equal(errno, EAGAIN);
	close(fd2);
	unlink(path2);
	errno = 0;
	assert_null(open_xrcd(x.e.ctx, 1000, O_CREAT));
	assert_int_equal(errno, EBADF);
	/* private domains (fd -1) are never shared */
	priv = open_xrcd(x.e.ctx, -1, O_CREAT);
	assert_non_null(priv);
	{
		struct ibv_qp_open_attr oa = {
			.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
				     IBV_QP_OPEN_ATTR_TYPE,
			.qp_num = x.tgt->qp_num, .xrcd = priv, .qp_type = IBV_QPT_XRC_RECV,
		};

		errno = 0;
		assert_null(ibv_open_qp(x.e.ctx, &oa));
		assert_int_equal(errno, EINVAL);
	}
	assert_int_equal(ibv_close_xrcd(priv), 0);
	/* an XRC SRQ serves target QPs only */
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = x.scq;
	qa.recv_cq = x.scq;
	qa.srq = x.srq[0];
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 1;
	qa.cap.max_send_sge = 1;
	errno = 0;
	assert_null(ibv_create_qp(x.e.pd, &qa));
	assert_int_equal(errno, EINVAL);
	xrc_close(&x);
}

/*
 * The target QP opened from another context on the same file: modified,
 * queried and kept through that handle after its creator destroyed its
 * own; the QP goes with its last handle.
 */
static void test_open_qp(void **state)
{
	struct xrc x;
	struct ibv_context *ctx2;
	struct ibv_device **list;
	struct ibv_xrcd *xrcd2;
	struct ibv_qp *opened;
	struct ibv_qp_attr a;
	struct ibv_wc wc;
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};

	(void)state;
	xrc_open(&x);
	list = ibv_get_device_list(NULL);
	assert_non_null(list);
	ctx2 = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	assert_non_null(ctx2);
	xrcd2 = open_xrcd(ctx2, x.fd, 0);
	assert_non_null(xrcd2);
	oa.xrcd = xrcd2;
	oa.qp_num = x.tgt->qp_num;
	errno = 0;
	oa.qp_type = IBV_QPT_RC;
	assert_null(ibv_open_qp(ctx2, &oa));
	assert_int_equal(errno, EINVAL);
	oa.qp_type = IBV_QPT_XRC_RECV;
	oa.qp_num = x.tgt->qp_num + 1;
	assert_null(ibv_open_qp(ctx2, &oa));
	oa.qp_num = x.tgt->qp_num;
	opened = ibv_open_qp(ctx2, &oa);
	assert_non_null(opened);
	assert_int_equal(opened->qp_num, x.tgt->qp_num);
	assert_int_equal(qp_state(opened), IBV_QPS_RTS);
	assert_int_equal(ibv_close_xrcd(xrcd2), EBUSY);

	/* the creator's handle goes; the QP stays, reached through ctx2 */
	assert_int_equal(ibv_destroy_qp(x.tgt), 0);
	x.tgt = NULL;
	post_srq_recv(&x, 1, 0x42);
	post_xrc(&x, x.srqn[1], IBV_WR_SEND, 80, 3, 0);
	emu_poll_one(x.scq, IBV_WC_SUCCESS);
	wc = emu_poll_one(x.cq[0], IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 0x42);
	assert_int_equal(wc.qp_num, opened->qp_num);
	assert_int_equal(wc.src_qp, x.srqn[1]);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	assert_int_equal(ibv_modify_qp(opened, &a, IBV_QP_STATE), 0);
	assert_int_equal(qp_state(opened), IBV_QPS_ERR);
	/* its last handle: the QP is gone, the initiator finds nobody */
	assert_int_equal(ibv_destroy_qp(opened), 0);
	post_xrc(&x, x.srqn[1], IBV_WR_SEND, 80, 4, 0);
	wc = emu_poll_one(x.scq, IBV_WC_RETRY_EXC_ERR);
	assert_int_equal(wc.wr_id, 4);
	assert_int_equal(ibv_close_xrcd(xrcd2), 0);
	assert_int_equal(ibv_close_device(ctx2), 0);
	xrc_close(&x);
}

/* A context that closes with a target QP another context opened leaves
 * the QP to the other one. */
static void test_context_close_keeps_shared_qp(void **state)
{
	struct xrc x;
	struct emu_env e2;
	struct ibv_xrcd *xrcd2;
	struct ibv_qp *tgt2, *opened;
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_wc wc;
	uint32_t qpn;

	(void)state;
	xrc_open(&x);
	emu_env_open(&e2, 1);
	xrcd2 = open_xrcd(e2.ctx, x.fd, 0);
	assert_non_null(xrcd2);
	tgt2 = create_tgt(e2.ctx, xrcd2);
	assert_non_null(tgt2);
	to_rts(&x.e, tgt2, x.ini->qp_num);
	qpn = tgt2->qp_num;
	oa.xrcd = x.xrcd;
	oa.qp_num = qpn;
	opened = ibv_open_qp(x.e.ctx, &oa);
	assert_non_null(opened);
	/* e2 goes without destroying its XRC objects */
	assert_int_equal(ibv_dealloc_pd(e2.pd), 0);
	assert_int_equal(ibv_close_device(e2.ctx), 0);
	/* a new initiator targets the surviving QP */
	assert_int_equal(ibv_destroy_qp(x.ini), 0);
	x.ini = create_ini(&x.e, x.scq);
	assert_non_null(x.ini);
	to_rts(&x.e, x.ini, qpn);
	post_srq_recv(&x, 2, 0x77);
	post_xrc(&x, x.srqn[2], IBV_WR_SEND, 40, 5, 0);
	emu_poll_one(x.scq, IBV_WC_SUCCESS);
	wc = emu_poll_one(x.cq[1], IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 0x77);
	assert_int_equal(wc.qp_num, qpn);
	assert_int_equal(ibv_destroy_qp(opened), 0);
	xrc_close(&x);
}

static void test_device_reports_xrc(void **state)
{
	struct emu_env e;

	(void)state;
	emu_env_open(&e, 1);
	assert_true(e.dev_attr.device_cap_flags & IBV_DEVICE_XRC);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_reports_xrc),
		cmocka_unit_test(test_sends_reach_the_named_srq),
		cmocka_unit_test(test_rdma_write_through_xrc),
		cmocka_unit_test(test_bad_srq_number),
		cmocka_unit_test(test_basic_srq_number),
		cmocka_unit_test(test_srq_of_another_domain),
		cmocka_unit_test(test_domain_lifetime),
		cmocka_unit_test(test_open_qp),
		cmocka_unit_test(test_context_close_keeps_shared_qp),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
