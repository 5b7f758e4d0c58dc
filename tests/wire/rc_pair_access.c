// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair -m access: a WRITE with a wrong rkey (see rc_pair.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"

void access_client(struct side *s, int fd)
{
	struct ibv_wc wc[2];
	int n;

	pair_sync_byte(fd, 'r');
	post(s, 1, IBV_WR_RDMA_WRITE, WRITE_OFF, 64, WRITE_OFF, s->peer.rkey ^ 0x100, 0, 0);
	post(s, 2, IBV_WR_RDMA_WRITE, WRITE_OFF, 64, WRITE_OFF, s->peer.rkey, 0, 0);
	n = poll_n(s, wc, 2, 10);
	CHECK(n == 2, "%d of 2 completions", n);
	CHECK(n < 1 || (wc[0].wr_id == 1 && wc[0].status == IBV_WC_REM_ACCESS_ERR),
	      "bad rkey: %s", ibv_wc_status_str(wc[0].status));
	CHECK(n < 2 || (wc[1].wr_id == 2 && wc[1].status == IBV_WC_WR_FLUSH_ERR),
	      "after the error: %s", ibv_wc_status_str(wc[1].status));
	pair_sync_byte(fd, 'c');
}

void access_server(struct side *s, int fd)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	pair_sync_byte(fd, 'r');
	pair_sync_byte(fd, 'c');
	CHECK(ibv_query_qp(s->q.qp, &a, IBV_QP_STATE, &ia) == 0 && a.qp_state == IBV_QPS_ERR,
	      "responder QP in state %d after a remote access error", a.qp_state);
}
