// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair -m rnr: RNR NAKs until a receive is posted (see rc_pair.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"

void rnr_client(struct side *s, int fd, int rnr_retry)
{
	struct ibv_wc wc;
	int n;

	pair_sync_byte(fd, 'r');
	post(s, 1, IBV_WR_SEND, RECV_OFF, 100, 0, 0, 0, 0);
	n = poll_n(s, &wc, 1, 10);
	CHECK(n == 1, "no completion");
	if (rnr_retry)
		CHECK(n < 1 || wc.status == IBV_WC_SUCCESS, "RNR, then a receive: %s",
		      ibv_wc_status_str(wc.status));
	else
		CHECK(n < 1 || wc.status == IBV_WC_RNR_RETRY_EXC_ERR, "rnr_retry 0: %s",
		      ibv_wc_status_str(wc.status));
	pair_sync_byte(fd, 'c');
}

void rnr_server(struct side *s, int fd, int rnr_retry)
{
	struct ibv_wc wc;
	int n;

	pair_sync_byte(fd, 'r');
	usleep(200000);		/* the SEND meets no receive WQE meanwhile */
	post_recv(s, RECV_OFF, 4096, 7);
	if (rnr_retry) {
		n = poll_n(s, &wc, 1, 10);
		CHECK(n == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 100,
		      "receive after RNR: %d %s", n, n ? ibv_wc_status_str(wc.status) : "");
	}
	pair_sync_byte(fd, 'c');
}
