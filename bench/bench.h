/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Shared definitions of mlx4dv_bench: the resources one path (libmlx4's
 * verbs path or the direct path of <infiniband/mlx4dv.h>) owns, and the
 * geometry every case uses. Both paths get identically configured QPs and
 * CQs on one device context; neither ever touches the other's queues.
 */
#ifndef MLX4DV_BENCH_H
#define MLX4DV_BENCH_H

#include <infiniband/mlx4dv.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Operations measured between two ring recycles (a round). Every queue is
 * sized so that one round never fills it. */
#define BENCH_ROUND		2048u
#define BENCH_SEND_BATCH	32u	/* WQEs behind one doorbell */
#define BENCH_RECV_BATCH	32u	/* receives behind one record update */
#define BENCH_POLL_BATCH	16u	/* CQEs asked for per poll call */

#define BENCH_SLOT		128u	/* bytes per buffer slot */
#define BENCH_WRITE_BYTES	64u	/* RDMA write payload (one SGE) */
#define BENCH_INLINE_BYTES	32u	/* inline send payload */
#define BENCH_UD_BYTES		64u	/* UD send payload (one SGE) */
#define BENCH_GRH_BYTES		40u	/* UD receive buffers start with it */

#define BENCH_QKEY		0x11111111u
#define BENCH_MAX_INLINE	64u	/* max_inline_data asked at QP create */

/* Per-operation helpers of the measured loops: always inlined, so that a
 * loop holds the data path and nothing of the harness. */
#define BENCH_INLINE static inline __attribute__((always_inline))

enum bench_path { BENCH_VERBS, BENCH_DIRECT, BENCH_NPATHS };

/* Two connected QPs of one type; qp[0] sends, qp[1] receives. Each QP has
 * its own CQ for send and receive completions. */
struct bench_pair {
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_ah *ah;	/* UD only: the address of qp[1] */
	/* direct path only: the handles of both QPs */
	struct mlx4dv_qp_rings rings[2];
};

/* Everything one path drives. Buffers are slices of one registered area. */
struct bench_lane {
	enum bench_path path;
	struct bench_pair rc, ud;
	uint8_t *src;		/* BENCH_ROUND slots: what is sent or written */
	uint8_t *dst;		/* BENCH_ROUND slots: RDMA write target */
	uint8_t *rcv;		/* BENCH_ROUND slots: RC receive buffers */
	uint8_t *udrcv;		/* BENCH_ROUND slots: UD receive buffers */
	uint32_t lkey, rkey;
	uint32_t ud_qpn;	/* remote QPN of UD sends (host order) */
	uint64_t stamp;		/* bumped per round; written into payloads */
	uint32_t rx_flags;	/* enum mlx4dv_cqe_rx_flags of every QP */
	void *verbs;		/* prebuilt requests of the verbs path */
	void *direct;		/* UD destination and poll tables, direct path */
};

struct bench_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *area;
	size_t area_len;
	uint8_t port;
	bool ethernet;		/* RoCE: address handles carry a GRH */
	union ibv_gid gid;
	uint16_t lid;
	enum ibv_mtu mtu;
	struct bench_lane lane[BENCH_NPATHS];
};

/* bench_env.c: opens the first mlx4 device and builds both lanes; returns
 * 0 or prints why and returns -1. */
int bench_env_open(struct bench_env *env, const char *dev_name);
void bench_env_close(struct bench_env *env);

/* Payload patterns: slot i of a round holds the stamp and i. */
void bench_fill_src(struct bench_lane *l, uint32_t n, uint32_t bytes);
/* Compares n slots of got (stride BENCH_SLOT, skipping skip bytes) with
 * the sources; ends the run (bench_fail()) naming path and what when any
 * slot differs. */
void bench_expect_slots(const char *path, const struct bench_lane *l,
			const uint8_t *got, uint32_t skip, uint32_t n,
			uint32_t bytes, const char *what);

/* Fatal error of the harness itself. */
void bench_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
