// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair -m sges: WRITEs gathered from many data segments (see rc_pair.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"

/* -m sges: the WRITEs' data segments (source offsets spread out in the
 * client's buffer) and their targets at the server */
static const uint32_t sge_bytes_a[] = { 1, 3, 5, 700, 1024, 1500, 9, 2, 4000, 17, 64, 2000 };
#define SGE_SRC 0x40000
#define SGE_SRC_STRIDE 0x2000
#define SGE_TARGET_A 0x60000
#define SGE_TARGET_B 0x70000
#define SGE_B_COUNT 16
#define SGE_B_BYTES 3
#define SGE_COUNT_A (sizeof(sge_bytes_a) / sizeof(sge_bytes_a[0]))

static uint32_t sge_total_a(void)
{
	uint32_t t = 0;

	for (unsigned i = 0; i < SGE_COUNT_A; i++)
		t += sge_bytes_a[i];
	return t;
}

/* One WRITE of n data segments: segment i from SGE_SRC + i x stride +
 * i, bytes[i] long, filled with the pattern of the message's byte
 * offsets and `seed`. */
static void post_gathered(struct side *s, uint64_t id, const uint32_t *bytes, unsigned n,
			  uint64_t target, unsigned seed)
{
	struct ibv_sge sge[SGE_B_COUNT];
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = sge, .num_sge = (int)n, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { s->peer.addr + target, s->peer.rkey },
	}, *bad;
	unsigned msg_off = 0;

	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = s->q.buf + SGE_SRC + i * SGE_SRC_STRIDE + i;

		for (unsigned j = 0; j < bytes[i]; j++)
			p[j] = pattern(msg_off + j, seed);
		msg_off += bytes[i];
		sge[i] = (struct ibv_sge){ (uintptr_t)p, bytes[i], s->q.mr->lkey };
	}
	if (ibv_post_send(s->q.qp, &wr, &bad))
		DIE("post gathered WRITE");
}

void sges_client(struct side *s, int fd)
{
	uint32_t bytes_b[SGE_B_COUNT];
	struct ibv_wc wc[2];
	int n;

	for (unsigned i = 0; i < SGE_B_COUNT; i++)
		bytes_b[i] = SGE_B_BYTES;
	pair_sync_byte(fd, 'r');
	/* the first WR of the QP, so its send queue entry holds nothing yet */
	post_gathered(s, 0, NULL, 0, SGE_TARGET_A, 0);
	n = poll_n(s, wc, 1, 10);
	CHECK(n == 1 && wc[0].wr_id == 0 && wc[0].status == IBV_WC_SUCCESS,
	      "WRITE of no segment: %s", n == 1 ? ibv_wc_status_str(wc[0].status) :
	      "no completion");
	post_gathered(s, 1, sge_bytes_a, SGE_COUNT_A, SGE_TARGET_A, 0x21);
	n = poll_n(s, wc, 1, 10);
	CHECK(n == 1 && wc[0].status == IBV_WC_SUCCESS, "WRITE of %u segments: %s",
	      (unsigned)SGE_COUNT_A, n == 1 ? ibv_wc_status_str(wc[0].status) : "no completion");
	/* its sources are reused by the next WRITE only once it completed */
	post_gathered(s, 2, bytes_b, SGE_B_COUNT, SGE_TARGET_B, 0x42);
	n = poll_n(s, wc, 1, 10);
	CHECK(n == 1 && wc[0].status == IBV_WC_SUCCESS, "WRITE of %u segments: %s",
	      SGE_B_COUNT, n == 1 ? ibv_wc_status_str(wc[0].status) : "no completion");
	pair_sync_byte(fd, 'c');
}

void sges_server(struct side *s, int fd)
{
	int bad;

	pair_sync_byte(fd, 'r');
	pair_sync_byte(fd, 'c');
	bad = mismatch(s->q.buf + SGE_TARGET_A, sge_total_a(), 0x21);
	CHECK(bad < 0, "WRITE of %u segments: byte %d", (unsigned)SGE_COUNT_A, bad);
	bad = mismatch(s->q.buf + SGE_TARGET_B, SGE_B_COUNT * SGE_B_BYTES, 0x42);
	CHECK(bad < 0, "WRITE of %u segments: byte %d", SGE_B_COUNT, bad);
	CHECK(s->q.buf[SGE_TARGET_A + sge_total_a()] == 0, "WRITE of %u segments: beyond its end",
	      (unsigned)SGE_COUNT_A);
}

