/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The tests of an exact and safe device (test_exact.c runs them; one
 * file per topic: exact_doorbells.c, exact_ordering.c, exact_qp_states.c,
 * exact_unmapped.c, exact_raw_mmap.c) and what they share
 * (exact_hq.c): RC QPs posted by hand, WQEs written at the positions
 * mlx4dv_init_obj gives (rdma-core's <infiniband/mlx4dv.h>, PRM layouts),
 * and the device's debug trace captured.
 */
#ifndef MLX4DV_TEST_EMU_EXACT_H
#define MLX4DV_TEST_EMU_EXACT_H

#include "emu_test.h"
#include "test_exit.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/mlx4dv.h>
#pragma GCC diagnostic pop

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE)

/* false when the launcher polls the doorbells (MLX4EMU_DOORBELL=poll) */
bool doorbells_trapped(void);

/* A QP posted by hand: its layout and the next WQEBB counter. */
struct hq {
	struct emu_qp q;
	struct mlx4dv_qp d;
	uint32_t head;
};

void hq_init_obj(struct hq *h);
/* An RC QP connected to itself, in RTS. */
void hq_open(struct emu_env *e, struct hq *h, uint32_t wr);
/* The WQE slot of WQEBB counter n. */
uint8_t *hq_slot(struct hq *h, uint32_t n);
/* An RDMA write of len bytes from local to remote (both in the QP's MR or
 * the given keys), signaled; written with word 0 (owner bit) last. */
void hq_write(struct hq *h, uint64_t src, uint32_t lkey, uint64_t dst,
	      uint32_t rkey, uint32_t len);
/* The send doorbell. */
void hq_ring(struct hq *h);
/* A write of 64 bytes from the start of the QP's buffer to offset 1024. */
void hq_write_64(struct hq *h);

/* big-endian stores of a WQE's fields */
static inline void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

/* stderr into a memfd while the device traces (debug on) */
struct capture {
	int saved, fd, old_debug;
};

void capture_start(struct emu_env *e, struct capture *c);
bool captured_has(struct capture *c, const char *text);
void capture_end(struct emu_env *e, struct capture *c);

/* CLOCK_MONOTONIC in ms. */
uint64_t now_ms(void);
/* The device still works: a fresh QP completes a write. */
void assert_device_works(struct emu_env *e);

/* exact_doorbells.c */
void test_forgotten_doorbell(void **state);
void test_doorbells_many_threads(void **state);
/* exact_ordering.c */
void test_resize_after_sends(void **state);
void test_modify_after_writes(void **state);
/* exact_qp_states.c */
void test_send_held_until_rts(void **state);
/* exact_unmapped.c */
void test_unmapped_mr(void **state);
void test_unmapped_cq_buffer(void **state);
void test_unmapped_send_ring(void **state);
void test_unmapped_recv_ring(void **state);
void test_unmapped_rq_doorbell_page(void **state);
void test_unmapped_cq_doorbell_page(void **state);
/* exact_raw_mmap.c */
void test_raw_mmap(void **state);

#endif
