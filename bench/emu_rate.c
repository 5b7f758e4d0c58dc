// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * emu_rate: how many WQEs per second the software ConnectX-3's engine
 * executes.  Work is queued while the engine is paused (libmlx4's
 * ibv_post_send into several RC QPs, one signaled WQE at the end of each
 * QP's batch), then the engine is resumed and timed until the last CQE
 * arrives, so the figure is the device's alone, not the poster's.
 *
 *   mlx4emu-run emu_rate [--wqes N] [--qps N] [--size BYTES] [--smoke]
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/verbs.h>
#pragma GCC diagnostic pop

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "rc_connect.h"

#define BATCH 2048		/* WQEs per QP per round */

struct conn {
	struct ibv_qp *qp, *peer;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_mr *mr;
static uint8_t *buf;
static struct mlx4emu_ctl ctl;

static void die(const char *what)
{
	fprintf(stderr, "emu_rate: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct ibv_qp *make_qp(void)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = BATCH;
	a.cap.max_recv_wr = BATCH;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = 64;
	qp = ibv_create_qp(pd, &a);
	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void connect_qp(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_port_attr pa;
	struct bench_rc_path path = {
		.mtu = IBV_MTU_4096,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE,
	};
	const char *step;
	int err;

	if (ibv_query_port(ctx, 1, &pa))
		die("ibv_query_port");
	path.ah.port_num = 1;
	path.ah.dlid = pa.lid;
	if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		path.ah.is_global = 1;
		if (ibv_query_gid(ctx, 1, 0, &path.ah.grh.dgid))
			die("ibv_query_gid");
	}
	err = bench_rc_connect(qp, dest, &path, &step);
	if (err) {
		errno = err;
		die(step);
	}
}

static void post_batch(struct conn *c, enum ibv_wr_opcode op, uint32_t size, int inl)
{
	struct ibv_sge sge = { (uintptr_t)buf, size, mr->lkey };
	struct ibv_send_wr wr[64], *bad;

	for (int done = 0; done < BATCH; done += 64) {
		memset(wr, 0, sizeof(wr));
		for (int i = 0; i < 64; i++) {
			wr[i].sg_list = &sge;
			wr[i].num_sge = 1;
			wr[i].opcode = op;
			wr[i].send_flags = (inl ? IBV_SEND_INLINE : 0) |
				(done + i == BATCH - 1 ? IBV_SEND_SIGNALED : 0);
			wr[i].wr.rdma.remote_addr = (uintptr_t)buf + 65536;
			wr[i].wr.rdma.rkey = mr->rkey;
			wr[i].next = i < 63 ? &wr[i + 1] : NULL;
		}
		if (ibv_post_send(c->qp, wr, &bad))
			die("ibv_post_send");
	}
}

static void post_recvs(struct conn *c)
{
	struct ibv_sge sge = { (uintptr_t)buf + 131072, 4096, mr->lkey };
	struct ibv_recv_wr wr[64], *bad;

	for (int done = 0; done < BATCH; done += 64) {
		memset(wr, 0, sizeof(wr));
		for (int i = 0; i < 64; i++) {
			wr[i].sg_list = &sge;
			wr[i].num_sge = 1;
			wr[i].next = i < 63 ? &wr[i + 1] : NULL;
		}
		if (ibv_post_recv(c->peer, wr, &bad))
			die("ibv_post_recv");
	}
}

static void drain(struct ibv_cq *cq, int n)
{
	struct ibv_wc wc[64];
	double deadline = now() + 30;
	unsigned empty = 0;

	while (n > 0) {
		int r = ibv_poll_cq(cq, n < 64 ? n : 64, wc);

		if (r < 0)
			die("ibv_poll_cq");
		for (int i = 0; i < r; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "emu_rate: completion %s\n",
					ibv_wc_status_str(wc[i].status));
				exit(1);
			}
		n -= r;
		/* leave the core to the engine (the machine may have only as
		 * many cores as threads); look at the clock rarely */
		if (!r)
			sched_yield();
		if (!r && (++empty & 1023) == 0 && now() > deadline) {
			fprintf(stderr, "emu_rate: timed out\n");
			exit(1);
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct result {
	long wqes;
	double median, best;	/* WQEs per second over the rounds */
};

/*
 * One round: queue BATCH WQEs on every QP while paused, resume, time
 * until the last signaled CQE.  On a shared machine a round may lose the
 * CPU, hence the median and the best round are both reported.
 */
static struct result run(struct conn *c, int nqps, long wqes, enum ibv_wr_opcode op,
			 uint32_t size, int inl)
{
	long rounds = wqes / ((long)nqps * BATCH);
	double *rate;
	struct result res;

	if (rounds < 1)
		rounds = 1;
	rate = calloc((size_t)rounds, sizeof(*rate));
	if (!rate)
		die("calloc");
	for (long r = 0; r < rounds; r++) {
		double t0;

		ctl.pause();
		for (int q = 0; q < nqps; q++) {
			if (op == IBV_WR_SEND)
				post_recvs(&c[q]);
			post_batch(&c[q], op, size, inl);
		}
		t0 = now();
		ctl.resume();
		drain(scq, nqps);
		rate[r] = (double)nqps * BATCH / (now() - t0);
		if (op == IBV_WR_SEND)
			drain(rcq, nqps * BATCH);
	}
	qsort(rate, (size_t)rounds, sizeof(*rate), cmp_double);
	res.wqes = rounds * nqps * BATCH;
	res.median = rate[rounds / 2];
	res.best = rate[rounds - 1];
	free(rate);
	return res;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	long wqes = 2000000;
	int nqps = 8;
	uint32_t size = 8;
	struct conn c[16];
	static const struct {
		const char *name;
		enum ibv_wr_opcode op;
		int inl;
	} cases[] = {
		{ "RDMA_WRITE", IBV_WR_RDMA_WRITE, 0 },
		{ "RDMA_WRITE inline", IBV_WR_RDMA_WRITE, 1 },
		{ "SEND", IBV_WR_SEND, 0 },
		{ "SEND inline", IBV_WR_SEND, 1 },
	};

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke"))
			wqes = 1;
		else if (!strcmp(argv[i], "--wqes") && i + 1 < argc)
			wqes = atol(argv[++i]);
		else if (!strcmp(argv[i], "--qps") && i + 1 < argc)
			nqps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = (uint32_t)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--wqes N] [--qps 1..16] [--size B] [--smoke]\n",
				argv[0]);
			return 2;
		}
	}
	if (nqps < 1 || nqps > 16 || size > 4096) {
		fprintf(stderr, "emu_rate: --qps 1..16, --size up to 4096\n");
		return 2;
	}
	if (mlx4emu_ctl_load(&ctl)) {
		fprintf(stderr, "emu_rate: run me under mlx4emu-run\n");
		return 2;
	}
	list = ibv_get_device_list(NULL);
	if (!list || !list[0])
		die("no device");
	ctx = ibv_open_device(list[0]);
	if (!ctx)
		die("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, 16 * BATCH, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 16 * BATCH, NULL, NULL, 0);
	buf = aligned_alloc(4096, 1 << 18);
	if (!pd || !scq || !rcq || !buf)
		die("setup");
	memset(buf, 0x5a, 1 << 18);
	mr = ibv_reg_mr(pd, buf, 1 << 18, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	for (int q = 0; q < nqps; q++) {
		c[q].qp = make_qp();
		c[q].peer = make_qp();
		connect_qp(c[q].qp, c[q].peer->qp_num);
		connect_qp(c[q].peer, c[q].qp->qp_num);
	}
	printf("# software ConnectX-3 engine rate, %d QP(s), %u-byte messages\n",
	       nqps, size);
	printf("%-20s %12s %16s %14s\n", "operation", "WQEs", "median M WQEs/s",
	       "best M WQEs/s");
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result r = run(c, nqps, wqes, cases[i].op,
				      cases[i].inl && size > 64 ? 64 : size, cases[i].inl);

		printf("%-20s %12ld %16.2f %14.2f\n", cases[i].name, r.wqes,
		       r.median / 1e6, r.best / 1e6);
	}
	for (int q = 0; q < nqps; q++) {
		ibv_destroy_qp(c[q].qp);
		ibv_destroy_qp(c[q].peer);
	}
	ibv_dereg_mr(mr);
	ibv_destroy_cq(scq);
	ibv_destroy_cq(rcq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	return 0;
}
