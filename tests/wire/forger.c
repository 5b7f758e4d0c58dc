// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * An unprivileged local attacker against adapters of the software
 * device (tests/wire/trust.sh runs it as nobody): well-formed RoCEv2
 * packets, with the ICRC right, to the QPs a victim published.
 *
 *   forger [--flood] RESULT DIR
 *
 * DIR holds the victims' target.* files, one line each:
 *   ADDR QPN RKEY VA RQ_PSN SQ_PSN      (ADDR dotted, the rest hex)
 * and progress.* files (the victim's live PSN offset, 4 bytes, host
 * order) that move the PSN window with the legitimate traffic.
 *
 * For each target, around its live PSNs, the forger sends requests
 * (RDMA WRITE first/middle/last/only, READ, compare-and-swap,
 * fetch-and-add, SEND first/middle/only, in RC, UC and XRC opcodes) to
 * the published QPN and to guessed ones, with the published rkey and VA,
 * and responses to the requester (ACK, READ response, atomic ACK), from
 * UDP port 4791 of an address of its own and from an ephemeral port.  It
 * tries to bind the victims' own addresses (a datagram from there would
 * pass for theirs), then waits for anything sent back.  RESULT gets:
 *   sent ADDR N M       packets sent to each victim address from UDP
 *                       4791 (N) and from another port (M)
 *   received N          datagrams that came back (0 expected)
 *   impersonated N      victim addresses it could bind (0 expected)
 * With --flood it sends instead the flood of flood() and counts it in the
 * same lines.
 * Exit 0 once it ran, 1 when it could not (no socket, no target).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire/icrc.h"
#include "wire/identity.h"
#include "wire/roce.h"

#define MAX_TARGETS 8
#define PAYLOAD 64
#define PKT_MAX 256
#define PSN_BEFORE 16
#define PSN_AFTER 48
/* every pass sends this many packets per target at most; passes run
 * until the budget or the time is spent */
#define BUDGET_PER_TARGET 24000
#define MAX_SECONDS 8.0

struct target {
	uint32_t addr, qpn, rkey, rq_psn, sq_psn;
	uint64_t va;
	char progress[512];
	uint64_t sent, sent_other;	/* from UDP 4791, from another port */
};

static struct target targets[MAX_TARGETS];
static unsigned ntargets;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static int load_targets(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d)) && ntargets < MAX_TARGETS) {
		char path[1024], addr[64], role[256];
		struct target *t = &targets[ntargets];
		unsigned long long va;
		FILE *f;

		if (strncmp(e->d_name, "target.", 7))
			continue;
		snprintf(role, sizeof(role), "%s", e->d_name + 7);
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%63s %x %x %llx %x %x", addr, &t->qpn, &t->rkey, &va, &t->rq_psn,
			   &t->sq_psn) == 6) {
			struct in_addr a;

			if (inet_pton(AF_INET, addr, &a) == 1) {
				t->addr = ntohl(a.s_addr);
				t->va = va;
				snprintf(t->progress, sizeof(t->progress), "%s/progress.%s", dir,
					 role);
				ntargets++;
			}
		}
		fclose(f);
	}
	closedir(d);
	return ntargets ? 0 : -1;
}

/* The victim's PSNs have moved by this much since it published them. */
static uint32_t progress(const struct target *t)
{
	FILE *f = fopen(t->progress, "rb");
	uint32_t v = 0;

	if (f) {
		if (fread(&v, sizeof(v), 1, f) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static int udp_socket(uint32_t addr, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(addr) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A free 127.0.250.x:4791 of the forger's own. */
static int own_roce_socket(uint32_t *addr)
{
	for (uint32_t x = 1; x < 255; x++) {
		int fd = udp_socket(0x7f00fa00u | x, EMU_ROCE_UDP_PORT);

		if (fd >= 0) {
			*addr = 0x7f00fa00u | x;
			return fd;
		}
	}
	return -1;
}

/* The extended headers an opcode carries, filled from the target. */
static size_t ext_headers(uint8_t bop, const struct target *t, uint8_t *p)
{
	switch (bop) {
	case EMU_BOP_WRITE_FIRST:
	case EMU_BOP_WRITE_ONLY:
	case EMU_BOP_READ_REQUEST:
		put64(p, t->va);
		put32(p + 8, t->rkey);
		put32(p + 12, PAYLOAD);
		return EMU_RETH_BYTES;
	case EMU_BOP_CMP_SWAP:
	case EMU_BOP_FETCH_ADD:
		put64(p, t->va);
		put32(p + 8, t->rkey);
		put64(p + 12, 0xeeeeeeeeeeeeeeeeull);
		put64(p + 20, 0);
		return EMU_ATOMIC_ETH_BYTES;
	case EMU_BOP_ACK:
	case EMU_BOP_READ_RESP_FIRST:
	case EMU_BOP_READ_RESP_LAST:
	case EMU_BOP_READ_RESP_ONLY:
		put32(p, 0x1f000000u | 0x00ffffffu);	/* ACK, credits, MSN */
		return EMU_AETH_BYTES;
	case EMU_BOP_ATOMIC_ACK:
		put32(p, 0x1f00ffffu);
		put64(p + 4, 0xeeeeeeeeeeeeeeeeull);
		return EMU_AETH_BYTES + EMU_ATOMIC_ACK_ETH_BYTES;
	default:
		return 0;
	}
}

static bool has_payload(uint8_t bop)
{
	return bop <= EMU_BOP_WRITE_ONLY_IMM || (bop >= EMU_BOP_READ_RESP_FIRST &&
						 bop <= EMU_BOP_READ_RESP_ONLY);
}

/* One packet: BTH, [XRCETH], extended headers, payload, ICRC. */
static size_t build(uint8_t *pkt, uint8_t opcode, uint32_t qpn, uint32_t psn,
		    const struct target *t, uint32_t src, uint16_t sport)
{
	uint8_t bop = opcode & 0x1f, ipudp[28];
	bool response = bop >= EMU_BOP_READ_RESP_FIRST && bop <= EMU_BOP_ATOMIC_ACK;
	size_t n = EMU_BTH_BYTES, plen = has_payload(bop) ? PAYLOAD : 0;
	uint32_t crc;

	memset(pkt, 0, PKT_MAX);
	pkt[0] = opcode;
	pkt[1] = 0x40;			/* MigReq, pad 0, version 0 */
	pkt[2] = pkt[3] = 0xff;		/* P_Key 0xffff */
	put32(pkt + 4, qpn & 0xffffff);
	put32(pkt + 8, 0x80000000u | (psn & 0xffffff));	/* AckReq */
	if ((opcode & 0xe0) == EMU_TR_XRC && !response) {
		put32(pkt + n, 1);	/* an SRQ number guessed */
		n += EMU_XRCETH_BYTES;
	}
	n += ext_headers(bop, t, pkt + n);
	memset(pkt + n, 0xee, plen);
	n += plen;
	emu_ipv4_udp_header(ipudp, src, t->addr, sport, EMU_ROCE_UDP_PORT,
			    (uint16_t)(8 + n + 4));
	crc = emu_icrc_begin(ipudp, pkt);
	crc = emu_icrc_update(crc, pkt + EMU_BTH_BYTES, n - EMU_BTH_BYTES);
	emu_icrc_final(crc, pkt + n);
	return n + 4;
}

static const uint8_t request_ops[] = {
	EMU_BOP_WRITE_ONLY, EMU_BOP_WRITE_FIRST, EMU_BOP_WRITE_MIDDLE, EMU_BOP_WRITE_LAST,
	EMU_BOP_READ_REQUEST, EMU_BOP_CMP_SWAP, EMU_BOP_FETCH_ADD, EMU_BOP_SEND_ONLY,
	EMU_BOP_SEND_FIRST, EMU_BOP_SEND_MIDDLE,
};
static const uint8_t response_ops[] = {
	EMU_BOP_ACK, EMU_BOP_READ_RESP_ONLY, EMU_BOP_READ_RESP_FIRST, EMU_BOP_ATOMIC_ACK,
};
static const uint8_t transports[] = { EMU_TR_RC, EMU_TR_UC, EMU_TR_XRC };

static void send_one(int fd, struct target *t, const uint8_t *pkt, size_t len,
		     uint64_t *sent)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(EMU_ROCE_UDP_PORT),
				  .sin_addr.s_addr = htonl(t->addr) };

	if (sendto(fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)) == (ssize_t)len)
		(*sent)++;
	/* a full socket buffer: let the kernel move them on */
	else if (errno == EAGAIN || errno == ENOBUFS)
		usleep(100);
}

/* One sweep over the window around the target's live PSNs. */
static void sweep(int fd, uint32_t src, uint16_t sport, struct target *t, uint64_t *budget)
{
	static const int32_t qpn_delta[] = { 0, 1, -1 };
	uint8_t pkt[PKT_MAX];
	uint32_t moved = progress(t);
	uint64_t *sent = sport == EMU_ROCE_UDP_PORT ? &t->sent : &t->sent_other;

	for (int32_t d = -PSN_BEFORE; d <= PSN_AFTER && *budget; d++) {
		for (unsigned q = 0; q < sizeof(qpn_delta) / sizeof(qpn_delta[0]); q++) {
			uint32_t qpn = (uint32_t)((int32_t)t->qpn + qpn_delta[q]);

			for (unsigned tr = 0; tr < sizeof(transports); tr++) {
				for (unsigned o = 0; o < sizeof(request_ops); o++) {
					uint32_t psn = t->rq_psn + moved + (uint32_t)d;

					send_one(fd, t, pkt, build(pkt, transports[tr] | request_ops[o],
							 qpn, psn, t, src, sport), sent);
				}
				for (unsigned o = 0; o < sizeof(response_ops); o++) {
					uint32_t psn = t->sq_psn + moved + (uint32_t)d;

					send_one(fd, t, pkt, build(pkt, transports[tr] | response_ops[o],
							 qpn, psn, t, src, sport), sent);
				}
			}
			*budget = *budget > 42 ? *budget - 42 : 0;
		}
		usleep(200);	/* paced: the victim's engine reads, not drowns */
	}
}

static unsigned drain(const int *fds, unsigned nfds, int ms)
{
	unsigned got = 0;
	double end = now_s() + ms / 1000.0;

	while (now_s() < end) {
		struct pollfd p[2];
		uint8_t buf[9000];

		for (unsigned i = 0; i < nfds; i++)
			p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (poll(p, nfds, 50) <= 0)
			continue;
		for (unsigned i = 0; i < nfds; i++)
			while (p[i].revents & POLLIN &&
			       recv(fds[i], buf, sizeof(buf), MSG_DONTWAIT) >= 0)
				got++;
	}
	return got;
}

/*
 * The flood: well-formed requests to every target, guessed QPNs and
 * PSNs, in batches of FLOOD_BATCH at FLOOD_PPS packets a second (twice
 * the rate that made a connection fail when every datagram reached the
 * device; at full speed the sender would mostly compete for the CPU),
 * until DIR/stop appears, FLOOD_SECONDS pass or FLOOD_MAX were sent.
 * RESULT's directory gets "flooding" once it runs.
 */
#define FLOOD_BATCH 64
#define FLOOD_POOL 4096	/* a multiple of FLOOD_BATCH */
#define FLOOD_PPS 120000.0
#define FLOOD_SECONDS 60.0
#define FLOOD_MAX 20000000ull

static void flood(int fd, uint32_t src, const char *dir, const char *result_dir)
{
	/* built once: the flood's cost is the sending, not the ICRC */
	static uint8_t pool[FLOOD_POOL][PKT_MAX];
	static size_t pool_len[FLOOD_POOL];
	static struct sockaddr_in pool_to[FLOOD_POOL];
	static unsigned pool_target[FLOOD_POOL];
	struct mmsghdr m[FLOOD_BATCH];
	struct iovec v[FLOOD_BATCH];
	char stop[1100], started[1100];
	double t0, end;
	uint64_t total = 0;
	uint32_t x = 1;
	FILE *f;

	for (unsigned i = 0; i < FLOOD_POOL; i++) {
		unsigned k = i % ntargets;
		struct target *t = &targets[k];

		x = x * 1103515245u + 12345u;
		pool_len[i] = build(pool[i], EMU_TR_RC | request_ops[x % sizeof(request_ops)],
				    t->qpn + (x >> 8) % 64, x >> 4, t, src, EMU_ROCE_UDP_PORT);
		pool_to[i] = (struct sockaddr_in){ .sin_family = AF_INET,
						   .sin_port = htons(EMU_ROCE_UDP_PORT),
						   .sin_addr.s_addr = htonl(t->addr) };
		pool_target[i] = k;
	}
	snprintf(stop, sizeof(stop), "%s/stop", dir);
	snprintf(started, sizeof(started), "%s/flooding", result_dir);
	f = fopen(started, "w");
	if (f)
		fclose(f);
	t0 = now_s();
	end = t0 + FLOOD_SECONDS;
	for (unsigned it = 0; total < FLOOD_MAX; it++) {
		double due = t0 + (double)total / FLOOD_PPS;
		unsigned first = (it * FLOOD_BATCH) % FLOOD_POOL;
		int n;

		if (!(it & 63) && (now_s() > end || !access(stop, F_OK)))
			break;
		while (now_s() < due)
			usleep(200);
		for (unsigned i = 0; i < FLOOD_BATCH; i++) {
			unsigned j = first + i;

			v[i] = (struct iovec){ pool[j], pool_len[j] };
			m[i].msg_hdr = (struct msghdr){ .msg_name = &pool_to[j],
							.msg_namelen = sizeof(pool_to[j]),
							.msg_iov = &v[i], .msg_iovlen = 1 };
		}
		n = sendmmsg(fd, m, FLOOD_BATCH, 0);
		for (int i = 0; i < n; i++)
			targets[pool_target[first + (unsigned)i]].sent++;
		if (n > 0)
			total += (uint64_t)n;
	}
}

int main(int argc, char **argv)
{
	uint32_t own = 0;
	int fds[2];
	unsigned impersonated = 0, received;
	struct sockaddr_in eph;
	socklen_t len = sizeof(eph);
	double end;
	FILE *out;
	char tmp[1024];

	bool flooding = argc == 4 && !strcmp(argv[1], "--flood");

	if (flooding) {
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: forger [--flood] RESULT DIR\n");
		return 1;
	}
	if (load_targets(argv[2])) {
		fprintf(stderr, "forger: no target in %s\n", argv[2]);
		return 1;
	}
	for (unsigned i = 0; i < ntargets; i++) {
		int fd = udp_socket(targets[i].addr, EMU_ROCE_UDP_PORT);

		if (fd >= 0) {
			fprintf(stderr, "forger: bound the victim's own address\n");
			impersonated++;
			close(fd);
		}
	}
	fds[0] = own_roce_socket(&own);
	fds[1] = udp_socket(own, 0);
	if (fds[0] < 0 || fds[1] < 0 || getsockname(fds[1], (struct sockaddr *)&eph, &len)) {
		fprintf(stderr, "forger: no socket of its own: %s\n", strerror(errno));
		return 1;
	}
	end = now_s() + MAX_SECONDS;
	if (flooding) {
		char result_dir[1024];
		char *slash;

		snprintf(result_dir, sizeof(result_dir), "%s", argv[1]);
		slash = strrchr(result_dir, '/');
		if (slash)
			*slash = '\0';
		flood(fds[0], own, argv[2], slash ? result_dir : ".");
	}
	for (unsigned i = 0; i < ntargets && !flooding; i++) {
		uint64_t budget = BUDGET_PER_TARGET;

		while (budget && now_s() < end) {
			sweep(fds[0], own, EMU_ROCE_UDP_PORT, &targets[i], &budget);
			/* the same from a port that is not 4791 */
			sweep(fds[1], own, ntohs(eph.sin_port), &targets[i], &budget);
		}
	}
	received = drain(fds, 2, 1000);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	out = fopen(tmp, "w");
	if (!out)
		return 1;
	for (unsigned i = 0; i < ntargets; i++) {
		struct in_addr a = { htonl(targets[i].addr) };

		fprintf(out, "sent %s %llu %llu\n", inet_ntoa(a),
			(unsigned long long)targets[i].sent,
			(unsigned long long)targets[i].sent_other);
	}
	fprintf(out, "received %u\nimpersonated %u\n", received, impersonated);
	fclose(out);
	/* the victims wait for RESULT: it appears whole */
	return rename(tmp, argv[1]) ? 1 : 0;
}
