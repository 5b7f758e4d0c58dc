// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ud_srq - UD datagrams received through a shared receive queue.
 *
 * One UD sender addresses two UD receivers in turn. The receivers have no
 * receive queue of their own: both take their buffers from one SRQ and
 * report to one CQ. Every receive buffer starts with the 40 bytes a UD
 * receive reserves for the Global Route Header; when the packet carried a
 * GRH (always on Ethernet, with -g on InfiniBand) its version, source and
 * destination GIDs are checked, otherwise the 40 bytes are skipped.
 *
 * The sender, the SRQ and the CQ are driven through <infiniband/mlx4dv.h>.
 * Checks: each datagram arrives once, at the receiver it was sent to, from
 * the sender's QPN, with the right length and payload; the SRQ WQE it
 * used is recycled through the free list.
 *
 * Exit status: 0 when every datagram verified, 1 on any error (a lost
 * datagram is reported after a few seconds without progress), 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx4dv.h>

#include "device.h"
#include "endpoint.h"
#include "latency.h"
#include "options.h"
#include "payload.h"
#include "watchdog.h"

static const struct ex_program program = {
	.name = "ud_srq",
	.summary = "UD datagrams to two QPs sharing one SRQ, through the mlx4dv.h data path; GRH checked.",
	.extras = EX_OPT_RX_DEPTH,
	.default_size = 1024,
	.min_size = 8,
	.max_size = 4096,
	.default_iters = 1000,
	.default_rx_depth = 64,
};

#define GRH_BYTES		40
#define RECEIVERS		2
#define SEND_SIGNAL_EVERY	8
#define CQ_BATCH		16

struct ud_test {
	struct ex_device	*dev;
	size_t			size;
	uint32_t		rx_depth;
	uint64_t		iters;
	struct ex_endpoint	sender;
	struct ex_endpoint	receivers[RECEIVERS];
	struct ex_endpoint_info	receiver_info[RECEIVERS];	/* as the sender learnt them */
	struct ibv_cq		*recv_cq;	/* shared by the receivers */
	struct ibv_srq		*srq;
	struct mlx4dv_sq_ring	sq;
	struct mlx4dv_cq_ring	send_cq;
	struct mlx4dv_cq_ring	rcq;
	struct mlx4dv_srq_ring	srq_ring;
	struct mlx4dv_ud_av	dest;		/* the receivers' address */
	bool			sq_ready, send_cq_ready, rcq_ready, srq_ready;
	uint32_t		send_window;
	uint64_t		sent;
	uint64_t		send_completed;
	uint64_t		received;
	uint64_t		per_receiver[RECEIVERS];
	uint64_t		with_grh;
	uint8_t			*seen;		/* one byte per datagram */
};

/* SRQ slot k: GRH area then the payload, in receivers[0]'s buffer. */
static size_t slot_bytes(const struct ud_test *t)
{
	return GRH_BYTES + t->size;
}

static uint8_t *srq_slot(struct ud_test *t, uint32_t k)
{
	return t->receivers[0].buf + (size_t)k * slot_bytes(t);
}

static uint8_t *send_slot(struct ud_test *t, uint64_t i)
{
	return t->sender.buf + (size_t)(i % t->send_window) * t->size;
}

/* Datagram i: its sequence number (8 bytes, little-endian), then a pattern
 * derived from i. */
static void build_datagram(uint8_t *p, size_t size, uint64_t i)
{
	for (unsigned b = 0; b < 8; b++)
		p[b] = (uint8_t)(i >> (8 * b));
	ex_payload_fill(p + 8, size - 8, i);
}

static uint64_t datagram_seq(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned b = 0; b < 8; b++)
		v |= (uint64_t)p[b] << (8 * b);
	return v;
}

static int check_grh(struct ud_test *t, const uint8_t *grh, unsigned r,
		     bool has_grh)
{
	if (has_grh != t->dev->use_grh) {
		fprintf(stderr, "receiver %u: GRH %s, but the link %s one\n", r,
			has_grh ? "present" : "absent",
			t->dev->use_grh ? "requires" : "was not asked for");
		return -1;
	}
	if (!has_grh)
		return 0;
	t->with_grh++;
	if (grh[0] >> 4 != 6) {
		fprintf(stderr, "receiver %u: GRH IP version %u, expected 6\n", r,
			grh[0] >> 4);
		return -1;
	}
	if (memcmp(grh + 8, t->dev->gid.raw, 16) || memcmp(grh + 24, t->dev->gid.raw, 16)) {
		fprintf(stderr, "receiver %u: GRH source or destination GID is not the port's\n", r);
		return -1;
	}
	return 0;
}

/* Checks one received datagram in SRQ slot k, delivered to receiver r. */
static int check_datagram(struct ud_test *t, uint32_t k, unsigned r,
			  uint32_t byte_len, uint32_t src_qp, bool has_grh)
{
	const uint8_t *slot = srq_slot(t, k);
	const uint8_t *payload = slot + GRH_BYTES;
	uint64_t seq = datagram_seq(payload);
	char what[64];

	if (byte_len != slot_bytes(t)) {
		fprintf(stderr, "receiver %u: %u bytes received, expected %zu (40-byte GRH area + %zu)\n",
			r, byte_len, slot_bytes(t), t->size);
		return -1;
	}
	if (src_qp != t->sender.qp->qp_num) {
		fprintf(stderr, "receiver %u: source QPN 0x%06x, expected 0x%06x\n", r,
			src_qp, t->sender.qp->qp_num);
		return -1;
	}
	if (seq >= t->iters || t->seen[seq]) {
		fprintf(stderr, "receiver %u: datagram %" PRIu64 " %s\n", r, seq,
			seq >= t->iters ? "was never sent" : "arrived twice");
		return -1;
	}
	if (seq % RECEIVERS != r) {
		fprintf(stderr, "datagram %" PRIu64 " was sent to receiver %u, arrived at %u\n",
			seq, (unsigned)(seq % RECEIVERS), r);
		return -1;
	}
	snprintf(what, sizeof(what), "receiver %u, datagram %" PRIu64, r, seq);
	if (!ex_payload_check(payload + 8, t->size - 8, seq, what) ||
	    check_grh(t, slot, r, has_grh))
		return -1;
	t->seen[seq] = 1;
	t->per_receiver[r]++;
	return 0;
}

/* ---- The direct data path: everything below goes through mlx4dv.h ---- */

static int ring_error(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err));
	return -1;
}

/* Handles: the sender's SQ and send CQ, the SRQ and the receive CQ. */
static int init_handles(struct ud_test *t)
{
	int ret;

	ret = mlx4dv_sq_ring_init(&t->sq, t->sender.qp, MLX4DV_RING_INIT_WRID);
	if (ret)
		return ring_error("mlx4dv_sq_ring_init", ret);
	t->sq_ready = true;
	ret = mlx4dv_cq_ring_init(&t->send_cq, t->sender.send_cq, 0);
	if (ret)
		return ring_error("mlx4dv_cq_ring_init (send)", ret);
	t->send_cq_ready = true;
	ret = mlx4dv_cq_ring_init(&t->rcq, t->recv_cq, 0);
	if (ret)
		return ring_error("mlx4dv_cq_ring_init (receive)", ret);
	t->rcq_ready = true;
	ret = mlx4dv_srq_ring_init(&t->srq_ring, t->srq, MLX4DV_RING_INIT_WRID);
	if (ret)
		return ring_error("mlx4dv_srq_ring_init", ret);
	t->srq_ready = true;
	return 0;
}

/* The receivers' address vector, from what the sender learnt of them.
 * Both sit behind the same port and GID, so one serves both. libmlx4
 * builds it in ibv_create_ah() (resolving the MAC on RoCE) and keeps it
 * private; mlx4dv_ud_av_from_ah() reads it from libmlx4's own output.
 * The copy outlives the AH. */
static int init_destination(struct ud_test *t)
{
	struct ibv_ah_attr ah_attr;
	struct ibv_ah *ah;
	int ret;

	ex_endpoint_ah_attr(&t->sender, &t->receiver_info[0], &ah_attr);
	ah = ibv_create_ah(t->dev->pd, &ah_attr);
	if (!ah)
		return ring_error("ibv_create_ah", errno);
	ret = mlx4dv_ud_av_from_ah(&t->dest, ah);
	ibv_destroy_ah(ah);
	if (ret)
		return ring_error("mlx4dv_ud_av_from_ah", ret);
	return 0;
}

static void release_handles(struct ud_test *t)
{
	if (t->srq_ready)
		mlx4dv_srq_ring_release(&t->srq_ring);
	if (t->rcq_ready)
		mlx4dv_cq_ring_release(&t->rcq);
	if (t->send_cq_ready)
		mlx4dv_cq_ring_release(&t->send_cq);
	if (t->sq_ready)
		mlx4dv_sq_ring_release(&t->sq);
	t->srq_ready = t->rcq_ready = t->send_cq_ready = t->sq_ready = false;
}

/* SRQ WQE for slot k: the GRH area and the payload in one entry. */
static int write_srq_wqe(struct ud_test *t, uint32_t k)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)srq_slot(t, k),
		.length = (uint32_t)slot_bytes(t),
		.lkey = t->receivers[0].mr->lkey,
	};
	int ret = mlx4dv_srq_write(&t->srq_ring, k, &sge, 1);

	return ret ? ring_error("mlx4dv_srq_write", ret) : 0;
}

static int post_initial_receives(struct ud_test *t)
{
	for (uint32_t k = 0; k < t->rx_depth; k++)
		if (write_srq_wqe(t, k))
			return -1;
	mlx4dv_srq_ring_doorbell(&t->srq_ring);
	return 0;
}

static int send_datagram(struct ud_test *t, uint64_t i)
{
	unsigned r = (unsigned)(i % RECEIVERS);
	uint8_t *p = send_slot(t, i);
	struct ibv_sge sge = {
		.addr = (uintptr_t)p,
		.length = (uint32_t)t->size,
		.lkey = t->sender.mr->lkey,
	};
	uint32_t flags = (i + 1) % SEND_SIGNAL_EVERY == 0 || i + 1 == t->iters ?
			 IBV_SEND_SIGNALED : 0;
	int ret;

	build_datagram(p, t->size, i);
	ret = mlx4dv_sq_write_ud_send(&t->sq, i, &t->dest, t->receiver_info[r].qpn,
				     t->receiver_info[r].qkey, &sge, 1, flags);
	if (ret)
		return ring_error("mlx4dv_sq_write_ud_send", ret);
	mlx4dv_sq_ring_doorbell(&t->sq);
	return 0;
}

static int error_cqe(const char *queue, const struct mlx4_cqe *cqe)
{
	fprintf(stderr, "error CQE on the %s: %s (syndrome 0x%02x, vendor 0x%02x, QPN 0x%06x, WQE %u)\n",
		queue, ibv_wc_status_str(mlx4dv_cqe_wc_status(cqe)),
		mlx4dv_cqe_syndrome(cqe), mlx4dv_cqe_vendor_syndrome(cqe),
		mlx4dv_cqe_qpn(cqe), mlx4dv_cqe_wqe_index(cqe));
	return -1;
}

static int poll_send_cq(struct ud_test *t)
{
	struct mlx4_cqe *cqe;
	int n = 0;

	while (n < CQ_BATCH && (cqe = mlx4dv_cq_next(&t->send_cq))) {
		uint64_t wr_id = UINT64_MAX;

		n++;
		if (mlx4dv_cqe_is_error(cqe))
			return error_cqe("sender's CQ", cqe);
		if (!mlx4dv_cqe_is_send(cqe) ||
		    mlx4dv_sq_complete_cqe(&t->sq, cqe, &wr_id) != 0 ||
		    wr_id >= t->sent || wr_id < t->send_completed) {
			fprintf(stderr, "sender: unexpected CQE (WQE %u, datagram %" PRIu64 ")\n",
				mlx4dv_cqe_wqe_index(cqe), wr_id);
			return -1;
		}
		t->send_completed = wr_id + 1;
	}
	if (n)
		mlx4dv_cq_update_ci(&t->send_cq);
	return n;
}

static int receiver_of(const struct ud_test *t, uint32_t qpn)
{
	for (unsigned r = 0; r < RECEIVERS; r++)
		if (t->receivers[r].qp->qp_num == qpn)
			return (int)r;
	return -1;
}

/* Checks each datagram, then gives its SRQ WQE back with a new post. */
static int poll_recv_cq(struct ud_test *t)
{
	struct mlx4_cqe *cqe;
	int n = 0, reposted = 0, ret = 0;

	while (!ret && n < CQ_BATCH && (cqe = mlx4dv_cq_next(&t->rcq))) {
		int r = receiver_of(t, mlx4dv_cqe_qpn(cqe));
		uint64_t slot = UINT64_MAX;

		n++;
		if (mlx4dv_cqe_is_error(cqe)) {
			ret = error_cqe("receive CQ", cqe);
			break;
		}
		if (r < 0 || mlx4dv_cqe_is_send(cqe) ||
		    mlx4dv_srq_complete(&t->srq_ring, cqe, &slot) || slot >= t->rx_depth) {
			fprintf(stderr, "receive CQ: unexpected CQE (QPN 0x%06x, WQE %u)\n",
				mlx4dv_cqe_qpn(cqe), mlx4dv_cqe_wqe_index(cqe));
			ret = -1;
			break;
		}
		ret = check_datagram(t, (uint32_t)slot, (unsigned)r,
				     mlx4dv_cqe_byte_len(cqe), mlx4dv_cqe_src_qp(cqe),
				     mlx4dv_cqe_has_grh(cqe));
		if (!ret) {
			t->received++;
			ret = write_srq_wqe(t, (uint32_t)slot);
			reposted++;
		}
	}
	if (n)
		mlx4dv_cq_update_ci(&t->rcq);
	if (reposted)
		mlx4dv_srq_ring_doorbell(&t->srq_ring);
	return ret ? -1 : n;
}

static int create_objects(struct ud_test *t)
{
	struct ibv_srq_init_attr srq_attr = {
		.attr = { .max_wr = t->rx_depth, .max_sge = 1 },
	};
	struct ex_endpoint_config cfg = {
		.qp_type = IBV_QPT_UD,
		.max_send_wr = t->send_window,
		.max_recv_wr = 1,
		.send_cqe = t->send_window,
		.recv_cqe = 1,
		.buf_size = (size_t)t->send_window * t->size,
	};

	t->srq = ibv_create_srq(t->dev->pd, &srq_attr);
	if (!t->srq) {
		fprintf(stderr, "ibv_create_srq: %s\n", strerror(errno));
		return -1;
	}
	t->recv_cq = ibv_create_cq(t->dev->ctx, (int)t->rx_depth, NULL, NULL, 0);
	if (!t->recv_cq) {
		fprintf(stderr, "ibv_create_cq: %s\n", strerror(errno));
		return -1;
	}
	if (ex_endpoint_create(&t->sender, t->dev, &cfg))
		return -1;
	cfg.srq = t->srq;
	cfg.recv_cq = t->recv_cq;
	cfg.max_send_wr = 1;
	cfg.send_cqe = 1;
	for (unsigned r = 0; r < RECEIVERS; r++) {
		cfg.buf_size = r == 0 ? (size_t)t->rx_depth * slot_bytes(t) : 64;
		if (ex_endpoint_create(&t->receivers[r], t->dev, &cfg))
			return -1;
	}
	return 0;
}

static void destroy_objects(struct ud_test *t)
{
	release_handles(t);
	for (unsigned r = 0; r < RECEIVERS; r++)
		ex_endpoint_destroy(&t->receivers[r]);
	ex_endpoint_destroy(&t->sender);
	if (t->srq)
		ibv_destroy_srq(t->srq);
	if (t->recv_cq)
		ibv_destroy_cq(t->recv_cq);
	free(t->seen);
}

static int connect_all(struct ud_test *t)
{
	struct ex_endpoint_info sender_info, seen;

	ex_endpoint_local_info(&t->sender, &sender_info);
	for (unsigned r = 0; r < RECEIVERS; r++) {
		struct ex_endpoint_info info;

		/* A UD receiver needs only local state; the peer's
		 * description is kept for symmetry with the other programs. */
		if (ex_endpoint_info_transfer(&sender_info, &seen) ||
		    ex_endpoint_connect(&t->receivers[r], &seen))
			return -1;
		ex_endpoint_local_info(&t->receivers[r], &info);
		if (ex_endpoint_info_transfer(&info, &t->receiver_info[r]))
			return -1;
	}
	/* One address handle serves both receivers (same port and GID);
	 * each datagram names its destination QPN. */
	return ex_endpoint_connect(&t->sender, &t->receiver_info[0]);
}

static int run(struct ud_test *t)
{
	struct ex_watchdog wd;

	ex_watchdog_start(&wd, 0);
	while (t->received < t->iters || t->send_completed < t->sent) {
		/* Never more datagrams in flight than posted receives: UD
		 * drops what finds the SRQ empty. */
		while (t->sent < t->iters && t->sent - t->received < t->rx_depth &&
		       t->sent - t->send_completed < t->send_window) {
			if (send_datagram(t, t->sent))
				return -1;
			t->sent++;
		}
		if (poll_send_cq(t) < 0 || poll_recv_cq(t) < 0)
			return -1;
		if (ex_watchdog_stalled(&wd, t->received + t->send_completed)) {
			fprintf(stderr, "no progress for 5 s: %" PRIu64 " of %" PRIu64
				" datagrams received (%" PRIu64 " sent, %" PRIu64
				" send completions); datagrams were lost\n",
				t->received, t->iters, t->sent, t->send_completed);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	struct ex_device dev;
	struct ud_test t;
	size_t mtu;
	int status = 1;

	status = ex_main_start(&program, argc, argv, &opts, &dev);
	if (status != EX_MAIN_RUN)
		return status;
	status = 1;	/* until every check passed */
	memset(&t, 0, sizeof(t));
	mtu = (size_t)128 << dev.port_attr.active_mtu;
	if (opts.size > mtu) {
		fprintf(stderr, "%s: a UD message is at most the path MTU, %zu bytes\n",
			program.name, mtu);
		goto out;
	}
	t.dev = &dev;
	t.size = opts.size;
	t.rx_depth = opts.rx_depth;
	t.iters = opts.iters;
	t.send_window = 32;
	t.seen = calloc(opts.iters, 1);
	if (!t.seen) {
		fprintf(stderr, "%s: out of memory\n", program.name);
		goto out;
	}
	if (create_objects(&t) || init_handles(&t) || post_initial_receives(&t) ||
	    connect_all(&t) || init_destination(&t))
		goto out;

	printf("%s: %s port %u, %s, %zu-byte datagrams, %u datagrams, SRQ depth %u, GRH %s\n",
	       program.name, dev.name, dev.port,
	       ex_device_is_ethernet(&dev) ? "Ethernet (RoCE)" : "InfiniBand",
	       opts.size, opts.iters, opts.rx_depth,
	       dev.use_grh ? "expected and checked" : "not used (40 bytes skipped)");
	if (run(&t))
		goto out;
	for (unsigned r = 0; r < RECEIVERS; r++) {
		uint64_t want = t.iters / RECEIVERS + (r < t.iters % RECEIVERS);

		if (t.per_receiver[r] != want) {
			fprintf(stderr, "receiver %u got %" PRIu64 " datagrams, expected %" PRIu64 "\n",
				r, t.per_receiver[r], want);
			goto out;
		}
	}
	printf("%s: receiver QPNs 0x%06x and 0x%06x: %" PRIu64 " and %" PRIu64
	       " datagrams, %" PRIu64 " with a checked GRH\n", program.name,
	       t.receivers[0].qp->qp_num, t.receivers[1].qp->qp_num,
	       t.per_receiver[0], t.per_receiver[1], t.with_grh);
	printf("%s: checks passed: %u datagrams of %zu bytes received once each, through the SRQ, payload verified\n",
	       program.name, opts.iters, opts.size);
	status = 0;
out:
	destroy_objects(&t);
	return ex_device_finish(&dev, program.name, status);
}
