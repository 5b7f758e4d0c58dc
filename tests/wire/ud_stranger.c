// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A local stranger against a UD QP of root (run under mlx4emu-run as
 * root): a child that became nobody sends, from UDP 4791 of an address of
 * its own, one RoCEv2 UD SEND ONLY with the right Q_Key and ICRC whose
 * payload is longer than every receive WQE, then one that fits.  The QP
 * must complete the first WQE with IBV_WC_LOC_LEN_ERR, stay in RTS, and
 * take the second datagram into the next WQE byte for byte: a stranger
 * costs a UD QP receive WQEs, never the QP.
 * Exit 0 (PASS), 1 (FAIL), 77 when the caller cannot become nobody.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wire/icrc.h"
#include "wire/identity.h"
#include "wire/roce.h"
#include "verbs_env.h"

#define QKEY 0x11223344u
#define RECV_WQES 4
#define FITS 64		/* payload bytes of the datagram that fits */
#define TOO_LONG 512	/* longer than a WQE's FITS + 40-byte GRH area */
#define WQE_BYTES (40 + FITS)

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint8_t pattern(unsigned i)
{
	return (uint8_t)(0x5a ^ (i * 7));
}

/* BTH (UD SEND ONLY), DETH, payload, ICRC; returns the length. */
static size_t ud_send_only(uint8_t *pkt, uint32_t src, uint32_t dst, uint32_t dqpn,
			   uint32_t psn, size_t plen)
{
	size_t n = EMU_BTH_BYTES + EMU_DETH_BYTES;
	uint8_t ipudp[28];
	uint32_t crc;

	memset(pkt, 0, n);
	pkt[0] = EMU_TR_UD | EMU_BOP_SEND_ONLY;
	pkt[1] = 0x40;			/* MigReq, pad 0, version 0 */
	pkt[2] = pkt[3] = 0xff;		/* P_Key 0xffff */
	put32(pkt + 4, dqpn & 0xffffff);
	put32(pkt + 8, psn & 0xffffff);
	put32(pkt + 12, QKEY);
	put32(pkt + 16, 0x000bad);	/* a source QPN of the stranger's choosing */
	for (size_t i = 0; i < plen; i++)
		pkt[n + i] = pattern((unsigned)i);
	n += plen;
	emu_ipv4_udp_header(ipudp, src, dst, EMU_ROCE_UDP_PORT, EMU_ROCE_UDP_PORT,
			    (uint16_t)(8 + n + 4));
	crc = emu_icrc_begin(ipudp, pkt);
	crc = emu_icrc_update(crc, pkt + EMU_BTH_BYTES, n - EMU_BTH_BYTES);
	emu_icrc_final(crc, pkt + n);
	return n + 4;
}

/* The child: nobody, from a free 127.0.250.x:4791, both datagrams
 * (system calls only: the parent has the device's threads). */
static int stranger(uid_t uid, gid_t gid, uint32_t dst, uint32_t dqpn)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(EMU_ROCE_UDP_PORT),
				  .sin_addr.s_addr = htonl(dst) };
	static uint8_t pkt[TOO_LONG + 64];
	uint32_t src = 0;
	int fd = -1;
	size_t n;

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid) ||
	    !getuid())
		return 77;
	for (uint32_t x = 1; x < 255 && fd < 0; x++) {
		struct sockaddr_in me = { .sin_family = AF_INET,
					  .sin_port = htons(EMU_ROCE_UDP_PORT),
					  .sin_addr.s_addr = htonl(0x7f00fa00u | x) };

		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd >= 0 && bind(fd, (struct sockaddr *)&me, sizeof(me))) {
			close(fd);
			fd = -1;
		} else {
			src = 0x7f00fa00u | x;
		}
	}
	if (fd < 0)
		return 1;
	n = ud_send_only(pkt, src, dst, dqpn, 1, TOO_LONG);
	if (sendto(fd, pkt, n, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)n)
		return 1;
	/* the second only after the first had time to land: UD keeps no order
	 * promise across a loaded host's scheduler, the CQE order is checked */
	usleep(200000);
	n = ud_send_only(pkt, src, dst, dqpn, 2, FITS);
	if (sendto(fd, pkt, n, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)n)
		return 1;
	return 0;
}

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); return 1; } while (0)

static int wait_cqe(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int r = ibv_poll_cq(cq, 1, wc);

		if (r)
			return r;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 30)
			return 0;
		usleep(1000);
	}
}

int main(void)
{
	static uint8_t buf[RECV_WQES][WQE_BYTES];
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = list && list[0] ? ibv_open_device(list[0]) : NULL;
	struct ibv_qp_init_attr init = { .qp_type = IBV_QPT_UD,
					 .cap = { .max_send_wr = 1, .max_recv_wr = RECV_WQES,
						  .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_init_attr got_init;
	struct vx_qp_attrs ud;
	struct ibv_qp_attr a;
	struct ibv_port_attr port;
	struct passwd *pw;
	struct ibv_wc wc;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t addr;
	int status;
	pid_t child;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!ctx || ibv_query_port(ctx, 1, &port) ||
	    ibv_query_gid(ctx, 1, port.link_layer == IBV_LINK_LAYER_ETHERNET, &gid))
		FAIL("no device");
	addr = (uint32_t)gid.raw[12] << 24 | (uint32_t)gid.raw[13] << 16 |
	       (uint32_t)gid.raw[14] << 8 | gid.raw[15];
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	cq = mr ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	init.send_cq = init.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &init) : NULL;
	vx_qp_attrs_default(&ud, 1);
	ud.qkey = QKEY;
	if (!qp || vx_qp_to_rts(qp, &ud))
		FAIL("UD QP in RTS");
	for (unsigned i = 0; i < RECV_WQES; i++) {
		struct ibv_sge sge = { (uintptr_t)buf[i], WQE_BYTES, mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(qp, &wr, &bad))
			FAIL("post receive %u", i);
	}
	printf("UD QPN 0x%x at %s, %u receive WQEs of %u bytes\n", qp->qp_num,
	       inet_ntoa((struct in_addr){ htonl(addr) }), RECV_WQES, WQE_BYTES);
	fflush(stdout);
	pw = getpwnam("nobody");
	if (!pw || geteuid()) {
		printf("SKIP: cannot become nobody (needs root)\n");
		return 77;
	}
	child = fork();
	if (child < 0)
		FAIL("fork");
	if (!child)
		_exit(stranger(pw->pw_uid, pw->pw_gid, addr, qp->qp_num));
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		FAIL("the stranger did not finish");
	if (WEXITSTATUS(status) == 77) {
		printf("SKIP: cannot become nobody (needs root)\n");
		return 77;
	}
	if (WEXITSTATUS(status))
		FAIL("the stranger could not send");

	if (!wait_cqe(cq, &wc))
		FAIL("no completion for the %u-byte datagram within 30 s", TOO_LONG);
	if (wc.wr_id != 0 || wc.status != IBV_WC_LOC_LEN_ERR)
		FAIL("the %u-byte datagram: WQE %llu, status %s (want WQE 0, local length "
		     "error)", TOO_LONG, (unsigned long long)wc.wr_id,
		     ibv_wc_status_str(wc.status));
	printf("the %u-byte datagram: WQE 0 completed with %s\n", TOO_LONG,
	       ibv_wc_status_str(wc.status));
	if (!wait_cqe(cq, &wc))
		FAIL("no completion for the %u-byte datagram within 30 s", FITS);
	if (wc.wr_id != 1 || wc.status != IBV_WC_SUCCESS || wc.byte_len != 40 + FITS ||
	    wc.src_qp != 0x000bad)
		FAIL("the %u-byte datagram: WQE %llu, status %s, %u bytes, source QPN 0x%x "
		     "(want WQE 1, success, %u bytes, 0xbad): the QP stopped receiving",
		     FITS, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		     wc.byte_len, wc.src_qp, 40 + FITS);
	for (unsigned i = 0; i < FITS; i++)
		if (buf[1][40 + i] != pattern(i))
			FAIL("byte %u of the datagram that fits: 0x%02x, want 0x%02x", i,
			     buf[1][40 + i], pattern(i));
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &got_init) || a.qp_state != IBV_QPS_RTS)
		FAIL("the UD QP is in state %d, not RTS", a.qp_state);
	printf("the %u-byte datagram: WQE 1, %u bytes, equal; the QP is in RTS\n", FITS,
	       wc.byte_len);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("PASS: a stranger's oversize UD datagram costs one WQE, not the QP\n");
	return 0;
}
