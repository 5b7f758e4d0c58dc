// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * doorbell_cost: what the software ConnectX-3's doorbell modes cost the
 * program, side by side in one run (each mode in a child process, since
 * the mode is chosen at start-up):
 *  - one send doorbell store (UAR + 0x14) with nothing to execute;
 *  - one 64-byte BlueFlame post (eight 64-bit stores, as libmlx4 and
 *    <infiniband/mlx4dv.h> write it) of a NOP WQE;
 *  - the time from a doorbell to its CQE after 20 ms of idleness (the
 *    engine asleep), median.
 * Only the stores are timed in the first two rows (the device executes
 * the WQEs between the timed batches).
 *
 *   mlx4emu-run doorbell_cost [--n N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/verbs.h>
#include <infiniband/mlx4dv.h>
#pragma GCC diagnostic pop

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "rc_connect.h"

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE)
#define WAKES 40

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct mlx4dv_qp d;
	uint8_t *bf;		/* our own mapping of the BlueFlame page */
	uint32_t head;
	struct mlx4emu_ctl ctl;
};

static void die(const char *what)
{
	fprintf(stderr, "doorbell_cost: %s\n", what);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Looped back on itself: the QP is its own peer. */
static void to_rts(struct dev *v)
{
	struct ibv_port_attr pa;
	struct bench_rc_path path = { .mtu = IBV_MTU_1024, .access = ACC };
	const char *step;

	if (ibv_query_port(v->ctx, 1, &pa))
		die("query_port");
	path.ah.port_num = 1;
	path.ah.dlid = pa.lid;
	if (bench_rc_connect(v->qp, v->qp->qp_num, &path, &step))
		die(step);
}

static void open_dev(struct dev *v)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr ia;
	struct mlx4dv_obj obj;

	if (!l || !l[0] || !(v->ctx = ibv_open_device(l[0])))
		die("no device (run under mlx4emu-run)");
	ibv_free_device_list(l);
	if (mlx4emu_ctl_load(&v->ctl))
		die("no control API");
	v->pd = ibv_alloc_pd(v->ctx);
	v->cq = ibv_create_cq(v->ctx, 256, NULL, NULL, 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = v->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	v->qp = ibv_create_qp(v->pd, &ia);
	v->buf = aligned_alloc(4096, 4096);
	if (!v->pd || !v->cq || !v->qp || !v->buf)
		die("objects");
	v->mr = ibv_reg_mr(v->pd, v->buf, 4096, ACC);
	if (!v->mr)
		die("reg_mr");
	to_rts(v);
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = v->qp;
	obj.qp.out = &v->d;
	if (mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP))
		die("init_obj");
	v->bf = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_WRITE, MAP_SHARED,
		     v->ctx->cmd_fd, sysconf(_SC_PAGESIZE));
	if (v->bf == MAP_FAILED)
		die("no BlueFlame page (run with BlueFlame on)");
}

/* A WQE of ds units at the head (NOP, or a signaled 0-byte RDMA write). */
static uint8_t *put_wqe(struct dev *v, int write)
{
	uint8_t *w = (uint8_t *)v->d.buf.buf + v->d.sq.offset +
		     ((v->head & (v->d.sq.wqe_cnt - 1)) << v->d.sq.wqe_shift);
	uint32_t owner = (v->head & v->d.sq.wqe_cnt) ? 1u << 31 : 0;
	uint64_t raddr = htobe64((uintptr_t)v->buf);
	uint32_t rkey = htobe32(v->mr->rkey);

	memset(w + 4, 0, 12);
	/* bytes 4..6: the doorbell QPN, for a BlueFlame post (libmlx4) */
	memcpy(w + 4, &v->d.doorbell_qpn, 3);
	w[7] = write ? 2 : 1;
	if (write) {
		w[11] = 3 << 2;
		memcpy(w + 16, &raddr, 8);
		memcpy(w + 24, &rkey, 4);
		memset(w + 28, 0, 4);
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(uint32_t *)w = htobe32(owner | (write ? 0x08u : 0x00u) |
				 (v->head & 0xffff) << 8);
	v->head++;
	return w;
}

static double doorbell_ns(struct dev *v, unsigned n)
{
	volatile uint32_t *db = (volatile uint32_t *)v->d.sdb;
	uint64_t t = now_ns();

	for (unsigned i = 0; i < n; i++)
		*db = v->d.doorbell_qpn;
	t = now_ns() - t;
	v->ctl.wait_idle(5000);
	return (double)t / n;
}

static double bf_post_ns(struct dev *v, unsigned n)
{
	uint64_t total = 0;
	uint32_t off = 0;

	for (unsigned i = 0; i < n; i++) {
		uint8_t *w = put_wqe(v, 0);
		volatile uint64_t *d = (volatile uint64_t *)(v->bf + off);
		const uint64_t *s = (const uint64_t *)w;
		uint64_t t;

		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		t = now_ns();
		for (int k = 0; k < 8; k++)
			d[k] = s[k];
		total += now_ns() - t;
		off ^= 256;	/* the two buffers of register 0 */
		/* let the device catch up before the ring wraps */
		if ((i & 15) == 15)
			v->ctl.wait_idle(5000);
	}
	v->ctl.wait_idle(5000);
	return (double)total / n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double wake_us(struct dev *v)
{
	uint64_t lat[WAKES];
	struct ibv_wc wc;

	for (int i = 0; i < WAKES; i++) {
		uint64_t t;

		usleep(20000);
		put_wqe(v, 1);
		t = now_ns();
		*(volatile uint32_t *)v->d.sdb = v->d.doorbell_qpn;
		while (ibv_poll_cq(v->cq, 1, &wc) == 0)
			;
		lat[i] = now_ns() - t;
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "doorbell_cost: CQE %s (vendor 0x%x)\n",
				ibv_wc_status_str(wc.status), wc.vendor_err);
			exit(1);
		}
	}
	qsort(lat, WAKES, sizeof(lat[0]), cmp_u64);
	return (double)lat[WAKES / 2] / 1000;
}

static void child(unsigned n)
{
	struct dev v;
	double db, bf, wk;

	memset(&v, 0, sizeof(v));
	open_dev(&v);
	db = doorbell_ns(&v, n);
	bf = bf_post_ns(&v, n / 4);
	wk = wake_us(&v);
	printf("%.0f %.0f %.1f\n", db, bf, wk);
	munmap(v.bf, (size_t)sysconf(_SC_PAGESIZE));
	if (ibv_destroy_qp(v.qp) || ibv_destroy_cq(v.cq) || ibv_dereg_mr(v.mr) ||
	    ibv_dealloc_pd(v.pd) || ibv_close_device(v.ctx))
		die("teardown");
	free(v.buf);
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "poll", "trap" };
	unsigned n = 20000;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--child")) {
			child(n);
			return 0;
		} else {
			fprintf(stderr, "usage: mlx4emu-run %s [--n N]\n", argv[0]);
			return 2;
		}
	}
	printf("| doorbells | send doorbell store (ns) | 64-byte BlueFlame post (ns) | "
	       "doorbell to CQE after 20 ms idle (us, median) |\n|---|---|---|---|\n");
	fflush(stdout);
	for (int m = 0; m < 2; m++) {
		char nbuf[16], line[128] = "";
		int pfd[2], st;
		pid_t pid;
		FILE *f;

		snprintf(nbuf, sizeof(nbuf), "%u", n);
		if (pipe(pfd))
			die("pipe");
		pid = fork();
		if (pid == 0) {
			dup2(pfd[1], 1);
			setenv("MLX4EMU_DOORBELL", modes[m], 1);
			execl("/proc/self/exe", argv[0], "--n", nbuf, "--child", (char *)NULL);
			_exit(127);
		}
		close(pfd[1]);
		f = fdopen(pfd[0], "r");
		if (!f || !fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) || !line[0])
			die("child failed");
		{
			double db, bf, wk;

			if (sscanf(line, "%lf %lf %lf", &db, &bf, &wk) != 3)
				die("child output");
			printf("| %s | %.0f | %.0f | %.1f |\n", modes[m], db, bf, wk);
		}
	}
	return 0;
}
