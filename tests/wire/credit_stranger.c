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
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "ud_forge.h"
#include "ud_target.h"
#include "wire/roce.h"

#define QKEY 0x11223344u
#define FITS 64
#define WQE_BYTES (40 + FITS)
#define SESSION 0x5eed0001u
#define CLAIMED (1ull << 62)
#define REQUEST 1
#define UPDATE 2

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
		       emu_get_be32(c + 4), (unsigned long long)emu_get_be64(c + 8),
		       (unsigned long long)emu_get_be64(c + 16));
		if (emu_get_be32(c + 4) == SESSION && emu_get_be64(c + 8) == CLAIMED &&
		    emu_get_be64(c + 16) > 0 && emu_get_be64(c + 16) <= pool_bytes())
			updates++;
		/* after the first, only a short wait for any other */
		ms = 500;
	}
	printf("stranger: %u packets back, %u the update expected\n", packets, updates);
	return packets == 1 && updates == 1;
}

/* The child: nobody, from a free 127.0.250.x:4791 (system calls and
 * stdio only: the parent has the device's threads). */
static int stranger(uint32_t dst, uint32_t dqpn)
{
	static uint8_t payload[FITS], pkt[FITS + 64], credit[24];
	struct ud_forge_pkt f = { .dst = dst, .dest_qpn = dqpn, .psn = 1, .qkey = QKEY,
				  .src_qpn = 0x000bad, .payload = payload, .len = FITS };
	int fd;

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
	emu_put_be32(credit + 4, SESSION);
	emu_put_be32(credit + 8, (uint32_t)(CLAIMED >> 32));
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
	struct mlx4emu_counters before, after;
	struct mlx4emu_ctl ctl;
	struct ud_target t;
	struct ibv_wc wc;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mlx4emu_ctl_load(&ctl))
		FAIL("no software device");
	if (ud_target_open(&t, buf, WQE_BYTES, 1, QKEY))
		return 1;
	ctl.get_counters(&before);
	status = ud_target_run_sender(&t, stranger, true);
	if (status == 77) {
		printf("SKIP: cannot become nobody (needs root)\n");
		return 77;
	}
	if (status)
		FAIL("the stranger %s", status == 2 ? "did not get exactly the one update back" :
						      "could not send");
	if (!vx_cq_wait(t.cq, &wc, 30000))
		FAIL("no completion for the datagram within 30 s");
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != WQE_BYTES || wc.src_qp != 0x000bad)
		FAIL("the datagram: status %s, %u bytes, source QPN 0x%x",
		     ibv_wc_status_str(wc.status), wc.byte_len, wc.src_qp);
	for (unsigned i = 0; i < FITS; i++)
		if (buf[40 + i] != (uint8_t)(0xa5 ^ i))
			FAIL("byte %u of the datagram differs", i);
	if (!ud_target_in_rts(&t))
		FAIL("the UD QP left RTS");
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
	if (ud_target_close(&t))
		FAIL("destroy");
	printf("PASS: a stranger's credit packets are refused or answered to it alone\n");
	return 0;
}
