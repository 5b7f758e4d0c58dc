// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The victim of tests/wire/trust.sh: RC QPs with legitimate traffic
 * while a local attacker (forger.c, another user) sends them forged
 * packets.
 *
 *   trust_victim -m inproc -d DIR [-g GIDX]           two QPs, one process
 *   trust_victim -m server -d DIR -p PORT [-g GIDX]   two processes
 *   trust_victim -m client -d DIR -p PORT [-g GIDX] HOST
 *   trust_victim -m server|client ... -s N    stream mode (flood.sh)
 *
 * Each side has a secret MR (remote read, write and atomic allowed) and
 * publishes, for the forger, DIR/target.ROLE: its adapter's address, its
 * QPN, the secret's rkey and VA, and its QP's receive and send PSNs; the
 * requester keeps DIR/progress.ROLE at how far the PSNs have moved.  The
 * requester (client, or QP A in one process) runs RDMA WRITEs of a fresh
 * pattern, each read back with an RDMA READ and compared, until the
 * forger's DIR/x/result exists and 64 more have run (at most 90 s).
 * Then every side checks:
 *   - every work request completed with success, every read-back equal;
 *   - every QP is still in RTS;
 *   - the secret is byte for byte what it was;
 *   - the device counted the forger's packets (from UDP 4791) to this
 *     adapter as dropped by the kernel (the port filter, on by default)
 *     or, without the filter, as refused (control API);
 *   - the forger received nothing and bound no victim address.
 * In stream mode (-s N) the client waits for DIR/go, then sends N RDMA
 * WRITEs with immediate of 64 KiB, 16 outstanding, and prints its rate;
 * every one must complete with success, and the server checks that each
 * arrived once, in order, with its bytes in place.
 * Exit 0 when all hold; 1 with the reasons on stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "peer_io.h"
#include "peer_side.h"
#include "verbs_env.h"

#define PROG "trust_victim"
#define BUF_BYTES (64 * 1024)
#define MSG 1024	/* one packet at the path MTU */
#define SLOTS 16	/* WRITE targets in the remote buffer */
#define SRC_OFF (32 * 1024)
#define CHECK_OFF (48 * 1024)
#define SECRET_BYTES 4096
#define AFTER_FORGER 64
#define LOOP_SECONDS 90.0
#define STREAM_MSG (64 * 1024)
#define STREAM_SLOTS 16
#define STREAM_PLACES 512u

static int failures;

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, PROG ": FAIL: " __VA_ARGS__); \
			fputc('\n', stderr); \
			failures++; \
		} \
	} while (0)
#define DIE(...) \
	do { \
		fprintf(stderr, PROG ": " __VA_ARGS__); \
		fputc('\n', stderr); \
		exit(1); \
	} while (0)

struct info {
	uint32_t qpn, psn, lid, rkey;	/* rkey/va: the legitimate buffer */
	uint64_t va;
	uint8_t gid[16];
};

struct end {
	struct peer_qp q;
	struct info me;
	uint32_t sq_psn;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_port_attr port_attr;
static uint8_t *secret;
static struct ibv_mr *secret_mr;
static int gidx = -1;
static unsigned stream;	/* -s: WRITEs of the stream mode, 0: attack mode */
static const char *dir;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint8_t secret_byte(unsigned i)
{
	return (uint8_t)(0x5a ^ (i * 7) ^ (i >> 8));
}

static uint8_t pattern(unsigned i, unsigned seed)
{
	return (uint8_t)(seed * 131 + i * 17 + (i >> 8));
}

/* The adapter's address (vx_port_ipv4()), or the set-up fails. */
static uint32_t adapter_addr(void)
{
	uint32_t addr;

	if (vx_port_ipv4(ctx, 1, &addr))
		DIE("the port's address");
	return addr;
}

static void open_end(struct end *e, uint32_t psn_seed, size_t bytes)
{
	struct peer_qp_spec rc = {
		.attr = { .qp_type = IBV_QPT_RC,
			  .cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1,
				   .max_recv_sge = 1 } },
		.cqe = 128,
		.buf_bytes = bytes,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ,
	};
	union ibv_gid g;

	if (peer_qp_open(PROG, ctx, pd, &rc, &e->q))
		DIE("create QP");
	e->me.qpn = e->q.qp->qp_num;
	e->me.psn = psn_seed & 0xffffff;
	e->me.lid = port_attr.lid;
	e->me.rkey = e->q.mr->rkey;
	e->me.va = (uintptr_t)e->q.buf;
	if (gidx >= 0 && !ibv_query_gid(ctx, 1, gidx, &g))
		memcpy(e->me.gid, g.raw, 16);
}

static void connect_end(struct end *e, const struct info *peer)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, 1);
	a.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_ATOMIC;
	a.dest_qpn = peer->qpn;
	a.rq_psn = peer->psn;
	a.sq_psn = e->me.psn;
	a.min_rnr_timer = 12;
	vx_peer_ah(&a.ah, 1, (uint16_t)peer->lid, gidx, peer->gid);
	if (vx_qp_to_rts(e->q.qp, &a))
		DIE("connect the QP");
	e->sq_psn = e->me.psn;
}

/* DIR/target.ROLE for the forger: written whole, then renamed. */
static void publish(const char *role, const struct end *e, uint32_t rq_psn)
{
	char path[1024], tmp[1100];
	struct in_addr a = { htonl(adapter_addr()) };
	FILE *f;

	snprintf(path, sizeof(path), "%s/target.%s", dir, role);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		DIE("%s: %s", tmp, strerror(errno));
	fprintf(f, "%s %x %x %llx %x %x\n", inet_ntoa(a), e->me.qpn, secret_mr->rkey,
		(unsigned long long)(uintptr_t)secret, rq_psn, e->sq_psn);
	fclose(f);
	if (rename(tmp, path))
		DIE("rename %s: %s", path, strerror(errno));
}

static void set_progress(const char *role, uint32_t moved)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/progress.%s", dir, role);
	f = fopen(path, "wb");
	if (f) {
		fwrite(&moved, sizeof(moved), 1, f);
		fclose(f);
	}
}

static bool forger_done(void)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/x/result", dir);
	return access(path, R_OK) == 0;
}

static void post(struct end *e, enum ibv_wr_opcode op, uint32_t off, uint64_t raddr,
		 uint32_t rkey, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e->q.buf + off, MSG, e->q.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	if (ibv_post_send(e->q.qp, &wr, &bad))
		DIE("ibv_post_send");
}

/* WRITE then READ back, until the forger is done and AFTER_FORGER more
 * ran; returns how many pairs ran. */
static unsigned legit_traffic(struct end *e, const struct info *peer, const char *const *roles)
{
	unsigned i, after = 0;
	double end = now_s() + LOOP_SECONDS;

	for (i = 0; after < AFTER_FORGER; i++) {
		uint32_t slot = i % SLOTS;
		uint64_t raddr = peer->va + (uint64_t)slot * MSG;
		struct ibv_wc wc;

		if (now_s() > end) {
			CHECK(0, "the forger did not finish within %.0f s", LOOP_SECONDS);
			break;
		}
		for (unsigned k = 0; k < MSG; k++)
			e->q.buf[SRC_OFF + k] = pattern(k, i);
		memset(e->q.buf + CHECK_OFF, 0, MSG);
		post(e, IBV_WR_RDMA_WRITE, SRC_OFF, raddr, peer->rkey, 2 * (uint64_t)i);
		post(e, IBV_WR_RDMA_READ, CHECK_OFF, raddr, peer->rkey, 2 * (uint64_t)i + 1);
		for (int n = 0; n < 2; n++) {
			if (peer_poll_one(PROG, e->q.cq, &wc)) {
				CHECK(0, "pair %u: a work request did not complete with success", i);
				return i;
			}
		}
		if (memcmp(e->q.buf + SRC_OFF, e->q.buf + CHECK_OFF, MSG)) {
			CHECK(0, "pair %u: the WRITE did not land (read back differs)", i);
			return i;
		}
		for (const char *const *r = roles; *r; r++)
			set_progress(*r, 2 * (i + 1));
		if (forger_done())
			after++;
	}
	return i;
}

static void check_rts(struct end *e, const char *what)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	CHECK(!ibv_query_qp(e->q.qp, &a, IBV_QP_STATE, &ia) && a.qp_state == IBV_QPS_RTS,
	      "%s QP 0x%x is no longer in RTS (state %d)", what, e->q.qp->qp_num, a.qp_state);
}

static void check_secret(void)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < SECRET_BYTES; i++)
		bad += secret[i] != secret_byte(i);
	CHECK(!bad, "%u bytes of the secret changed", bad);
}

/* The launcher's --wire-filter (MLX4EMU_WIRE_FILTER; on by default). */
static bool filter_on(void)
{
	const char *v = getenv("MLX4EMU_WIRE_FILTER");

	return !v || !(!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
		       !strcasecmp(v, "false"));
}

/* The forger's result: what it sent to this adapter from UDP 4791, what
 * came back, what it could bind. */
static void check_forger(void)
{
	char path[1024], word[32], addr[64];
	struct in_addr me = { htonl(adapter_addr()) };
	unsigned long long v, other, sent = 0, sent_other = 0, received = 1, impersonated = 1;
	struct mlx4emu_ctl ctl;
	struct mlx4emu_counters c;
	FILE *f;

	snprintf(path, sizeof(path), "%s/x/result", dir);
	f = fopen(path, "r");
	if (!f) {
		CHECK(0, "no forger result %s", path);
		return;
	}
	while (fscanf(f, "%31s", word) == 1) {
		if (!strcmp(word, "sent") && fscanf(f, "%63s %llu %llu", addr, &v, &other) == 3) {
			if (!strcmp(addr, inet_ntoa(me))) {
				sent += v;
				sent_other += other;
			}
		} else if (!strcmp(word, "received") && fscanf(f, "%llu", &v) == 1) {
			received = v;
		} else if (!strcmp(word, "impersonated") && fscanf(f, "%llu", &v) == 1) {
			impersonated = v;
		}
	}
	fclose(f);
	CHECK(!received, "the forger received %llu datagrams", received);
	CHECK(!impersonated, "the forger bound %llu victim addresses", impersonated);
	CHECK(sent > 0, "the forger sent nothing to %s", inet_ntoa(me));
	if (mlx4emu_ctl_load(&ctl) || ctl.get_counters(&c)) {
		CHECK(0, "no control API");
		return;
	}
	printf(PROG ": %s: forged packets from UDP 4791: %llu; device: %llu received, "
	       "%llu dropped by the kernel, %llu refused\n", inet_ntoa(me), sent,
	       (unsigned long long)c.wire_packets_received,
	       (unsigned long long)c.wire_packets_dropped,
	       (unsigned long long)c.wire_packets_refused);
	/* with the port filter (the default) the kernel drops them before
	 * they take buffer space; without it the device refuses them */
	if (filter_on())
		CHECK(c.wire_packets_dropped >= sent,
		      "%llu forged packets, but the kernel dropped only %llu: the filter let "
		      "some through", sent, (unsigned long long)c.wire_packets_dropped);
	/* from another UDP port too: refused, not counted as bad ICRC */
	CHECK(c.wire_packets_dropped + c.wire_packets_refused >= sent + sent_other,
	      "%llu forged packets (%llu from UDP 4791), but only %llu dropped and %llu "
	      "refused: some were taken or counted as bad", sent + sent_other, sent,
	      (unsigned long long)c.wire_packets_dropped,
	      (unsigned long long)c.wire_packets_refused);
}

static void open_device(void)
{
	ctx = peer_open_device(PROG, &port_attr);
	if (!ctx || !(pd = ibv_alloc_pd(ctx)))
		DIE("open device");
	if (posix_memalign((void **)&secret, 4096, SECRET_BYTES))
		DIE("no memory");
	for (unsigned i = 0; i < SECRET_BYTES; i++)
		secret[i] = secret_byte(i);
	secret_mr = ibv_reg_mr(pd, secret, SECRET_BYTES,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!secret_mr)
		DIE("ibv_reg_mr");
}

static void run_inproc(void)
{
	static const char *const roles[] = { "a", "b", NULL };
	struct end a = { 0 }, b = { 0 };
	unsigned n;

	open_end(&a, 0x100000, BUF_BYTES);
	open_end(&b, 0x200000, BUF_BYTES);
	connect_end(&a, &b.me);
	connect_end(&b, &a.me);
	publish("a", &a, b.me.psn);
	publish("b", &b, a.me.psn);
	n = legit_traffic(&a, &b.me, roles);
	printf(PROG ": %u WRITE/READ pairs in one process\n", n);
	check_rts(&a, "requester");
	check_rts(&b, "responder");
	check_secret();
	check_forger();
	CHECK(!peer_qp_close(PROG, &a.q) && !peer_qp_close(PROG, &b.q), "destroy the QPs");
}

static int tcp_pair(const char *host, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		DIE("socket");
	if (host) {
		if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
			DIE("bad host %s", host);
		for (int t = 0; connect(fd, (struct sockaddr *)&sin, sizeof(sin)); t++) {
			if (t > 200)
				DIE("connect: %s", strerror(errno));
			usleep(50000);
		}
		return fd;
	}
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 1))
		DIE("listen: %s", strerror(errno));
	int c = accept(fd, NULL, NULL);

	close(fd);
	if (c < 0)
		DIE("accept");
	return c;
}

/* Stream mode: the client starts when DIR/go appears (the flood is on),
 * 30 s at most. */
static void wait_go(void)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/go", dir);
	for (double end = now_s() + 30; access(path, F_OK) && now_s() < end;)
		usleep(10000);
	CHECK(!access(path, F_OK), "no %s within 30 s", path);
}

/* Client: `stream` RDMA WRITEs with immediate (the WRITE's number) of
 * STREAM_MSG bytes, WRITE i to place i % STREAM_PLACES of the server's
 * buffer, STREAM_SLOTS outstanding; every one must complete with
 * success.  Prints the time and the rate. */
static void stream_client(struct end *e, const struct info *peer)
{
	unsigned posted = 0, done = 0;
	double t0 = now_s(), t;

	while (done < stream) {
		struct ibv_wc wc[STREAM_SLOTS];
		int n;

		while (posted < stream && posted - done < STREAM_SLOTS) {
			uint32_t slot = posted % STREAM_SLOTS;
			uint8_t *src = e->q.buf + (size_t)slot * STREAM_MSG;
			struct ibv_sge sge = { (uintptr_t)src, STREAM_MSG, e->q.mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
				.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(posted),
				.wr.rdma = { .remote_addr = peer->va + (uint64_t)(posted %
						STREAM_PLACES) * STREAM_MSG, .rkey = peer->rkey },
			}, *bad;

			for (unsigned k = 0; k < STREAM_MSG; k += 64)
				memset(src + k, pattern(k, posted), 64);
			if (ibv_post_send(e->q.qp, &wr, &bad))
				DIE("ibv_post_send");
			posted++;
		}
		n = ibv_poll_cq(e->q.cq, STREAM_SLOTS, wc);
		if (n < 0)
			DIE("ibv_poll_cq");
		for (int i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				CHECK(0, "WRITE %llu: %s", (unsigned long long)wc[i].wr_id,
				      ibv_wc_status_str(wc[i].status));
				return;
			}
		done += (unsigned)n;
		if (now_s() - t0 > LOOP_SECONDS) {
			CHECK(0, "%u of %u WRITEs done after %.0f s", done, stream, LOOP_SECONDS);
			return;
		}
	}
	t = now_s() - t0;
	printf(PROG ": stream: %u WRITEs of %u KiB in %.3f s: %.1f MB/s\n", stream,
	       STREAM_MSG / 1024, t, (double)stream * STREAM_MSG / t / 1e6);
}

static void post_recv(struct end *e, uint64_t id)
{
	struct ibv_recv_wr wr = { .wr_id = id }, *bad;

	if (ibv_post_recv(e->q.qp, &wr, &bad))
		DIE("ibv_post_recv");
}

/* Whether place `place` holds what WRITE i wrote (one byte of every
 * 64 and the last of each run). */
static bool landed(const struct end *e, unsigned i)
{
	const uint8_t *p = e->q.buf + (size_t)(i % STREAM_PLACES) * STREAM_MSG;

	for (unsigned k = 0; k < STREAM_MSG; k += 64)
		if (p[k] != pattern(k, i) || p[k + 63] != pattern(k, i))
			return false;
	return true;
}

/* Server: every WRITE of the stream arrives once, in order, its data in
 * place when its completion comes (the next WRITE to that place is
 * STREAM_PLACES later, beyond what the client has outstanding). */
static void stream_serve(struct end *e)
{
	unsigned next = 0, bad = 0;
	double end = now_s() + LOOP_SECONDS;

	for (unsigned i = 0; i < 2 * STREAM_SLOTS; i++)
		post_recv(e, i);
	while (next < stream && now_s() < end) {
		struct ibv_wc wc[STREAM_SLOTS];
		int n = ibv_poll_cq(e->q.cq, STREAM_SLOTS, wc);

		if (n < 0)
			DIE("ibv_poll_cq");
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
			    ntohl(wc[i].imm_data) != next) {
				CHECK(0, "receive %u: status %s, opcode %d, immediate %u", next,
				      ibv_wc_status_str(wc[i].status), wc[i].opcode,
				      ntohl(wc[i].imm_data));
				return;
			}
			bad += !landed(e, next);
			next++;
			post_recv(e, next);
		}
	}
	CHECK(next == stream, "%u of %u WRITEs arrived", next, stream);
	CHECK(!bad, "%u of %u WRITEs of the stream did not land", bad, stream);
}

static void run_pair(const char *host, int port)
{
	static const char *const roles[] = { "client", "server", NULL };
	bool server = host == NULL;
	struct end e = { 0 };
	struct info peer;
	char c = 'D';
	int fd;

	open_end(&e, server ? 0x300000 : 0x400000,
		 stream ? (server ? STREAM_PLACES * STREAM_MSG : STREAM_SLOTS * STREAM_MSG) :
			  BUF_BYTES);
	fd = tcp_pair(host, port);
	if (peer_write(PROG, fd, &e.me, sizeof(e.me)) || peer_read(PROG, fd, &peer, sizeof(peer)))
		DIE("exchange");
	connect_end(&e, &peer);
	publish(server ? "server" : "client", &e, peer.psn);
	if (server && stream)
		stream_serve(&e);
	if (server) {
		/* the client's 'D' comes once its traffic ended (90 s at most) */
		for (double end = now_s() + LOOP_SECONDS + 30; now_s() < end;)
			if (!peer_read(PROG, fd, &c, 1))
				break;
		CHECK(c == 'D', "the client did not finish");
	} else if (stream) {
		wait_go();
		stream_client(&e, &peer);
		if (peer_write(PROG, fd, &c, 1))
			CHECK(0, "tell the server");
	} else {
		unsigned n = legit_traffic(&e, &peer, roles);

		printf(PROG ": %u WRITE/READ pairs between two processes\n", n);
		if (peer_write(PROG, fd, &c, 1))
			CHECK(0, "tell the server");
	}
	check_rts(&e, server ? "server" : "client");
	check_secret();
	if (!stream)
		check_forger();
	close(fd);
	CHECK(!peer_qp_close(PROG, &e.q), "destroy the QP");
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	int opt, port = 0;

	while ((opt = getopt(argc, argv, "m:d:p:g:s:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'd': dir = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 's': stream = (unsigned)atoi(optarg); break;
		default: DIE("usage: -m inproc|server|client -d DIR [-p PORT] [-g GIDX] [-s N] [HOST]");
		}
	}
	if (!mode || !dir)
		DIE("-m and -d are required");
	open_device();
	if (!strcmp(mode, "inproc"))
		run_inproc();
	else if (!strcmp(mode, "server"))
		run_pair(NULL, port);
	else if (!strcmp(mode, "client") && optind < argc)
		run_pair(argv[optind], port);
	else
		DIE("unknown mode %s", mode);
	CHECK(!ibv_dereg_mr(secret_mr) && !ibv_dealloc_pd(pd) && !ibv_close_device(ctx),
	      "release the device");
	free(secret);
	if (failures)
		fprintf(stderr, PROG ": %d check(s) failed\n", failures);
	else
		printf(PROG ": PASS\n");
	return failures ? 1 : 0;
}
