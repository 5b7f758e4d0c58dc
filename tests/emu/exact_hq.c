// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* What the tests of an exact device share (see exact.h). */
#include "exact.h"

#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

bool doorbells_trapped(void)
{
	const char *v = getenv("MLX4EMU_DOORBELL");

	return !(v && !strcmp(v, "poll"));
}

void hq_init_obj(struct hq *h)
{
	struct mlx4dv_obj obj;

	memset(&obj, 0, sizeof(obj));
	obj.qp.in = h->q.qp;
	obj.qp.out = &h->d;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	h->head = 0;
}

void hq_open(struct emu_env *e, struct hq *h, uint32_t wr)
{
	emu_qp_create(e, &h->q, IBV_QPT_RC, wr, 4, 256, 1 << 16, NULL);
	emu_qp_to_rts(e, h->q.qp, h->q.qp->qp_num, ACC);
	hq_init_obj(h);
}

uint8_t *hq_slot(struct hq *h, uint32_t n)
{
	return (uint8_t *)h->d.buf.buf + h->d.sq.offset +
	       ((n & (h->d.sq.wqe_cnt - 1)) << h->d.sq.wqe_shift);
}

void hq_write(struct hq *h, uint64_t src, uint32_t lkey, uint64_t dst,
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

void hq_ring(struct hq *h)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint32_t *)h->d.sdb = h->d.doorbell_qpn;
}

void hq_write_64(struct hq *h)
{
	hq_write(h, (uintptr_t)h->q.buf, h->q.mr->lkey, (uintptr_t)h->q.buf + 1024,
		 h->q.mr->rkey, 64);
}

void capture_start(struct emu_env *e, struct capture *c)
{
	fflush(stderr);
	c->fd = memfd_create("stderr", 0);
	assert_true(c->fd >= 0);
	c->saved = dup(2);
	assert_true(dup2(c->fd, 2) == 2);
	c->old_debug = e->ctl.set_debug(1);
}

bool captured_has(struct capture *c, const char *text)
{
	static char buf[1 << 16];
	ssize_t n = pread(c->fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, text) != NULL;
}

void capture_end(struct emu_env *e, struct capture *c)
{
	e->ctl.set_debug(c->old_debug);
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	close(c->fd);
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void assert_device_works(struct emu_env *e)
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
