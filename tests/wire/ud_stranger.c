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
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ud_forge.h"
#include "ud_target.h"

#define QKEY 0x11223344u
#define RECV_WQES 4
#define FITS 64		/* payload bytes of the datagram that fits */
#define TOO_LONG 512	/* longer than a WQE's FITS + 40-byte GRH area */
#define WQE_BYTES (40 + FITS)

static uint8_t pattern(unsigned i)
{
	return (uint8_t)(0x5a ^ (i * 7));
}

/* The child: nobody, from a free 127.0.250.x:4791, both datagrams
 * (system calls only: the parent has the device's threads). */
static int stranger(uint32_t dst, uint32_t dqpn)
{
	static uint8_t payload[TOO_LONG], pkt[TOO_LONG + 64];
	struct ud_forge_pkt f = { .dst = dst, .dest_qpn = dqpn, .psn = 1, .qkey = QKEY,
				  /* a source QPN of the stranger's choosing */
				  .src_qpn = 0x000bad, .payload = payload, .len = TOO_LONG };
	int fd;

	fd = ud_forge_socket(FORGE_ROCE_PORT, &f.src);
	if (fd < 0)
		return 1;
	for (unsigned i = 0; i < TOO_LONG; i++)
		payload[i] = pattern(i);
	if (ud_forge_send(fd, dst, FORGE_ROCE_PORT, pkt, ud_forge_send_only(pkt, &f)))
		return 1;
	/* the second only after the first had time to land: UD keeps no order
	 * promise across a loaded host's scheduler, the CQE order is checked */
	usleep(200000);
	f.psn = 2;
	f.len = FITS;
	return ud_forge_send(fd, dst, FORGE_ROCE_PORT, pkt, ud_forge_send_only(pkt, &f)) ? 1 : 0;
}

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); return 1; } while (0)

int main(void)
{
	static uint8_t buf[RECV_WQES][WQE_BYTES];
	struct ud_target t;
	struct ibv_wc wc;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ud_target_open(&t, buf, WQE_BYTES, RECV_WQES, QKEY))
		return 1;
	printf("UD QPN 0x%x at %s, %u receive WQEs of %u bytes\n", t.qp->qp_num,
	       inet_ntoa((struct in_addr){ htonl(t.addr) }), RECV_WQES, WQE_BYTES);
	status = ud_target_run_sender(&t, stranger, true);
	if (status == 77) {
		printf("SKIP: cannot become nobody (needs root)\n");
		return 77;
	}
	if (status < 0)
		FAIL("the stranger did not finish");
	if (status)
		FAIL("the stranger could not send");

	if (!vx_cq_wait(t.cq, &wc, 30000))
		FAIL("no completion for the %u-byte datagram within 30 s", TOO_LONG);
	if (wc.wr_id != 0 || wc.status != IBV_WC_LOC_LEN_ERR)
		FAIL("the %u-byte datagram: WQE %llu, status %s (want WQE 0, local length "
		     "error)", TOO_LONG, (unsigned long long)wc.wr_id,
		     ibv_wc_status_str(wc.status));
	printf("the %u-byte datagram: WQE 0 completed with %s\n", TOO_LONG,
	       ibv_wc_status_str(wc.status));
	if (!vx_cq_wait(t.cq, &wc, 30000))
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
	if (!ud_target_in_rts(&t))
		FAIL("the UD QP left RTS");
	printf("the %u-byte datagram: WQE 1, %u bytes, equal; the QP is in RTS\n", FITS,
	       wc.byte_len);
	if (ud_target_close(&t))
		FAIL("destroy");
	printf("PASS: a stranger's oversize UD datagram costs one WQE, not the QP\n");
	return 0;
}
