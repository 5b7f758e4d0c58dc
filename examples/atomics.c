// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * atomics - RDMA atomics through the direct data path, checked exactly.
 *
 * A requester QP runs fetch-and-add and compare-and-swap operations on a
 * few 64-bit counters in a responder's buffer (both QPs in this process).
 * The program knows what every operation must return, because operations
 * of one QP execute in order: each fetch-and-add returns the counter's
 * running value, each compare-and-swap returns the value it compared
 * against, and every fourth compare-and-swap uses a wrong compare value
 * and must leave the counter alone. At the end the counters must hold
 * exactly the computed values.
 *
 * Byte order: ConnectX-3 adapters execute atomics on big-endian 64-bit
 * values and return the old value big-endian (ibv_query_device() reports
 * IBV_ATOMIC_HCA: atomic only against other operations of the adapter,
 * and the verbs interface does not say the byte order). The program
 * learns both orders first with two fetch-and-adds of 1 on a zeroed probe
 * counter, reports them, and then checks every value in those orders.
 *
 * Exit status: 0 when every result and counter is exact, 1 on any error,
 * 2 on usage.
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
#include "watchdog.h"

static const struct ex_program program = {
	.name = "atomics",
	.summary = "RDMA fetch-and-add and compare-and-swap through the mlx4dv.h data path, results checked exactly.",
	.extras = EX_OPT_MASKED,
	.default_size = 8,
	.min_size = 8,
	.max_size = 8,
	.default_iters = 1000,
};

#define COUNTERS		4
#define SQ_DEPTH		64
#define CQ_BATCH		16
#define WRONG_COMPARE_EVERY	4

enum atomic_kind { KIND_FAA, KIND_CAS, KIND_MASKED_FAA, KIND_MASKED_CAS };

/* Masked fetch-and-add: four 16-bit fields (a set bit ends a field: no
 * carry crosses it). Masked compare-and-swap: compare the low half,
 * replace two 16-bit fields. */
#define MASKED_FAA_FIELD_ENDS	0x8000800080008000ull
#define MASKED_CAS_COMPARE_MASK	0x00000000ffffffffull
#define MASKED_CAS_SWAP_MASK	0xffff0000ffff0000ull

/* One planned operation and what it must return. */
struct atomic_op {
	enum atomic_kind	kind;
	uint32_t		counter;
	uint64_t		operand;	/* add, or swap */
	uint64_t		compare;
	uint64_t		expect_old;
	uint32_t		mlx4_opcode;	/* MLX4_OPCODE_*, as the CQE says */
};

struct atomic_test {
	struct ex_device	*dev;
	struct ex_endpoint	requester;
	struct ex_endpoint	responder;
	struct mlx4dv_qp_rings	rings;
	bool			rings_ready;
	struct atomic_op	*ops;
	uint64_t		nops;
	bool			masked;		/* --masked: a third phase */
	uint64_t		posted;
	uint64_t		completed;
	uint32_t		in_flight_max;
	uint64_t		model[COUNTERS];	/* what the counters hold */
	uint64_t		cas_failed_as_planned;
	bool			memory_be;	/* counters big-endian in memory */
	bool			result_be;	/* old values returned big-endian */
};

#define PROBE_COUNTER	COUNTERS	/* the slot after the counters */

static uint64_t load_be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned b = 0; b < 8; b++)
		v = v << 8 | p[b];
	return v;
}

static void store_be64(uint8_t *p, uint64_t v)
{
	for (unsigned b = 0; b < 8; b++)
		p[b] = (uint8_t)(v >> (56 - 8 * b));
}

static uint64_t load_host64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void store_host64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t load_counter(const struct atomic_test *t, const uint8_t *p)
{
	return t->memory_be ? load_be64(p) : load_host64(p);
}

static void store_counter(const struct atomic_test *t, uint8_t *p, uint64_t v)
{
	if (t->memory_be)
		store_be64(p, v);
	else
		store_host64(p, v);
}

static uint64_t load_result(const struct atomic_test *t, const uint8_t *p)
{
	return t->result_be ? load_be64(p) : load_host64(p);
}

static uint8_t *counter_at(struct atomic_test *t, uint32_t c)
{
	return t->responder.buf + 8 * (size_t)c;
}

static uint8_t *result_at(struct atomic_test *t, uint64_t i)
{
	return t->requester.buf + 8 * (size_t)i;
}

/* Distinct start values with carries waiting to happen in every byte. */
static uint64_t initial_value(uint32_t c)
{
	return 0x00ffffffffffff00ull + ((uint64_t)c << 40) + c;
}

/* Addition that stops every carry at the bits set in field_ends. */
static uint64_t add_in_fields(uint64_t a, uint64_t b, uint64_t field_ends)
{
	uint64_t sum = 0, carry = 0;

	for (unsigned bit = 0; bit < 64; bit++) {
		uint64_t s = (a >> bit & 1) + (b >> bit & 1) + carry;

		sum |= (s & 1) << bit;
		carry = (field_ends >> bit & 1) ? 0 : s >> 1;
	}
	return sum;
}

static void plan_faa(struct atomic_op *op, uint64_t *v, uint64_t i)
{
	op->kind = KIND_FAA;
	op->mlx4_opcode = MLX4_OPCODE_ATOMIC_FA;
	op->operand = (i * 0x9e3779b97f4a7c15ull) >> 16 | 1;
	*v += op->operand;
}

/* Every WRONG_COMPARE_EVERY-th compare does not match and must not swap. */
static void plan_cas(struct atomic_op *op, uint64_t *v, uint64_t i)
{
	op->kind = KIND_CAS;
	op->mlx4_opcode = MLX4_OPCODE_ATOMIC_CS;
	op->operand = *v ^ (0x5a5a5a5a00000000ull | i);
	if (i % WRONG_COMPARE_EVERY == 0) {
		op->compare = *v + 1;
	} else {
		op->compare = *v;
		*v = op->operand;
	}
}

static void plan_masked(struct atomic_op *op, uint64_t *v, uint64_t i)
{
	if (i % 2) {
		op->kind = KIND_MASKED_FAA;
		op->mlx4_opcode = MLX4_OPCODE_MASKED_ATOMIC_FA;
		op->operand = 0x7fff00010000ffffull + i;	/* carries at every field */
		*v = add_in_fields(*v, op->operand, MASKED_FAA_FIELD_ENDS);
		return;
	}
	op->kind = KIND_MASKED_CAS;
	op->mlx4_opcode = MLX4_OPCODE_MASKED_ATOMIC_CS;
	op->operand = ~*v ^ i;			/* differs in every field */
	/* the high half of compare is noise the mask must hide */
	op->compare = (*v & MASKED_CAS_COMPARE_MASK) | 0xdead000000000000ull;
	if (i % (2 * WRONG_COMPARE_EVERY) == 0)
		op->compare ^= 1;		/* must not swap */
	else
		*v = (*v & ~MASKED_CAS_SWAP_MASK) | (op->operand & MASKED_CAS_SWAP_MASK);
}

/*
 * The plan: fetch-and-add, then compare-and-swap, then (--masked) masked
 * compare-and-swap and masked fetch-and-add in turn, in equal parts. The
 * model follows each operation.
 */
static void plan(struct atomic_test *t)
{
	uint64_t phases = t->masked ? 3 : 2;
	uint64_t part = t->nops / phases;

	for (uint32_t c = 0; c < COUNTERS; c++)
		t->model[c] = initial_value(c);
	for (uint64_t i = 0; i < t->nops; i++) {
		struct atomic_op *op = &t->ops[i];
		uint64_t *v;

		op->counter = (uint32_t)(i % COUNTERS);
		v = &t->model[op->counter];
		op->expect_old = *v;
		if (i < part)
			plan_faa(op, v, i);
		else if (i < 2 * part || !t->masked)
			plan_cas(op, v, i);
		else
			plan_masked(op, v, i);
	}
}

/*
 * A masked atomic has no one-call post: built from the header's segment
 * builders. ctrl | raddr | masked CAS segment (32 bytes) or atomic
 * segment (16 bytes, masked FAA) | one data segment for the old value.
 * The WQE may span two WQEBBs and wrap past the ring end.
 */
static int post_masked(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
		       const struct atomic_op *op, const struct ibv_sge *result,
		       uint32_t rkey, uint64_t raddr)
{
	bool cas = op->kind == KIND_MASKED_CAS;
	uint32_t fixed = MLX4DV_WQE_CTRL_DS + MLX4DV_WQE_RADDR_DS +
			 (cas ? MLX4DV_WQE_MASKED_ATOMIC_DS : MLX4DV_WQE_ATOMIC_DS);
	uint32_t ds = fixed + MLX4DV_WQE_DATA_DS;
	struct mlx4_wqe_ctrl_seg *ctrl;
	uint8_t *wqe;

	if (mlx4dv_sq_ds_to_wqebbs(sq, ds) > mlx4dv_sq_room(sq))
		return ENOMEM;
	wqe = mlx4dv_sq_wqebb(sq, sq->head);
	ctrl = (struct mlx4_wqe_ctrl_seg *)wqe;
	mlx4dv_wqe_set_raddr_seg((struct mlx4_wqe_raddr_seg *)(wqe + 16), raddr, rkey);
	if (cas)
		mlx4dv_wqe_set_masked_atomic_cas_seg(
			(struct mlx4dv_wqe_masked_atomic_seg *)(wqe + 32),
			op->compare, MASKED_CAS_COMPARE_MASK,
			op->operand, MASKED_CAS_SWAP_MASK);
	else
		mlx4dv_wqe_set_masked_atomic_faa_seg(
			(struct mlx4_wqe_atomic_seg *)(wqe + 32),
			op->operand, MASKED_FAA_FIELD_ENDS);
	mlx4dv_sq_set_data_segs(sq, mlx4dv_sq_wrap(sq, wqe + 16 * fixed), result, 1);
	mlx4dv_wqe_set_ctrl(ctrl, ds, MLX4_WQE_CTRL_CQ_UPDATE, 0);
	mlx4dv_sq_wqe_finish(sq, wr_id, ctrl, op->mlx4_opcode);
	return 0;
}

static int post_op(struct atomic_test *t, uint64_t i)
{
	const struct atomic_op *op = &t->ops[i];
	struct mlx4dv_sq_ring *sq = &t->rings.sq;
	struct ibv_sge result = {
		.addr = (uintptr_t)result_at(t, i),
		.length = 8,
		.lkey = t->requester.mr->lkey,
	};
	uint64_t raddr = t->requester.remote.addr + 8 * (uint64_t)op->counter;
	uint32_t rkey = t->requester.remote.rkey;
	int ret;

	switch (op->kind) {
	case KIND_FAA:
		ret = mlx4dv_sq_write_faa(sq, i, rkey, raddr, op->operand, &result,
					 IBV_SEND_SIGNALED);
		break;
	case KIND_CAS:
		ret = mlx4dv_sq_write_cas(sq, i, rkey, raddr, op->compare, op->operand,
					 &result, IBV_SEND_SIGNALED);
		break;
	default:
		ret = post_masked(sq, i, op, &result, rkey, raddr);
		break;
	}
	if (ret) {
		fprintf(stderr, "post of atomic %" PRIu64 ": %s\n", i, strerror(ret));
		return -1;
	}
	return 0;
}

static const char *kind_name(enum atomic_kind kind)
{
	switch (kind) {
	case KIND_FAA:		return "fetch-and-add";
	case KIND_CAS:		return "compare-and-swap";
	case KIND_MASKED_FAA:	return "masked fetch-and-add";
	default:		return "masked compare-and-swap";
	}
}

/* The returned old value of operation i, checked. */
static int check_result(struct atomic_test *t, uint64_t i)
{
	const struct atomic_op *op = &t->ops[i];
	uint64_t old = load_result(t, result_at(t, i));

	if (old != op->expect_old) {
		fprintf(stderr, "%s %" PRIu64 " on counter %u returned 0x%016" PRIx64
			", expected 0x%016" PRIx64 "\n", kind_name(op->kind),
			i, op->counter, old, op->expect_old);
		return -1;
	}
	if ((op->kind == KIND_CAS && old != op->compare) ||
	    (op->kind == KIND_MASKED_CAS &&
	     ((old ^ op->compare) & MASKED_CAS_COMPARE_MASK)))
		t->cas_failed_as_planned++;
	return 0;
}

static int poll_ops(struct atomic_test *t)
{
	struct mlx4dv_cq_ring *cq = &t->rings.send_cq;
	struct mlx4_cqe *cqe;
	int n = 0, ret = 0;

	while (!ret && n < CQ_BATCH && (cqe = mlx4dv_cq_next(cq))) {
		uint64_t wr_id = UINT64_MAX;

		n++;
		if (mlx4dv_cqe_is_error(cqe)) {
			fprintf(stderr, "error CQE: %s (syndrome 0x%02x, vendor 0x%02x, WQE %u)\n",
				ibv_wc_status_str(mlx4dv_cqe_wc_status(cqe)),
				mlx4dv_cqe_syndrome(cqe), mlx4dv_cqe_vendor_syndrome(cqe),
				mlx4dv_cqe_wqe_index(cqe));
			ret = -1;
			break;
		}
		if (!mlx4dv_cqe_is_send(cqe) ||
		    mlx4dv_sq_complete_cqe(&t->rings.sq, cqe, &wr_id) != 0 ||
		    wr_id != t->completed) {
			fprintf(stderr, "unexpected CQE (WQE %u, operation %" PRIu64
				", expected %" PRIu64 ")\n", mlx4dv_cqe_wqe_index(cqe),
				wr_id, t->completed);
			ret = -1;
			break;
		}
		if (mlx4dv_cqe_opcode(cqe) != t->ops[wr_id].mlx4_opcode) {
			fprintf(stderr, "operation %" PRIu64 " completed as opcode 0x%x\n",
				wr_id, mlx4dv_cqe_opcode(cqe));
			ret = -1;
			break;
		}
		ret = check_result(t, wr_id);
		t->completed++;
	}
	if (n)
		mlx4dv_cq_update_ci(cq);
	return ret ? -1 : n;
}

static int run(struct atomic_test *t)
{
	struct ex_watchdog wd;

	ex_watchdog_start(&wd, 0);
	while (t->completed < t->nops) {
		uint32_t head_before = t->rings.sq.head;
		uint32_t k = 0;

		while (t->posted < t->nops && t->posted - t->completed < t->in_flight_max) {
			if (post_op(t, t->posted))
				return -1;
			t->posted++;
			k++;
		}
		if (k)
			(void)mlx4dv_sq_ring_one(&t->rings.sq, head_before);
		if (poll_ops(t) < 0)
			return -1;
		if (ex_watchdog_stalled(&wd, t->completed)) {
			fprintf(stderr, "no completion for 5 s: %" PRIu64 " of %" PRIu64
				" posted operations completed\n", t->completed, t->posted);
			return -1;
		}
	}
	return 0;
}

static int check_counters(struct atomic_test *t)
{
	for (uint32_t c = 0; c < COUNTERS; c++) {
		uint64_t v = load_counter(t, counter_at(t, c));

		if (v != t->model[c]) {
			fprintf(stderr, "counter %u holds 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n",
				c, v, t->model[c]);
			return -1;
		}
	}
	return 0;
}

static int setup(struct atomic_test *t)
{
	struct ex_endpoint_config cfg = {
		.qp_type = IBV_QPT_RC,
		.max_send_wr = SQ_DEPTH,
		.max_recv_wr = 1,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.send_cqe = SQ_DEPTH,
		.recv_cqe = 1,
		.buf_size = 8 * (t->nops + 2),	/* results, then the probe's */
		.max_rd_atomic = 16,
	};
	int ret;

	if (t->dev->attr.atomic_cap == IBV_ATOMIC_NONE) {
		fprintf(stderr, "%s: %s does not support atomic operations\n",
			program.name, t->dev->name);
		return -1;
	}
	if (ex_endpoint_create(&t->requester, t->dev, &cfg))
		return -1;
	cfg.buf_size = 8 * (COUNTERS + 1);
	cfg.access = IBV_ACCESS_REMOTE_ATOMIC;
	if (ex_endpoint_create(&t->responder, t->dev, &cfg) ||
	    ex_endpoint_connect_pair(&t->requester, &t->responder))
		return -1;
	ret = mlx4dv_qp_rings_init(&t->rings, t->requester.qp,
				   MLX4DV_RING_INIT_WRID | MLX4DV_RING_INIT_BLUEFLAME);
	if (ret) {
		fprintf(stderr, "mlx4dv_qp_rings_init: %s\n", strerror(ret));
		return -1;
	}
	t->rings_ready = true;
	/* No more atomics in flight than the responder accepts. */
	t->in_flight_max = t->requester.max_rd_atomic;
	return 0;
}

/* One fetch-and-add of 1 on the probe counter, waited for. */
static int probe_add_one(struct atomic_test *t, uint64_t result_index)
{
	struct mlx4dv_sq_ring *sq = &t->rings.sq;
	struct ibv_sge result = {
		.addr = (uintptr_t)result_at(t, result_index),
		.length = 8,
		.lkey = t->requester.mr->lkey,
	};
	uint64_t start = ex_now_ns();
	struct mlx4_cqe *cqe;
	int ret;

	ret = mlx4dv_sq_write_faa(sq, 0, t->requester.remote.rkey, t->requester.remote.addr + 8 * PROBE_COUNTER,
				 1, &result, IBV_SEND_SIGNALED);
	if (ret) {
		fprintf(stderr, "probe: mlx4dv_sq_write_faa: %s\n", strerror(ret));
		return -1;
	}
	mlx4dv_sq_ring_doorbell(sq);
	while (!(cqe = mlx4dv_cq_next(&t->rings.send_cq))) {
		if (ex_now_ns() - start > EX_STALL_TIMEOUT_NS) {
			fprintf(stderr, "probe: no completion within 5 s\n");
			return -1;
		}
	}
	if (mlx4dv_cqe_is_error(cqe) || mlx4dv_sq_complete_cqe(sq, cqe, NULL) != 0) {
		fprintf(stderr, "probe: fetch-and-add failed: %s (syndrome 0x%02x)\n",
			ibv_wc_status_str(mlx4dv_cqe_wc_status(cqe)), mlx4dv_cqe_syndrome(cqe));
		return -1;
	}
	mlx4dv_cq_update_ci(&t->rings.send_cq);
	return 0;
}

/* Which byte order the adapter uses for the counter and the result. */
static int probe_byte_order(struct atomic_test *t)
{
	uint8_t *probe = counter_at(t, PROBE_COUNTER);
	const uint8_t *second = result_at(t, t->nops + 1);

	memset(probe, 0, 8);
	if (probe_add_one(t, t->nops) || probe_add_one(t, t->nops + 1))
		return -1;
	if (load_be64(probe) == 2)
		t->memory_be = true;
	else if (load_host64(probe) != 2)
		goto garbled;
	if (load_be64(second) == 1)
		t->result_be = true;
	else if (load_host64(second) != 1)
		goto garbled;
	if (load_host64(result_at(t, t->nops)) != 0)
		goto garbled;
	for (uint32_t c = 0; c < COUNTERS; c++)
		store_counter(t, counter_at(t, c), initial_value(c));
	return 0;
garbled:
	fprintf(stderr, "probe: two fetch-and-adds of 1 on zero left counter bytes %016" PRIx64
		" and returned %016" PRIx64 ", %016" PRIx64 " (as big-endian): no byte order explains them\n",
		load_be64(probe), load_be64(result_at(t, t->nops)), load_be64(second));
	return -1;
}

static void teardown(struct atomic_test *t)
{
	if (t->rings_ready)
		mlx4dv_qp_rings_release(&t->rings);
	ex_endpoint_destroy(&t->requester);
	ex_endpoint_destroy(&t->responder);
	free(t->ops);
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	struct ex_device dev;
	struct atomic_test t;
	int status = 1;

	status = ex_main_start(&program, argc, argv, &opts, &dev);
	if (status != EX_MAIN_RUN)
		return status;
	status = 1;	/* until every check passed */
	memset(&t, 0, sizeof(t));
	t.dev = &dev;
	t.masked = opts.masked;
	t.nops = opts.iters < 4 ? 4 : opts.iters;
	t.ops = calloc(t.nops, sizeof(*t.ops));
	if (!t.ops) {
		fprintf(stderr, "%s: out of memory\n", program.name);
		goto out;
	}
	plan(&t);
	if (setup(&t) || probe_byte_order(&t))
		goto out;
	printf("%s: %s port %u, %" PRIu64 " operations on %u counters (fetch-and-add, compare-and-swap%s), up to %u in flight\n",
	       program.name, dev.name, dev.port, t.nops, COUNTERS,
	       t.masked ? ", masked compare-and-swap and fetch-and-add" : "",
	       t.in_flight_max);
	printf("%s: the adapter keeps counters %s in memory and returns old values %s\n",
	       program.name, t.memory_be ? "big-endian" : "in host order",
	       t.result_be ? "big-endian" : "in host order");
	if (run(&t) || check_counters(&t))
		goto out;
	for (uint32_t c = 0; c < COUNTERS; c++)
		printf("%s: counter %u = 0x%016" PRIx64 " (as computed)\n", program.name,
		       c, t.model[c]);
	printf("%s: checks passed: %" PRIu64 " results exact, %" PRIu64
	       " compare-and-swap left the counter alone as planned, counters exact\n",
	       program.name, t.nops, t.cas_failed_as_planned);
	status = 0;
out:
	teardown(&t);
	return ex_device_finish(&dev, program.name, status);
}
