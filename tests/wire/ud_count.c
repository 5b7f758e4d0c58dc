// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ud_count: what a UD receiver gets from a sender in another process.
 * The server (-p PORT) posts -r receive WQEs, the client (HOST) sends -n
 * numbered datagrams of -s bytes (a 4-byte big-endian sequence number,
 * then a pattern of that number).  When the client says it is done, the
 * server waits until nothing has arrived for the linger time and prints
 *   ud_count: N sent, R received (U distinct, D duplicates, O out of order, C corrupt)
 * It exits 1 on a corrupt datagram (wrong length or bytes), an error CQE or
 * a failed verbs call, 0 otherwise: losing, duplicating and reordering is
 * what UD may do, and what the caller checks in the figures.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "device.h"
#include "endpoint.h"
#include "exchange.h"
#include "latency.h"
#include "options.h"

#define GRH_BYTES 40
#define SEND_WINDOW 32
#define LINGER_NS (300ull * 1000000ull)

static const struct ex_program program = {
	.name = "ud_count",
	.summary = "Counts the UD datagrams a server receives from a client.",
	.extras = EX_OPT_PEER | EX_OPT_RX_DEPTH,
	.default_size = 256,
	.min_size = 8,
	.max_size = 1024,
	.default_iters = 200,
	.default_rx_depth = 1024,
};

struct tally {
	unsigned received, distinct, duplicates, out_of_order, corrupt;
	int max_seq;
	unsigned char *seen;
};

static uint8_t pattern(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 131u + i);
}

static void fill_message(uint8_t *p, size_t size, uint32_t seq)
{
	uint32_t be = htonl(seq);

	memcpy(p, &be, 4);
	for (size_t i = 4; i < size; i++)
		p[i] = pattern(seq, i);
}

static void count_message(struct tally *t, const uint8_t *p, size_t len, size_t size,
			  unsigned iters)
{
	uint32_t seq;
	bool ok = len == size;

	memcpy(&seq, p, 4);
	seq = ntohl(seq);
	for (size_t i = 4; ok && i < size; i++)
		ok = p[i] == pattern(seq, i);
	t->received++;
	if (!ok || seq >= iters) {
		t->corrupt++;
		return;
	}
	if (t->seen[seq])
		t->duplicates++;
	else
		t->distinct++;
	t->seen[seq] = 1;
	if ((int)seq < t->max_seq)
		t->out_of_order++;
	else
		t->max_seq = (int)seq;
}

static int post_receives(struct ex_endpoint *ep, size_t slot, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(ep->buf + i * slot),
			.length = (uint32_t)slot,
			.lkey = ep->mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(ep->qp, &wr, &bad)) {
			fprintf(stderr, "ibv_post_recv failed\n");
			return -1;
		}
	}
	return 0;
}

/* Takes receive CQEs into the tally; -1 on an error CQE. */
static int drain_receives(struct ex_endpoint *ep, struct tally *t, size_t slot,
			  const struct ex_options *o, bool *got)
{
	struct ibv_wc wc[16];
	int n;

	*got = false;
	while ((n = ibv_poll_cq(ep->recv_cq, 16, wc)) > 0) {
		*got = true;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "receive CQE: %s\n", ibv_wc_status_str(wc[i].status));
				return -1;
			}
			count_message(t, ep->buf + wc[i].wr_id * slot + GRH_BYTES,
				      wc[i].byte_len - GRH_BYTES, o->size, o->iters);
		}
	}
	return n < 0 ? -1 : 0;
}

static int serve(struct ex_endpoint *ep, struct ex_exchange *x, const struct ex_options *o,
		 size_t slot)
{
	struct tally t = { .max_seq = -1 };
	uint64_t quiet_since;
	bool got;
	int ret = 0;

	t.seen = calloc(o->iters, 1);
	if (!t.seen)
		return -1;
	/* the client's datagrams are all sent (or held by its wire) now */
	if (ex_exchange_sync(x, "client done"))
		ret = -1;
	quiet_since = ex_now_ns();
	while (!ret && ex_now_ns() - quiet_since < LINGER_NS) {
		ret = drain_receives(ep, &t, slot, o, &got);
		if (got)
			quiet_since = ex_now_ns();
	}
	printf("ud_count: %u sent, %u received (%u distinct, %u duplicates, %u out of order, "
	       "%u corrupt)\n", o->iters, t.received, t.distinct, t.duplicates,
	       t.out_of_order, t.corrupt);
	free(t.seen);
	return ret || t.corrupt ? -1 : 0;
}

static int wait_sends(struct ex_endpoint *ep, unsigned *outstanding, unsigned limit)
{
	struct ibv_wc wc[16];
	uint64_t start = ex_now_ns();

	while (*outstanding > limit) {
		int n = ibv_poll_cq(ep->send_cq, 16, wc);

		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "send CQE: %s\n", ibv_wc_status_str(wc[i].status));
				return -1;
			}
		}
		*outstanding -= (unsigned)n;
		if (ex_now_ns() - start > 10ull * 1000000000ull) {
			fprintf(stderr, "send CQEs missing\n");
			return -1;
		}
	}
	return 0;
}

static int send_all(struct ex_endpoint *ep, const struct ex_endpoint_info *peer,
		    const struct ex_options *o)
{
	struct ibv_ah_attr ah_attr;
	struct ibv_ah *ah;
	unsigned outstanding = 0;
	int ret = 0;

	ex_endpoint_ah_attr(ep, peer, &ah_attr);
	ah = ibv_create_ah(ep->dev->pd, &ah_attr);
	if (!ah) {
		fprintf(stderr, "ibv_create_ah: %s\n", strerror(errno));
		return -1;
	}
	for (unsigned seq = 0; seq < o->iters && !ret; seq++) {
		uint8_t *p = ep->buf + (size_t)(seq % SEND_WINDOW) * o->size;
		struct ibv_sge sge = { (uintptr_t)p, (uint32_t)o->size, ep->mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = seq, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = peer->qpn, .remote_qkey = peer->qkey },
		}, *bad;

		ret = wait_sends(ep, &outstanding, SEND_WINDOW - 1);
		fill_message(p, o->size, seq);
		if (!ret && ibv_post_send(ep->qp, &wr, &bad)) {
			fprintf(stderr, "ibv_post_send failed\n");
			ret = -1;
		}
		outstanding += !ret;
	}
	if (!ret)
		ret = wait_sends(ep, &outstanding, 0);
	ibv_destroy_ah(ah);
	return ret;
}

static int run(struct ex_device *dev, const struct ex_options *o)
{
	size_t slot = GRH_BYTES + o->size;
	struct ex_endpoint_config cfg = {
		.qp_type = IBV_QPT_UD,
		.max_send_wr = SEND_WINDOW,
		.max_recv_wr = o->rx_depth,
		.send_cqe = SEND_WINDOW,
		.recv_cqe = o->rx_depth,
		.buf_size = slot * o->rx_depth,
	};
	struct ex_endpoint ep, *eps[1] = { &ep };
	struct ex_exchange x;
	int ret;

	if (ex_endpoint_create(&ep, dev, &cfg))
		return -1;
	ret = o->host ? 0 : post_receives(&ep, slot, o->rx_depth);
	if (!ret)
		ret = ex_exchange_connect(&x, o, eps, 1);
	if (!ret) {
		if (o->host)
			ret = send_all(&ep, &ep.remote, o) ||
			      ex_exchange_sync(&x, "client done") ? -1 : 0;
		else
			ret = serve(&ep, &x, o, slot);
		/* the server has counted: the client may go */
		if (!ret)
			ret = ex_exchange_sync(&x, "counted");
		ex_exchange_close(&x);
	}
	ex_endpoint_destroy(&ep);
	return ret;
}

int main(int argc, char **argv)
{
	struct ex_options o;
	struct ex_device dev;
	int ret;

	switch (ex_parse_options(&program, argc, argv, &o)) {
	case EX_PARSE_HELP:
		return 0;
	case EX_PARSE_ERROR:
		return 2;
	case EX_PARSE_RUN:
		break;
	}
	if (!o.two_process) {
		fprintf(stderr, "ud_count: needs -p PORT (server) or HOST (client)\n");
		return 2;
	}
	if (ex_device_open(&dev, &o, program.name))
		return 1;
	ret = run(&dev, &o);
	ex_device_close(&dev);
	return ret ? 1 : 0;
}
