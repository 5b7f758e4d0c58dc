// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdma_write_bw - streaming RDMA WRITEs through the direct data path.
 *
 * A writer QP streams RDMA WRITEs into a target buffer of a second QP, in
 * the same process or, with ibv_rc_pingpong's conventions, in another
 * (the server, "-p PORT", holds the target; the client, "HOST", writes): --batch WQEs per doorbell, a completion requested
 * every --signal-every WQEs (and on the last one), optionally with the
 * payload inline in the WQE (--inline) and single-WQE posts through a
 * BlueFlame register (--bf, which asks libmlx4dv for a register of the
 * handle's own), or each batch built from a WQE template (--template:
 * the constant words prepared once, a few stores per WQE). With --verbs, the same workload then runs through
 * ibv_post_send()/ibv_poll_cq() on a second, identically configured pair
 * of QPs, and both rates are reported with their ratio.
 *
 * Each run ends by checking the whole target buffer (on the server, once
 * the client says it is written): every slot must hold
 * exactly the bytes of the last write aimed at it, and the guard bytes
 * after the last slot must be untouched.
 *
 * Exit status: 0 when both runs verified, 1 on any error, 2 on usage.
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
#include "exchange.h"
#include "latency.h"
#include "options.h"
#include "payload.h"
#include "watchdog.h"

static const struct ex_program program = {
	.name = "rdma_write_bw",
	.summary = "Streaming RDMA WRITE through the mlx4dv.h data path, optionally compared with ibv_post_send.",
	.extras = EX_OPT_BATCH | EX_OPT_INLINE | EX_OPT_BLUEFLAME |
		  EX_OPT_SIGNAL_EVERY | EX_OPT_VERBS | EX_OPT_PEER |
		  EX_OPT_TEMPLATE,
	.default_size = 64,
	.min_size = 1,
	.max_size = 1u << 20,
	.default_iters = 100000,
	.default_batch = 1,
};

/* Destination area cap: enough distinct slots to catch misplaced writes. */
#define TARGET_BYTES_MAX	(16u << 20)
#define GUARD_BYTES		64u
#define SQ_DEPTH_MIN		128u
#define CQ_POLL_BATCH		16
#define WARMUP_WRITES		10000u

/* One run of the workload: a writer, a target and the counters. */
struct bw_run {
	const char		*label;
	bool			direct;
	struct ex_endpoint	writer;
	struct ex_endpoint	target;
	struct mlx4dv_qp_rings	rings;		/* direct only: writer's handles */
	struct mlx4dv_sq_wqe_template tmpl;	/* direct --template: the WRITE */
	bool			rings_ready;
	size_t			size;
	uint32_t		window;		/* source slots = SQ capacity */
	uint32_t		target_slots;
	uint64_t		iters;		/* writes of the current pass */
	uint64_t		posted;
	uint64_t		completed;
	uint64_t		doorbells;
	uint64_t		bf_posts;
	double			seconds;
};

static uint64_t source_tag(uint32_t slot)
{
	return 0x5352430000000000ull | slot;
}

static uint8_t *source_slot(struct bw_run *r, uint32_t slot)
{
	return r->writer.buf + (size_t)slot * r->size;
}

static uint64_t target_addr(const struct bw_run *r, uint64_t i)
{
	return r->writer.remote.addr + (i % r->target_slots) * r->size;
}

/* Signaled: every signal_every-th WQE and the last one. */
static bool wants_completion(const struct bw_run *r, const struct ex_options *opts,
			     uint64_t i)
{
	return (i + 1) % opts->signal_every == 0 || i + 1 == r->iters;
}

/* ---- the workload through mlx4dv.h ---- */

/* The writer's handles; BlueFlame on request (a register of its own). */
static int init_direct(struct bw_run *r, const struct ex_options *opts)
{
	uint32_t flags = MLX4DV_RING_INIT_WRID |
			 (opts->blueflame ? MLX4DV_RING_INIT_BLUEFLAME : 0);
	int ret = mlx4dv_qp_rings_init(&r->rings, r->writer.qp, flags);

	if (ret) {
		fprintf(stderr, "%s: mlx4dv_qp_rings_init: %s\n", r->label, strerror(ret));
		return -1;
	}
	r->rings_ready = true;
	if (opts->blueflame && (r->rings.sq.flags & MLX4DV_SQ_RING_BLUEFLAME_FALLBACK))
		printf("  note: BlueFlame requested but not available on this device; plain doorbells are used\n");
	if (opts->blueflame && opts->batch > 1)
		printf("  note: BlueFlame carries single-WQE posts only; batches of %u use the doorbell\n",
		       opts->batch);
	if (r->window > r->rings.sq.max_post)
		r->window = r->rings.sq.max_post;
	if (opts->template_batch) {
		/* Everything but the addresses, wr_id and the completion
		 * request is the same in every WRITE of the run. */
		ret = mlx4dv_sq_wqe_template_set(&r->tmpl, &r->rings.sq,
						 IBV_WR_RDMA_WRITE,
						 r->writer.remote.rkey,
						 r->writer.mr->lkey,
						 (uint32_t)r->size, 0, 0);
		if (ret) {
			fprintf(stderr, "%s: mlx4dv_sq_wqe_template_set: %s\n",
				r->label, strerror(ret));
			return -1;
		}
	}
	return 0;
}

static int direct_post_one(struct bw_run *r, const struct ex_options *opts,
			   uint64_t i)
{
	struct mlx4dv_sq_ring *sq = &r->rings.sq;
	uint8_t *src = source_slot(r, (uint32_t)(i % r->window));
	uint32_t flags = wants_completion(r, opts, i) ? IBV_SEND_SIGNALED : 0;
	uint64_t raddr = target_addr(r, i);
	uint32_t rkey = r->writer.remote.rkey;
	struct ibv_sge sge = {
		.addr = (uintptr_t)src,
		.length = (uint32_t)r->size,
		.lkey = r->writer.mr->lkey,
	};

	if (opts->use_inline)
		return mlx4dv_sq_write_rdma_write_inline(sq, i, rkey, raddr,
						   src, (uint32_t)r->size, flags);
	return mlx4dv_sq_write_rdma_write(sq, i, rkey, raddr, &sge, 1, flags);
}

/* Up to n WRITEs from the template: room for n reserved once, then per
 * WQE the addresses, wr_id and the completion request; the batch's end
 * publishes them and one doorbell tells the device. Returns the WQEs
 * posted (0 when the ring has no room for n yet), or -1. */
static int direct_post_template_batch(struct bw_run *r,
				      const struct ex_options *opts, uint32_t n)
{
	struct mlx4dv_sq_ring *sq = &r->rings.sq;
	struct mlx4dv_sq_batch b;
	uint32_t k;
	int ret = mlx4dv_sq_batch_begin(sq, &b, &r->tmpl, n);

	if (ret == ENOMEM)	/* fewer than n free WQEBBs: complete some first */
		return 0;
	if (ret) {
		fprintf(stderr, "%s: mlx4dv_sq_batch_begin: %s\n", r->label, strerror(ret));
		return -1;
	}
	for (k = 0; k < n; k++) {
		uint64_t i = r->posted + k;
		uint8_t *src = source_slot(r, (uint32_t)(i % r->window));
		uint32_t flags = wants_completion(r, opts, i) ? IBV_SEND_SIGNALED : 0;

		ret = mlx4dv_sq_batch_write_flags(&b, i, target_addr(r, i),
						  (uintptr_t)src, flags);
		if (ret) {
			fprintf(stderr, "%s: batch write of write %" PRIu64 ": %s\n",
				r->label, i, strerror(ret));
			mlx4dv_sq_batch_end(sq, &b);
			return -1;
		}
	}
	k = mlx4dv_sq_batch_end(sq, &b);
	mlx4dv_sq_ring_doorbell(sq);
	r->doorbells++;
	r->posted += k;
	return (int)k;
}

/* Builds up to n WQEs, then one doorbell (or BlueFlame for a single WQE
 * when asked). Returns the WQEs posted, or -1. */
static int direct_post_batch(struct bw_run *r, const struct ex_options *opts,
			     uint32_t n)
{
	struct mlx4dv_sq_ring *sq = &r->rings.sq;
	uint32_t head_before = sq->head;
	uint32_t k;

	if (opts->template_batch)
		return direct_post_template_batch(r, opts, n);

	for (k = 0; k < n; k++) {
		int ret = direct_post_one(r, opts, r->posted + k);

		if (ret == ENOMEM)	/* ring full in WQEBBs: complete some first */
			break;
		if (ret) {
			fprintf(stderr, "%s: post of write %" PRIu64 ": %s\n", r->label,
				r->posted + k, strerror(ret));
			return -1;
		}
	}
	if (!k)
		return 0;
	if (opts->blueflame && k == 1 && mlx4dv_sq_ring_one(sq, head_before) == MLX4DV_SQ_HANDOVER_BLUEFLAME)
		r->bf_posts++;
	else if (!(opts->blueflame && k == 1))
		mlx4dv_sq_ring_doorbell(sq);
	r->doorbells++;
	r->posted += k;
	return (int)k;
}

static int direct_poll(struct bw_run *r)
{
	struct mlx4dv_cq_ring *cq = &r->rings.send_cq;
	struct mlx4_cqe *cqe;
	int n = 0;

	while (n < CQ_POLL_BATCH && (cqe = mlx4dv_cq_next(cq))) {
		uint64_t wr_id = UINT64_MAX;

		n++;
		if (mlx4dv_cqe_is_error(cqe)) {
			fprintf(stderr, "%s: error CQE: %s (syndrome 0x%02x, vendor 0x%02x, WQE %u)\n",
				r->label, ibv_wc_status_str(mlx4dv_cqe_wc_status(cqe)),
				mlx4dv_cqe_syndrome(cqe), mlx4dv_cqe_vendor_syndrome(cqe),
				mlx4dv_cqe_wqe_index(cqe));
			return -1;
		}
		if (!mlx4dv_cqe_is_send(cqe) ||
		    mlx4dv_cqe_wc_opcode(cqe) != IBV_WC_RDMA_WRITE ||
		    mlx4dv_sq_complete_cqe(&r->rings.sq, cqe, &wr_id) != 0 ||
		    wr_id < r->completed || wr_id >= r->posted) {
			fprintf(stderr, "%s: unexpected CQE (opcode 0x%x, WQE %u, write %" PRIu64 ")\n",
				r->label, mlx4dv_cqe_opcode(cqe), mlx4dv_cqe_wqe_index(cqe), wr_id);
			return -1;
		}
		r->completed = wr_id + 1;
	}
	if (n)
		mlx4dv_cq_update_ci(cq);
	return n;
}

static int stalled(const struct bw_run *r, struct ex_watchdog *wd)
{
	if (!ex_watchdog_stalled(wd, r->completed))
		return 0;
	fprintf(stderr, "%s: no completion for 5 s: %" PRIu64 " of %" PRIu64
		" posted writes completed\n", r->label, r->completed, r->posted);
	return 1;
}

static int direct_stream(struct bw_run *r, const struct ex_options *opts)
{
	struct ex_watchdog wd;

	ex_watchdog_start(&wd, r->completed);
	while (r->completed < r->iters) {
		uint64_t left = r->iters - r->posted;
		uint32_t n = (uint32_t)(left < opts->batch ? left : opts->batch);

		if (n && r->window - (r->posted - r->completed) >= n) {
			int posted = direct_post_batch(r, opts, n);

			if (posted < 0)
				return -1;
			if (posted > 0)
				continue;
		}
		if (direct_poll(r) < 0 || stalled(r, &wd))
			return -1;
	}
	return 0;
}

/* ---- the same workload through libibverbs ---- */

static int stalled(const struct bw_run *r, struct ex_watchdog *wd);

static int verbs_poll(struct bw_run *r)
{
	struct ibv_wc wc[CQ_POLL_BATCH];
	int n = ibv_poll_cq(r->writer.send_cq, CQ_POLL_BATCH, wc);

	if (n < 0) {
		fprintf(stderr, "verbs: ibv_poll_cq failed\n");
		return -1;
	}
	for (int k = 0; k < n; k++) {
		if (wc[k].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "verbs: completion error %s (vendor 0x%x) on write %" PRIu64 "\n",
				ibv_wc_status_str(wc[k].status), wc[k].vendor_err,
				wc[k].wr_id);
			return -1;
		}
		if (wc[k].opcode != IBV_WC_RDMA_WRITE || wc[k].wr_id < r->completed) {
			fprintf(stderr, "verbs: unexpected completion (opcode %d, write %" PRIu64 ")\n",
				wc[k].opcode, wc[k].wr_id);
			return -1;
		}
		r->completed = wc[k].wr_id + 1;
	}
	return n;
}

static int verbs_stream(struct bw_run *r, const struct ex_options *opts)
{
	struct ibv_send_wr *wrs = calloc(opts->batch, sizeof(*wrs));
	struct ibv_sge *sges = calloc(opts->batch, sizeof(*sges));
	struct ex_watchdog wd;
	int ret = -1;

	ex_watchdog_start(&wd, 0);
	if (!wrs || !sges) {
		fprintf(stderr, "verbs: out of memory\n");
		goto out;
	}
	while (r->completed < r->iters) {
		uint64_t room = r->window - (r->posted - r->completed);
		uint64_t left = r->iters - r->posted;
		uint32_t n = (uint32_t)(left < opts->batch ? left : opts->batch);
		struct ibv_send_wr *bad;

		if (n && room >= n) {
			for (uint32_t k = 0; k < n; k++) {
				uint64_t i = r->posted + k;
				uint32_t slot = (uint32_t)(i % r->window);

				sges[k] = (struct ibv_sge) {
					.addr = (uintptr_t)source_slot(r, slot),
					.length = (uint32_t)r->size,
					.lkey = r->writer.mr->lkey,
				};
				wrs[k] = (struct ibv_send_wr) {
					.wr_id = i,
					.next = k + 1 < n ? &wrs[k + 1] : NULL,
					.sg_list = &sges[k],
					.num_sge = 1,
					.opcode = IBV_WR_RDMA_WRITE,
					.send_flags = (wants_completion(r, opts, i) ? IBV_SEND_SIGNALED : 0) |
						      (opts->use_inline ? IBV_SEND_INLINE : 0),
					.wr.rdma = {
						.remote_addr = target_addr(r, i),
						.rkey = r->writer.remote.rkey,
					},
				};
			}
			ret = ibv_post_send(r->writer.qp, wrs, &bad);
			if (ret) {
				fprintf(stderr, "verbs: ibv_post_send: %s\n", strerror(ret));
				ret = -1;
				goto out;
			}
			r->posted += n;
			r->doorbells++;
			continue;
		}
		if (verbs_poll(r) < 0 || stalled(r, &wd))
			goto out;
	}
	ret = 0;
out:
	free(wrs);
	free(sges);
	return ret;
}

/* ---- setup, verification, report ---- */

/* Which endpoints of a run this process holds. */
enum bw_sides {
	SIDE_WRITER = 1,
	SIDE_TARGET = 2,
	SIDE_BOTH = SIDE_WRITER | SIDE_TARGET,
};

/* Sizes both processes work out alike from the options, then the
 * endpoints this process holds (not yet connected). */
static int create_run(struct bw_run *r, const char *label, bool direct,
		      struct ex_device *dev, const struct ex_options *opts, unsigned sides)
{
	/* Room for four batches, and for two completion intervals, so that
	 * a signaled WQE is always in flight before the ring fills. */
	uint32_t depth = opts->batch * 4 > opts->signal_every * 2 ?
			 opts->batch * 4 : opts->signal_every * 2;
	size_t max_slots = TARGET_BYTES_MAX / opts->size;
	struct ex_endpoint_config cfg = {
		.qp_type = IBV_QPT_RC,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.max_recv_wr = 1,
		.max_inline_data = opts->use_inline ? (uint32_t)opts->size : 0,
	};

	memset(r, 0, sizeof(*r));
	r->label = label;
	r->direct = direct;
	r->size = opts->size;
	if (depth < SQ_DEPTH_MIN)
		depth = SQ_DEPTH_MIN;
	if (depth > (uint32_t)dev->attr.max_qp_wr)
		depth = (uint32_t)dev->attr.max_qp_wr;
	cfg.max_send_wr = depth;
	cfg.send_cqe = depth;
	cfg.recv_cqe = 1;

	r->target_slots = (uint32_t)(opts->iters < max_slots ? opts->iters :
				     (max_slots ? max_slots : 1));
	/* Only the writer's buffer up to the window is a source. */
	r->window = depth;
	/* The writer's buffer holds one source slot per WQE in flight. */
	cfg.buf_size = (size_t)depth * opts->size;
	if ((sides & SIDE_WRITER) && ex_endpoint_create(&r->writer, dev, &cfg)) {
		if (opts->use_inline)
			fprintf(stderr, "%s: with --inline the WQE must hold %zu bytes; the device may allow fewer (try a smaller -s)\n",
				program.name, opts->size);
		return -1;
	}
	cfg.buf_size = (size_t)r->target_slots * opts->size + GUARD_BYTES;
	cfg.access = IBV_ACCESS_REMOTE_WRITE;
	cfg.max_inline_data = 0;
	if ((sides & SIDE_TARGET) && ex_endpoint_create(&r->target, dev, &cfg))
		return -1;
	return 0;
}

/* After the writer is connected: its handles, the checks of the options
 * against the queue, its source slots. */
static int prepare_writer(struct bw_run *r, const struct ex_options *opts)
{
	if (r->direct && init_direct(r, opts))
		return -1;
	if (opts->signal_every > r->window / 2) {
		fprintf(stderr, "%s: --signal-every %u exceeds half the send queue (%u WQEs)\n",
			program.name, opts->signal_every, r->window);
		return -1;
	}
	if (opts->template_batch && (opts->use_inline || opts->blueflame)) {
		fprintf(stderr, "%s: --template builds gather WQEs rung by the doorbell: "
			"not with --inline or --bf\n", program.name);
		return -1;
	}
	if (opts->batch > r->window) {
		fprintf(stderr, "%s: --batch %u exceeds the send queue (%u WQEs)\n",
			program.name, opts->batch, r->window);
		return -1;
	}
	for (uint32_t s = 0; s < r->window; s++)
		ex_payload_fill(source_slot(r, s), r->size, source_tag(s));
	return 0;
}

/* Both endpoints in this process. */
static int setup_run(struct bw_run *r, const char *label, bool direct,
		     struct ex_device *dev, const struct ex_options *opts)
{
	if (create_run(r, label, direct, dev, opts, SIDE_BOTH) ||
	    ex_endpoint_connect_pair(&r->writer, &r->target))
		return -1;
	return prepare_writer(r, opts);
}

static void teardown_run(struct bw_run *r)
{
	if (r->rings_ready)
		mlx4dv_qp_rings_release(&r->rings);
	r->rings_ready = false;
	ex_endpoint_destroy(&r->writer);
	ex_endpoint_destroy(&r->target);
}

/* Every target slot holds the last write aimed at it; the guard is zero. */
static int verify_target_bytes(struct bw_run *r, uint64_t iters)
{
	const uint8_t *guard = r->target.buf + (size_t)r->target_slots * r->size;
	char what[96];

	for (uint32_t s = 0; s < r->target_slots; s++) {
		uint64_t last = s + (iters - 1 - s) / r->target_slots * r->target_slots;
		uint32_t src = (uint32_t)(last % r->window);

		snprintf(what, sizeof(what), "%s: target slot %u (write %" PRIu64 ")",
			 r->label, s, last);
		if (!ex_payload_check(r->target.buf + (size_t)s * r->size, r->size,
				      source_tag(src), what))
			return -1;
	}
	for (uint32_t k = 0; k < GUARD_BYTES; k++) {
		if (guard[k]) {
			fprintf(stderr, "%s: byte %u after the last target slot was written (0x%02x)\n",
				r->label, k, guard[k]);
			return -1;
		}
	}
	return 0;
}

/* Every write posted completed. */
static int verify_counts(const struct bw_run *r, uint64_t iters)
{
	if (r->posted != iters || r->completed != iters) {
		fprintf(stderr, "%s: %" PRIu64 " writes posted, %" PRIu64
			" completed, %" PRIu64 " expected\n", r->label, r->posted,
			r->completed, iters);
		return -1;
	}
	return 0;
}

/* Writes iters times, from a fresh count; 0 or -1. */
static int stream(struct bw_run *r, const struct ex_options *opts, uint64_t iters)
{
	r->iters = iters;
	r->posted = r->completed = r->doorbells = r->bf_posts = 0;
	return r->direct ? direct_stream(r, opts) : verbs_stream(r, opts);
}

/*
 * An untimed warm-up pass (the device and the caches see the same QPs
 * and buffers first, whichever path runs first), then the timed pass,
 * which rewrites every target slot, then the check of the target.
 */
static int stream_timed(struct bw_run *r, const struct ex_options *opts)
{
	uint64_t warmup = opts->iters < WARMUP_WRITES ? opts->iters : WARMUP_WRITES;
	uint64_t t0;

	if (stream(r, opts, warmup))
		return -1;
	t0 = ex_now_ns();
	if (stream(r, opts, opts->iters))
		return -1;
	r->seconds = (double)(ex_now_ns() - t0) / 1e9;
	return verify_counts(r, opts->iters);
}

static int run_one(struct bw_run *r, const struct ex_options *opts)
{
	return stream_timed(r, opts) || verify_target_bytes(r, opts->iters) ? -1 : 0;
}

static double ops_per_second(const struct bw_run *r)
{
	return r->seconds > 0 ? (double)r->completed / r->seconds : 0;
}

static void report(const struct bw_run *r, const char *path)
{
	double ops = ops_per_second(r);

	char posts[64];

	/* libmlx4 decides about BlueFlame inside ibv_post_send() itself. */
	if (r->direct)
		snprintf(posts, sizeof(posts), "%" PRIu64 " doorbells (%" PRIu64 " by BlueFlame)",
			 r->doorbells, r->bf_posts);
	else
		snprintf(posts, sizeof(posts), "%" PRIu64 " ibv_post_send calls", r->doorbells);
	printf("  %-7s %-28s %12.0f writes/s %10.2f MB/s  %9.3f ms  %s  target verified (%u slots)\n",
	       r->label, path, ops, ops * (double)r->size / 1e6, r->seconds * 1e3, posts,
	       r->target_slots);
}

/* One process: both endpoints of each run here. */
static int one_process(struct ex_device *dev, const struct ex_options *opts,
		       struct bw_run *direct, struct bw_run *verbs)
{
	if (setup_run(direct, "direct", true, dev, opts) || run_one(direct, opts))
		return -1;
	report(direct, "(mlx4dv.h)");
	if (opts->verbs) {
		if (setup_run(verbs, "verbs", false, dev, opts) || run_one(verbs, opts))
			return -1;
		report(verbs, "(ibv_post_send/ibv_poll_cq)");
		if (ops_per_second(verbs) > 0)
			printf("  direct/verbs: %.2fx the write rate\n",
			       ops_per_second(direct) / ops_per_second(verbs));
	}
	return 0;
}

/* The writer streams a run, then tells the target, which checks it and
 * answers only when every slot held the right bytes: a target that found
 * a wrong one closes the exchange, and the writer's wait for "verified"
 * fails, so neither side reports a run that was not checked. */
static int two_process_run(struct bw_run *r, const char *path, struct ex_exchange *x,
			   const struct ex_options *opts, bool writer)
{
	if (writer) {
		if (stream_timed(r, opts) || ex_exchange_sync(x, "written") ||
		    ex_exchange_sync(x, "verified"))
			return -1;
		report(r, path);
		return 0;
	}
	if (ex_exchange_sync(x, "written") || verify_target_bytes(r, opts->iters) ||
	    ex_exchange_sync(x, "verified"))
		return -1;
	printf("  %-7s target verified: %u slots hold the last of %u writes\n", r->label,
	       r->target_slots, opts->iters);
	return 0;
}

/* Two processes (ibv_rc_pingpong's roles): the client writes into the
 * server's target buffer, whose address and rkey the exchange carried. */
static int two_processes(struct ex_device *dev, const struct ex_options *opts,
			 struct bw_run *direct, struct bw_run *verbs)
{
	bool writer = opts->host != NULL;
	unsigned side = writer ? SIDE_WRITER : SIDE_TARGET;
	struct ex_endpoint *eps[2];
	struct ex_exchange x;
	size_t n = 0;
	int ret;

	if (create_run(direct, "direct", true, dev, opts, side) ||
	    (opts->verbs && create_run(verbs, "verbs", false, dev, opts, side)))
		return -1;
	eps[n++] = writer ? &direct->writer : &direct->target;
	if (opts->verbs)
		eps[n++] = writer ? &verbs->writer : &verbs->target;
	if (ex_exchange_connect(&x, opts, eps, n))
		return -1;
	ret = writer && (prepare_writer(direct, opts) ||
			 (opts->verbs && prepare_writer(verbs, opts))) ? -1 : 0;
	if (!ret)
		ret = two_process_run(direct, "(mlx4dv.h)", &x, opts, writer);
	if (!ret && opts->verbs)
		ret = two_process_run(verbs, "(ibv_post_send/ibv_poll_cq)", &x, opts, writer);
	if (!ret && writer && opts->verbs && ops_per_second(verbs) > 0)
		printf("  direct/verbs: %.2fx the write rate\n",
		       ops_per_second(direct) / ops_per_second(verbs));
	ex_exchange_close(&x);
	return ret;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	struct ex_device dev;
	struct bw_run direct, verbs;
	int status = 1;

	status = ex_main_start(&program, argc, argv, &opts, &dev);
	if (status != EX_MAIN_RUN)
		return status;
	status = 1;	/* until every check passed */
	if (!opts.signal_every)
		opts.signal_every = opts.batch;
	memset(&direct, 0, sizeof(direct));
	memset(&verbs, 0, sizeof(verbs));

	printf("%s: %s port %u, %zu-byte writes, %u writes, batch %u, completion every %u, %s, BlueFlame %s%s\n",
	       program.name, dev.name, dev.port, opts.size, opts.iters, opts.batch,
	       opts.signal_every, opts.use_inline ? "inline" : opts.template_batch ? "gather, from a template" : "gather",
	       opts.blueflame ? "requested" : "off",
	       !opts.two_process ? "" : opts.host ? ", writer (client)" : ", target (server)");
	if ((opts.two_process ? two_processes : one_process)(&dev, &opts, &direct, &verbs))
		goto out;
	printf("%s: checks passed: %u writes per run completed without error, target buffers verified\n",
	       program.name, opts.iters);
	status = 0;
out:
	teardown_run(&direct);
	teardown_run(&verbs);
	return ex_device_finish(&dev, program.name, status);
}
