// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RC between two processes, each its own software adapter, with
 * ibv_rc_pingpong's conventions (pair.sh): no host argument: server;
 * HOST: client; -p TCP port of the exchange; -g GID index (Ethernet
 * ports).  -m picks the scenario:
 *
 *   ops     the client WRITEs 8 KiB, READs 8 KiB (path MTU 1024: eight
 *           response packets), runs two fetch-and-adds and two
 *           compare-and-swaps, a SEND with immediate (3 packets) and a
 *           WRITE with immediate; every byte and returned value is
 *           checked on both sides.  Then the server exits and a SEND of
 *           the client ends in RETRY_EXC_ERR after retry_cnt + 1 local
 *           ACK timeouts, and every destroy returns.
 *   access  a WRITE with a wrong rkey: REM_ACCESS_ERR, the next WR is
 *           flushed, and the server's QP is in ERR.
 *   absent  one process, no exchange: a QP connected to a QPN that no
 *           adapter has (LID 0xbfff, QPN 0xabcdef) gets RETRY_EXC_ERR for
 *           its SEND after retry_cnt + 1 timeouts; a second WR is flushed.
 *   rnr     the server has no receive posted: the client's SEND is RNR
 *           NAKed until the server posts one 200 ms later, then
 *           completes; with -r 0 (rnr_retry 0) it ends in
 *           RNR_RETRY_EXC_ERR.
 *   faults  exact recovery, for runs under --wire-drop/-dup/-reorder/
 *           -delay: the client posts -n operations (default 300), at
 *           most 8 outstanding, cycling through -o MIX (default
 *           "wsirfc"): w RDMA WRITE of 2500 bytes (3 packets), s SEND
 *           with immediate of 2100 bytes (3 packets), i WRITE with
 *           immediate of 100 bytes, r RDMA READ of 4500 bytes (5
 *           response packets), f fetch-and-add of 3, c compare-and-swap
 *           k -> k + 1.  The client checks that every WR completes
 *           once, in order, with success, every READ's bytes, that the
 *           k-th fetch-add returned 3k and the k-th compare-and-swap k
 *           (each atomic executed once, in order, duplicates answered
 *           from the replay cache).  The server checks that it got
 *           exactly one receive completion per SEND and WRITE with
 *           immediate, in order, with its immediate, length and bytes
 *           (it keeps 16 receives more posted than it needs, so a
 *           duplicate delivered again would show), that every WRITE
 *           slot holds the bytes of the last WRITE to it, and the final
 *           counter (3 x fetch-adds) and swap word (compare-and-swaps).
 *           QPs: timeout 16 (268 ms), retry_cnt 7, rnr_retry 7.
 *   sges    a WRITE of no data segment (0 bytes), then two WRITEs
 *           gathered from many data segments: 12 of 1 to 4000
 *           bytes (9325 bytes, path MTU 1024: segments cut across
 *           packets), and 16 of 3 bytes (one packet from 16 segments);
 *           the server checks every byte.
 *   unmapped
 *           registered memory unmapped under an outstanding WRITE: the
 *           server pauses its adapter (no ACKs), the client posts 8
 *           WRITEs of 64 KiB (64 packets each: the window holds 4), each
 *           from its own 64 KiB of a second MR, waits until its adapter
 *           executed them all, and unmaps the source of the 7th, which
 *           has not been sent; the server resumes.  The
 *           7th completes with LOC_PROT_ERR, the 8th with WR_FLUSH_ERR,
 *           each one before with SUCCESS or, behind the error,
 *           WR_FLUSH_ERR, every WR exactly once and in order; the client
 *           process lives on and its destroys return.  The server finds
 *           the bytes of each WRITE that succeeded.
 *   unmapped_read
 *           the server registers memory, unmaps it and hands its rkey
 *           to the client: the client's RDMA READ of it ends in
 *           REM_OP_ERR and the server's QP is in ERR.
 *   read_write
 *           a READ of 1 KiB and a WRITE of other bytes to the same 1 KiB,
 *           one after the other on the QP (no fence), reach the server's
 *           adapter in one batch (it is paused while the client's adapter sends
 *           them): the READ response, built before the WRITE executes,
 *           must leave with an ICRC over the bytes it carries.  QPs:
 *           timeout 20 (4.3 s), retry_cnt 0: a response lost on the way
 *           ends the READ in RETRY_EXC_ERR; the client checks both WRs
 *           succeed, the READ within one timeout, its bytes all the old
 *           ones or all the new ones, and the server finds the WRITE's.
 *
 * -T and -R set the QPs' timeout and retry_cnt (default 14 and 3: 67 ms
 * and RETRY_EXC_ERR after 4 timeouts; -m faults: 16 and 7).
 *
 * Exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "peer_side.h"
#include "verbs_env.h"

#define PROG "rc_pair"
#define BUF_BYTES (1024 * 1024)
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

static uint8_t qp_timeout = TIMEOUT, qp_retry_cnt = RETRY_CNT;

/* Seconds from the last progress to RETRY_EXC_ERR: retry_cnt + 1 local
 * ACK timeouts of 4.096 us x 2^timeout. */
static double retry_exc_s(void)
{
	return (qp_retry_cnt + 1) * 4.096e-6 * (double)(1u << qp_timeout);
}

static int failures;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		failures++; \
		fprintf(stderr, "FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define DIE(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(2); } while (0)

struct dest {
	uint32_t lid, qpn, psn, rkey;
	uint64_t addr;
	uint8_t gid[16];
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct peer_qp q;	/* buf: BUF_BYTES */
	struct ibv_port_attr port;
	int gidx;
	struct dest me, peer;
};

static uint8_t pattern(unsigned i, unsigned seed)
{
	return (uint8_t)(i * 7 + seed + (i >> 8));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fill(uint8_t *p, unsigned len, unsigned seed)
{
	for (unsigned j = 0; j < len; j++)
		p[j] = pattern(j, seed);
}

/* The first byte of p that is not pattern(., seed), or -1. */
static int mismatch(const uint8_t *p, unsigned len, unsigned seed)
{
	for (unsigned j = 0; j < len; j++)
		if (p[j] != pattern(j, seed))
			return (int)j;
	return -1;
}

/* ---- TCP exchange ---- */

static int tcp_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
	char svc[16];
	int fd = -1;

	snprintf(svc, sizeof(svc), "%d", port);
	if (getaddrinfo(host, svc, &hints, &res))
		DIE("getaddrinfo %s", host);
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, res->ai_addr, res->ai_addrlen)) {
			close(fd);
			fd = -1;
			usleep(100000);
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		DIE("cannot connect to %s:%d", host, port);
	return fd;
}

static int tcp_accept(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0), fd;

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1))
		DIE("cannot listen on %d", port);
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (fd < 0)
		DIE("accept");
	return fd;
}

static void xfer(int fd, void *p, size_t n, bool out)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = out ? write(fd, (char *)p + done, n - done) :
				  read(fd, (char *)p + done, n - done);

		if (k <= 0)
			DIE("exchange: connection lost");
		done += (size_t)k;
	}
}

static void sync_byte(int fd, char c)
{
	char got;

	xfer(fd, &c, 1, true);
	xfer(fd, &got, 1, false);
	if (got != c)
		DIE("exchange: out of step ('%c' for '%c')", got, c);
}

/* ---- verbs ---- */

static void open_side(struct side *s, int gidx)
{
	static const struct peer_qp_spec rc = {
		.attr = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 16,
				 .max_recv_sge = 2 },
		},
		.cqe = 256,
		.buf_bytes = BUF_BYTES,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	union ibv_gid gid;

	s->ctx = peer_open_device(PROG, &s->port);
	if (!s->ctx)
		DIE("open/query port");
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd || peer_qp_open(PROG, s->ctx, s->pd, &rc, &s->q))
		DIE("create objects");
	s->gidx = gidx;
	s->me.lid = s->port.lid;
	s->me.qpn = s->q.qp->qp_num;
	s->me.psn = (uint32_t)(getpid() * 2654435761u) & 0xffffff;
	s->me.rkey = s->q.mr->rkey;
	s->me.addr = (uintptr_t)s->q.buf;
	if (gidx >= 0 && !ibv_query_gid(s->ctx, 1, gidx, &gid))
		memcpy(s->me.gid, gid.raw, 16);
}

static void connect_qp(struct side *s, uint8_t rnr_retry)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, 1);
	a.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_ATOMIC;
	a.dest_qpn = s->peer.qpn;
	a.rq_psn = s->peer.psn;
	a.sq_psn = s->me.psn;
	a.min_rnr_timer = 12;	/* 0.64 ms */
	a.timeout = qp_timeout;
	a.retry_cnt = qp_retry_cnt;
	a.rnr_retry = rnr_retry;
	vx_peer_ah(&a.ah, 1, (uint16_t)s->peer.lid, s->gidx, s->peer.gid);
	if (vx_qp_to_rts(s->q.qp, &a))
		DIE("connect the QP");
}

static void close_side(struct side *s)
{
	CHECK(peer_qp_close(PROG, &s->q) == 0, "destroy QP, MR and CQ");
	CHECK(ibv_dealloc_pd(s->pd) == 0, "dealloc PD");
	CHECK(ibv_close_device(s->ctx) == 0, "close device");
}

/* Polls n completions within `secs` seconds; returns how many came. */
static int poll_n(struct side *s, struct ibv_wc *wc, int n, double secs)
{
	double end = now_s() + secs;
	int got = 0;

	while (got < n && now_s() < end) {
		int k = ibv_poll_cq(s->q.cq, n - got, wc + got);

		if (k < 0)
			DIE("poll CQ");
		got += k;
		if (!k)
			usleep(100);
	}
	return got;
}

static void post_recv(struct side *s, uint32_t off, uint32_t len, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)s->q.buf + off, len, s->q.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(s->q.qp, &wr, &bad))
		DIE("post recv");
}

/* One send WR; remote = offset in the peer's buffer. */
static void post(struct side *s, uint64_t id, enum ibv_wr_opcode op, uint32_t off,
		 uint32_t len, uint64_t remote, uint32_t rkey, uint64_t a0, uint64_t a1)
{
	struct ibv_sge sge = { (uintptr_t)s->q.buf + off, len, s->q.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = s->peer.addr + remote;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = a0;
		wr.wr.atomic.swap = a1;
	} else {
		wr.wr.rdma.remote_addr = s->peer.addr + remote;
		wr.wr.rdma.rkey = rkey;
		wr.imm_data = htonl((uint32_t)a0);
	}
	if (ibv_post_send(s->q.qp, &wr, &bad))
		DIE("post send");
}

/* ---- scenarios ---- */

static void ops_client(struct side *s, int fd)
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
	sync_byte(fd, 'c');	/* the server checks its side */
	sync_byte(fd, 'x');	/* and exits: its adapter is gone */
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

static void ops_server(struct side *s, int fd)
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
	sync_byte(fd, 'r');	/* ready: the client may start */
	sync_byte(fd, 'c');
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
	sync_byte(fd, 'x');
}

static void access_client(struct side *s, int fd)
{
	struct ibv_wc wc[2];
	int n;

	sync_byte(fd, 'r');
	post(s, 1, IBV_WR_RDMA_WRITE, WRITE_OFF, 64, WRITE_OFF, s->peer.rkey ^ 0x100, 0, 0);
	post(s, 2, IBV_WR_RDMA_WRITE, WRITE_OFF, 64, WRITE_OFF, s->peer.rkey, 0, 0);
	n = poll_n(s, wc, 2, 10);
	CHECK(n == 2, "%d of 2 completions", n);
	CHECK(n < 1 || (wc[0].wr_id == 1 && wc[0].status == IBV_WC_REM_ACCESS_ERR),
	      "bad rkey: %s", ibv_wc_status_str(wc[0].status));
	CHECK(n < 2 || (wc[1].wr_id == 2 && wc[1].status == IBV_WC_WR_FLUSH_ERR),
	      "after the error: %s", ibv_wc_status_str(wc[1].status));
	sync_byte(fd, 'c');
}

static void access_server(struct side *s, int fd)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	sync_byte(fd, 'r');
	sync_byte(fd, 'c');
	CHECK(ibv_query_qp(s->q.qp, &a, IBV_QP_STATE, &ia) == 0 && a.qp_state == IBV_QPS_ERR,
	      "responder QP in state %d after a remote access error", a.qp_state);
}

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

static void sges_client(struct side *s, int fd)
{
	uint32_t bytes_b[SGE_B_COUNT];
	struct ibv_wc wc[2];
	int n;

	for (unsigned i = 0; i < SGE_B_COUNT; i++)
		bytes_b[i] = SGE_B_BYTES;
	sync_byte(fd, 'r');
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
	sync_byte(fd, 'c');
}

static void sges_server(struct side *s, int fd)
{
	int bad;

	sync_byte(fd, 'r');
	sync_byte(fd, 'c');
	bad = mismatch(s->q.buf + SGE_TARGET_A, sge_total_a(), 0x21);
	CHECK(bad < 0, "WRITE of %u segments: byte %d", (unsigned)SGE_COUNT_A, bad);
	bad = mismatch(s->q.buf + SGE_TARGET_B, SGE_B_COUNT * SGE_B_BYTES, 0x42);
	CHECK(bad < 0, "WRITE of %u segments: byte %d", SGE_B_COUNT, bad);
	CHECK(s->q.buf[SGE_TARGET_A + sge_total_a()] == 0, "WRITE of %u segments: beyond its end",
	      (unsigned)SGE_COUNT_A);
}

/* -m unmapped: WRITE sources of the client, targets at the server */
#define U_WRITES 8
#define U_BYTES 65536
#define U_GONE 6		/* the WRITE whose source is unmapped */
#define U_TARGET 0x80000	/* in the server's buffer */

static void unmapped_client(struct side *s, int fd)
{
	size_t len = (size_t)U_WRITES * U_BYTES;
	uint8_t *src = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct mlx4emu_ctl ctl;
	struct ibv_wc wc[U_WRITES];
	struct ibv_mr *mr;
	bool failed = false;
	int n;

	if (src == MAP_FAILED || mlx4emu_ctl_load(&ctl))
		DIE("mmap, or the software device is not loaded");
	for (size_t i = 0; i < len; i++)
		src[i] = pattern((unsigned)i, 0x55);
	mr = ibv_reg_mr(s->pd, src, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		DIE("register the WRITE sources");
	sync_byte(fd, 'p');	/* the server's adapter is paused */
	for (unsigned i = 0; i < U_WRITES; i++) {
		struct ibv_sge sge = { (uintptr_t)src + i * U_BYTES, U_BYTES, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { s->peer.addr + U_TARGET + i * U_BYTES, s->peer.rkey },
		}, *bad;

		if (ibv_post_send(s->q.qp, &wr, &bad))
			DIE("post WRITE %u", i);
	}
	/* every WRITE executed (handed to the transport) before the unmap */
	CHECK(ctl.wait_idle(5000) == 0, "the adapter is not idle");
	CHECK(munmap(src + U_GONE * U_BYTES, U_BYTES) == 0, "munmap");
	sync_byte(fd, 'u');	/* the server resumes */
	n = poll_n(s, wc, U_WRITES, 10);
	CHECK(n == U_WRITES, "%d of %d completions", n, U_WRITES);
	for (int i = 0; i < n; i++) {
		enum ibv_wc_status want = i == U_GONE ? IBV_WC_LOC_PROT_ERR : IBV_WC_WR_FLUSH_ERR;

		CHECK(wc[i].wr_id == (uint64_t)i, "completion %d is WR %llu", i,
		      (unsigned long long)wc[i].wr_id);
		if (i < U_GONE && !failed && wc[i].status == IBV_WC_SUCCESS)
			continue;
		failed = true;
		CHECK(wc[i].status == want, "WR %d: %s, not %s", i,
		      ibv_wc_status_str(wc[i].status), ibv_wc_status_str(want));
	}
	CHECK(ibv_poll_cq(s->q.cq, 1, wc) == 0, "a completion more");
	n = n < U_GONE ? n : U_GONE;
	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			n = i;
	xfer(fd, &n, sizeof(n), true);	/* WRITEs that succeeded */
	CHECK(ibv_dereg_mr(mr) == 0, "dereg the WRITE sources");
	munmap(src, U_GONE * U_BYTES);
	munmap(src + (U_GONE + 1) * U_BYTES, len - (U_GONE + 1) * U_BYTES);
	printf("client unmapped: %d of %d WRITEs succeeded before the unmapped one\n", n,
	       U_GONE);
}

static void unmapped_server(struct side *s, int fd)
{
	struct mlx4emu_ctl ctl;
	int n;

	if (mlx4emu_ctl_load(&ctl))
		DIE("the software device is not loaded");
	ctl.pause();
	sync_byte(fd, 'p');
	sync_byte(fd, 'u');
	ctl.resume();
	xfer(fd, &n, sizeof(n), false);
	for (int i = 0; i < n; i++) {
		const uint8_t *p = s->q.buf + U_TARGET + (size_t)i * U_BYTES;
		int bad = -1;

		for (unsigned j = 0; j < U_BYTES && bad < 0; j++)
			if (p[j] != pattern(i * U_BYTES + j, 0x55))
				bad = (int)j;
		CHECK(bad < 0, "WRITE %d: byte %d", i, bad);
	}
	printf("server unmapped: %d WRITEs checked\n", n);
}

static void unmapped_read_client(struct side *s, int fd)
{
	struct { uint64_t addr; uint32_t rkey; } gone;
	struct ibv_wc wc;
	int n;

	xfer(fd, &gone, sizeof(gone), false);
	/* post() adds the peer's buffer address to the offset */
	post(s, 1, IBV_WR_RDMA_READ, READ_OFF, XFER, gone.addr - s->peer.addr, gone.rkey, 0, 0);
	n = poll_n(s, &wc, 1, 10);
	CHECK(n == 1 && wc.status == IBV_WC_REM_OP_ERR, "READ of unmapped memory: %s",
	      n == 1 ? ibv_wc_status_str(wc.status) : "no completion");
	sync_byte(fd, 'c');
}

static void unmapped_read_server(struct side *s, int fd)
{
	struct { uint64_t addr; uint32_t rkey; } gone;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	uint8_t *p = mmap(NULL, XFER, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr;

	if (p == MAP_FAILED)
		DIE("mmap");
	mr = ibv_reg_mr(s->pd, p, XFER, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		DIE("register the READ source");
	CHECK(munmap(p, XFER) == 0, "munmap");
	gone.addr = (uintptr_t)p;
	gone.rkey = mr->rkey;
	xfer(fd, &gone, sizeof(gone), true);
	sync_byte(fd, 'c');
	CHECK(ibv_query_qp(s->q.qp, &a, IBV_QP_STATE, &ia) == 0 && a.qp_state == IBV_QPS_ERR,
	      "responder QP in state %d after reading unmapped memory", a.qp_state);
	CHECK(ibv_dereg_mr(mr) == 0, "dereg the READ source");
}

static void absent_peer(struct side *s)
{
	struct ibv_wc wc[2];
	double t0 = now_s(), dt;
	int n;

	post(s, 1, IBV_WR_SEND, RECV_OFF, 16, 0, 0, 0, 0);
	post(s, 2, IBV_WR_RDMA_READ, READ_OFF, 16, 0, 0x1234, 0, 0);
	n = poll_n(s, wc, 2, 30);
	dt = now_s() - t0;
	CHECK(n == 2, "%d of 2 completions", n);
	CHECK(n < 1 || (wc[0].wr_id == 1 && wc[0].status == IBV_WC_RETRY_EXC_ERR),
	      "no peer: %s", ibv_wc_status_str(wc[0].status));
	CHECK(n < 2 || (wc[1].wr_id == 2 && wc[1].status == IBV_WC_WR_FLUSH_ERR),
	      "behind it: %s", ibv_wc_status_str(wc[1].status));
	CHECK(dt >= retry_exc_s() * 0.9 && dt < retry_exc_s() + 15, "RETRY_EXC_ERR after %.3f s",
	      dt);
	printf("no peer: RETRY_EXC_ERR after %.3f s (%.3f s expected)\n", dt, retry_exc_s());
}

static void rnr_client(struct side *s, int fd, int rnr_retry)
{
	struct ibv_wc wc;
	int n;

	sync_byte(fd, 'r');
	post(s, 1, IBV_WR_SEND, RECV_OFF, 100, 0, 0, 0, 0);
	n = poll_n(s, &wc, 1, 10);
	CHECK(n == 1, "no completion");
	if (rnr_retry)
		CHECK(n < 1 || wc.status == IBV_WC_SUCCESS, "RNR, then a receive: %s",
		      ibv_wc_status_str(wc.status));
	else
		CHECK(n < 1 || wc.status == IBV_WC_RNR_RETRY_EXC_ERR, "rnr_retry 0: %s",
		      ibv_wc_status_str(wc.status));
	sync_byte(fd, 'c');
}

static void rnr_server(struct side *s, int fd, int rnr_retry)
{
	struct ibv_wc wc;
	int n;

	sync_byte(fd, 'r');
	usleep(200000);		/* the SEND meets no receive WQE meanwhile */
	post_recv(s, RECV_OFF, 4096, 7);
	if (rnr_retry) {
		n = poll_n(s, &wc, 1, 10);
		CHECK(n == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 100,
		      "receive after RNR: %d %s", n, n ? ibv_wc_status_str(wc.status) : "");
	}
	sync_byte(fd, 'c');
}

/* ---- faults: exact recovery ---- */

struct fault_run {
	const char *mix;
	unsigned iters;
};

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

	xfer(fd, &c, 1, true);
	xfer(fd, &got, 1, false);
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

static void faults_client(struct side *s, int fd, const struct fault_run *r)
{
	unsigned posted = 0, done = 0;
	double start = now_s(), last = start;
	struct ibv_wc wc[F_WINDOW];

	sync_byte(fd, 'r');
	while (done < r->iters && !failures) {
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
	exchange_ok(fd, !failures);
	sync_byte(fd, 'x');
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

static void faults_server(struct side *s, int fd, const struct fault_run *r)
{
	unsigned expect = f_count(r, 's') + f_count(r, 'i'), nwrite = f_count(r, 'w');
	unsigned posted = 0, got = 0, next_op = 0;
	uint64_t fa, cs;
	double last;
	struct ibv_wc wc[8];

	fill(s->q.buf + F_RD_SRC, 16 * 256 + F_R_BYTES, 2);
	while (posted < F_RECV_DEPTH && posted < expect + F_RECV_EXTRA)
		f_post_recv(s, posted++);
	sync_byte(fd, 'r');
	last = now_s();
	/* until every receive came, or the client stopped (done or failed) */
	while (got < expect && !failures && now_s() - last < 30 && !peer_finished(fd)) {
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
	if (!exchange_ok(fd, !failures)) {
		/* the client stopped early: the end state says nothing more */
		printf("server faults: the client failed; %u receive completions\n", got);
		sync_byte(fd, 'x');
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
	sync_byte(fd, 'x');
}

/* -m read_write: the 1 KiB both WRs name, in the server's buffer, and
 * where the client READs it to and WRITEs it from */
#define RW_BYTES 1024
#define RW_TARGET 0x90000
#define RW_READ_DST 0x91000
#define RW_WRITE_SRC 0x92000

static void read_write_client(struct side *s, int fd)
{
	const uint8_t *got = s->q.buf + RW_READ_DST;
	struct mlx4emu_ctl ctl;
	struct ibv_wc wc[2];
	double t0, dt;
	int n;

	if (mlx4emu_ctl_load(&ctl))
		DIE("the software device is not loaded");
	fill(s->q.buf + RW_WRITE_SRC, RW_BYTES, 0x66);
	sync_byte(fd, 'p');	/* the server's adapter is paused */
	t0 = now_s();
	post(s, 1, IBV_WR_RDMA_READ, RW_READ_DST, RW_BYTES, RW_TARGET, s->peer.rkey, 0, 0);
	post(s, 2, IBV_WR_RDMA_WRITE, RW_WRITE_SRC, RW_BYTES, RW_TARGET, s->peer.rkey, 0, 0);
	/* both requests are on the wire before the server takes them */
	CHECK(ctl.wait_idle(5000) == 0, "the adapter is not idle");
	sync_byte(fd, 'u');
	n = poll_n(s, wc, 2, 15);
	dt = now_s() - t0;
	CHECK(n == 2, "%d of 2 completions", n);
	CHECK(n < 1 || (wc[0].wr_id == 1 && wc[0].status == IBV_WC_SUCCESS),
	      "READ: %s (its response lost on the way?)", ibv_wc_status_str(wc[0].status));
	CHECK(n < 2 || (wc[1].wr_id == 2 && wc[1].status == IBV_WC_SUCCESS), "WRITE: %s",
	      ibv_wc_status_str(wc[1].status));
	CHECK(dt < retry_exc_s(), "READ and WRITE took %.3f s, a local ACK timeout is %.3f s",
	      dt, retry_exc_s());
	CHECK(mismatch(got, RW_BYTES, 0x33) < 0 || mismatch(got, RW_BYTES, 0x66) < 0,
	      "READ returned neither the old bytes nor the WRITE's");
	printf("client read_write: done in %.3f s, READ returned %s bytes\n", dt,
	       mismatch(got, RW_BYTES, 0x33) < 0 ? "the old" :
	       mismatch(got, RW_BYTES, 0x66) < 0 ? "the WRITE's" : "other");
	sync_byte(fd, 'c');
}

static void read_write_server(struct side *s, int fd)
{
	struct mlx4emu_ctl ctl;
	int bad;

	if (mlx4emu_ctl_load(&ctl))
		DIE("the software device is not loaded");
	fill(s->q.buf + RW_TARGET, RW_BYTES, 0x33);
	ctl.pause();
	sync_byte(fd, 'p');
	sync_byte(fd, 'u');
	ctl.resume();
	sync_byte(fd, 'c');
	bad = mismatch(s->q.buf + RW_TARGET, RW_BYTES, 0x66);
	CHECK(bad < 0, "WRITE: byte %d", bad);
}

int main(int argc, char **argv)
{
	const char *mode = "ops", *host = NULL;
	int port = 18515, gidx = -1, rnr_retry = 7, opt, fd;
	struct fault_run fr = { "wsirfc", 300 };
	struct side s = { 0 };

	int timeout = -1, retry_cnt = -1;

	while ((opt = getopt(argc, argv, "p:g:m:r:n:o:T:R:")) != -1) {
		switch (opt) {
		case 'p': port = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 'm': mode = optarg; break;
		case 'r': rnr_retry = atoi(optarg); break;
		case 'n': fr.iters = (unsigned)atoi(optarg); break;
		case 'o': fr.mix = optarg; break;
		case 'T': timeout = atoi(optarg); break;
		case 'R': retry_cnt = atoi(optarg); break;
		default: DIE("usage: rc_pair [-m ops|absent|access|rnr|faults|sges|unmapped|unmapped_read|read_write] [-r rnr_retry] "
			     "[-n count] [-o wsirfc] [-T timeout] [-R retry_cnt] [-g gid] "
			     "[-p port] [host]");
		}
	}
	if (!*fr.mix || strspn(fr.mix, "wsirfc") != strlen(fr.mix))
		DIE("-o: a mix of w s i r f c");
	if (!strcmp(mode, "faults")) {
		/* 8 x 268 ms without progress before RETRY_EXC_ERR: a peer
		 * that a loaded host leaves unscheduled for a while is no
		 * fault of the transport */
		qp_timeout = 16;
		qp_retry_cnt = 7;
	}
	if (!strcmp(mode, "read_write")) {
		qp_timeout = 20;
		qp_retry_cnt = 0;
	}
	if (timeout >= 0)
		qp_timeout = (uint8_t)(timeout & 31);
	if (retry_cnt >= 0)
		qp_retry_cnt = (uint8_t)(retry_cnt & 7);
	if (optind < argc)
		host = argv[optind];
	open_side(&s, gidx);
	if (!strcmp(mode, "absent")) {
		s.peer.lid = 0xbfff;
		s.peer.qpn = 0xabcdef;
		connect_qp(&s, (uint8_t)rnr_retry);
		absent_peer(&s);
		close_side(&s);
		printf("absent: %d failure(s)\n", failures);
		return failures ? 1 : 0;
	}
	fd = host ? tcp_connect(host, port) : tcp_accept(port);
	xfer(fd, &s.me, sizeof(s.me), true);
	xfer(fd, &s.peer, sizeof(s.peer), false);
	connect_qp(&s, (uint8_t)rnr_retry);
	/* what a capture of the run must show (wire.pcap.rc) */
	printf("rc_pair: local QPN 0x%06x PSN 0x%06x rkey 0x%08x addr 0x%016llx, "
	       "remote QPN 0x%06x PSN 0x%06x rkey 0x%08x addr 0x%016llx, timeout %u retry_cnt %u\n",
	       s.me.qpn, s.me.psn, s.me.rkey, (unsigned long long)s.me.addr, s.peer.qpn,
	       s.peer.psn, s.peer.rkey, (unsigned long long)s.peer.addr, qp_timeout, qp_retry_cnt);
	fflush(stdout);
	if (!strcmp(mode, "ops")) {
		if (host) {
			sync_byte(fd, 'r');
			ops_client(&s, fd);
		} else {
			ops_server(&s, fd);
		}
	} else if (!strcmp(mode, "access")) {
		host ? access_client(&s, fd) : access_server(&s, fd);
	} else if (!strcmp(mode, "rnr")) {
		host ? rnr_client(&s, fd, rnr_retry) : rnr_server(&s, fd, rnr_retry);
	} else if (!strcmp(mode, "faults")) {
		host ? faults_client(&s, fd, &fr) : faults_server(&s, fd, &fr);
	} else if (!strcmp(mode, "sges")) {
		host ? sges_client(&s, fd) : sges_server(&s, fd);
	} else if (!strcmp(mode, "unmapped_read")) {
		host ? unmapped_read_client(&s, fd) : unmapped_read_server(&s, fd);
	} else if (!strcmp(mode, "read_write")) {
		host ? read_write_client(&s, fd) : read_write_server(&s, fd);
	} else if (!strcmp(mode, "unmapped")) {
		host ? unmapped_client(&s, fd) : unmapped_server(&s, fd);
	} else {
		DIE("unknown mode %s", mode);
	}
	if (strcmp(mode, "ops") || !host)
		close(fd);
	close_side(&s);
	printf("%s %s: %d failure(s)\n", host ? "client" : "server", mode, failures);
	return failures ? 1 : 0;
}
