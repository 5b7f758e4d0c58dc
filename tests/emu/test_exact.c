// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * An exact and safe device:
 *  - doorbells: valid WQEs nobody announced are not executed (and, with
 *    debug on, named: "no doorbell"); doorbells of 64 QPs rung from four
 *    threads in random order lose nothing;
 *  - ordering: work posted before a verbs command has run when the
 *    command acts (resize refused, modify to ERR after the writes);
 *  - QP states: sends wait until RTS;
 *  - memory the program takes away (MR pages, the SQ and RQ rings, the CQ
 *    buffer, libmlx4's shared pages of RQ and CQ doorbell records) gives
 *    errors and async events, never a signal;
 *  - the raw mmap system call maps the device's own pages.
 * WQEs are written by hand at the positions mlx4dv_init_obj gives
 * (rdma-core's <infiniband/mlx4dv.h>, PRM layouts).
 */
#include "emu_test.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/mlx4dv.h>
#pragma GCC diagnostic pop

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE)

static bool doorbells_trapped(void)
{
	const char *v = getenv("MLX4EMU_DOORBELL");

	return !(v && !strcmp(v, "poll"));
}

/* A QP posted by hand: its layout and the next WQEBB counter. */
struct hq {
	struct emu_qp q;
	struct mlx4dv_qp d;
	uint32_t head;
};

static void hq_init_obj(struct hq *h)
{
	struct mlx4dv_obj obj;

	memset(&obj, 0, sizeof(obj));
	obj.qp.in = h->q.qp;
	obj.qp.out = &h->d;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	h->head = 0;
}

/* An RC QP connected to itself, in RTS. */
static void hq_open(struct emu_env *e, struct hq *h, uint32_t wr)
{
	emu_qp_create(e, &h->q, IBV_QPT_RC, wr, 4, 256, 1 << 16, NULL);
	emu_qp_to_rts(e, h->q.qp, h->q.qp->qp_num, ACC);
	hq_init_obj(h);
}

static uint8_t *hq_slot(struct hq *h, uint32_t n)
{
	return (uint8_t *)h->d.buf.buf + h->d.sq.offset +
	       ((n & (h->d.sq.wqe_cnt - 1)) << h->d.sq.wqe_shift);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

/* An RDMA write of len bytes from local to remote (both in the QP's MR or
 * the given keys), signaled; written with word 0 (owner bit) last. */
static void hq_write(struct hq *h, uint64_t src, uint32_t lkey, uint64_t dst,
		     uint32_t rkey, uint32_t len)
{
	uint8_t *w = hq_slot(h, h->head);
	uint32_t owner = (h->head & h->d.sq.wqe_cnt) ? 1u << 31 : 0;
	uint8_t ds = len ? 3 : 2;

	w[4] = w[5] = w[6] = 0;
	w[7] = ds;
	put32(w + 8, 3 << 2);
	put32(w + 12, 0);
	put64(w + 16, dst);
	put32(w + 24, rkey);
	put32(w + 28, 0);
	if (len) {
		put32(w + 36, lkey);
		put64(w + 40, src);
		put32(w + 32, len);
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	put32(w, owner | 0x08);
	h->head++;
}

static void hq_ring(struct hq *h)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint32_t *)h->d.sdb = h->d.doorbell_qpn;
}

/* A write of 64 bytes from the start of the QP's buffer to offset 1024. */
static void hq_write_64(struct hq *h)
{
	hq_write(h, (uintptr_t)h->q.buf, h->q.mr->lkey, (uintptr_t)h->q.buf + 1024,
		 h->q.mr->rkey, 64);
}

/* stderr into a memfd while the device traces (debug on) */
struct capture {
	int saved, fd, old_debug;
};

static void capture_start(struct emu_env *e, struct capture *c)
{
	fflush(stderr);
	c->fd = memfd_create("stderr", 0);
	assert_true(c->fd >= 0);
	c->saved = dup(2);
	assert_true(dup2(c->fd, 2) == 2);
	c->old_debug = e->ctl.set_debug(1);
}

static bool captured_has(struct capture *c, const char *text)
{
	static char buf[1 << 16];
	ssize_t n = pread(c->fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, text) != NULL;
}

static void capture_end(struct emu_env *e, struct capture *c)
{
	e->ctl.set_debug(c->old_debug);
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	close(c->fd);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Eight RDMA writes posted without a doorbell: not executed, and named
 * after 100 ms; the doorbell then runs all eight. */
static void test_forgotten_doorbell(void **state)
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
		skip();
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

static void test_doorbells_many_threads(void **state)
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

/* ---- ordering ---- */

/* Six UD sends, then a resize to fewer entries than are outstanding:
 * refused, as on hardware (the sends have long completed there). */
static void test_resize_after_sends(void **state)
{
	struct emu_env e;
	struct emu_qp u;
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;
	struct ibv_wc wc[8];

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &u, IBV_QPT_UD, 16, 16, 16, 4096, NULL);
	emu_qp_to_rts(&e, u.qp, 0, 0);
	memset(&aa, 0, sizeof(aa));
	aa.dlid = e.port_attr.lid;
	aa.port_num = 1;
	ah = ibv_create_ah(e.pd, &aa);
	assert_non_null(ah);
	for (int i = 0; i < 6; i++) {
		struct ibv_sge sg = { (uintptr_t)u.buf, 16, u.mr->lkey };
		struct ibv_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = 0xffffff;	/* nobody: dropped, completes */
		wr.wr.ud.remote_qkey = 0x11111111;
		assert_int_equal(ibv_post_send(u.qp, &wr, &bad), 0);
	}
	assert_int_equal(ibv_resize_cq(u.scq, 3), EINVAL);
	assert_int_equal(emu_poll(u.scq, wc, 6), 6);
	assert_int_equal(ibv_destroy_ah(ah), 0);
	emu_qp_destroy(&u);
	emu_env_close(&e);
}

/* Eight RDMA writes, then the QP to ERR: the writes were executed first
 * (success), not flushed. */
static void test_modify_after_writes(void **state)
{
	struct emu_env e;
	struct emu_qp q;
	struct ibv_qp_attr a;
	struct ibv_wc wc[8];

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &q, IBV_QPT_RC, 16, 4, 64, 1 << 16, NULL);
	emu_qp_to_rts(&e, q.qp, q.qp->qp_num, ACC);
	emu_fill(q.buf, 1024, 4);
	for (int i = 0; i < 8; i++) {
		struct ibv_sge sg = { (uintptr_t)q.buf + 128u * (unsigned)i, 128, q.mr->lkey };
		struct ibv_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)q.buf + 32768 + 128u * (unsigned)i;
		wr.wr.rdma.rkey = q.mr->rkey;
		assert_int_equal(ibv_post_send(q.qp, &wr, &bad), 0);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	assert_int_equal(ibv_modify_qp(q.qp, &a, IBV_QP_STATE), 0);
	assert_int_equal(emu_poll(q.scq, wc, 8), 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
	assert_memory_equal(q.buf + 32768, q.buf, 1024);
	emu_qp_destroy(&q);
	emu_env_close(&e);
}

/* ---- QP states ---- */

static void modify_to(struct emu_env *e, struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;

	memset(&a, 0, sizeof(a));
	a.qp_state = s;
	if (s == IBV_QPS_INIT) {
		a.port_num = e->port;
		a.qp_access_flags = ACC;
		mask |= IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS;
	} else if (s == IBV_QPS_RTR) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.ah_attr.port_num = e->port;
		a.ah_attr.dlid = e->port_attr.lid;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	} else {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	assert_int_equal(ibv_modify_qp(qp, &a, mask), 0);
}

/* A write posted and rung in INIT waits through RTR and runs in RTS. */
static void test_send_held_until_rts(void **state)
{
	struct emu_env e;
	struct hq h;
	struct capture cap;
	struct ibv_wc wc;
	char text[80];

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &h.q, IBV_QPT_RC, 16, 4, 64, 1 << 16, NULL);
	modify_to(&e, h.q.qp, IBV_QPS_INIT);
	hq_init_obj(&h);
	emu_fill(h.q.buf, 256, 5);
	capture_start(&e, &cap);
	hq_write(&h, (uintptr_t)h.q.buf, h.q.mr->lkey, (uintptr_t)h.q.buf + 4096,
		 h.q.mr->rkey, 256);
	hq_ring(&h);
	emu_idle(&e);
	emu_assert_cq_empty(&e, h.q.scq);
	snprintf(text, sizeof(text), "QPN 0x%x: send WQE 0x0000 held: the QP is in INIT",
		 h.q.qp->qp_num);
	assert_true(captured_has(&cap, text));
	modify_to(&e, h.q.qp, IBV_QPS_RTR);
	emu_idle(&e);
	emu_assert_cq_empty(&e, h.q.scq);
	capture_end(&e, &cap);
	modify_to(&e, h.q.qp, IBV_QPS_RTS);
	assert_int_equal(emu_poll(h.q.scq, &wc, 1), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(h.q.buf + 4096, h.q.buf, 256);
	emu_qp_destroy(&h.q);
	emu_env_close(&e);
}

/* ---- memory the program takes away ---- */

/* The next async event (within 5 s), acknowledged: its type, and the
 * event itself in *out (the object it names). */
static uint32_t next_async_event_of(struct emu_env *e, struct ibv_async_event *out)
{
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(ibv_get_async_event(e->ctx, &ev), 0);
	*out = ev;
	ibv_ack_async_event(&ev);
	return ev.event_type;
}

static uint32_t next_async_event(struct emu_env *e)
{
	struct ibv_async_event ev;

	return next_async_event_of(e, &ev);
}

/* The device still works: a fresh QP completes a write. */
static void assert_device_works(struct emu_env *e)
{
	struct hq h;
	struct ibv_wc wc;

	hq_open(e, &h, 16);
	emu_fill(h.q.buf, 64, 11);
	hq_write_64(&h);
	hq_ring(&h);
	assert_int_equal(emu_poll(h.q.scq, &wc, 1), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(h.q.buf + 1024, h.q.buf, 64);
	emu_qp_destroy(&h.q);
}

/* Registered pages unmapped, then gathered from and written to. */
static void test_unmapped_mr(void **state)
{
	struct emu_env e;
	struct hq h;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	size_t len = 1 << 16;
	uint8_t *gone;

	(void)state;
	emu_env_open(&e, 1);
	hq_open(&e, &h, 16);
	gone = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(gone != MAP_FAILED);
	mr = ibv_reg_mr(e.pd, gone, len, ACC);
	assert_non_null(mr);
	assert_int_equal(munmap(gone, len), 0);
	/* gather from the unmapped MR */
	hq_write(&h, (uintptr_t)gone + 100, mr->lkey, (uintptr_t)h.q.buf, h.q.mr->rkey, 64);
	hq_ring(&h);
	assert_int_equal(emu_poll(h.q.scq, &wc, 1), 1);
	assert_int_equal(wc.status, IBV_WC_LOC_PROT_ERR);
	emu_qp_destroy(&h.q);
	/* scatter into it */
	hq_open(&e, &h, 16);
	hq_write(&h, (uintptr_t)h.q.buf, h.q.mr->lkey, (uintptr_t)gone + 4096, mr->rkey, 64);
	hq_ring(&h);
	assert_int_equal(emu_poll(h.q.scq, &wc, 1), 1);
	assert_int_equal(wc.status, IBV_WC_LOC_PROT_ERR);
	emu_qp_destroy(&h.q);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_device_works(&e);
	emu_env_close(&e);
}

/* The interior pages of [p, p + len) (a ring inside malloc'd memory). */
static void protect_interior(void *p, size_t len, int prot, void **start, size_t *n)
{
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t b = ((uintptr_t)p + len) & ~(uintptr_t)4095;

	assert_true(b > a);
	*start = (void *)a;
	*n = b - a;
	assert_int_equal(mprotect(*start, *n, prot), 0);
}

/* The CQ buffer taken away while a WQE completes into it. */
static void test_unmapped_cq_buffer(void **state)
{
	struct emu_env e;
	struct hq h;
	struct ibv_cq *cq;
	struct ibv_qp_init_attr a;
	struct mlx4dv_cq dcq;
	struct mlx4dv_obj obj;
	void *pages;
	size_t n;

	(void)state;
	emu_env_open(&e, 1);
	/* 4096 CQEs: the buffer spans whole pages */
	cq = ibv_create_cq(e.ctx, 4095, NULL, NULL, 0);
	assert_non_null(cq);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = cq;
	obj.cq.out = &dcq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 16;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	memset(&h, 0, sizeof(h));
	h.q.qp = ibv_create_qp(e.pd, &a);
	assert_non_null(h.q.qp);
	h.q.buf = aligned_alloc(4096, 4096);
	h.q.mr = ibv_reg_mr(e.pd, h.q.buf, 4096, ACC);
	emu_qp_to_rts(&e, h.q.qp, h.q.qp->qp_num, ACC);
	hq_init_obj(&h);
	protect_interior(dcq.buf.buf, dcq.buf.length, PROT_NONE, &pages, &n);
	hq_write_64(&h);
	hq_ring(&h);
	assert_int_equal(next_async_event(&e), IBV_EVENT_CQ_ERR);
	assert_int_equal(mprotect(pages, n, PROT_READ | PROT_WRITE), 0);
	assert_device_works(&e);
	assert_int_equal(ibv_destroy_qp(h.q.qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dereg_mr(h.q.mr), 0);
	free(h.q.buf);
	emu_env_close(&e);
}

/* The send ring taken away between the post and the doorbell. */
static void test_unmapped_send_ring(void **state)
{
	struct emu_env e;
	struct hq h;
	void *pages;
	size_t n;

	(void)state;
	emu_env_open(&e, 1);
	/* 256 WQEBBs of 64 bytes: whole pages of ring */
	hq_open(&e, &h, 200);
	assert_int_equal(e.ctl.pause(), 0);
	hq_write_64(&h);
	protect_interior(h.d.buf.buf, h.d.buf.length, PROT_NONE, &pages, &n);
	hq_ring(&h);
	assert_int_equal(e.ctl.resume(), 0);
	assert_int_equal(next_async_event(&e), IBV_EVENT_QP_FATAL);
	assert_int_equal(mprotect(pages, n, PROT_READ | PROT_WRITE), 0);
	assert_device_works(&e);
	emu_qp_destroy(&h.q);
	emu_env_close(&e);
}

/* The receive ring taken away with a receive WQE posted on it: the SEND
 * that consumes that WQE loses the receiving QP (here the QP itself). */
static void test_unmapped_recv_ring(void **state)
{
	struct emu_env e;
	struct hq h;
	uint8_t *rq;
	void *pages;
	size_t n;

	(void)state;
	emu_env_open(&e, 1);
	/* 256 receive WQEs of 4 entries (64 bytes): whole pages of ring */
	emu_qp_create(&e, &h.q, IBV_QPT_RC, 16, 256, 256, 1 << 16, NULL);
	emu_qp_to_rts(&e, h.q.qp, h.q.qp->qp_num, ACC);
	hq_init_obj(&h);
	emu_post_recv(h.q.qp, 1, h.q.buf + 4096, 64, h.q.mr->lkey);
	rq = (uint8_t *)h.d.buf.buf + h.d.rq.offset;
	protect_interior(rq, (size_t)h.d.rq.wqe_cnt << h.d.rq.wqe_shift, PROT_NONE,
			 &pages, &n);
	/* the posted WQE (slot 0) is in the pages taken away */
	assert_true(rq >= (uint8_t *)pages && rq < (uint8_t *)pages + n);
	emu_post_signaled_send(h.q.qp, 7, h.q.buf, 64, h.q.mr->lkey);
	assert_int_equal(next_async_event(&e), IBV_EVENT_QP_FATAL);
	assert_int_equal(mprotect(pages, n, PROT_READ | PROT_WRITE), 0);
	assert_device_works(&e);
	emu_qp_destroy(&h.q);
	emu_env_close(&e);
}

static size_t page_len(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* The page p is in. */
static void *page_of(const volatile void *p)
{
	return (void *)((uintptr_t)p & ~(uintptr_t)(page_len() - 1));
}

/* A fresh page where one was unmapped, for libmlx4's next records there
 * and its teardown. */
static void remap_page(void *page)
{
	assert_true(mmap(page, page_len(), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == page);
}

/* The page of receive doorbell records unmapped.  libmlx4 keeps the
 * records of many RQs in one page of its own (dbrec.c: one mmap'd page
 * per record type, 4-byte RQ records): both QPs here have theirs in it.
 * Each QP is lost (IBV_EVENT_QP_FATAL, naming it) when the device next
 * reads its record, here for the receive a SEND consumes; the program
 * gets no signal and the rest of the device goes on. */
static void test_unmapped_rq_doorbell_page(void **state)
{
	struct emu_env e;
	struct hq a, b;
	struct ibv_async_event ev;
	void *page;

	(void)state;
	emu_env_open(&e, 1);
	hq_open(&e, &a, 16);
	hq_open(&e, &b, 16);
	page = page_of(a.d.rdb);
	assert_ptr_equal(page, page_of(b.d.rdb));
	/* libmlx4 writes the records as it posts: before the page goes */
	emu_post_recv(a.q.qp, 1, a.q.buf + 4096, 64, a.q.mr->lkey);
	emu_post_recv(b.q.qp, 2, b.q.buf + 4096, 64, b.q.mr->lkey);
	assert_int_equal(munmap(page, page_len()), 0);
	emu_post_signaled_send(a.q.qp, 11, a.q.buf, 64, a.q.mr->lkey);
	assert_int_equal(next_async_event_of(&e, &ev), IBV_EVENT_QP_FATAL);
	assert_ptr_equal(ev.element.qp, a.q.qp);
	emu_post_signaled_send(b.q.qp, 12, b.q.buf, 64, b.q.mr->lkey);
	assert_int_equal(next_async_event_of(&e, &ev), IBV_EVENT_QP_FATAL);
	assert_ptr_equal(ev.element.qp, b.q.qp);
	remap_page(page);
	assert_device_works(&e);
	emu_qp_destroy(&a.q);
	emu_qp_destroy(&b.q);
	emu_env_close(&e);
}

/* CQ_ENTRIES signalled writes on h, their CQEs taken through libmlx4
 * (which writes the CQ's consumer-index record). */
enum { CQ_ENTRIES = 16 };

static void hq_fill_cq_once(struct hq *h)
{
	struct ibv_wc wc[CQ_ENTRIES];

	for (int i = 0; i < CQ_ENTRIES; i++)
		hq_write_64(h);
	hq_ring(h);
	assert_int_equal(emu_poll(h->q.scq, wc, CQ_ENTRIES), CQ_ENTRIES);
	for (int i = 0; i < CQ_ENTRIES; i++)
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
}

/* The page of CQ doorbell records (consumer index and arm, 8 bytes a CQ,
 * one page for many CQs: dbrec.c) unmapped.  Each CQ whose record is there
 * goes to error (IBV_EVENT_CQ_ERR, naming it) when the device next reads
 * the record: here when its ring looks full from the last consumer index
 * it read (0, after CQ_ENTRIES CQEs the program took), so the next CQE
 * needs the record.  With the record there the CQE would go in.  No
 * signal; the rest of the device goes on. */
static void test_unmapped_cq_doorbell_page(void **state)
{
	struct mlx4dv_cq dcq_a, dcq_b;
	struct mlx4dv_obj obj;
	struct emu_env e;
	struct hq a, b;
	struct ibv_async_event ev;
	void *page;

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &a.q, IBV_QPT_RC, 64, 4, CQ_ENTRIES - 1, 1 << 16, NULL);
	emu_qp_create(&e, &b.q, IBV_QPT_RC, 64, 4, CQ_ENTRIES - 1, 1 << 16, NULL);
	emu_qp_to_rts(&e, a.q.qp, a.q.qp->qp_num, ACC);
	emu_qp_to_rts(&e, b.q.qp, b.q.qp->qp_num, ACC);
	hq_init_obj(&a);
	hq_init_obj(&b);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = a.q.scq;
	obj.cq.out = &dcq_a;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	obj.cq.in = b.q.scq;
	obj.cq.out = &dcq_b;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	assert_int_equal(dcq_a.cqe_cnt, CQ_ENTRIES);
	page = page_of(dcq_a.set_ci_db);
	assert_ptr_equal(page, page_of(dcq_a.arm_db));
	assert_ptr_equal(page, page_of(dcq_b.set_ci_db));
	hq_fill_cq_once(&a);
	hq_fill_cq_once(&b);
	/* from here on no libmlx4 call on the CQs: they write the records */
	assert_int_equal(munmap(page, page_len()), 0);
	hq_write_64(&a);
	hq_ring(&a);
	hq_write_64(&b);
	hq_ring(&b);
	/* both send CQs lost, each once; with polled doorbells the device
	 * also reads the arm records of the receive CQs (same page) and may
	 * name them first */
	for (int events = 0, lost_a = 0, lost_b = 0; !lost_a || !lost_b; events++) {
		assert_true(events < 4);
		assert_int_equal(next_async_event_of(&e, &ev), IBV_EVENT_CQ_ERR);
		if (ev.element.cq == a.q.scq) {
			assert_false(lost_a++);
		} else if (ev.element.cq == b.q.scq) {
			assert_false(lost_b++);
		} else {
			assert_false(doorbells_trapped());
			assert_true(ev.element.cq == a.q.rcq || ev.element.cq == b.q.rcq);
		}
	}
	remap_page(page);
	assert_device_works(&e);
	emu_qp_destroy(&a.q);
	emu_qp_destroy(&b.q);
	emu_env_close(&e);
}

/* ---- the raw mmap system call ---- */

static void test_raw_mmap(void **state)
{
	struct emu_env e;
	struct hq h;
	struct ibv_wc wc;
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *uar, *bf;

	(void)state;
	emu_env_open(&e, 1);
	/* libibverbs' own check of the device file (util/open_cdev.c) */
	assert_int_equal(fstat(e.ctx->cmd_fd, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	hq_open(&e, &h, 16);
	uar = (uint8_t *)syscall(SYS_mmap, NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
				 e.ctx->cmd_fd, 0);
	assert_true(uar != MAP_FAILED);
	bf = (uint8_t *)syscall(SYS_mmap, NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
				e.ctx->cmd_fd, page);
	assert_true(bf != MAP_FAILED);
	/* a BlueFlame-page store is an ordinary store, not SIGBUS */
	*(volatile uint64_t *)(bf + 2048) = 0;
	emu_fill(h.q.buf, 128, 21);
	hq_write(&h, (uintptr_t)h.q.buf, h.q.mr->lkey, (uintptr_t)h.q.buf + 2048,
		 h.q.mr->rkey, 128);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint32_t *)(uar + 0x14) = h.d.doorbell_qpn;
	assert_int_equal(emu_poll(h.q.scq, &wc, 1), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(h.q.buf + 2048, h.q.buf, 128);
	/* the same page as libmlx4's mapping of the UAR */
	assert_memory_equal((uint8_t *)h.d.sdb, uar + 0x14, 4);
	/* the context is polled from now on; a libmlx4 post still works */
	assert_device_works(&e);
	munmap(uar, (size_t)page);
	munmap(bf, (size_t)page);
	emu_qp_destroy(&h.q);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forgotten_doorbell),
		cmocka_unit_test(test_doorbells_many_threads),
		cmocka_unit_test(test_resize_after_sends),
		cmocka_unit_test(test_modify_after_writes),
		cmocka_unit_test(test_send_held_until_rts),
		cmocka_unit_test(test_unmapped_mr),
		cmocka_unit_test(test_unmapped_cq_buffer),
		cmocka_unit_test(test_unmapped_send_ring),
		cmocka_unit_test(test_unmapped_recv_ring),
		cmocka_unit_test(test_unmapped_rq_doorbell_page),
		cmocka_unit_test(test_unmapped_cq_doorbell_page),
		cmocka_unit_test(test_raw_mmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
