// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libmlx4dv keeps per-context state (the BlueFlame page it maps, the
 * registers it handed out) in a table. After ibv_close_device() the next
 * ibv_open_device() often gets the same struct ibv_context address, the
 * same device and the same command fd number: the new context's handles
 * must get registers on the new context's page, not on what the closed
 * context left. Each context posts an inline RDMA write by BlueFlame
 * alone (no doorbell); the device must count the BlueFlame copy, which it
 * sees only on the page of a live context (it also runs the WQE from the
 * ring by its owner bit, so the completion alone would not tell).
 *
 * The same holds for what the program told the unit about a context: a
 * BlueFlame layout set with mlx4dv_set_blueflame_layout() belongs to that
 * context and ends with it; a new context at the same address and fd
 * starts from the default layout.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit_device.h"

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "test_exit.h"

static struct mlx4emu_ctl ctl;

enum { MAX_TRIES = 16, MEM = 4096 };

static struct ibv_context *open_first(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n = 0;

	list = ibv_get_device_list(&n);
	assert_non_null(list);
	assert_true(n >= 1);
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	assert_non_null(ctx);
	return ctx;
}

/* Polls one completion for at most 10 s; 1 when it came. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (ibv_poll_cq(cq, 1, wc) == 1)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 10);
	return 0;
}

/* On ctx: an RC pair, a direct handle with BlueFlame on the sender, one
 * 32-byte inline RDMA write handed over by BlueFlame only; the bytes must
 * arrive and the completion come back. */
static void blueflame_write_works(struct ibv_context *ctx, uint8_t seed)
{
	struct ibv_qp_cap cap = { .max_send_wr = 16, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1,
				  .max_inline_data = 64 };
	struct unit_dev d;
	struct ibv_port_attr pa;
	struct mlx4dv_qp_rings r;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	struct mlx4emu_counters c0, c1;
	static uint8_t mem[MEM] __attribute__((aligned(4096)));
	uint8_t data[32];
	uint32_t at;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	d.port = 1;
	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	d.lid = pa.lid;
	d.link_layer = pa.link_layer;
	assert_int_equal(ibv_query_gid(ctx, 1, 0, &d.gid), 0);
	d.pd = ibv_alloc_pd(ctx);
	assert_non_null(d.pd);
	memset(mem, 0, sizeof(mem));
	mr = ibv_reg_mr(d.pd, mem, MEM, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(mr);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	assert_non_null(cq);
	a = unit_qp_create(&d, IBV_QPT_RC, cq, cq, NULL, &cap);
	b = unit_qp_create(&d, IBV_QPT_RC, cq, cq, NULL, &cap);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(unit_qp_connect(&d, a, b->qp_num), 0);
	assert_int_equal(unit_qp_connect(&d, b, a->qp_num), 0);

	assert_int_equal(mlx4dv_qp_rings_init(&r, a, MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_true(r.sq.flags & MLX4DV_SQ_RING_BLUEFLAME);
	/* register 1 of a page: libmlx4 uses register 0 */
	assert_int_equal((uintptr_t)r.sq.bf_reg & (page - 1), 512);
	for (int i = 0; i < 32; i++)
		data[i] = (uint8_t)(seed + i);
	assert_int_equal(ctl.get_counters(&c0), 0);
	at = r.sq.head;
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&r.sq, 0, mr->rkey, (uintptr_t)mem + 64,
						     data, 32,
						     IBV_SEND_SIGNALED), 0);
	assert_int_equal(mlx4dv_sq_ring_bf(&r.sq, at), 1);
	if (!poll_one(cq, &wc))
		fail_msg("the BlueFlame write on context %p never completed", (void *)ctx);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(mem + 64, data, 32);
	assert_int_equal(ctl.wait_idle(10000), 0);
	assert_int_equal(ctl.get_counters(&c1), 0);
	if (c1.bf_posts == c0.bf_posts)
		fail_msg("context %p: the device saw no BlueFlame copy (register %p)",
			 (void *)ctx, (void *)r.sq.bf_reg);

	mlx4dv_qp_rings_release(&r);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(ibv_dealloc_pd(d.pd), 0);
}

/* Offset in its page of the register a BlueFlame handle of a new RC QP on
 * ctx gets: register 1, so the offset is the context's register size. */
static uintptr_t first_bf_reg_offset(struct ibv_context *ctx)
{
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct unit_dev d = { .ctx = ctx, .port = 1 };
	struct mlx4dv_sq_ring sq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), off;

	d.pd = ibv_alloc_pd(ctx);
	assert_non_null(d.pd);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	assert_non_null(cq);
	qp = unit_qp_create(&d, IBV_QPT_RC, cq, cq, NULL, &cap);
	assert_non_null(qp);
	assert_int_equal(mlx4dv_sq_ring_init(&sq, qp, MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_true(sq.flags & MLX4DV_SQ_RING_BLUEFLAME);
	off = (uintptr_t)sq.bf_reg & (page - 1);
	mlx4dv_sq_ring_release(&sq);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(d.pd), 0);
	return off;
}

static void test_reopened_context_gets_default_layout(void **state)
{
	struct ibv_context *prev = NULL;
	int prev_fd = -1, reused = 0;

	(void)state;
	/* Each round: a new context starts at the default 512-byte
	 * registers; the override is taken (1024-byte registers) and the
	 * context closed with it in place. */
	for (int round = 0; round < MAX_TRIES && reused < 2; round++) {
		struct ibv_context *ctx = open_first();
		uintptr_t off = first_bf_reg_offset(ctx);

		if (ctx == prev && ctx->cmd_fd == prev_fd) {
			reused++;
			if (off != 512)
				fail_msg("context %p (fd %d) reopened at a closed one's address "
					 "has its register at %lu, the closed context's layout",
					 (void *)ctx, ctx->cmd_fd, (unsigned long)off);
		}
		assert_int_equal(off, 512);
		assert_int_equal(mlx4dv_set_blueflame_layout(ctx, 1024, 4), 0);
		assert_int_equal(first_bf_reg_offset(ctx), 1024);
		prev = ctx;
		prev_fd = ctx->cmd_fd;
		assert_int_equal(ibv_close_device(ctx), 0);
	}
	if (!reused) {
		print_message("no context came back at a closed one's address and fd in %d rounds\n",
			      MAX_TRIES);
		t_skip_case("no context reused a closed one's address and fd");
	}
	print_message("%d contexts at the address and fd of the one closed before them\n",
		      reused);
}

static void test_reopened_context_gets_its_own_page(void **state)
{
	struct ibv_context *prev = NULL;
	int reused = 0;

	(void)state;
	if (mlx4emu_ctl_load(&ctl))
		fail_msg("the software ConnectX-3 is not loaded: run under mlx4emu-run");
	/* Each round a context of its own, used and closed; a round whose
	 * context lands at the address of the one before is the case. */
	for (int round = 0; round < MAX_TRIES && reused < 2; round++) {
		struct ibv_context *ctx = open_first();

		if (ctx == prev)
			reused++;
		blueflame_write_works(ctx, (uint8_t)(0x10 * round));
		prev = ctx;
		assert_int_equal(ibv_close_device(ctx), 0);
	}
	if (!reused) {
		/* e.g. a sanitizer's quarantine keeps freed memory out of use */
		print_message("no context came back at a closed one's address in %d rounds\n",
			      MAX_TRIES);
		t_skip_case("no context reused a closed one's address");
	}
	print_message("%d contexts at the address of the one closed before them\n", reused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reopened_context_gets_its_own_page),
		cmocka_unit_test(test_reopened_context_gets_default_layout),
	};

	t_run_group_tests_name("unit_context_reuse", tests, NULL, NULL);
	return t_exit();
}
