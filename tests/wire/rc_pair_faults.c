// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair -m faults: exact recovery under wire faults (see rc_pair.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rc_pair.h"

/* -m faults: the buffer's layout beyond the other modes' 64 KiB (the
 * same on both sides); 64 slots per kind, at most 8 WRs outstanding and
 * 32 receives posted, so no slot is reused while it is in use */
#define F_SLOTS 64
#define F_WINDOW 8
#define F_RECV_DEPTH 32
#define F_RECV_EXTRA 16
#define F_W_BYTES 2500
#define F_S_BYTES 2100
#define F_I_BYTES 100
#define F_R_BYTES 4500
#define F_STRIDE 2560
#define F_R_STRIDE 4608
#define F_FA_ADD 3
#define F_SRC_W 0x10000		/* WRITE sources (client), targets (server) */
#define F_SEND 0x38000		/* SEND sources (client), receive buffers (server) */
#define F_IMM 0x60000		/* WRITE with immediate sources and targets */
#define F_RD_SRC 0x62000	/* READ source (server) */
#define F_RD_DST 0x65000	/* READ targets (client) */
#define F_FA 0xb0000		/* the counter (server) */
#define F_CS 0xb0008		/* the swap word (server) */
#define F_FA_RES 0xb1000	/* fetch-add results (client) */
#define F_CS_RES 0xb1200	/* compare-and-swap results (client) */

static char f_kind(const struct fault_run *r, unsigned i)
{
	return r->mix[i % strlen(r->mix)];
}

/* How many operations of i's kind come before operation i. */
static unsigned f_index(const struct fault_run *r, unsigned i)
{
	size_t len = strlen(r->mix), per = 0, before = 0;
	char kind = f_kind(r, i);

	for (size_t j = 0; j < len; j++) {
		per += r->mix[j] == kind;
		before += j < i % len && r->mix[j] == kind;
	}
	return (unsigned)(i / len * per + before);
}

static unsigned f_count(const struct fault_run *r, char kind)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->iters; i++)
		n += f_kind(r, i) == kind;
	return n;
}

static void f_post(struct side *s, const struct fault_run *r, unsigned i)
{
	unsigned k = f_index(r, i), slot = k % F_SLOTS;
	uint32_t rk = s->peer.rkey, off;
	uint64_t *res;

	switch (f_kind(r, i)) {
	case 'w':
		off = F_SRC_W + slot * F_STRIDE;
		fill(s->q.buf + off, F_W_BYTES, 0x40 + k);
		post(s, i, IBV_WR_RDMA_WRITE, off, F_W_BYTES, off, rk, 0, 0);
		break;
	case 's':
		off = F_SEND + slot * F_STRIDE;
		fill(s->q.buf + off, F_S_BYTES, 0x80 + k);
		post(s, i, IBV_WR_SEND_WITH_IMM, off, F_S_BYTES, 0, 0, i, 0);
		break;
	case 'i':
		off = F_IMM + slot * 128;
		fill(s->q.buf + off, F_I_BYTES, 0xc0 + k);
		post(s, i, IBV_WR_RDMA_WRITE_WITH_IMM, off, F_I_BYTES, off, rk, i, 0);
		break;
	case 'r':
		off = F_RD_DST + slot * F_R_STRIDE;
		memset(s->q.buf + off, 0, F_R_BYTES);
		post(s, i, IBV_WR_RDMA_READ, off, F_R_BYTES, F_RD_SRC + (k % 16) * 256, rk, 0, 0);
		break;
	case 'f':
		res = (uint64_t *)(s->q.buf + F_FA_RES + slot * 8);
		*res = ~0ull;
		post(s, i, IBV_WR_ATOMIC_FETCH_AND_ADD, F_FA_RES + slot * 8, 8, F_FA, rk,
		     F_FA_ADD, 0);
		break;
	case 'c':
		res = (uint64_t *)(s->q.buf + F_CS_RES + slot * 8);
		*res = ~0ull;
		post(s, i, IBV_WR_ATOMIC_CMP_AND_SWP, F_CS_RES + slot * 8, 8, F_CS, rk, k, k + 1);
		break;
	default:
		DIE("unknown operation '%c' in the mix", f_kind(r, i));
	}
}

/* The completion of operation i: its data and returned value. */
static void f_check(struct side *s, const struct fault_run *r, unsigned i,
		    const struct ibv_wc *wc)
{
	static const char kinds[] = "wsirfc";
	static const enum ibv_wc_opcode opc[] = {
		IBV_WC_RDMA_WRITE, IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
		IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP,
	};
	char kind = f_kind(r, i);
	unsigned k = f_index(r, i), slot = k % F_SLOTS;
	uint64_t v;
	int bad;

	CHECK(wc->wr_id == i, "completion %u is WR %llu (lost, doubled or out of order)", i,
	      (unsigned long long)wc->wr_id);
	CHECK(wc->status == IBV_WC_SUCCESS, "WR %u (%c): %s", i, kind,
	      ibv_wc_status_str(wc->status));
	if (wc->wr_id != i || wc->status != IBV_WC_SUCCESS)
		return;
	CHECK(wc->opcode == opc[strchr(kinds, kind) - kinds], "WR %u (%c): opcode %d", i, kind,
	      wc->opcode);
	switch (kind) {
	case 'r': {
		/* the server's READ source is pattern(., 2) from F_RD_SRC on */
		const uint8_t *got = s->q.buf + F_RD_DST + slot * F_R_STRIDE;

		bad = -1;
		for (unsigned j = 0; j < F_R_BYTES && bad < 0; j++)
			if (got[j] != pattern((k % 16) * 256 + j, 2))
				bad = (int)j;
		CHECK(bad < 0, "READ %u: byte %d differs", k, bad);
		break;
	}
	case 'f':
		memcpy(&v, s->q.buf + F_FA_RES + slot * 8, 8);
		CHECK(v == (uint64_t)k * F_FA_ADD, "fetch-add %u returned %llu, not %llu", k,
		      (unsigned long long)v, (unsigned long long)k * F_FA_ADD);
		break;
	case 'c':
		memcpy(&v, s->q.buf + F_CS_RES + slot * 8, 8);
		CHECK(v == k, "compare-and-swap %u returned %llu", k, (unsigned long long)v);
		break;
	}
}

/* Tells the peer whether this side's checks passed; returns the peer's. */
static bool exchange_ok(int fd, bool ok)
{
	char c = ok ? 'c' : 'f', got;

	pair_send(fd, &c, 1);
	pair_recv(fd, &got, 1);
	return got == 'c';
}

static bool peer_finished(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* The server reported a failure (its byte of exchange_ok() is waiting). */
static bool server_failed(int fd)
{
	char c;

	return peer_finished(fd) && recv(fd, &c, 1, MSG_PEEK) == 1 && c == 'f';
}

void faults_client(struct side *s, int fd, const struct fault_run *r)
{
	unsigned posted = 0, done = 0;
	double start = now_s(), last = start;
	struct ibv_wc wc[F_WINDOW];

	pair_sync_byte(fd, 'r');
	while (done < r->iters && !pair_failures) {
		int n;

		while (posted < r->iters && posted - done < F_WINDOW)
			f_post(s, r, posted++);
		n = ibv_poll_cq(s->q.cq, F_WINDOW, wc);
		if (n < 0)
			DIE("poll CQ");
		for (int j = 0; j < n; j++)
			f_check(s, r, done++, &wc[j]);
		if (n) {
			last = now_s();
		} else if (server_failed(fd)) {
			CHECK(0, "the server's checks failed: %u of %u WRs done", done, r->iters);
			break;
		} else if (now_s() - last > 30) {
			CHECK(0, "no completion for 30 s: %u of %u done", done, r->iters);
			break;
		} else {
			usleep(50);
		}
	}
	/* nothing more may come: every WR completes exactly once */
	CHECK(poll_n(s, wc, 1, 0.2) == 0, "a completion beyond the %u WRs posted", r->iters);
	printf("client faults: %u WRs (%s) completed in %.2f s\n", done, r->mix, now_s() - start);
	exchange_ok(fd, !pair_failures);
	pair_sync_byte(fd, 'x');
}

/* Receive number j: a receive WQE of its own buffer slot. */
static void f_post_recv(struct side *s, unsigned j)
{
	post_recv(s, F_SEND + (j % F_SLOTS) * F_STRIDE, F_STRIDE, j);
}

static void f_check_recv(struct side *s, const struct fault_run *r, unsigned *next_op,
			 unsigned j, const struct ibv_wc *wc)
{
	unsigned i = *next_op, k;
	char kind;

	while (i < r->iters && f_kind(r, i) != 's' && f_kind(r, i) != 'i')
		i++;
	CHECK(i < r->iters, "receive %u: more receive completions than SENDs and WRITEs "
	      "with immediate (a duplicate delivered again)", j);
	CHECK(wc->status == IBV_WC_SUCCESS && wc->wr_id == j, "receive %u: %s, WR %llu", j,
	      ibv_wc_status_str(wc->status), (unsigned long long)wc->wr_id);
	if (i >= r->iters || wc->status != IBV_WC_SUCCESS || wc->wr_id != j)
		return;
	kind = f_kind(r, i);
	k = f_index(r, i);
	*next_op = i + 1;
	CHECK((wc->wc_flags & IBV_WC_WITH_IMM) && ntohl(wc->imm_data) == i,
	      "receive %u: immediate %u, expected %u (operation %c %u)", j,
	      ntohl(wc->imm_data), i, kind, k);
	if (kind == 's') {
		int bad = mismatch(s->q.buf + F_SEND + (j % F_SLOTS) * F_STRIDE, F_S_BYTES, 0x80 + k);

		CHECK(wc->opcode == IBV_WC_RECV && wc->byte_len == F_S_BYTES,
		      "receive %u: opcode %d length %u for SEND %u", j, wc->opcode,
		      wc->byte_len, k);
		CHECK(bad < 0, "SEND %u: byte %d differs", k, bad);
	} else {
		int bad = mismatch(s->q.buf + F_IMM + (k % F_SLOTS) * 128, F_I_BYTES, 0xc0 + k);

		CHECK(wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc->byte_len == F_I_BYTES,
		      "receive %u: opcode %d length %u for WRITE with immediate %u", j,
		      wc->opcode, wc->byte_len, k);
		CHECK(bad < 0, "WRITE with immediate %u: byte %d differs", k, bad);
	}
}

void faults_server(struct side *s, int fd, const struct fault_run *r)
{
	unsigned expect = f_count(r, 's') + f_count(r, 'i'), nwrite = f_count(r, 'w');
	unsigned posted = 0, got = 0, next_op = 0;
	uint64_t fa, cs;
	double last;
	struct ibv_wc wc[8];

	fill(s->q.buf + F_RD_SRC, 16 * 256 + F_R_BYTES, 2);
	while (posted < F_RECV_DEPTH && posted < expect + F_RECV_EXTRA)
		f_post_recv(s, posted++);
	pair_sync_byte(fd, 'r');
	last = now_s();
	/* until every receive came, or the client stopped (done or failed) */
	while (got < expect && !pair_failures && now_s() - last < 30 && !peer_finished(fd)) {
		int n = ibv_poll_cq(s->q.cq, 8, wc);

		if (n < 0)
			DIE("poll CQ");
		for (int j = 0; j < n; j++) {
			f_check_recv(s, r, &next_op, got++, &wc[j]);
			if (posted < expect + F_RECV_EXTRA)
				f_post_recv(s, posted++);
		}
		if (n)
			last = now_s();
		else
			usleep(50);
	}
	if (!exchange_ok(fd, !pair_failures)) {
		/* the client stopped early: the end state says nothing more */
		printf("server faults: the client failed; %u receive completions\n", got);
		pair_sync_byte(fd, 'x');
		return;
	}
	/* every WR of the client completed; a duplicate delivered again
	 * would take one of the extra receives */
	for (int n; (n = poll_n(s, wc, 1, 0.3)) > 0; got++)
		f_check_recv(s, r, &next_op, got, &wc[0]);
	CHECK(got == expect, "%u receive completions for %u SENDs and WRITEs with immediate",
	      got, expect);
	for (unsigned slot = 0; slot < F_SLOTS && slot < nwrite; slot++) {
		unsigned k = slot + (nwrite - 1 - slot) / F_SLOTS * F_SLOTS;
		int bad = mismatch(s->q.buf + F_SRC_W + slot * F_STRIDE, F_W_BYTES, 0x40 + k);

		CHECK(bad < 0, "WRITE slot %u: byte %d is not WRITE %u's", slot, bad, k);
	}
	memcpy(&fa, s->q.buf + F_FA, 8);
	memcpy(&cs, s->q.buf + F_CS, 8);
	CHECK(fa == (uint64_t)f_count(r, 'f') * F_FA_ADD, "counter %llu after %u fetch-adds of %d",
	      (unsigned long long)fa, f_count(r, 'f'), F_FA_ADD);
	CHECK(cs == f_count(r, 'c'), "swap word %llu after %u compare-and-swaps",
	      (unsigned long long)cs, f_count(r, 'c'));
	printf("server faults: %u receive completions, %u WRITEs, counter %llu, swap word %llu\n",
	       got, nwrite, (unsigned long long)fa, (unsigned long long)cs);
	pair_sync_byte(fd, 'x');
}
