// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair -m absent: a QP connected to no adapter (see rc_pair.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"

void absent_peer(struct side *s)
{
	struct ibv_wc wc[2];
	double t0 = now_s(), dt;
	int n;

	post(s, 1, IBV_WR_SEND, RECV_OFF, 16, 0, 0, 0, 0);
	post(s, 2, IBV_WR_RDMA_READ, READ_OFF, 16, 0, 0x1234, 0, 0);
	n = poll_n(s, wc, 2, 30);
	dt = now_s() - t0;
	CHECK(n == 2, "%d of 2 completions", n);
	CHECK(n < 1 || (wc[0].wr_id == 1 && wc[0].status == IBV_WC_RETRY_EXC_ERR),
	      "no peer: %s", ibv_wc_status_str(wc[0].status));
	CHECK(n < 2 || (wc[1].wr_id == 2 && wc[1].status == IBV_WC_WR_FLUSH_ERR),
	      "behind it: %s", ibv_wc_status_str(wc[1].status));
	CHECK(dt >= retry_exc_s() * 0.9 && dt < retry_exc_s() + 15, "RETRY_EXC_ERR after %.3f s",
	      dt);
	printf("no peer: RETRY_EXC_ERR after %.3f s (%.3f s expected)\n", dt, retry_exc_s());
}
