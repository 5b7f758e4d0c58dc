// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rc_pingpong - RC ping-pong with SEND/RECV through the direct data path.
 *
 * Two RC endpoints ("client" and "server") exchange messages: the client
 * sends ping i, the server checks it and answers with pong i, the client
 * checks that.  Both live in this process, or, with ibv_rc_pingpong's
 * conventions, in two: "rc_pingpong -p PORT" is the server, "rc_pingpong
 * [-p PORT] HOST" the client, which swap their QPN, PSN, LID and GID over
 * TCP (common/exchange.h). Every WQE is built and every CQE
 * read through <infiniband/mlx4dv.h>; libibverbs only creates the objects
 * and moves the QPs between states. The round-trip time of each
 * iteration (the server's check and its reply included, as a real
 * responder's work would be) is reported as percentiles.
 *
 * With --events the program sleeps in ibv_get_cq_event() instead of
 * spinning: the CQ is armed through the header, the event acknowledged
 * with ibv_ack_cq_events() and the handle's arm sequence number advanced.
 *
 * Exit status: 0 when every message arrived intact, 1 on any error CQE,
 * payload mismatch or failed call, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx4dv.h>

#include "device.h"
#include "endpoint.h"
#include "exchange.h"
#include "latency.h"
#include "options.h"
#include "payload.h"
#include "watchdog.h"

static const struct ex_program program = {
	.name = "rc_pingpong",
	.summary = "RC ping-pong (SEND/RECV) through the mlx4dv.h data path, with latency percentiles.",
	.extras = EX_OPT_EVENTS | EX_OPT_RX_DEPTH | EX_OPT_PEER,
	.default_size = 4096,
	.min_size = 1,
	.max_size = 1u << 20,
	.default_iters = 1000,
	.default_rx_depth = 16,
};

/* One side of the ping-pong: an endpoint and its direct-path handles. */
struct pp_side {
	const char		*name;
	struct ex_endpoint	ep;
	struct ibv_comp_channel	*channel;	/* --events only */
	struct mlx4dv_qp_rings	rings;		/* sq, rq, send_cq (shared) */
	bool			rings_ready;
	size_t			size;
	uint32_t		rx_depth;
	uint64_t		recvs_done;
	uint64_t		sends_done;
	uint64_t		sends_posted;
	bool			receives_pings;	/* the server */
	uint64_t		events;
	uint64_t		bf_posts;
};

/* Buffer layout: send slot, then rx_depth receive slots of size bytes. */
static uint8_t *send_slot(struct pp_side *s)
{
	return s->ep.buf;
}

static uint8_t *recv_slot(struct pp_side *s, uint32_t slot)
{
	return s->ep.buf + s->size * (1 + (size_t)slot);
}

/* Payload tag of message i towards receiver: ping i is 2i, pong i 2i+1. */
static uint64_t expected_tag(const struct pp_side *receiver, uint64_t i)
{
	return 2 * i + (receiver->receives_pings ? 0 : 1);
}

/* ---- The direct data path: everything below goes through mlx4dv.h ---- */

/* Handles for the QP's SQ and RQ and its CQ (shared by sends and
 * receives), with wr_id tables. From here on, no ibv_post_* or
 * ibv_poll_cq on this QP or CQ. */
static int init_rings(struct pp_side *s)
{
	int ret = mlx4dv_qp_rings_init(&s->rings, s->ep.qp,
				       MLX4DV_RING_INIT_WRID | MLX4DV_RING_INIT_BLUEFLAME);

	if (ret) {
		fprintf(stderr, "%s: mlx4dv_qp_rings_init: %s\n", s->name, strerror(ret));
		return -1;
	}
	s->rings_ready = true;
	if (!(s->rings.flags & MLX4DV_QP_RINGS_SHARED_CQ)) {
		fprintf(stderr, "%s: expected one CQ for sends and receives\n", s->name);
		return -1;
	}
	return 0;
}

/* One receive WQE for slot; wr_id is the slot. */
static int post_recv(struct pp_side *s, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_slot(s, slot),
		.length = (uint32_t)s->size,
		.lkey = s->ep.mr->lkey,
	};
	int ret = mlx4dv_rq_post(&s->rings.rq, slot, &sge, 1);

	if (ret)
		fprintf(stderr, "%s: mlx4dv_rq_post: %s\n", s->name, strerror(ret));
	return ret ? -1 : 0;
}

/* SEND of the send slot, signaled; handed over by BlueFlame when the
 * handle has a register, else by the doorbell. */
static int post_send(struct pp_side *s)
{
	uint32_t head_before = s->rings.sq.head;
	struct ibv_sge sge = {
		.addr = (uintptr_t)send_slot(s),
		.length = (uint32_t)s->size,
		.lkey = s->ep.mr->lkey,
	};
	int ret;

	ret = mlx4dv_sq_write_send(&s->rings.sq, s->sends_posted, &sge, 1, IBV_SEND_SIGNALED);
	if (ret) {
		fprintf(stderr, "%s: mlx4dv_sq_write_send: %s\n", s->name, strerror(ret));
		return -1;
	}
	if (mlx4dv_sq_ring_one(&s->rings.sq, head_before) == MLX4DV_SQ_HANDOVER_BLUEFLAME)
		s->bf_posts++;
	s->sends_posted++;
	return 0;
}

static int report_error_cqe(const struct pp_side *s, const struct mlx4_cqe *cqe)
{
	fprintf(stderr, "%s: error CQE on the %s queue: %s (syndrome 0x%02x, vendor 0x%02x, WQE %u)\n",
		s->name, mlx4dv_cqe_is_send(cqe) ? "send" : "receive",
		ibv_wc_status_str(mlx4dv_cqe_wc_status(cqe)),
		mlx4dv_cqe_syndrome(cqe), mlx4dv_cqe_vendor_syndrome(cqe),
		mlx4dv_cqe_wqe_index(cqe));
	return -1;
}

static int complete_send(struct pp_side *s, const struct mlx4_cqe *cqe)
{
	uint64_t wr_id = UINT64_MAX;

	if (mlx4dv_cqe_opcode(cqe) != MLX4_OPCODE_SEND ||
	    mlx4dv_sq_complete_cqe(&s->rings.sq, cqe, &wr_id) != 0 ||
	    wr_id != s->sends_done) {
		fprintf(stderr, "%s: unexpected send completion (opcode 0x%x, WQE %u, wr_id %" PRIu64
			", expected send %" PRIu64 ")\n", s->name, mlx4dv_cqe_opcode(cqe),
			mlx4dv_cqe_wqe_index(cqe), wr_id, s->sends_done);
		return -1;
	}
	s->sends_done++;
	return 0;
}

/* Checks the message in its slot, then gives the slot back to the RQ. */
static int complete_recv(struct pp_side *s, const struct mlx4_cqe *cqe)
{
	uint64_t slot;
	char what[64];
	int ret = mlx4dv_rq_complete(&s->rings.rq, cqe, &slot);

	if (ret) {
		fprintf(stderr, "%s: receive CQE not of this RQ: %s\n", s->name, strerror(ret));
		return -1;
	}
	if (mlx4dv_cqe_wc_opcode(cqe) != IBV_WC_RECV ||
	    mlx4dv_cqe_byte_len(cqe) != s->size || slot >= s->rx_depth) {
		fprintf(stderr, "%s: unexpected receive completion (opcode 0x%x, %u bytes, slot %" PRIu64 ")\n",
			s->name, mlx4dv_cqe_opcode(cqe), mlx4dv_cqe_byte_len(cqe), slot);
		return -1;
	}
	snprintf(what, sizeof(what), "%s, message %" PRIu64, s->name, s->recvs_done);
	if (!ex_payload_check(recv_slot(s, (uint32_t)slot), s->size,
			      expected_tag(s, s->recvs_done), what))
		return -1;
	s->recvs_done++;
	return post_recv(s, (uint32_t)slot);
}

/* Consumes every CQE present: the number consumed, or -1. */
static int poll_completions(struct pp_side *s)
{
	struct mlx4dv_cq_ring *cq = &s->rings.send_cq;
	struct mlx4_cqe *cqe;
	int n = 0, ret = 0;

	while (!ret && (cqe = mlx4dv_cq_next(cq))) {
		n++;
		if (mlx4dv_cqe_is_error(cqe))
			ret = report_error_cqe(s, cqe);
		else if (mlx4dv_cqe_qpn(cqe) != s->ep.qp->qp_num)
			ret = -1, fprintf(stderr, "%s: CQE of QPN 0x%06x\n", s->name,
					  mlx4dv_cqe_qpn(cqe));
		else if (mlx4dv_cqe_is_send(cqe))
			ret = complete_send(s, cqe);
		else
			ret = complete_recv(s, cqe);
	}
	if (n)
		mlx4dv_cq_update_ci(cq);
	return ret ? -1 : n;
}

/*
 * Sleep until the CQ has something: arm it, poll once more (a CQE that
 * arrived before the arm raises no event), then wait for the event.
 */
static int wait_event(struct pp_side *s)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	mlx4dv_cq_arm(&s->rings.send_cq, 0);
	n = poll_completions(s);
	if (n)
		return n < 0 ? -1 : 0;
	/* The channel is a file descriptor: wait with a deadline. */
	struct pollfd pfd = { .fd = s->channel->fd, .events = POLLIN };
	n = poll(&pfd, 1, EX_STALL_TIMEOUT_MS);
	if (n <= 0) {
		fprintf(stderr, "%s: no completion event within %d ms (%" PRIu64
			" receives, %" PRIu64 " sends completed)\n", s->name,
			EX_STALL_TIMEOUT_MS, s->recvs_done, s->sends_done);
		return -1;
	}
	if (ibv_get_cq_event(s->channel, &ev_cq, &ev_ctx)) {
		fprintf(stderr, "%s: ibv_get_cq_event failed\n", s->name);
		return -1;
	}
	if (ev_cq != s->ep.send_cq) {
		fprintf(stderr, "%s: event for an unknown CQ\n", s->name);
		return -1;
	}
	ibv_ack_cq_events(ev_cq, 1);
	mlx4dv_cq_ack_event(&s->rings.send_cq);
	s->events++;
	return 0;
}

static int wait_for(struct pp_side *s, uint64_t recvs, uint64_t sends,
		    bool events)
{
	struct ex_watchdog wd;

	ex_watchdog_start(&wd, s->recvs_done + s->sends_done);
	while (s->recvs_done < recvs || s->sends_done < sends) {
		int n = poll_completions(s);

		if (n < 0)
			return -1;
		if (!events && ex_watchdog_stalled(&wd, s->recvs_done + s->sends_done)) {
			fprintf(stderr, "%s: no completion for 5 s: %" PRIu64 " of %" PRIu64
				" receives, %" PRIu64 " of %" PRIu64 " sends\n", s->name,
				s->recvs_done, recvs, s->sends_done, sends);
			return -1;
		}
		if (n > 0 || !events)
			continue;
		if (wait_event(s))
			return -1;
	}
	return 0;
}

static int setup_side(struct pp_side *s, const char *name, struct ex_device *dev,
		      const struct ex_options *opts, bool receives_pings)
{
	struct ex_endpoint_config cfg = {
		.qp_type = IBV_QPT_RC,
		.max_send_wr = 4,
		.max_recv_wr = opts->rx_depth,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.send_cqe = opts->rx_depth + 4,
		.shared_cq = true,
		.buf_size = opts->size * (1 + (size_t)opts->rx_depth),
	};

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->size = opts->size;
	s->rx_depth = opts->rx_depth;
	s->receives_pings = receives_pings;
	if (opts->events) {
		s->channel = ibv_create_comp_channel(dev->ctx);
		if (!s->channel) {
			fprintf(stderr, "%s: ibv_create_comp_channel: %s\n", name,
				strerror(errno));
			return -1;
		}
		cfg.channel = s->channel;
	}
	if (ex_endpoint_create(&s->ep, dev, &cfg))
		return -1;
	return init_rings(s);
}

static void teardown_side(struct pp_side *s)
{
	if (s->rings_ready)
		mlx4dv_qp_rings_release(&s->rings);
	s->rings_ready = false;
	ex_endpoint_destroy(&s->ep);
	if (s->channel)
		ibv_destroy_comp_channel(s->channel);
	s->channel = NULL;
}

static int post_initial_receives(struct pp_side *s)
{
	for (uint32_t slot = 0; slot < s->rx_depth; slot++)
		if (post_recv(s, slot))
			return -1;
	return 0;
}

/* The client's half of iteration i: ping i goes out. */
static int send_ping(struct pp_side *client, const struct ex_options *opts, uint64_t i)
{
	ex_payload_fill(send_slot(client), opts->size, 2 * i);
	return post_send(client);
}

/* The server's half: ping i checked as it completes, pong i goes out
 * (its previous pong completed before the send slot is reused). */
static int answer_ping(struct pp_side *server, const struct ex_options *opts, uint64_t i)
{
	if (wait_for(server, i + 1, i, opts->events))
		return -1;
	ex_payload_fill(send_slot(server), opts->size, 2 * i + 1);
	return post_send(server);
}

/* The client waits for pong i (checked) and its own ping's completion. */
static int await_pong(struct pp_side *client, const struct ex_options *opts, uint64_t i)
{
	return wait_for(client, i + 1, i + 1, opts->events);
}

static int run(struct pp_side *client, struct pp_side *server,
	       const struct ex_options *opts, struct ex_latency *lat)
{
	for (uint64_t i = 0; i < opts->iters; i++) {
		uint64_t t0 = ex_now_ns();

		if (send_ping(client, opts, i) || answer_ping(server, opts, i) ||
		    await_pong(client, opts, i))
			return -1;
		ex_latency_add(lat, ex_now_ns() - t0);
	}
	return wait_for(server, opts->iters, opts->iters, opts->events);
}

/* Two processes: this process is one side and runs its half of each
 * iteration. */
static int run_side(struct pp_side *s, const struct ex_options *opts,
		    struct ex_latency *lat)
{
	for (uint64_t i = 0; i < opts->iters; i++) {
		uint64_t t0 = ex_now_ns();

		if (s->receives_pings) {
			if (answer_ping(s, opts, i))
				return -1;
			continue;
		}
		if (send_ping(s, opts, i) || await_pong(s, opts, i))
			return -1;
		ex_latency_add(lat, ex_now_ns() - t0);
	}
	return s->receives_pings ? wait_for(s, opts->iters, opts->iters, opts->events) : 0;
}

static int check_counters(const struct pp_side *s, uint64_t iters)
{
	if (s->recvs_done == iters && s->sends_done == iters &&
	    s->sends_posted == iters)
		return 0;
	fprintf(stderr, "%s: counters wrong: %" PRIu64 " sends posted, %" PRIu64
		" completed, %" PRIu64 " receives, %" PRIu64 " expected\n",
		s->name, s->sends_posted, s->sends_done, s->recvs_done, iters);
	return -1;
}

static void print_setup(const struct ex_device *dev, const struct ex_options *opts,
			const struct pp_side *s)
{
	printf("%s: %s port %u, %s, %zu-byte messages, %u iterations, %s\n",
	       program.name, dev->name, dev->port,
	       ex_device_is_ethernet(dev) ? "Ethernet (RoCE)" : "InfiniBand",
	       opts->size, opts->iters,
	       opts->events ? "completion events" : "polling");
	printf("%s: CQE size %u bytes, BlueFlame %s\n", program.name,
	       s->rings.send_cq.cqe_size,
	       (s->rings.sq.flags & MLX4DV_SQ_RING_BLUEFLAME) ? "on" : "off (doorbells)");
}

/* Both sides in this process. */
static int one_process(struct ex_device *dev, const struct ex_options *opts,
		       struct ex_latency *lat)
{
	struct pp_side client, server;
	int ret = -1;

	memset(&client, 0, sizeof(client));
	memset(&server, 0, sizeof(server));
	if (setup_side(&client, "client", dev, opts, false) ||
	    setup_side(&server, "server", dev, opts, true) ||
	    post_initial_receives(&client) || post_initial_receives(&server) ||
	    ex_endpoint_connect_pair(&client.ep, &server.ep))
		goto out;
	print_setup(dev, opts, &client);
	printf("%s: client QPN 0x%06x, server QPN 0x%06x\n", program.name,
	       client.ep.qp->qp_num, server.ep.qp->qp_num);
	if (run(&client, &server, opts, lat) ||
	    check_counters(&client, opts->iters) ||
	    check_counters(&server, opts->iters))
		goto out;
	ex_latency_report(lat, "round trip", stdout);
	if (opts->events)
		printf("%s: %" PRIu64 " completion events (client %" PRIu64
		       ", server %" PRIu64 ")\n", program.name,
		       client.events + server.events, client.events, server.events);
	printf("%s: %" PRIu64 " of %" PRIu64 " sends handed over by BlueFlame\n", program.name,
	       client.bf_posts + server.bf_posts, client.sends_posted + server.sends_posted);
	printf("%s: checks passed: %u pings and %u pongs of %zu bytes verified, no error CQE\n",
	       program.name, opts->iters, opts->iters, opts->size);
	ret = 0;
out:
	teardown_side(&client);
	teardown_side(&server);
	return ret;
}

/* One side in this process, the peer in another (ibv_rc_pingpong's roles). */
static int two_processes(struct ex_device *dev, const struct ex_options *opts,
			 struct ex_latency *lat)
{
	bool server = opts->host == NULL;
	struct pp_side s;
	struct ex_endpoint *eps[1] = { &s.ep };
	struct ex_exchange x;
	int ret = -1;

	memset(&s, 0, sizeof(s));
	if (setup_side(&s, server ? "server" : "client", dev, opts, server) ||
	    post_initial_receives(&s) || ex_exchange_connect(&x, opts, eps, 1))
		goto out;
	print_setup(dev, opts, &s);
	ret = run_side(&s, opts, lat) || check_counters(&s, opts->iters) ? -1 : 0;
	/* neither side destroys its QP while the peer may still retransmit */
	if (ex_exchange_sync(&x, "done"))
		ret = -1;
	ex_exchange_close(&x);
	if (ret)
		goto out;
	if (!server)
		ex_latency_report(lat, "round trip", stdout);
	if (opts->events)
		printf("%s: %" PRIu64 " completion events\n", program.name, s.events);
	printf("%s: %" PRIu64 " of %" PRIu64 " sends handed over by BlueFlame\n", program.name,
	       s.bf_posts, s.sends_posted);
	printf("%s: checks passed: %u %s of %zu bytes verified, no error CQE\n",
	       program.name, opts->iters, server ? "pings" : "pongs", opts->size);
out:
	teardown_side(&s);
	return ret;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	struct ex_device dev;
	struct ex_latency lat = { 0 };
	int status = 1;

	status = ex_main_start(&program, argc, argv, &opts, &dev);
	if (status != EX_MAIN_RUN)
		return status;
	status = 1;	/* until every check passed */
	if (!ex_latency_init(&lat, opts.iters) &&
	    !(opts.two_process ? two_processes : one_process)(&dev, &opts, &lat))
		status = 0;
	ex_latency_free(&lat);
	return ex_device_finish(&dev, program.name, status);
}
