// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Many RC QPs of one adapter share the link to another: every QP makes
 * progress, none is starved while others stream (the link credits of
 * emu/transport/link_credits.c serve waiting QPs in turn).
 *
 * Two processes with ibv_rc_pingpong's conventions (pair.sh): the client
 * (HOST given) connects 16 RC QPs to 16 QPs of the server and posts -n
 * RDMA WRITEs with immediate of -s bytes on each (default 24 of 64 KiB,
 * posted QP by QP in rounds, so the posting order itself is fair); the
 * immediate names the QP.  The server's QPs share one receive CQ, whose
 * completions come in the order the messages arrived.  When half of all
 * the messages have arrived, every QP must have delivered at least a
 * quarter of its own (an even share is a half): a QP kept waiting while
 * others stream shows as fewer.  Every completion must succeed, on both
 * sides, and the server checks each message's immediate and length.
 *
 * Exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "endpoint.h"
#include "exchange.h"
#include "latency.h"
#include "options.h"

#define NQPS EX_EXCHANGE_MAX_ENDPOINTS
#define WAIT_NS (60ull * 1000000000ull)

static const struct ex_program program = {
	.name = "link_share",
	.summary = "16 RC QPs share the link to another adapter: none is starved.",
	.extras = EX_OPT_PEER,
	.default_size = 65536,
	.min_size = 1,
	.max_size = 1u << 20,
	.default_iters = 24,
};

static struct ex_endpoint ep[NQPS];
static struct ex_endpoint *eps[NQPS];
static struct ibv_cq *recv_cq;

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", program.name, what);
	return -1;
}

static int create(struct ex_device *dev, const struct ex_options *o, bool server)
{
	struct ex_endpoint_config cfg = {
		.qp_type = IBV_QPT_RC,
		.max_send_wr = o->iters,
		.max_recv_wr = o->iters,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.send_cqe = o->iters,
		.buf_size = o->size,
		.access = IBV_ACCESS_REMOTE_WRITE,
	};

	if (server) {
		recv_cq = ibv_create_cq(dev->ctx, (int)(NQPS * o->iters), NULL, NULL, 0);
		if (!recv_cq)
			return fail("create the receive CQ");
		cfg.recv_cq = recv_cq;
	}
	for (unsigned q = 0; q < NQPS; q++) {
		if (ex_endpoint_create(&ep[q], dev, &cfg))
			return -1;
		eps[q] = &ep[q];
	}
	return 0;
}

/* The server's receives: one per message, before the client may send. */
static int post_receives(const struct ex_options *o)
{
	for (unsigned q = 0; q < NQPS; q++)
		for (unsigned i = 0; i < o->iters; i++) {
			struct ibv_recv_wr wr = { .wr_id = q }, *bad;

			if (ibv_post_recv(ep[q].qp, &wr, &bad))
				return fail("post a receive");
		}
	return 0;
}

static int post_writes(const struct ex_options *o)
{
	for (unsigned i = 0; i < o->iters; i++)
		for (unsigned q = 0; q < NQPS; q++) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)ep[q].buf,
				.length = (uint32_t)o->size,
				.lkey = ep[q].mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = q,
				.sg_list = &sge,
				.num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
				.send_flags = IBV_SEND_SIGNALED,
				.imm_data = htobe32(q),
				.wr.rdma = { ep[q].remote.addr, ep[q].remote.rkey },
			}, *bad;

			if (ibv_post_send(ep[q].qp, &wr, &bad))
				return fail("post a WRITE with immediate");
		}
	return 0;
}

/* One successful completion from cq, within the test's time. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, uint64_t end_ns)
{
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return fail("poll a CQ");
		if (n == 1) {
			if (wc->status == IBV_WC_SUCCESS)
				return 0;
			fprintf(stderr, "%s: completion %s (wr_id %llu)\n", program.name,
				ibv_wc_status_str(wc->status), (unsigned long long)wc->wr_id);
			return -1;
		}
		if (ex_now_ns() > end_ns)
			return fail("completions stopped coming");
	}
}

static int client(const struct ex_options *o)
{
	uint64_t end = ex_now_ns() + WAIT_NS;
	struct ibv_wc wc;

	if (post_writes(o))
		return -1;
	for (unsigned q = 0; q < NQPS; q++)
		for (unsigned i = 0; i < o->iters; i++)
			if (poll_one(ep[q].send_cq, &wc, end))
				return -1;
	printf("%s: %u WRITEs with immediate of %zu bytes on each of %u QPs completed\n",
	       program.name, o->iters, o->size, NQPS);
	return 0;
}

static int server(const struct ex_options *o)
{
	unsigned total = NQPS * o->iters, got[NQPS] = { 0 }, half[NQPS] = { 0 };
	unsigned least = o->iters / 4, worst = total, best = 0;
	uint64_t end = ex_now_ns() + WAIT_NS;
	struct ibv_wc wc;

	for (unsigned n = 0; n < total; n++) {
		uint32_t q;

		if (poll_one(recv_cq, &wc, end))
			return -1;
		q = be32toh(wc.imm_data);
		if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || !(wc.wc_flags & IBV_WC_WITH_IMM) ||
		    q >= NQPS || wc.qp_num != ep[q].qp->qp_num || wc.byte_len != o->size)
			return fail("a message with the wrong QP, immediate or length");
		got[q]++;
		if (n + 1 == total / 2)
			memcpy(half, got, sizeof(half));
	}
	for (unsigned q = 0; q < NQPS; q++) {
		worst = half[q] < worst ? half[q] : worst;
		best = half[q] > best ? half[q] : best;
	}
	printf("%s: of the first %u messages, each QP delivered %u to %u (an even share: %u; "
	       "at least %u asked)\n", program.name, total / 2, worst, best, total / 2 / NQPS,
	       least);
	if (worst < least)
		return fail("a QP was starved while the others streamed");
	return 0;
}

int main(int argc, char **argv)
{
	struct ex_exchange x = { .fd = -1 };
	struct ex_options opts;
	struct ex_device dev;
	int status;

	status = ex_main_start(&program, argc, argv, &opts, &dev);
	if (status != EX_MAIN_RUN)
		return status;
	status = 1;
	if (!opts.two_process || opts.iters < 4) {
		fail("two processes (-p PORT [HOST]) and -n 4 or more");
		goto out;
	}
	if (create(&dev, &opts, !opts.host) || (!opts.host && post_receives(&opts)) ||
	    ex_exchange_connect(&x, &opts, eps, NQPS))
		goto out;
	if ((opts.host ? client : server)(&opts) || ex_exchange_sync(&x, "end"))
		goto out;
	status = 0;
out:
	ex_exchange_close(&x);
	for (unsigned q = 0; q < NQPS; q++)
		if (eps[q])
			ex_endpoint_destroy(&ep[q]);
	if (recv_cq)
		ibv_destroy_cq(recv_cq);
	return ex_device_finish(&dev, program.name, status);
}
