/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What rc_pair's scenarios (rc_pair_<mode>.c, one file each; the modes
 * are described in rc_pair.c) share: one adapter's side with its RC QP
 * and 1 MiB buffer, the helpers that post and poll on it, the checks'
 * failure count, and the TCP exchange with the peer process.
 */
#ifndef MLX4DV_TEST_WIRE_RC_PAIR_H
#define MLX4DV_TEST_WIRE_RC_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

#include "pair_check.h"
#include "peer_side.h"

#define PROG "rc_pair"
#define BUF_BYTES (1024 * 1024)
/* the layout of the buffer in -m ops, access, rnr and absent */
#define WRITE_OFF 0
#define READ_OFF 8192
#define XFER 8192
#define FA_OFF 16384
#define CS_OFF 16392
#define RECV_OFF 32768
#define SEND_BYTES 3000
#define WIMM_OFF 24576
#define WIMM_BYTES 100
#define TIMEOUT 14		/* 4.096 us x 2^14 = 67 ms */
#define RETRY_CNT 3

/* The QPs' local ACK timeout (exponent) and retry_cnt (-T, -R). */
extern uint8_t qp_timeout, qp_retry_cnt;

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct peer_qp q;	/* buf: BUF_BYTES */
	struct ibv_port_attr port;
	int gidx;
	struct pair_dest me, peer;
};

/* -m faults: how many operations of which kinds (rc_pair_faults.c). */
struct fault_run {
	const char *mix;
	unsigned iters;
};

/* ---- the side (rc_pair_side.c) ---- */

/* The first device, its PD and the RC QP with its buffer; GID gidx (-1:
 * none) goes into s->me. */
void open_side(struct side *s, int gidx);
/* RESET -> RTS towards s->peer with qp_timeout, qp_retry_cnt and
 * rnr_retry. */
void connect_qp(struct side *s, uint8_t rnr_retry);
void close_side(struct side *s);
/* Polls n completions within `secs` seconds; returns how many came. */
int poll_n(struct side *s, struct ibv_wc *wc, int n, double secs);
void post_recv(struct side *s, uint32_t off, uint32_t len, uint64_t id);
/* One signalled send WR of len bytes at offset off of the buffer; remote:
 * offset in the peer's buffer; a0, a1: the atomic's operands, or a0 the
 * immediate. */
void post(struct side *s, uint64_t id, enum ibv_wr_opcode op, uint32_t off,
	  uint32_t len, uint64_t remote, uint32_t rkey, uint64_t a0, uint64_t a1);

static inline uint8_t pattern(unsigned i, unsigned seed)
{
	return (uint8_t)(i * 7 + seed + (i >> 8));
}

/* len bytes of pattern(., seed). */
void fill(uint8_t *p, unsigned len, unsigned seed);
/* The first byte of p that is not pattern(., seed), or -1. */
int mismatch(const uint8_t *p, unsigned len, unsigned seed);
/* CLOCK_MONOTONIC in seconds. */
double now_s(void);
/* Seconds from the last progress to RETRY_EXC_ERR: retry_cnt + 1 local
 * ACK timeouts of 4.096 us x 2^timeout. */
double retry_exc_s(void);

/* ---- the scenarios, one file each ---- */

void ops_client(struct side *s, int fd);
void ops_server(struct side *s, int fd);
void access_client(struct side *s, int fd);
void access_server(struct side *s, int fd);
void sges_client(struct side *s, int fd);
void sges_server(struct side *s, int fd);
void unmapped_client(struct side *s, int fd);
void unmapped_server(struct side *s, int fd);
void unmapped_read_client(struct side *s, int fd);
void unmapped_read_server(struct side *s, int fd);
void absent_peer(struct side *s);
void rnr_client(struct side *s, int fd, int rnr_retry);
void rnr_server(struct side *s, int fd, int rnr_retry);
void faults_client(struct side *s, int fd, const struct fault_run *r);
void faults_server(struct side *s, int fd, const struct fault_run *r);
void read_write_client(struct side *s, int fd);
void read_write_server(struct side *s, int fd);

#endif
