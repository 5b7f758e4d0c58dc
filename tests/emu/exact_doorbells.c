// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Doorbells: valid WQEs nobody announced are not executed (and, with
 * debug on, named: "no doorbell"); doorbells of 64 QPs rung from four
 * threads in random order lose nothing.
 */
#include "exact.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

/* Eight RDMA writes posted without a doorbell: not executed, and named
 * after 100 ms; the doorbell then runs all eight. */
void test_forgotten_doorbell(void **state)
{
	struct emu_env e;
	struct hq h;
	struct capture cap;
	struct mlx4emu_counters c0, c1;
	struct ibv_wc wc[8];
	char qpn_text[64];
	uint64_t t0;
	bool named = false;
	int early = 0;

	(void)state;
	if (!doorbells_trapped())
		t_skip_case("the launcher polls the doorbells");
	emu_env_open(&e, 1);
	hq_open(&e, &h, 16);
	emu_fill(h.q.buf, 4096, 9);
	e.ctl.get_counters(&c0);
	capture_start(&e, &cap);
	for (uint32_t i = 0; i < 8; i++)
		hq_write(&h, (uintptr_t)h.q.buf + 64 * i, h.q.mr->lkey,
			 (uintptr_t)h.q.buf + 8192 + 64 * i, h.q.mr->rkey, 64);
	snprintf(qpn_text, sizeof(qpn_text), "QPN 0x%x: 8 valid send WQE(s)",
		 h.q.qp->qp_num);
	for (t0 = now_ms(); now_ms() - t0 < 5000 && !named;) {
		usleep(10000);
		early += ibv_poll_cq(h.q.scq, 8, wc);
		named = captured_has(&cap, qpn_text) && captured_has(&cap, "no doorbell");
	}
	if (!named)
		(void)!write(cap.saved, "device trace did not name the QP\n", 33);
	capture_end(&e, &cap);
	assert_int_equal(early, 0);
	assert_true(named);
	assert_true(now_ms() - t0 >= 100);
	e.ctl.get_counters(&c1);
	assert_int_equal(c1.wqes_executed, c0.wqes_executed);
	assert_int_equal(memcmp(h.q.buf + 8192, h.q.buf, 512) == 0, 0);

	hq_ring(&h);
	assert_int_equal(emu_poll(h.q.scq, wc, 8), 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
	assert_memory_equal(h.q.buf + 8192, h.q.buf, 512);
	emu_qp_destroy(&h.q);
	emu_env_close(&e);
}

/* ---- doorbells from many threads ---- */

#define DB_THREADS 4
#define DB_QPS_PER_THREAD 16
#define DB_POSTS 1000000
#define DB_WR 32

struct db_thread {
	struct emu_env *e;
	struct hq qp[DB_QPS_PER_THREAD];
	struct ibv_cq *cq;
	uint32_t posted[DB_QPS_PER_THREAD], done[DB_QPS_PER_THREAD];
	uint32_t posts, seed;
	int bad;
};

static int db_index(struct db_thread *t, uint32_t qpn)
{
	for (int i = 0; i < DB_QPS_PER_THREAD; i++)
		if (t->qp[i].q.qp->qp_num == qpn)
			return i;
	return -1;
}

static void db_reap(struct db_thread *t)
{
	struct ibv_wc wc[32];
	int n = ibv_poll_cq(t->cq, 32, wc);

	for (int i = 0; i < n; i++) {
		int k = db_index(t, wc[i].qp_num);

		if (k < 0 || wc[i].status != IBV_WC_SUCCESS)
			t->bad++;
		else
			t->done[k]++;
	}
}

static void *db_main(void *arg)
{
	struct db_thread *t = arg;
	uint64_t deadline = now_ms() + 280000;

	for (uint32_t p = 0; p < t->posts && now_ms() < deadline;) {
		uint32_t k;

		t->seed = t->seed * 1103515245u + 12345u;
		k = (t->seed >> 16) % DB_QPS_PER_THREAD;
		if (t->posted[k] - t->done[k] >= DB_WR) {
			db_reap(t);
			continue;
		}
		/* an RDMA write of 0 bytes: ctrl + raddr, one WQEBB */
		hq_write(&t->qp[k], 0, 0, (uintptr_t)t->qp[k].q.buf, t->qp[k].q.mr->rkey, 0);
		hq_ring(&t->qp[k]);
		t->posted[k]++;
		p++;
		if (!(p & 7))
			db_reap(t);
	}
	for (uint64_t end = now_ms() + 20000; now_ms() < end;) {
		uint32_t left = 0;

		db_reap(t);
		for (int i = 0; i < DB_QPS_PER_THREAD; i++)
			left += t->posted[i] - t->done[i];
		if (!left)
			break;
	}
	return NULL;
}

void test_doorbells_many_threads(void **state)
{
	static struct db_thread th[DB_THREADS];
	pthread_t tid[DB_THREADS];
	struct emu_env e;
	uint64_t posted = 0, done = 0;

	(void)state;
	emu_env_open(&e, 1);
	for (int t = 0; t < DB_THREADS; t++) {
		memset(&th[t], 0, sizeof(th[t]));
		th[t].e = &e;
		th[t].cq = ibv_create_cq(e.ctx, DB_QPS_PER_THREAD * DB_WR * 2, NULL, NULL, 0);
		assert_non_null(th[t].cq);
		th[t].posts = DB_POSTS / DB_THREADS;
		th[t].seed = 1234567u * (unsigned)(t + 1);
		for (int i = 0; i < DB_QPS_PER_THREAD; i++) {
			struct hq *h = &th[t].qp[i];
			struct ibv_qp_init_attr a;

			memset(&a, 0, sizeof(a));
			a.send_cq = a.recv_cq = th[t].cq;
			a.qp_type = IBV_QPT_RC;
			a.cap.max_send_wr = DB_WR;
			a.cap.max_recv_wr = 1;
			a.cap.max_send_sge = 1;
			a.cap.max_recv_sge = 1;
			h->q.qp = ibv_create_qp(e.pd, &a);
			assert_non_null(h->q.qp);
			h->q.buf = aligned_alloc(4096, 4096);
			h->q.mr = ibv_reg_mr(e.pd, h->q.buf, 4096, ACC);
			assert_non_null(h->q.mr);
			emu_qp_to_rts(&e, h->q.qp, h->q.qp->qp_num, ACC);
			hq_init_obj(h);
		}
	}
	for (int t = 0; t < DB_THREADS; t++)
		assert_int_equal(pthread_create(&tid[t], NULL, db_main, &th[t]), 0);
	for (int t = 0; t < DB_THREADS; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < DB_THREADS; t++) {
		assert_int_equal(th[t].bad, 0);
		for (int i = 0; i < DB_QPS_PER_THREAD; i++) {
			posted += th[t].posted[i];
			done += th[t].done[i];
			/* every post of every QP completed exactly once */
			assert_int_equal(th[t].done[i], th[t].posted[i]);
			assert_int_equal(ibv_destroy_qp(th[t].qp[i].q.qp), 0);
			assert_int_equal(ibv_dereg_mr(th[t].qp[i].q.mr), 0);
			free(th[t].qp[i].q.buf);
		}
		assert_int_equal(ibv_destroy_cq(th[t].cq), 0);
	}
	print_message("%llu posts on %d QPs from %d threads, %llu completed\n",
		      (unsigned long long)posted, DB_THREADS * DB_QPS_PER_THREAD,
		      DB_THREADS, (unsigned long long)done);
	assert_int_equal(posted, DB_POSTS);
	emu_env_close(&e);
}
