/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Helpers for the software ConnectX-3 tests: open mlx4_0, create and
 * connect QPs through the standard verbs API (libmlx4 underneath), post
 * and poll with a bounded wait.  Every helper fails the cmocka test on
 * error, so tests read as the sequence of verbs they exercise.
 */
#ifndef EMU_TEST_H
#define EMU_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <cmocka.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/verbs.h>
#pragma GCC diagnostic pop

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "verbs_env.h"

struct emu_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr dev_attr;
	struct ibv_port_attr port_attr;
	struct mlx4emu_ctl ctl;
	int have_ctl;		/* 1 after emu_env_open, which fails without it */
	uint8_t port;
};

struct emu_qp {
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
};

/* Opens mlx4_0, allocates a PD and loads the control API (the test fails
 * without it: run under mlx4emu-run); `port` 1 or 2. */
void emu_env_open(struct emu_env *e, uint8_t port);
void emu_env_close(struct emu_env *e);

/* Creates a QP of `type` with its own CQs (cq_entries each) and a
 * registered buffer of `buf_len` bytes with full access. */
void emu_qp_create(struct emu_env *e, struct emu_qp *q, enum ibv_qp_type type,
		   uint32_t max_send_wr, uint32_t max_recv_wr, int cq_entries,
		   size_t buf_len, struct ibv_srq *srq);
void emu_qp_destroy(struct emu_qp *q);

/* Port 1 of mlx4_0 (emu_env_open) and two RC QPs, a and b, connected to
 * each other with `access`; each has its own CQs of cq_entries and
 * buf_len registered bytes (emu_qp_create). */
struct emu_pair {
	struct emu_env e;
	struct emu_qp a, b;
};

void emu_pair_open(struct emu_pair *p, uint32_t max_send_wr, uint32_t max_recv_wr,
		   int cq_entries, size_t buf_len, int access);
void emu_pair_close(struct emu_pair *p);
/* n signalled RDMA WRITEs of 8 bytes from the start of a's buffer to the
 * start of b's, wr_id first, first + 1, ...; asserts each was posted. */
void emu_pair_post_writes(struct emu_pair *p, uint64_t first, int n);

/* Drives a QP to RTS (RC/UC connected to dest_qpn; UD with qkey; raw). */
void emu_qp_to_rts(struct emu_env *e, struct ibv_qp *qp, uint32_t dest_qpn,
		   int access);

/* Polls until n completions arrived or 5 s passed; returns the count. */
int emu_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n);
/* Polls exactly one completion and checks its status. */
struct ibv_wc emu_poll_one(struct ibv_cq *cq, enum ibv_wc_status status);
/* Asserts that the CQ stays empty while the device is idle. */
void emu_assert_cq_empty(struct emu_env *e, struct ibv_cq *cq);

void emu_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr,
		   uint32_t len, uint32_t lkey);
/* One signalled SEND of len bytes at addr; asserts that it was posted. */
void emu_post_signaled_send(struct ibv_qp *qp, uint64_t wr_id, void *addr,
			    uint32_t len, uint32_t lkey);
int emu_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr);

/* Fills len bytes with a pattern derived from seed. */
void emu_fill(void *p, size_t len, unsigned seed);

/* Waits for the device to finish (control API); fails if it does not
 * become idle within 5 s. */
void emu_idle(struct emu_env *e);

#endif
