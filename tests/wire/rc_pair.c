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
 * -P sets the first PSN of this side's send queue (default one of its
 * process ID), e.g. 0xfffff0 to cross the 24-bit wrap early.
 *
 * -T and -R set the QPs' timeout and retry_cnt (default 14 and 3: 67 ms
 * and RETRY_EXC_ERR after 4 timeouts; -m faults: 16 and 7).
 *
 * Exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exchange.h"
#include "rc_pair.h"

int main(int argc, char **argv)
{
	const char *mode = "ops", *host = NULL;
	int port = EX_DEFAULT_TCP_PORT, gidx = -1, rnr_retry = 7, opt, fd;
	struct fault_run fr = { "wsirfc", 300 };
	struct side s = { 0 };
	struct ex_exchange x;

	int timeout = -1, retry_cnt = -1;
	long first_psn = -1;

	while ((opt = getopt(argc, argv, "p:g:m:r:n:o:T:R:P:")) != -1) {
		switch (opt) {
		case 'p': port = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 'm': mode = optarg; break;
		case 'r': rnr_retry = atoi(optarg); break;
		case 'n': fr.iters = (unsigned)atoi(optarg); break;
		case 'o': fr.mix = optarg; break;
		case 'T': timeout = atoi(optarg); break;
		case 'R': retry_cnt = atoi(optarg); break;
		case 'P': first_psn = strtol(optarg, NULL, 0) & 0xffffff; break;
		default: DIE("usage: rc_pair [-m ops|absent|access|rnr|faults|sges|unmapped|unmapped_read|read_write] [-r rnr_retry] "
			     "[-n count] [-o wsirfc] [-T timeout] [-R retry_cnt] [-P psn] [-g gid] "
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
	if (first_psn >= 0)
		s.me.psn = (uint32_t)first_psn;
	if (!strcmp(mode, "absent")) {
		s.peer.lid = 0xbfff;
		s.peer.qpn = 0xabcdef;
		connect_qp(&s, (uint8_t)rnr_retry);
		absent_peer(&s);
		close_side(&s);
		printf("absent: %d failure(s)\n", pair_failures);
		return pair_failures ? 1 : 0;
	}
	if (ex_exchange_open(&x, host, (uint16_t)port))
		DIE("no exchange with the peer");
	fd = x.fd;
	pair_send(fd, &s.me, sizeof(s.me));
	pair_recv(fd, &s.peer, sizeof(s.peer));
	connect_qp(&s, (uint8_t)rnr_retry);
	/* what a capture of the run must show (wire.pcap.rc) */
	printf("rc_pair: local QPN 0x%06x PSN 0x%06x rkey 0x%08x addr 0x%016llx, "
	       "remote QPN 0x%06x PSN 0x%06x rkey 0x%08x addr 0x%016llx, timeout %u retry_cnt %u\n",
	       s.me.qpn, s.me.psn, s.me.rkey, (unsigned long long)s.me.addr, s.peer.qpn,
	       s.peer.psn, s.peer.rkey, (unsigned long long)s.peer.addr, qp_timeout, qp_retry_cnt);
	fflush(stdout);
	if (!strcmp(mode, "ops")) {
		if (host) {
			pair_sync_byte(fd, 'r');
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
		ex_exchange_close(&x);
	close_side(&s);
	printf("%s %s: %d failure(s)\n", host ? "client" : "server", mode, pair_failures);
	return pair_failures ? 1 : 0;
}

