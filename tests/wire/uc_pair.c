// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * uc_pair: UC between two processes, each its own software adapter
 * (pair.sh conventions: no host: server; HOST: client; -p TCP port of
 * the exchange; -g GID index on an Ethernet port).
 *
 *   uc_pair [-n MESSAGES] [-P PSN] -p PORT [HOST]
 *
 * The client sends MESSAGES (default 60) messages of 3 packets each
 * (2049 to 3048 bytes, path MTU 1024), its first PSN PSN (default one of
 * its process ID): message k is a SEND when k is even and an RDMA WRITE
 * with immediate k to the server's slot k when odd, its bytes the 4-byte
 * big-endian k and a pattern of k.  Run with the client's wire dropping
 * packets: UC resends nothing, so a message that lost any packet must not
 * complete at the server, and the one after it must complete as itself,
 * not as the rest of the broken one.
 *
 * The server checks every receive completion: in order (k increasing),
 * once, the opcode of k, byte_len the length of k, the immediate k, the
 * bytes of k in the receive WQE (SEND) or in slot k (WRITE).  It prints
 * the messages it got ("uc_pair: received K..."), which uc_gap.py
 * compares with the packets the server's capture shows arriving.
 * Exit 0 when every check held, 1 otherwise, 2 when the set-up failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exchange.h"
#include "pair_check.h"
#include "peer_io.h"
#include "verbs_env.h"

#define PROG "uc_pair"
#define SLOT 4096
#define MAX_MSGS 256
#define WINDOW 8
/* the server's wait for more completions once the client is done (ms) */
#define QUIET_MS 1000

struct side {
	struct vx_env env;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *buf;		/* receive area, then write area: MAX_MSGS slots each */
	struct ibv_mr *mr;
	struct pair_dest me, peer;
	int gidx;
};

static uint32_t msg_len(uint32_t k)
{
	return 2049 + (k * 37u) % 1000;
}

static uint8_t msg_byte(uint32_t k, uint32_t i)
{
	return (uint8_t)(k * 131u + i * 7u + (i >> 8));
}

static void msg_fill(uint8_t *p, uint32_t k)
{
	p[0] = (uint8_t)(k >> 24);
	p[1] = (uint8_t)(k >> 16);
	p[2] = (uint8_t)(k >> 8);
	p[3] = (uint8_t)k;
	for (uint32_t i = 4; i < msg_len(k); i++)
		p[i] = msg_byte(k, i);
}

/* The first byte of message k at p that differs, or -1. */
static int msg_mismatch(const uint8_t *p, uint32_t k)
{
	static uint8_t want[SLOT];

	msg_fill(want, k);
	for (uint32_t i = 0; i < msg_len(k); i++)
		if (p[i] != want[i])
			return (int)i;
	return -1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint8_t *recv_slot(struct side *s, uint32_t i)
{
	return s->buf + (size_t)i * SLOT;
}

static uint8_t *write_slot(struct side *s, uint32_t k)
{
	return s->buf + (size_t)(MAX_MSGS + k) * SLOT;
}

static void open_side(struct side *s, int gidx, uint32_t psn)
{
	struct ibv_qp_cap cap = { .max_send_wr = WINDOW, .max_recv_wr = MAX_MSGS,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	union ibv_gid gid;

	if (vx_env_open(&s->env, NULL, 0, 1))
		DIE("no device");
	s->cq = ibv_create_cq(s->env.ctx, 2 * MAX_MSGS, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, 2 * MAX_MSGS * SLOT);
	if (!s->cq || !s->buf)
		DIE("CQ or buffer");
	memset(s->buf, 0, 2 * MAX_MSGS * SLOT);
	s->mr = ibv_reg_mr(s->env.pd, s->buf, 2 * MAX_MSGS * SLOT,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	s->qp = s->mr ? vx_qp_create(s->env.pd, IBV_QPT_UC, s->cq, s->cq, NULL, &cap) : NULL;
	if (!s->qp)
		DIE("MR or UC QP");
	s->gidx = gidx;
	s->me = (struct pair_dest){ .lid = s->env.port_attr.lid, .qpn = s->qp->qp_num,
			       .psn = psn & 0xffffff, .rkey = s->mr->rkey,
			       .addr = (uintptr_t)s->buf };
	if (gidx >= 0 && !ibv_query_gid(s->env.ctx, 1, gidx, &gid))
		memcpy(s->me.gid, gid.raw, 16);
}

static void connect_qp(struct side *s)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, 1);
	a.access = IBV_ACCESS_REMOTE_WRITE;
	a.dest_qpn = s->peer.qpn;
	a.rq_psn = s->peer.psn;
	a.sq_psn = s->me.psn;
	vx_peer_ah(&a.ah, 1, (uint16_t)s->peer.lid, s->gidx, s->peer.gid);
	if (vx_qp_to_rts(s->qp, &a))
		DIE("the UC QP did not reach RTS");
}

static void close_side(struct side *s)
{
	CHECK(ibv_destroy_qp(s->qp) == 0, "destroy QP");
	CHECK(ibv_dereg_mr(s->mr) == 0, "deregister MR");
	CHECK(ibv_destroy_cq(s->cq) == 0, "destroy CQ");
	CHECK(vx_env_close(&s->env) == 0, "close device");
	free(s->buf);
}

static void post_message(struct side *s, uint32_t k)
{
	uint8_t *src = s->buf + (size_t)(k % WINDOW) * SLOT;
	struct ibv_sge sge = { (uintptr_t)src, msg_len(k), s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	msg_fill(src, k);
	if (k & 1) {
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(k);
		wr.wr.rdma.remote_addr = s->peer.addr + (uint64_t)(MAX_MSGS + k) * SLOT;
		wr.wr.rdma.rkey = s->peer.rkey;
	} else {
		wr.opcode = IBV_WR_SEND;
	}
	if (ibv_post_send(s->qp, &wr, &bad))
		DIE("post message %u", k);
}

/* Every message, WINDOW at a time, each send completion checked. */
static void client(struct side *s, int fd, uint32_t n)
{
	struct ibv_wc wc;

	for (uint32_t k = 0; k < n; k += WINDOW) {
		uint32_t end = k + WINDOW < n ? k + WINDOW : n;

		for (uint32_t j = k; j < end; j++)
			post_message(s, j);
		for (uint32_t j = k; j < end; j++) {
			if (peer_poll_one(PROG, s->cq, &wc))
				DIE("no send completion for message %u", j);
			CHECK(wc.wr_id == j, "send completion %llu for message %u",
			      (unsigned long long)wc.wr_id, j);
		}
	}
	printf("uc_pair: sent %u messages\n", n);
	pair_sync_byte(fd, 'd');
}

/* One receive completion: the message it names, checked. */
static void check_receive(struct side *s, const struct ibv_wc *wc, int64_t *last)
{
	bool write = wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM;
	const uint8_t *p = recv_slot(s, (uint32_t)wc->wr_id);
	uint32_t k;
	int bad;

	if (wc->status != IBV_WC_SUCCESS) {
		CHECK(false, "receive %llu: status %s", (unsigned long long)wc->wr_id,
		      ibv_wc_status_str(wc->status));
		return;
	}
	k = write ? ntohl(wc->imm_data) :
	    (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	printf("uc_pair: received %u (%s, %u bytes)\n", k, write ? "WRITE" : "SEND",
	       wc->byte_len);
	if (k >= MAX_MSGS) {
		CHECK(false, "receive %llu: message number %u", (unsigned long long)wc->wr_id, k);
		return;
	}
	CHECK((int64_t)k > *last, "message %u after message %lld", k, (long long)*last);
	*last = k;
	CHECK(write == (k & 1), "message %u completed as a %s", k, write ? "WRITE" : "SEND");
	CHECK(wc->byte_len == msg_len(k), "message %u: %u bytes, sent %u", k, wc->byte_len,
	      msg_len(k));
	bad = msg_mismatch(write ? write_slot(s, k) : p, k);
	CHECK(bad < 0, "message %u: byte %d differs from what was sent", k, bad);
}

/* Takes completions until QUIET_MS passed without one after the client
 * said it was done. */
static void server(struct side *s, int fd)
{
	int64_t last = -1;
	unsigned got = 0;
	uint64_t quiet_since;
	struct ibv_wc wc;

	pair_sync_byte(fd, 'd');
	quiet_since = now_ms();
	while (now_ms() - quiet_since < QUIET_MS) {
		int r = ibv_poll_cq(s->cq, 1, &wc);

		if (r < 0)
			DIE("poll CQ");
		if (!r) {
			usleep(1000);
			continue;
		}
		got++;
		check_receive(s, &wc, &last);
		quiet_since = now_ms();
	}
	printf("uc_pair: %u messages received\n", got);
}

int main(int argc, char **argv)
{
	int port = EX_DEFAULT_TCP_PORT, gidx = -1, opt;
	uint32_t n = 60, psn = (uint32_t)getpid() * 2654435761u;
	struct side s = { 0 };
	struct ex_exchange x;
	const char *host;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "p:g:n:P:")) != -1) {
		switch (opt) {
		case 'p': port = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 'n': n = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'P': psn = (uint32_t)strtoul(optarg, NULL, 0); break;
		default: DIE("usage: uc_pair [-n messages] [-P psn] [-g gid] [-p port] [host]");
		}
	}
	if (!n || n > MAX_MSGS)
		DIE("-n: 1 to %d messages", MAX_MSGS);
	host = optind < argc ? argv[optind] : NULL;
	open_side(&s, gidx, psn);
	if (!host && vx_post_recv_slots(s.qp, recv_slot(&s, 0), SLOT, MAX_MSGS, s.mr->lkey))
		DIE("post receives");
	if (ex_exchange_open(&x, host, (uint16_t)port))
		DIE("no exchange with the peer");
	pair_send(x.fd, &s.me, sizeof(s.me));
	pair_recv(x.fd, &s.peer, sizeof(s.peer));
	connect_qp(&s);
	printf("uc_pair: local QPN 0x%06x PSN 0x%06x, remote QPN 0x%06x PSN 0x%06x, "
	       "%u messages\n", s.me.qpn, s.me.psn, s.peer.qpn, s.peer.psn, n);
	pair_sync_byte(x.fd, 'r');
	if (host)
		client(&s, x.fd, n);
	else
		server(&s, x.fd);
	pair_sync_byte(x.fd, 'e');
	ex_exchange_close(&x);
	close_side(&s);
	printf("uc_pair %s: %d failure(s)\n", host ? "client" : "server", pair_failures);
	return pair_failures ? 1 : 0;
}
