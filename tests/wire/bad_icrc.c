// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * bad_icrc: a RoCEv2 packet whose ICRC does not match its bytes is
 * dropped by the receiving adapter and counted, never delivered (run
 * under mlx4emu-run).  A UD QP in RTS with receive WQEs posted; a child
 * sends it, from UDP 4791 of an address of its own, a UD SEND ONLY with
 * the right Q_Key and one bit of its ICRC flipped, then 200 ms later the
 * same datagram with other bytes and a good ICRC.  The first receive WQE
 * must complete with the second datagram, nothing else may complete,
 * and the adapter's wire_packets_bad_icrc (mlx4emu_get_counters()) must
 * have grown by exactly one, wire_packets_received by one.
 * Exit 0 (PASS), 1 (FAIL), 77 when the emulator is not loaded.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "test_exit.h"
#include "ud_forge.h"
#include "ud_target.h"

#define RECV_WQES 4
#define BYTES 64
#define GRH 40
#define SLOT (GRH + BYTES)
#define SRC_QPN 0x00c0de

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); return T_EXIT_FAIL; } \
	while (0)

static uint8_t pattern(unsigned i, unsigned seed)
{
	return (uint8_t)(seed ^ (i * 7));
}

/* The child: the datagram with a bad ICRC (payload seed 1), then the
 * good one (seed 2), system calls only. */
static int sender(uint32_t dst, uint32_t dqpn)
{
	static uint8_t payload[BYTES], pkt[BYTES + 64];
	struct ud_forge_pkt f = { .dst = dst, .dest_qpn = dqpn, .psn = 1, .qkey = VX_QKEY,
				  .src_qpn = SRC_QPN, .payload = payload, .len = BYTES };
	size_t n;
	int fd = ud_forge_socket(FORGE_ROCE_PORT, &f.src);

	if (fd < 0)
		return 1;
	for (unsigned i = 0; i < BYTES; i++)
		payload[i] = pattern(i, 1);
	n = ud_forge_send_only(pkt, &f);
	pkt[n - 1] ^= 0x01;
	if (ud_forge_send(fd, dst, FORGE_ROCE_PORT, pkt, n))
		return 1;
	usleep(200000);
	for (unsigned i = 0; i < BYTES; i++)
		payload[i] = pattern(i, 2);
	f.psn = 2;
	return ud_forge_send(fd, dst, FORGE_ROCE_PORT, pkt, ud_forge_send_only(pkt, &f)) ? 1 : 0;
}

int main(void)
{
	static uint8_t buf[RECV_WQES][SLOT];
	struct mlx4emu_counters before, after;
	struct mlx4emu_ctl ctl;
	struct ud_target t;
	struct ibv_wc wc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mlx4emu_ctl_load(&ctl)) {
		printf("SKIP: the emulator is not loaded\n");
		return T_EXIT_SKIP;
	}
	if (ud_target_open(&t, buf, SLOT, RECV_WQES, VX_QKEY))
		return T_EXIT_FAIL;
	if (ctl.get_counters(&before))
		FAIL("counters");
	if (ud_target_run_sender(&t, sender, false))
		FAIL("the sender could not send");

	if (!vx_cq_wait(t.cq, &wc, 30000))
		FAIL("no completion within 30 s for the datagram with a good ICRC");
	if (wc.wr_id != 0 || wc.status != IBV_WC_SUCCESS || wc.byte_len != SLOT ||
	    wc.src_qp != SRC_QPN)
		FAIL("the first completion: WQE %llu, status %s, %u bytes, source QPN 0x%x (want "
		     "WQE 0, success, %u bytes, 0x%x)", (unsigned long long)wc.wr_id,
		     ibv_wc_status_str(wc.status), wc.byte_len, wc.src_qp, SLOT, SRC_QPN);
	for (unsigned i = 0; i < BYTES; i++)
		if (buf[0][GRH + i] != pattern(i, 2))
			FAIL("byte %u of WQE 0: 0x%02x, the good datagram's is 0x%02x (the bad "
			     "one's 0x%02x)", i, buf[0][GRH + i], pattern(i, 2), pattern(i, 1));
	if (vx_cq_wait(t.cq, &wc, 200))
		FAIL("a second completion (WQE %llu, %s): the datagram with the bad ICRC was "
		     "delivered", (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	if (ctl.get_counters(&after))
		FAIL("counters");
	printf("wire_packets_bad_icrc %llu -> %llu, wire_packets_received %llu -> %llu\n",
	       (unsigned long long)before.wire_packets_bad_icrc,
	       (unsigned long long)after.wire_packets_bad_icrc,
	       (unsigned long long)before.wire_packets_received,
	       (unsigned long long)after.wire_packets_received);
	if (after.wire_packets_bad_icrc - before.wire_packets_bad_icrc != 1)
		FAIL("wire_packets_bad_icrc grew by %llu, not 1",
		     (unsigned long long)(after.wire_packets_bad_icrc -
					  before.wire_packets_bad_icrc));
	if (after.wire_packets_received - before.wire_packets_received != 1)
		FAIL("wire_packets_received grew by %llu, not 1",
		     (unsigned long long)(after.wire_packets_received -
					  before.wire_packets_received));
	if (ud_target_close(&t))
		FAIL("destroy");
	printf("PASS: a packet with a bad ICRC is dropped, counted once, never delivered\n");
	return T_EXIT_PASS;
}
