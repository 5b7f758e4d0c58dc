// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Faults injected by the software ConnectX-3, seen through the direct path
 * only (mlx4dv_cq_poll_wc: the header's CQ poll, CQE decoding and SQ/RQ
 * completion accounting):
 *  - an error CQE of every syndrome on the k-th WQE of a stream of mixed
 *    opcodes, some unsignaled: the WQEs before it succeed, it reports its
 *    syndrome's status with its own wr_id, every later WQE and every
 *    posted receive of that QP comes back flushed with its wr_id;
 *  - the QP moved to the error state mid-stream: the same, with no error
 *    of its own;
 *  - a CQ overrun: the CQ stops and IBV_EVENT_CQ_ERR arrives; every work
 *    request is either reported by a CQE or still counted outstanding by
 *    the ring (head - tail) - none vanishes.
 * No work request is lost, none is reported twice.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <cmocka.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "emu_verbs.h"
#include "../harness/wc_poll.h"
#include "test_exit.h"

#define NWR 12
#define NRECV_A 3
#define UNSEEN 0xffff

static struct mlx4emu_ctl ctl;
static uint64_t faults_injected;

/* Syndromes (PRM values) and the status rdma-core cq.c reports for each. */
static const struct {
	uint8_t syndrome;
	enum ibv_wc_status status;
} syndromes[] = {
	{ 0x01, IBV_WC_LOC_LEN_ERR },	{ 0x02, IBV_WC_LOC_QP_OP_ERR },
	{ 0x04, IBV_WC_LOC_PROT_ERR },	{ 0x05, IBV_WC_WR_FLUSH_ERR },
	{ 0x06, IBV_WC_MW_BIND_ERR },	{ 0x10, IBV_WC_BAD_RESP_ERR },
	{ 0x11, IBV_WC_LOC_ACCESS_ERR },	{ 0x12, IBV_WC_REM_INV_REQ_ERR },
	{ 0x13, IBV_WC_REM_ACCESS_ERR },	{ 0x14, IBV_WC_REM_OP_ERR },
	{ 0x15, IBV_WC_RETRY_EXC_ERR },	{ 0x16, IBV_WC_RNR_RETRY_EXC_ERR },
	{ 0x22, IBV_WC_REM_ABORT_ERR },	{ 0x3f, IBV_WC_GENERAL_ERR },
};

struct pair {
	struct ev_dev dev;
	struct ibv_cq *cq_v;
	struct mlx4dv_cq_ring cq;
	struct ibv_qp *a, *b;
	struct mlx4dv_sq_ring sq;	/* A's send queue */
	struct mlx4dv_rq_ring rqa, rqb;	/* A's and B's receive queues */
	struct mlx4dv_poll_qp pq[2];
	/* what each work request came back as; UNSEEN until then */
	unsigned send_status[NWR], recv_a_status[NRECV_A];
	unsigned send_vendor[NWR];
	unsigned recv_b_seen;
	unsigned cqes;			/* CQEs polled */
	int signaled[NWR];
};

static int group_setup(void **state)
{
	(void)state;
	if (mlx4emu_ctl_load(&ctl)) {
		fprintf(stderr, "the software device is not loaded\n");
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	printf("faults injected: %llu\n", (unsigned long long)faults_injected);
	return 0;
}

static void pair_open(struct pair *p)
{
	struct ibv_sge sg;
	uint32_t i;

	memset(p, 0, sizeof(*p));
	assert_int_equal(ev_open(&p->dev, 1 << 20), 0);
	p->cq_v = ibv_create_cq(p->dev.ctx, 255, NULL, NULL, 0);
	assert_non_null(p->cq_v);
	p->a = ev_qp_create(&p->dev, IBV_QPT_RC, p->cq_v, p->cq_v, NULL, 16, 8, 1, 0);
	p->b = ev_qp_create(&p->dev, IBV_QPT_RC, p->cq_v, p->cq_v, NULL, 16, 32, 1, 0);
	assert_non_null(p->a);
	assert_non_null(p->b);
	assert_int_equal(ev_qp_to_rts(&p->dev, p->a, p->b->qp_num), 0);
	assert_int_equal(ev_qp_to_rts(&p->dev, p->b, p->a->qp_num), 0);
	assert_int_equal(mlx4dv_cq_ring_init(&p->cq, p->cq_v, 0), 0);
	assert_int_equal(mlx4dv_sq_ring_init(&p->sq, p->a, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_rq_ring_init(&p->rqa, p->a, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_rq_ring_init(&p->rqb, p->b, MLX4DV_RING_INIT_WRID), 0);
	p->pq[0].qpn = p->a->qp_num;
	p->pq[0].sq = &p->sq;
	p->pq[0].rq = &p->rqa;
	p->pq[1].qpn = p->b->qp_num;
	p->pq[1].rq = &p->rqb;
	sg.addr = (uintptr_t)p->dev.mem + 4096;
	sg.length = 256;
	sg.lkey = p->dev.mr->lkey;
	for (i = 0; i < NRECV_A; i++)
		assert_int_equal(mlx4dv_rq_post(&p->rqa, 100 + i, &sg, 1), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(mlx4dv_rq_post(&p->rqb, 200 + i, &sg, 1), 0);
	for (i = 0; i < NWR; i++)
		p->send_status[i] = UNSEEN;
	for (i = 0; i < NRECV_A; i++)
		p->recv_a_status[i] = UNSEEN;
}

static void pair_close(struct pair *p)
{
	mlx4dv_sq_ring_release(&p->sq);
	mlx4dv_rq_ring_release(&p->rqa);
	mlx4dv_rq_ring_release(&p->rqb);
	mlx4dv_cq_ring_release(&p->cq);
	ibv_destroy_qp(p->a);
	ibv_destroy_qp(p->b);
	ibv_destroy_cq(p->cq_v);
	ev_close(&p->dev);
}

/* NWR work requests on A, wr_id 1..NWR: send, write, read, write_imm,
 * fetch-and-add in turn; every third one unsignaled, the last signaled. */
static void post_stream(struct pair *p)
{
	struct ibv_sge sg;
	uint64_t remote = (uintptr_t)p->dev.mem + 65536;
	uint32_t i;

	sg.addr = (uintptr_t)p->dev.mem;
	sg.length = 64;
	sg.lkey = p->dev.mr->lkey;
	for (i = 0; i < NWR; i++) {
		uint32_t flags = (i % 3 == 1 && i != NWR - 1) ? 0 : IBV_SEND_SIGNALED;
		uint32_t rkey = p->dev.mr->rkey;
		int ret;

		p->signaled[i] = flags != 0;
		switch (i % 5) {
		case 0:
			ret = mlx4dv_sq_write_send(&p->sq, i + 1, &sg, 1, flags);
			break;
		case 1:
			ret = mlx4dv_sq_write_rdma_write(&p->sq, i + 1, rkey, remote, &sg, 1, flags);
			break;
		case 2:
			ret = mlx4dv_sq_write_rdma_read(&p->sq, i + 1, rkey, remote, &sg, 1, flags);
			break;
		case 3:
			ret = mlx4dv_sq_write_rdma_write_imm(&p->sq, i + 1, rkey, remote, &sg, 1,
						       flags, 0x01020304);
			break;
		default:
			sg.length = 8;
			ret = mlx4dv_sq_write_faa(&p->sq, i + 1, rkey, remote + 512, 1, &sg, flags);
			sg.length = 64;
			break;
		}
		assert_int_equal(ret, 0);
	}
	mlx4dv_sq_ring_doorbell(&p->sq);
}

/* Poll everything; apply each completion to the bookkeeping, failing on a
 * work request reported twice or one that does not exist. */
static void drain(struct pair *p)
{
	struct ibv_wc wc[8];
	int n, i, idle = 0;

	memset(wc, 0, sizeof(wc));
	assert_int_equal(ctl.wait_idle(10000), 0);
	while (idle < 3) {
		n = wc_poll_count(&p->cq, p->pq, 2, 8, wc);
		assert_true(n >= 0);
		if (!n) {
			idle++;
			assert_int_equal(ctl.wait_idle(10000), 0);
			continue;
		}
		idle = 0;
		p->cqes += (unsigned)n;
		for (i = 0; i < n; i++) {
			uint64_t id = wc[i].wr_id;


			if (wc[i].qp_num == p->b->qp_num) {
				assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
				p->recv_b_seen++;
			} else if (id >= 100 && id < 100 + NRECV_A) {
				assert_int_equal(p->recv_a_status[id - 100], UNSEEN);
				p->recv_a_status[id - 100] = wc[i].status;
			} else {
				uint64_t k;

				assert_true(id >= 1 && id <= NWR);
				assert_int_equal(p->send_status[id - 1], UNSEEN);
				/* unsignaled ones before it were executed before
				 * it: they completed with it, successfully, even
				 * when it failed; a flushed WQE has its own CQE */
				for (k = 1; k < id; k++)
					if (p->send_status[k - 1] == UNSEEN) {
						assert_false(p->signaled[k - 1]);
						p->send_status[k - 1] = IBV_WC_SUCCESS;
					}
				p->send_status[id - 1] = wc[i].status;
				p->send_vendor[id - 1] = wc[i].vendor_err;
			}
		}
	}
}

/* After an error on the k-th WQE (k = 0: none) with flush from k on. */
static void check_outcome(struct pair *p, uint32_t k, enum ibv_wc_status st,
			  uint32_t flush_from)
{
	uint32_t i, sends_before = 0;

	for (i = 0; i < NWR; i++) {
		unsigned want = i + 1 < flush_from ? IBV_WC_SUCCESS :
				i + 1 == k ? (unsigned)st : IBV_WC_WR_FLUSH_ERR;

		if (p->send_status[i] != want)
			print_error("WR %u: status %u, expected %u\n", i + 1,
				    p->send_status[i], want);
		assert_int_equal(p->send_status[i], want);
		if (i + 1 < flush_from && (i % 5 == 0 || i % 5 == 3))
			sends_before++;
	}
	/* the injected error carries the device's vendor syndrome for it */
	if (k)
		assert_int_equal(p->send_vendor[k - 1], 0xfe);
	for (i = 0; i < NRECV_A; i++)
		assert_int_equal(p->recv_a_status[i], IBV_WC_WR_FLUSH_ERR);
	/* B received exactly the sends and writes with immediate before */
	assert_int_equal(p->recv_b_seen, sends_before);
	/* nothing left over on A */
	assert_int_equal(p->sq.tail, p->sq.head);
	assert_int_equal(p->rqa.tail, p->rqa.head);
}

static void test_error_cqe_every_syndrome(void **state)
{
	size_t s;

	(void)state;
	for (s = 0; s < sizeof(syndromes) / sizeof(syndromes[0]); s++) {
		struct pair p;
		struct mlx4emu_fault f;
		uint32_t k = 2 + (uint32_t)(s % 9);	/* the failing WQE, 1-based */

		pair_open(&p);
		memset(&f, 0, sizeof(f));
		f.type = MLX4EMU_FAULT_ERROR_CQE;
		f.qpn = p.a->qp_num;
		f.syndrome = syndromes[s].syndrome;
		f.count = k;
		assert_int_equal(ctl.set_fault(&f), 0);
		faults_injected++;
		post_stream(&p);
		drain(&p);
		check_outcome(&p, k, syndromes[s].status, k);
		ctl.clear_faults();
		pair_close(&p);
	}
}

static void test_qp_error_mid_stream(void **state)
{
	uint32_t after;

	(void)state;
	for (after = 0; after <= NWR; after += 4) {
		struct pair p;
		struct mlx4emu_fault f;

		pair_open(&p);
		memset(&f, 0, sizeof(f));
		f.type = MLX4EMU_FAULT_QP_ERROR;
		f.qpn = p.a->qp_num;
		f.count = after ? after : 1;
		assert_int_equal(ctl.set_fault(&f), 0);
		faults_injected++;
		post_stream(&p);
		drain(&p);
		check_outcome(&p, 0, IBV_WC_SUCCESS, (after ? after : 1) + 1);
		ctl.clear_faults();
		pair_close(&p);
	}
}

static void test_cq_overrun_loses_nothing_silently(void **state)
{
	uint32_t at;

	(void)state;
	for (at = 1; at <= 9; at += 4) {
		struct pair p;
		struct mlx4emu_fault f;
		struct ibv_async_event ev;
		struct pollfd pfd;
		uint32_t i, reported = 0, covered;

		/* armed for the next CQ created: a CQN of 0 (the first CQ of a
		 * fresh device) cannot be named, 0 means "any" */
		memset(&f, 0, sizeof(f));
		f.type = MLX4EMU_FAULT_CQ_OVERRUN;
		f.cqn = MLX4EMU_ANY;
		f.count = at;
		assert_int_equal(ctl.set_fault(&f), 0);
		faults_injected++;
		pair_open(&p);
		post_stream(&p);
		drain(&p);
		/* the application learns it from the async event */
		pfd.fd = p.dev.ctx->async_fd;
		pfd.events = POLLIN;
		assert_int_equal(poll(&pfd, 1, 5000), 1);
		assert_int_equal(ibv_get_async_event(p.dev.ctx, &ev), 0);
		assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
		assert_ptr_equal(ev.element.cq, p.cq_v);
		ibv_ack_async_event(&ev);
		/* at - 1 CQEs got through (an unsignaled WQE completes with
		 * the next one), all good and in order */
		for (i = 0; i < NWR; i++)
			if (p.send_status[i] != UNSEEN) {
				assert_int_equal(p.send_status[i], IBV_WC_SUCCESS);
				reported++;
			}
		covered = reported;
		/* the rest are still outstanding in the ring, not lost */
		assert_int_equal(covered + (p.sq.head - p.sq.tail), NWR);
		assert_int_equal(p.cqes, at - 1);
		ctl.clear_faults();
		pair_close(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_cqe_every_syndrome),
		cmocka_unit_test(test_qp_error_mid_stream),
		cmocka_unit_test(test_cq_overrun_loses_nothing_silently),
	};

	t_run_group_tests_name("reliability_faults", tests, group_setup, group_teardown);
	return t_exit();
}
