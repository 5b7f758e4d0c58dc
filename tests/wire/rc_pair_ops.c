// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair -m ops: every RC operation between two adapters, byte by byte,
 * then RETRY_EXC_ERR once the server is gone (see rc_pair.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"

void ops_client(struct side *s, int fd)
{
	struct ibv_wc wc[16];
	uint64_t *fa = (uint64_t *)(s->q.buf + FA_OFF), *cs = (uint64_t *)(s->q.buf + CS_OFF);
	uint32_t rk = s->peer.rkey;
	int n;
	double t0, dt;

	for (unsigned i = 0; i < XFER; i++)
		s->q.buf[WRITE_OFF + i] = pattern(i, 1);
	for (unsigned i = 0; i < SEND_BYTES; i++)
		s->q.buf[RECV_OFF + i] = pattern(i, 3);
	for (unsigned i = 0; i < WIMM_BYTES; i++)
		s->q.buf[WIMM_OFF + i] = pattern(i, 4);
	/* all in flight at once: the windows and max_rd_atomic order them */
	post(s, 1, IBV_WR_RDMA_WRITE, WRITE_OFF, XFER, WRITE_OFF, rk, 0, 0);
	post(s, 2, IBV_WR_RDMA_READ, READ_OFF, XFER, READ_OFF, rk, 0, 0);
	post(s, 3, IBV_WR_ATOMIC_FETCH_AND_ADD, FA_OFF, 8, FA_OFF, rk, 5, 0);
	post(s, 4, IBV_WR_ATOMIC_FETCH_AND_ADD, FA_OFF + 32, 8, FA_OFF, rk, 7, 0);
	post(s, 5, IBV_WR_ATOMIC_CMP_AND_SWP, CS_OFF, 8, CS_OFF, rk, 0xaa, 0xbb);
	post(s, 6, IBV_WR_ATOMIC_CMP_AND_SWP, CS_OFF + 32, 8, CS_OFF, rk, 0xaa, 0xcc);
	post(s, 7, IBV_WR_SEND_WITH_IMM, RECV_OFF, SEND_BYTES, 0, 0, 0x12345678, 0);
	post(s, 8, IBV_WR_RDMA_WRITE_WITH_IMM, WIMM_OFF, WIMM_BYTES, WIMM_OFF, rk, 0xcafe, 0);
	n = poll_n(s, wc, 8, 20);
	CHECK(n == 8, "%d of 8 completions", n);
	for (int i = 0; i < n; i++) {
		static const enum ibv_wc_opcode opc[9] = {
			0, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD,
			IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP, IBV_WC_COMP_SWAP, IBV_WC_SEND,
			IBV_WC_RDMA_WRITE,
		};

		CHECK(wc[i].status == IBV_WC_SUCCESS, "wr %llu: %s", (unsigned long long)wc[i].wr_id,
		      ibv_wc_status_str(wc[i].status));
		CHECK(wc[i].wr_id == (uint64_t)i + 1, "completion %d is wr %llu (in order)", i,
		      (unsigned long long)wc[i].wr_id);
		CHECK(wc[i].opcode == opc[i + 1], "wr %d opcode %d", i + 1, wc[i].opcode);
	}
	for (unsigned i = 0; i < XFER; i++)
		if (s->q.buf[READ_OFF + i] != pattern(i, 2)) {
			CHECK(0, "READ byte %u: 0x%02x, expected 0x%02x", i, s->q.buf[READ_OFF + i],
			      pattern(i, 2));
			break;
		}
	CHECK(fa[0] == 100, "first fetch-add returned %llu", (unsigned long long)fa[0]);
	CHECK(fa[4] == 105, "second fetch-add returned %llu", (unsigned long long)fa[4]);
	CHECK(cs[0] == 0xaa, "first compare-swap returned 0x%llx", (unsigned long long)cs[0]);
	CHECK(cs[4] == 0xbb, "second compare-swap returned 0x%llx", (unsigned long long)cs[4]);
	pair_sync_byte(fd, 'c');	/* the server checks its side */
	pair_sync_byte(fd, 'x');	/* and exits: its adapter is gone */
	close(fd);
	usleep(300000);
	t0 = now_s();
	post(s, 9, IBV_WR_SEND, RECV_OFF, 16, 0, 0, 0, 0);
	n = poll_n(s, wc, 1, 30);
	dt = now_s() - t0;
	CHECK(n == 1 && wc[0].status == IBV_WC_RETRY_EXC_ERR, "peer gone: %s",
	      n ? ibv_wc_status_str(wc[0].status) : "no completion");
	/* retry_cnt + 1 timeouts; generous upper bound for load */
	CHECK(dt >= retry_exc_s() * 0.9 && dt < retry_exc_s() + 15, "RETRY_EXC_ERR after %.3f s",
	      dt);
	printf("peer gone: %s after %.3f s (%.3f s expected)\n",
	       n ? ibv_wc_status_str(wc[0].status) : "-", dt, retry_exc_s());
}

void ops_server(struct side *s, int fd)
{
	uint64_t *fa = (uint64_t *)(s->q.buf + FA_OFF), *cs = (uint64_t *)(s->q.buf + CS_OFF);
	struct ibv_wc wc[4];
	int n;

	for (unsigned i = 0; i < XFER; i++)
		s->q.buf[READ_OFF + i] = pattern(i, 2);
	*fa = 100;
	*cs = 0xaa;
	post_recv(s, RECV_OFF, 4096, 1);
	post_recv(s, RECV_OFF + 4096, 16, 2);
	pair_sync_byte(fd, 'r');	/* ready: the client may start */
	pair_sync_byte(fd, 'c');
	n = poll_n(s, wc, 2, 10);
	CHECK(n == 2, "%d of 2 receive completions", n);
	if (n >= 1) {
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 1 &&
		      wc[0].opcode == IBV_WC_RECV && (wc[0].wc_flags & IBV_WC_WITH_IMM) &&
		      ntohl(wc[0].imm_data) == 0x12345678 && wc[0].byte_len == SEND_BYTES &&
		      wc[0].src_qp == s->peer.qpn,
		      "SEND with immediate: %s wr %llu opcode %d imm 0x%x len %u src_qp 0x%x",
		      ibv_wc_status_str(wc[0].status), (unsigned long long)wc[0].wr_id,
		      wc[0].opcode, ntohl(wc[0].imm_data), wc[0].byte_len, wc[0].src_qp);
	}
	if (n >= 2) {
		CHECK(wc[1].status == IBV_WC_SUCCESS && wc[1].wr_id == 2 &&
		      wc[1].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
		      ntohl(wc[1].imm_data) == 0xcafe && wc[1].byte_len == WIMM_BYTES,
		      "WRITE with immediate: %s wr %llu opcode %d imm 0x%x len %u",
		      ibv_wc_status_str(wc[1].status), (unsigned long long)wc[1].wr_id,
		      wc[1].opcode, ntohl(wc[1].imm_data), wc[1].byte_len);
	}
	for (unsigned i = 0; i < XFER; i++)
		if (s->q.buf[WRITE_OFF + i] != pattern(i, 1)) {
			CHECK(0, "WRITE byte %u: 0x%02x", i, s->q.buf[WRITE_OFF + i]);
			break;
		}
	for (unsigned i = 0; i < SEND_BYTES; i++)
		if (s->q.buf[RECV_OFF + i] != pattern(i, 3)) {
			CHECK(0, "SEND byte %u: 0x%02x", i, s->q.buf[RECV_OFF + i]);
			break;
		}
	for (unsigned i = 0; i < WIMM_BYTES; i++)
		if (s->q.buf[WIMM_OFF + i] != pattern(i, 4)) {
			CHECK(0, "WRITE with immediate byte %u: 0x%02x", i, s->q.buf[WIMM_OFF + i]);
			break;
		}
	CHECK(*fa == 112, "counter after the fetch-adds: %llu", (unsigned long long)*fa);
	CHECK(*cs == 0xbb, "word after the compare-swaps: 0x%llx", (unsigned long long)*cs);
	pair_sync_byte(fd, 'x');
}
