// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Memory the program takes away (MR pages, the SQ and RQ rings, the CQ
 * buffer, libmlx4's shared pages of RQ and CQ doorbell records) gives
 * errors and async events, never a signal.
 */
#include "exact.h"

#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

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


/* Registered pages unmapped, then gathered from and written to. */
void test_unmapped_mr(void **state)
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
void test_unmapped_cq_buffer(void **state)
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
void test_unmapped_send_ring(void **state)
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
void test_unmapped_recv_ring(void **state)
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
void test_unmapped_rq_doorbell_page(void **state)
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
void test_unmapped_cq_doorbell_page(void **state)
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
