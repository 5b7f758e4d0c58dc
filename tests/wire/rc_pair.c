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
 *
 * Exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF_BYTES (64 * 1024)
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
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
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
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 16, .max_send_sge = 2,
			 .max_recv_sge = 2 },
	};
	union ibv_gid gid;

	if (!list || !list[0])
		DIE("no device");
	s->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!s->ctx || ibv_query_port(s->ctx, 1, &s->port))
		DIE("open/query port");
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 128, NULL, NULL, 0);
	if (posix_memalign((void **)&s->buf, 4096, BUF_BYTES))
		DIE("memory");
	memset(s->buf, 0, BUF_BYTES);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_BYTES, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	qia.send_cq = qia.recv_cq = s->cq;
	s->qp = s->pd && s->cq && s->mr ? ibv_create_qp(s->pd, &qia) : NULL;
	if (!s->qp)
		DIE("create objects");
	s->gidx = gidx;
	s->me.lid = s->port.lid;
	s->me.qpn = s->qp->qp_num;
	s->me.psn = (uint32_t)(getpid() * 2654435761u) & 0xffffff;
	s->me.rkey = s->mr->rkey;
	s->me.addr = (uintptr_t)s->buf;
	if (gidx >= 0 && !ibv_query_gid(s->ctx, 1, gidx, &gid))
		memcpy(s->me.gid, gid.raw, 16);
}

static void connect_qp(struct side *s, uint8_t rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		DIE("INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = s->peer.qpn;
	a.rq_psn = s->peer.psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;	/* 0.64 ms */
	a.ah_attr.dlid = (uint16_t)s->peer.lid;
	a.ah_attr.port_num = 1;
	if (s->gidx >= 0) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.grh.sgid_index = (uint8_t)s->gidx;
		memcpy(a.ah_attr.grh.dgid.raw, s->peer.gid, 16);
	}
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		DIE("RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = s->me.psn;
	a.timeout = TIMEOUT;
	a.retry_cnt = RETRY_CNT;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		DIE("RTS");
}

static void close_side(struct side *s)
{
	CHECK(ibv_destroy_qp(s->qp) == 0, "destroy QP");
	CHECK(ibv_dereg_mr(s->mr) == 0, "dereg MR");
	CHECK(ibv_destroy_cq(s->cq) == 0, "destroy CQ");
	CHECK(ibv_dealloc_pd(s->pd) == 0, "dealloc PD");
	CHECK(ibv_close_device(s->ctx) == 0, "close device");
	free(s->buf);
}

/* Polls n completions within `secs` seconds; returns how many came. */
static int poll_n(struct side *s, struct ibv_wc *wc, int n, double secs)
{
	double end = now_s() + secs;
	int got = 0;

	while (got < n && now_s() < end) {
		int k = ibv_poll_cq(s->cq, n - got, wc + got);

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
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		DIE("post recv");
}

/* One send WR; remote = offset in the peer's buffer. */
static void post(struct side *s, uint64_t id, enum ibv_wr_opcode op, uint32_t off,
		 uint32_t len, uint64_t remote, uint32_t rkey, uint64_t a0, uint64_t a1)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
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
	if (ibv_post_send(s->qp, &wr, &bad))
		DIE("post send");
}

/* ---- scenarios ---- */

static void ops_client(struct side *s, int fd)
{
	struct ibv_wc wc[16];
	uint64_t *fa = (uint64_t *)(s->buf + FA_OFF), *cs = (uint64_t *)(s->buf + CS_OFF);
	uint32_t rk = s->peer.rkey;
	int n;
	double t0, dt;

	for (unsigned i = 0; i < XFER; i++)
		s->buf[WRITE_OFF + i] = pattern(i, 1);
	for (unsigned i = 0; i < SEND_BYTES; i++)
		s->buf[RECV_OFF + i] = pattern(i, 3);
	for (unsigned i = 0; i < WIMM_BYTES; i++)
		s->buf[WIMM_OFF + i] = pattern(i, 4);
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
		if (s->buf[READ_OFF + i] != pattern(i, 2)) {
			CHECK(0, "READ byte %u: 0x%02x, expected 0x%02x", i, s->buf[READ_OFF + i],
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
	/* retry_cnt + 1 timeouts of 67 ms each; generous upper bound for load */
	CHECK(dt >= (RETRY_CNT + 1) * 0.067 * 0.9 && dt < 15, "RETRY_EXC_ERR after %.3f s", dt);
	printf("peer gone: %s after %.3f s (%d x 67 ms expected)\n",
	       n ? ibv_wc_status_str(wc[0].status) : "-", dt, RETRY_CNT + 1);
}

static void ops_server(struct side *s, int fd)
{
	uint64_t *fa = (uint64_t *)(s->buf + FA_OFF), *cs = (uint64_t *)(s->buf + CS_OFF);
	struct ibv_wc wc[4];
	int n;

	for (unsigned i = 0; i < XFER; i++)
		s->buf[READ_OFF + i] = pattern(i, 2);
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
		if (s->buf[WRITE_OFF + i] != pattern(i, 1)) {
			CHECK(0, "WRITE byte %u: 0x%02x", i, s->buf[WRITE_OFF + i]);
			break;
		}
	for (unsigned i = 0; i < SEND_BYTES; i++)
		if (s->buf[RECV_OFF + i] != pattern(i, 3)) {
			CHECK(0, "SEND byte %u: 0x%02x", i, s->buf[RECV_OFF + i]);
			break;
		}
	for (unsigned i = 0; i < WIMM_BYTES; i++)
		if (s->buf[WIMM_OFF + i] != pattern(i, 4)) {
			CHECK(0, "WRITE with immediate byte %u: 0x%02x", i, s->buf[WIMM_OFF + i]);
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
	CHECK(ibv_query_qp(s->qp, &a, IBV_QP_STATE, &ia) == 0 && a.qp_state == IBV_QPS_ERR,
	      "responder QP in state %d after a remote access error", a.qp_state);
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
	CHECK(dt >= (RETRY_CNT + 1) * 0.067 * 0.9 && dt < 15, "RETRY_EXC_ERR after %.3f s", dt);
	printf("no peer: RETRY_EXC_ERR after %.3f s (%d x 67 ms expected)\n", dt, RETRY_CNT + 1);
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

int main(int argc, char **argv)
{
	const char *mode = "ops", *host = NULL;
	int port = 18515, gidx = -1, rnr_retry = 7, opt, fd;
	struct side s = { 0 };

	while ((opt = getopt(argc, argv, "p:g:m:r:")) != -1) {
		switch (opt) {
		case 'p': port = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 'm': mode = optarg; break;
		case 'r': rnr_retry = atoi(optarg); break;
		default: DIE("usage: rc_pair [-m ops|absent|access|rnr] [-r rnr_retry] [-g gid] [-p port] [host]");
		}
	}
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
	} else {
		DIE("unknown mode %s", mode);
	}
	if (strcmp(mode, "ops") || !host)
		close(fd);
	close_side(&s);
	printf("%s %s: %d failure(s)\n", host ? "client" : "server", mode, failures);
	return failures ? 1 : 0;
}
