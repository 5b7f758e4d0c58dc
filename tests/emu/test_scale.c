// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The engine's work per pass follows the queues that have work: a busy
 * RC pair keeps its round trip among 10,000 idle QPs in RTS (within 2x of
 * the same pair alone; medians of many round trips measured here, side by
 * side, with a generous bound so that machine load does not decide it).
 */
#include "emu_test.h"

#include <time.h>

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE)
#define IDLE_QPS 10000
#define ROUND_TRIPS 1500

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void send8(struct emu_qp *q, uint64_t wr_id)
{
	struct ibv_sge sg = { (uintptr_t)q->buf, 8, q->mr->lkey };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	assert_int_equal(emu_post_send(q->qp, &wr), 0);
}

/* One message each way; the receive is reposted at once. */
static void half_trip(struct emu_qp *from, struct emu_qp *to)
{
	struct ibv_wc wc;

	send8(from, 1);
	assert_int_equal(emu_poll(to->rcq, &wc, 1), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	emu_post_recv(to->qp, 2, to->buf + 64, 64, to->mr->lkey);
	assert_int_equal(emu_poll(from->scq, &wc, 1), 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median_round_trip(struct emu_qp *a, struct emu_qp *b)
{
	static uint64_t rt[ROUND_TRIPS];

	for (int i = 0; i < ROUND_TRIPS; i++) {
		uint64_t t0 = now_ns();

		half_trip(a, b);
		half_trip(b, a);
		rt[i] = now_ns() - t0;
	}
	qsort(rt, ROUND_TRIPS, sizeof(rt[0]), cmp_u64);
	return rt[ROUND_TRIPS / 2];
}

static void test_busy_pair_among_idle_qps(void **state)
{
	static struct ibv_qp *idle[IDLE_QPS];
	struct emu_env e;
	struct emu_qp a, b;
	struct ibv_cq *cq;
	uint64_t alone1, alone2, crowd, alone;

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &a, IBV_QPT_RC, 16, 16, 64, 4096, NULL);
	emu_qp_create(&e, &b, IBV_QPT_RC, 16, 16, 64, 4096, NULL);
	emu_qp_to_rts(&e, a.qp, b.qp->qp_num, ACC);
	emu_qp_to_rts(&e, b.qp, a.qp->qp_num, ACC);
	emu_post_recv(a.qp, 2, a.buf + 64, 64, a.mr->lkey);
	emu_post_recv(b.qp, 2, b.buf + 64, 64, b.mr->lkey);
	alone1 = median_round_trip(&a, &b);

	cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	assert_non_null(cq);
	for (int i = 0; i < IDLE_QPS; i++) {
		struct ibv_qp_init_attr ia;

		memset(&ia, 0, sizeof(ia));
		ia.send_cq = ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_UD;
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		idle[i] = ibv_create_qp(e.pd, &ia);
		assert_non_null(idle[i]);
		emu_qp_to_rts(&e, idle[i], 0, 0);
	}
	crowd = median_round_trip(&a, &b);
	for (int i = 0; i < IDLE_QPS; i++)
		assert_int_equal(ibv_destroy_qp(idle[i]), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	alone2 = median_round_trip(&a, &b);
	alone = alone1 > alone2 ? alone1 : alone2;
	print_message("round trip median: alone %.1f / %.1f us, among %d idle QPs %.1f us\n",
		      (double)alone1 / 1000, (double)alone2 / 1000, IDLE_QPS,
		      (double)crowd / 1000);
	assert_true(crowd <= 2 * alone);
	emu_qp_destroy(&a);
	emu_qp_destroy(&b);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_pair_among_idle_qps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
