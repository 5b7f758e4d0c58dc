/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mlx4dv_bench - the direct data path of <infiniband/mlx4dv.h> against
 * libmlx4's verbs path, on identically configured QPs of one device.
 *
 * Natively it measures nanoseconds per operation: each case is repeated
 * (--reps, at least five), the two paths alternate inside a repetition and
 * the direct/verbs ratio is taken per repetition, so that a noisy, shared
 * machine moves both sides of a ratio together; the table gives medians.
 *
 * Under valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes
 * it runs each case once per path and dumps the instruction counts of the
 * measured loops (CALLGRIND_DUMP_STATS_AT, named "case=... path=...
 * ops=..."); bench/run-callgrind.sh turns the dumps into the table.
 *
 * Every case that posts sends also reports how each path handed its WQEs
 * to the device, from the device's own count of BlueFlame WQEs over that
 * path's run (mlx4emu_get_counters() bf_posts): "BlueFlame" when it rose,
 * "doorbell" when it did not. The ratio is given only when both paths did
 * the same; the direct path must use BlueFlame exactly in its BlueFlame
 * case (when the device has it), or the program fails.
 *
 * Run it on the software ConnectX-3:  mlx4emu-run ./mlx4dv_bench
 */
#include "bench_cases.h"
#include "bench_device.h"

#include <getopt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_REPS 5u

const struct bench_case bench_cases[BENCH_NCASES] = {
	[BENCH_CASE_WRITE] = { "write_post", "RDMA write, 1 SGE, + doorbell", 1, false, true },
	[BENCH_CASE_INLINE_SEND] = { "inline_send_post", "32-byte inline send (direct: doorbell)", 1, false, true },
	[BENCH_CASE_UD_SEND] = { "ud_send_post", "UD send, 1 SGE, + doorbell", 1, false, true },
	[BENCH_CASE_WRITE_BATCH] = { "write_batch32_post", "32 RDMA writes + one doorbell", BENCH_SEND_BATCH, false, true },
	[BENCH_CASE_WRITE_BATCH_TMPL] = { "write_batch32_tmpl_post", "32 template RDMA writes + one doorbell", BENCH_SEND_BATCH, false, true },
	[BENCH_CASE_BLUEFLAME] = { "blueflame_post", "32-byte inline send (direct: ring_one)", 1, false, true, true },
	[BENCH_CASE_RECV] = { "recv_post", "one receive", 1, false },
	[BENCH_CASE_RECV_BATCH] = { "recv_batch32_post", "32 receives, one record update", BENCH_RECV_BATCH, false },
	[BENCH_CASE_RECV_BURST] = { "recv_burst32_post", "32 receives, one record update (direct: mlx4dv_rq_write_burst)", BENCH_RECV_BATCH, false },
	[BENCH_CASE_POLL_HIT] = { "poll_hit", "poll one CQE (present)", 1, false },
	[BENCH_CASE_POLL_HIT_WC] = { "poll_hit_wc", "poll one CQE into an ibv_wc", 1, false },
	[BENCH_CASE_POLL_RECV] = { "poll_recv", "poll one receive CQE (present)", 1, false },
	[BENCH_CASE_POLL_MISS] = { "poll_miss", "poll an empty CQ", 1, false },
	[BENCH_CASE_POLL_BATCH] = { "poll_batch16", "poll 16 CQEs per call", BENCH_POLL_BATCH, false },
	[BENCH_CASE_POLL_BATCH_WC] = { "poll_batch16_wc", "poll 16 CQEs per call into ibv_wc", BENCH_POLL_BATCH, false },
	[BENCH_CASE_POLL_BURST] = { "poll_burst16", "poll 16 CQEs per call (direct: mlx4dv_cq_poll_sq_burst)", BENCH_POLL_BATCH, false },
	[BENCH_CASE_LOOP_WRITE] = { "loop_write", "post write, device runs, poll", 1, true, true },
	[BENCH_CASE_LOOP_SEND_RECV] = { "loop_send_recv", "post recv+send, device runs, poll both", 1, true, true },
};

static const char *const path_name[BENCH_NPATHS] = { "verbs", "direct" };

struct options {
	uint32_t ops;		/* per case, path and repetition */
	uint32_t reps;
	bool smoke;
	const char *csv;
	const char *device;
	bool only[BENCH_NCASES];
	bool any_only;
};

/* How a path's send WQEs reached the device. */
enum handover { HANDOVER_NONE, HANDOVER_DOORBELL, HANDOVER_BLUEFLAME };

static const char *const handover_name[] = { "-", "doorbell", "BlueFlame" };

struct result {
	enum handover handover[BENCH_NPATHS];
	double ns_per_op[BENCH_NPATHS];		/* median */
	double min_ns[BENCH_NPATHS], max_ns[BENCH_NPATHS];
	double ratio;				/* median of per-repetition ratios */
	double empty_polls_per_op[BENCH_NPATHS];
};

static bool under_valgrind;
static bool device_has_blueflame;	/* the direct lane got registers */

void bench_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("mlx4dv_bench: CHECK FAILED: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static bench_round_fn *round_of(enum bench_case_id c, enum bench_path p)
{
	return p == BENCH_VERBS ? bench_verbs_rounds[c] : bench_direct_rounds[c];
}

/* Runs ops operations of one case on one lane, in rounds; returns the
 * BlueFlame WQEs the device counted meanwhile. With the engine paused the
 * device sees only the last copy in each BlueFlame buffer when it runs
 * again, so the count tells whether BlueFlame was used, not how often. */
static uint64_t run_rounds(struct bench_lane *l, enum bench_case_id c,
			   struct bench_meter *m, uint32_t ops)
{
	bench_round_fn *fn = round_of(c, l->path);
	uint64_t bf = bench_device_blueflame_wqes();

	for (uint32_t done = 0; done < ops; done += BENCH_ROUND)
		fn(l, m, ops - done < BENCH_ROUND ? ops - done : BENCH_ROUND);
	return bench_device_blueflame_wqes() - bf;
}

/* The hand-over of a path's run from its BlueFlame count; for the direct
 * path it must be the one the case is made of. */
static enum handover handover_of(enum bench_case_id c, enum bench_path p,
				 uint64_t bf_wqes)
{
	const struct bench_case *bc = &bench_cases[c];
	enum handover h = !bc->posts_sends ? HANDOVER_NONE :
		bf_wqes ? HANDOVER_BLUEFLAME : HANDOVER_DOORBELL;
	enum handover want = !bc->posts_sends ? HANDOVER_NONE :
		bc->direct_blueflame && device_has_blueflame ?
		HANDOVER_BLUEFLAME : HANDOVER_DOORBELL;

	if (p == BENCH_DIRECT && h != want)
		bench_fail("%s: the direct path handed its WQEs over by %s, not by %s "
			   "(%llu BlueFlame WQEs counted by the device)", bc->name,
			   handover_name[h], handover_name[want],
			   (unsigned long long)bf_wqes);
	return h;
}

/* "BlueFlame/doorbell": what a row's ratio compares. */
static bool same_handover(const struct result *r)
{
	return r->handover[BENCH_VERBS] == r->handover[BENCH_DIRECT];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void engine_for(const struct bench_case *bc)
{
	if (bc->engine_running)
		bench_device_resume();
	else
		bench_device_pause();
}

/* One unmeasured round per path first: page faults, first touch of the
 * rings and lazily bound symbols stay out of the measure. */
static void warm_up(struct bench_env *env, enum bench_case_id c)
{
	for (int p = 0; p < BENCH_NPATHS; p++) {
		struct bench_meter scratch = { .instructions = under_valgrind,
					       .warm_up = true };

		run_rounds(&env->lane[p], c, &scratch, BENCH_ROUND);
	}
}

/*
 * libmlx4 prepares every WQEBB of a new send ring as a software-owned WQE
 * one stride long, which the first lap of posts must stamp over; later
 * laps find the short WQEs of the lap before. One unmeasured lap of each
 * send ring of both lanes puts every case in that steady state, whatever
 * ran before it.
 */
static void lap_send_rings(struct bench_env *env)
{
	const struct mlx4dv_sq_ring *rc = &env->lane[BENCH_DIRECT].rc.rings[0].sq;
	const struct mlx4dv_sq_ring *ud = &env->lane[BENCH_DIRECT].ud.rings[0].sq;

	bench_device_pause();
	for (int p = 0; p < BENCH_NPATHS; p++) {
		struct bench_meter scratch = { .instructions = under_valgrind,
					       .warm_up = true };

		run_rounds(&env->lane[p], BENCH_CASE_WRITE, &scratch,
			   (rc->wqe_cnt + BENCH_ROUND - 1) / BENCH_ROUND * BENCH_ROUND);
		run_rounds(&env->lane[p], BENCH_CASE_UD_SEND, &scratch,
			   (ud->wqe_cnt + BENCH_ROUND - 1) / BENCH_ROUND * BENCH_ROUND);
	}
}

static void measure_instructions(struct bench_env *env, enum bench_case_id c,
				 const struct options *o)
{
	const struct bench_case *bc = &bench_cases[c];

	for (int p = 0; p < BENCH_NPATHS; p++) {
		struct bench_meter m = { .instructions = true };
		enum handover h;
		char name[160];
		uint64_t bf;

		bench_callgrind_zero();
		bf = run_rounds(&env->lane[p], c, &m, o->ops);
		h = handover_of(c, (enum bench_path)p, bf);
		snprintf(name, sizeof(name),
			 "case=%s path=%s ops=%llu calls=%llu handover=%s",
			 bc->name, path_name[p], (unsigned long long)m.ops,
			 (unsigned long long)(m.ops / bc->batch), handover_name[h]);
		bench_callgrind_dump(name);
		printf("callgrind dump: %s empty_polls=%llu\n", name,
		       (unsigned long long)m.empty_polls);
	}
}

static void measure_time(struct bench_env *env, enum bench_case_id c,
			 const struct options *o, struct result *res)
{
	double ns[BENCH_NPATHS][64], ratio[64], polls[BENCH_NPATHS] = { 0 };
	uint64_t bf[BENCH_NPATHS] = { 0 };

	for (uint32_t r = 0; r < o->reps; r++) {
		for (int k = 0; k < BENCH_NPATHS; k++) {
			/* alternate which path goes first */
			int p = (int)((r + (uint32_t)k) % BENCH_NPATHS);
			struct bench_meter m = { .instructions = false };

			bf[p] += run_rounds(&env->lane[p], c, &m, o->ops);
			ns[p][r] = (double)m.ns / (double)m.ops;
			polls[p] += (double)m.empty_polls / (double)m.ops;
		}
		ratio[r] = ns[BENCH_DIRECT][r] / ns[BENCH_VERBS][r];
	}
	for (int p = 0; p < BENCH_NPATHS; p++) {
		res->handover[p] = handover_of(c, (enum bench_path)p, bf[p]);
		res->ns_per_op[p] = median(ns[p], o->reps);
		res->min_ns[p] = ns[p][0];
		res->max_ns[p] = ns[p][o->reps - 1];
		res->empty_polls_per_op[p] = polls[p] / o->reps;
	}
	res->ratio = median(ratio, o->reps);
}

static void print_machine(FILE *f)
{
	char line[256], model[200] = "unknown";
	FILE *ci = fopen("/proc/cpuinfo", "r");

	while (ci && fgets(line, sizeof(line), ci)) {
		if (!strncmp(line, "model name", 10)) {
			const char *v = strchr(line, ':');

			if (v) {
				snprintf(model, sizeof(model), "%s", v + 2);
				model[strcspn(model, "\n")] = 0;
			}
			break;
		}
	}
	if (ci)
		fclose(ci);
	fprintf(f, "# cpu: %s; online cpus: %ld\n", model, sysconf(_SC_NPROCESSORS_ONLN));
}

/* Geometry libmlx4 gave the QPs (the same for both lanes). The verbs
 * lane's QPs post through libmlx4's own BlueFlame register (first of the
 * page), the direct lane's each through one of its own. */
static void print_rings(const struct bench_lane *l)
{
	const struct mlx4dv_qp_rings *r = &l->rc.rings[0];
	uint32_t flags = r->sq.flags;

	printf("# rings (both paths): SQ %u WQEBBs of %u bytes (%u spare), RQ %u, "
	       "CQ %u CQEs of %u bytes\n", r->sq.wqe_cnt, 1u << r->sq.wqe_shift,
	       r->sq.spare_wqes, r->rq.wqe_cnt, r->send_cq.cqe_cnt,
	       r->send_cq.cqe_size);
	printf("# direct path BlueFlame: %s\n",
	       (flags & MLX4DV_SQ_RING_BLUEFLAME) ? "own register per QP" :
	       (flags & MLX4DV_SQ_RING_BLUEFLAME_FALLBACK) ?
	       "unavailable, doorbell instead" : "not requested");
}

static void print_row(const struct bench_case *bc, const struct result *r)
{
	char ratio[16];

	/* a ratio of BlueFlame against a doorbell compares different work */
	if (same_handover(r))
		snprintf(ratio, sizeof(ratio), "%7.3f", r->ratio);
	else
		snprintf(ratio, sizeof(ratio), "%7s", "-");
	printf("%-23s %-38s %-9s %-9s %9.1f %9.1f %s %9.1f-%-9.1f %9.1f-%-9.1f\n",
	       bc->name, bc->what, handover_name[r->handover[BENCH_VERBS]],
	       handover_name[r->handover[BENCH_DIRECT]], r->ns_per_op[BENCH_VERBS],
	       r->ns_per_op[BENCH_DIRECT], ratio,
	       r->min_ns[BENCH_VERBS], r->max_ns[BENCH_VERBS],
	       r->min_ns[BENCH_DIRECT], r->max_ns[BENCH_DIRECT]);
}

static void write_csv(const struct options *o, const struct result *res)
{
	FILE *f = fopen(o->csv, "w");

	if (!f)
		bench_die("cannot write %s: %s", o->csv, strerror(errno));
	print_machine(f);
	fprintf(f, "case,batch,path,handover,ops_per_rep,reps,median_ns_per_op,min_ns_per_op,"
		   "max_ns_per_op,median_ratio_direct_over_verbs,empty_polls_per_op\n");
	for (int c = 0; c < BENCH_NCASES; c++) {
		if (o->any_only && !o->only[c])
			continue;
		char ratio[16] = "";

		if (same_handover(&res[c]))
			snprintf(ratio, sizeof(ratio), "%.4f", res[c].ratio);
		for (int p = 0; p < BENCH_NPATHS; p++)
			fprintf(f, "%s,%u,%s,%s,%u,%u,%.2f,%.2f,%.2f,%s,%.3f\n",
				bench_cases[c].name, bench_cases[c].batch, path_name[p],
				handover_name[res[c].handover[p]], o->ops, o->reps,
				res[c].ns_per_op[p], res[c].min_ns[p], res[c].max_ns[p],
				ratio, res[c].empty_polls_per_op[p]);
	}
	fclose(f);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mlx4emu-run mlx4dv_bench [options]\n"
		"  --ops N      operations per case, path and repetition (multiple of %u;\n"
		"               default 65536, under valgrind 16384)\n"
		"  --reps N     repetitions, at least %u (default 7; 1 under valgrind)\n"
		"  --case NAME  run only this case (repeatable)\n"
		"  --csv FILE   CSV output (default mlx4dv_bench.csv)\n"
		"  --device D   device name (default: the first mlx4 device)\n"
		"  --smoke      one round per case and path: checks only, no timing claims\n"
		"  --list       print the case names and exit\n"
		"cases:", BENCH_ROUND, MIN_REPS);
	for (int c = 0; c < BENCH_NCASES; c++)
		fprintf(f, " %s", bench_cases[c].name);
	fputc('\n', f);
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option lo[] = {
		{ "ops", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'r' },
		{ "case", required_argument, NULL, 'c' },
		{ "csv", required_argument, NULL, 'f' },
		{ "device", required_argument, NULL, 'd' },
		{ "smoke", no_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*o = (struct options){ .ops = under_valgrind ? 16384 : 65536,
			       .reps = under_valgrind ? 1 : 7,
			       .csv = "mlx4dv_bench.csv" };
	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 'o':
			o->ops = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			o->reps = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'c': {
			int c;

			for (c = 0; c < BENCH_NCASES; c++)
				if (!strcmp(optarg, bench_cases[c].name))
					break;
			if (c == BENCH_NCASES) {
				usage(stderr);
				exit(2);
			}
			o->only[c] = o->any_only = true;
			break;
		}
		case 'f':
			o->csv = optarg;
			break;
		case 'd':
			o->device = optarg;
			break;
		case 's':
			o->smoke = true;
			break;
		case 'L':
			for (int c = 0; c < BENCH_NCASES; c++)
				puts(bench_cases[c].name);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (o->smoke) {
		o->ops = BENCH_ROUND;
		o->reps = 1;
	}
	if (!o->ops || o->ops % BENCH_ROUND)
		bench_die("--ops must be a positive multiple of %u", BENCH_ROUND);
	if (o->reps > 63)
		bench_die("--reps is at most 63");
	if (!o->smoke && !under_valgrind && o->reps < MIN_REPS)
		bench_die("--reps must be at least %u (medians of fewer mean little)", MIN_REPS);
}

int main(int argc, char **argv)
{
	static struct result res[BENCH_NCASES];
	struct bench_env env;
	struct options o;

	under_valgrind = RUNNING_ON_VALGRIND != 0;
	parse(argc, argv, &o);
	if (bench_device_open() || bench_env_open(&env, o.device))
		return 2;
	bench_verbs_prepare(&env.lane[BENCH_VERBS]);
	bench_direct_prepare(&env);

	printf("# mlx4dv_bench on %s: %s, %u ops per case and path%s\n",
	       ibv_get_device_name(env.ctx->device),
	       under_valgrind ? "instruction counts (callgrind)" : "ns per operation",
	       o.ops, o.smoke ? ", smoke run (numbers mean nothing)" : "");
	if (!under_valgrind)
		printf("# %u repetitions; direct/verbs = median of per-repetition ratios\n", o.reps);
	print_machine(stdout);
	print_rings(&env.lane[BENCH_DIRECT]);
	device_has_blueflame = (env.lane[BENCH_DIRECT].rc.rings[0].sq.flags &
				MLX4DV_SQ_RING_BLUEFLAME) != 0;
	if (!o.smoke)
		lap_send_rings(&env);
	if (!under_valgrind)
		printf("%-23s %-38s %-9s %-9s %9s %9s %7s %19s %19s\n", "case", "operation",
		       "verbs by", "direct by", "verbs ns", "direct ns", "d/v",
		       "verbs min-max", "direct min-max");
	for (int c = 0; c < BENCH_NCASES; c++) {
		const struct bench_case *bc = &bench_cases[c];

		if (o.any_only && !o.only[c])
			continue;
		engine_for(bc);
		warm_up(&env, (enum bench_case_id)c);
		if (under_valgrind) {
			measure_instructions(&env, (enum bench_case_id)c, &o);
		} else {
			measure_time(&env, (enum bench_case_id)c, &o, &res[c]);
			print_row(bc, &res[c]);
		}
		fflush(stdout);
	}
	bench_device_resume();
	if (!under_valgrind)
		write_csv(&o, res);
	bench_env_close(&env);
	if (!under_valgrind)
		printf("# d/v only where both paths handed the WQEs over the same way "
		       "(\"by\": the device's BlueFlame count over the path's run)\n");
	if (under_valgrind)
		printf("# all data and completion checks passed; bench/run-callgrind.sh makes the table\n");
	else
		printf("# all data and completion checks passed; CSV in %s\n", o.csv);
	return 0;
}
