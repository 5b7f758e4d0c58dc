// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A local stranger against the datagram credits of the port of a root UD
 * QP (run under mlx4emu-run as root; emu/README.md, "Datagram credits"):
 * a child that became nobody sends, from UDP 4791 of an address of its
 * own,
 *   1. a credit packet too short to be one (8 bytes after the BTH),
 *   2. a credit packet of an unknown kind (24 bytes, kind 7),
 *   3. a credit request of its own session claiming 2^62 bytes sent,
 *   4. a UD datagram that fits a receive WQE of the QP.
 * The first two must be refused (wire_packets_refused grows by two) and
 * never answered; the request must be answered once, to the stranger's
 * own address, with an update of its session that counts the 2^62
 * bytes read and grants a share no larger than the pool of the port's
 * receive buffer (half of it: min(4 MiB, net.core.rmem_max)); the QP must
 * take the datagram byte for byte and stay in RTS.  A stranger's credits
 * touch only its own count.
 * Exit 0 (PASS), 1 (FAIL), 77 when the caller cannot become nobody.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <grp.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "ud_forge.h"
#include "verbs_env.h"

#define QKEY 0x11223344u
#define FITS 64
#define WQE_BYTES (40 + FITS)
#define SESSION 0x5eed0001u
#define CLAIMED (1ull << 62)
#define REQUEST 1
#define UPDATE 2

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* The pool the port shares: half its receive buffer, which the kernel
 * sets to twice the 4 MiB asked, capped by net.core.rmem_max. */
static uint64_t pool_bytes(void)
{
	unsigned long long rmem_max = 4ull << 20;
	FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");

	if (f) {
		if (fscanf(f, "%llu", &rmem_max) != 1)
			rmem_max = 4ull << 20;
		fclose(f);
	}
	return rmem_max < (4ull << 20) ? rmem_max : 4ull << 20;
}

/* Everything that comes back within ms: 1 when it is exactly the one
 * update expected, 0 otherwise (printed). */
static int one_update_back(int fd, unsigned ms)
{
	uint8_t pkt[256];
	unsigned packets = 0, updates = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (poll(&p, 1, (int)ms) == 1) {
		ssize_t n = recv(fd, pkt, sizeof(pkt), 0);
		const uint8_t *c = pkt + 12;

		if (n < 0)
			break;
		packets++;
		if (n != 12 + 24 + 4 || pkt[0] != 0xc0 || c[0] != UPDATE) {
			printf("stranger: got back %zd bytes, opcode 0x%02x: not an update\n", n,
			       pkt[0]);
			continue;
		}
		printf("stranger: update back: session 0x%08x, read %llu, share %llu bytes\n",
		       get_be32(c + 4), (unsigned long long)get_be64(c + 8),
		       (unsigned long long)get_be64(c + 16));
		if (get_be32(c + 4) == SESSION && get_be64(c + 8) == CLAIMED &&
		    get_be64(c + 16) > 0 && get_be64(c + 16) <= pool_bytes())
			updates++;
		/* after the first, only a short wait for any other */
		ms = 500;
	}
	printf("stranger: %u packets back, %u the update expected\n", packets, updates);
	return packets == 1 && updates == 1;
}

/* The child: nobody, from a free 127.0.250.x:4791 (system calls and
 * stdio only: the parent has the device's threads). */
static int stranger(uid_t uid, gid_t gid, uint32_t dst, uint32_t dqpn)
{
	static uint8_t payload[FITS], pkt[FITS + 64], credit[24];
	struct ud_forge_pkt f = { .dst = dst, .dest_qpn = dqpn, .psn = 1, .qkey = QKEY,
				  .src_qpn = 0x000bad, .payload = payload, .len = FITS };
	int fd;

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid) ||
	    !getuid())
		return 77;
	fd = ud_forge_socket(FORGE_ROCE_PORT, &f.src);
	if (fd < 0)
		return 1;
	credit[0] = REQUEST;
	if (ud_forge_send(fd, dst, FORGE_ROCE_PORT, pkt, ud_forge_credit(pkt, f.src, dst, credit, 8)))
		return 1;
	credit[0] = 7;
	if (ud_forge_send(fd, dst, FORGE_ROCE_PORT, pkt, ud_forge_credit(pkt, f.src, dst, credit, 24)))
		return 1;
	credit[0] = REQUEST;
	put_be32(credit + 4, SESSION);
	put_be32(credit + 8, (uint32_t)(CLAIMED >> 32));
	if (ud_forge_send(fd, dst, FORGE_ROCE_PORT, pkt, ud_forge_credit(pkt, f.src, dst, credit, 24)))
		return 1;
	if (!one_update_back(fd, 5000))
		return 2;
	for (unsigned i = 0; i < FITS; i++)
		payload[i] = (uint8_t)(0xa5 ^ i);
	return ud_forge_send(fd, dst, FORGE_ROCE_PORT, pkt, ud_forge_send_only(pkt, &f)) ? 1 : 0;
}

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); return 1; } while (0)

int main(void)
{
	static uint8_t buf[WQE_BYTES];
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = list && list[0] ? ibv_open_device(list[0]) : NULL;
	struct ibv_qp_init_attr init = { .qp_type = IBV_QPT_UD,
					 .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						  .max_send_sge = 1, .max_recv_sge = 1 } };
	struct mlx4emu_counters before, after;
	struct ibv_qp_init_attr got_init;
	struct mlx4emu_ctl ctl;
	struct vx_qp_attrs ud;
	struct ibv_qp_attr a;
	struct passwd *pw;
	struct ibv_wc wc;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t addr;
	int status;
	pid_t child;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!ctx || vx_port_ipv4(ctx, 1, &addr) || mlx4emu_ctl_load(&ctl))
		FAIL("no software device");
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	cq = mr ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	init.send_cq = init.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &init) : NULL;
	vx_qp_attrs_default(&ud, 1);
	ud.qkey = QKEY;
	if (!qp || vx_qp_to_rts(qp, &ud))
		FAIL("UD QP in RTS");
	if (vx_post_recv_slots(qp, buf, WQE_BYTES, 1, mr->lkey))
		FAIL("post a receive");
	pw = getpwnam("nobody");
	if (!pw || geteuid()) {
		printf("SKIP: cannot become nobody (needs root)\n");
		return 77;
	}
	ctl.get_counters(&before);
	child = fork();
	if (child < 0)
		FAIL("fork");
	if (!child)
		_exit(stranger(pw->pw_uid, pw->pw_gid, addr, qp->qp_num));
	status = vx_child_exit_status(child);
	if (status == 77) {
		printf("SKIP: cannot become nobody (needs root)\n");
		return 77;
	}
	if (status)
		FAIL("the stranger %s", status == 2 ? "did not get exactly the one update back" :
						      "could not send");
	if (!vx_cq_wait(cq, &wc, 30000))
		FAIL("no completion for the datagram within 30 s");
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != WQE_BYTES || wc.src_qp != 0x000bad)
		FAIL("the datagram: status %s, %u bytes, source QPN 0x%x",
		     ibv_wc_status_str(wc.status), wc.byte_len, wc.src_qp);
	for (unsigned i = 0; i < FITS; i++)
		if (buf[40 + i] != (uint8_t)(0xa5 ^ i))
			FAIL("byte %u of the datagram differs", i);
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &got_init) || a.qp_state != IBV_QPS_RTS)
		FAIL("the UD QP is in state %d, not RTS", a.qp_state);
	ctl.wait_idle(1000);
	ctl.get_counters(&after);
	printf("wire_packets_refused +%llu, wire_credit_packets_received +%llu, "
	       "wire_credit_packets_sent +%llu, wire_packets_received +%llu\n",
	       (unsigned long long)(after.wire_packets_refused - before.wire_packets_refused),
	       (unsigned long long)(after.wire_credit_packets_received -
				    before.wire_credit_packets_received),
	       (unsigned long long)(after.wire_credit_packets_sent - before.wire_credit_packets_sent),
	       (unsigned long long)(after.wire_packets_received - before.wire_packets_received));
	if (after.wire_packets_refused - before.wire_packets_refused != 2 ||
	    after.wire_credit_packets_received - before.wire_credit_packets_received != 3 ||
	    after.wire_credit_packets_sent - before.wire_credit_packets_sent != 1 ||
	    after.wire_packets_received - before.wire_packets_received != 1)
		FAIL("counters: want 2 refused, 3 credit packets received, 1 sent, 1 datagram");
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("PASS: a stranger's credit packets are refused or answered to it alone\n");
	return 0;
}
