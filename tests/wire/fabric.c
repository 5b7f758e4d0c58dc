// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * One host of a fabric of software adapters (run by tests/wire/fabric.sh,
 * one process per network namespace, host 0 the hub).
 *
 *   fabric -m MODE -i HOST -N HOSTS -H HUB_ADDR -p TCP_PORT
 *          [-n OPS] [-s BYTES] [-q QPS] [-w WINDOW] [-r RQ] [-t SECONDS] [-D] [-b]
 *          [-P MS] [-u]
 *          [-k RESTARTS [-S SEED]] [-J]
 *
 * MODE:
 *   rc_fanin   hosts 1..N-1 each send OPS SENDs with immediate on each of
 *              QPS RC QPs to the hub;
 *   rc_fanout  the hub sends them to every other host;
 *   rc_write_fanin  hosts 1..N-1 each do OPS RDMA WRITEs on each of QPS
 *              RC QPs, each to a target of its own in the hub's memory,
 *              every byte of which the hub checks at the end;
 *   all2all    every pair of hosts, QPS RC QPs each way, every QP runs
 *              OPS operations in turn: SEND with immediate, RDMA WRITE,
 *              RDMA READ, fetch-and-add;
 *   ud_fanin   hosts 1..N-1 each send OPS datagrams with immediate to the
 *              hub's UD QP;
 *   ud_fanout  the hub sends OPS datagrams to every other host's UD QP.
 *
 * Checked, every one: each send WR completes once, successfully, in the
 * order posted on its QP; each RC receive arrives in order on its QP with
 * its immediate (the sequence number), length and every payload byte
 * (computed from source, destination, QP and sequence); each READ brings
 * the peer's pattern, the k-th fetch-and-add of a QP returns k and the
 * counter ends at their number; each WRITE target holds, at the end, the
 * last WRITE aimed at it.  All-to-all also checks fairness: the slowest
 * QP's rate (OPS over its time to its last completion) is at least a
 * quarter of the median QP's.  UD: no datagram arrives twice or altered,
 * and the loss is exact, from the control API's counters of every
 * adapter: the datagrams posted are the packets the senders handed to
 * the kernel plus those it refused, and those handed over are the ones
 * the receivers took plus those they counted dropped (kernel drops:
 * a full buffer or the port filter; refused by the receive checks; no
 * receive WQE).  A datagram lost anywhere else is reported as silent
 * loss and fails the run.
 *
 * -D: the run fails if the receive buffer of a host that is sent to (the
 * hub in fan-in, every other host in fan-out) dropped any packet (the
 * control API's wire_packets_dropped of its adapter): the link credits
 * its port grants, RC's in their ACKs and the datagrams' in their
 * updates, must keep every sender within it.
 *
 * -b (UD): a sender sends each destination its OPS datagrams in a row,
 * one destination after the other, rather than one to each in turn: in
 * fan-out every receiver in turn takes the whole stream of the sender.
 *
 * -P (UD): a receiver's adapter stops (mlx4emu_pause) for MS ms as its
 * first datagram arrives, as a loaded host's does: its socket reads
 * nothing meanwhile, and what its senders send fills the buffer unless
 * the datagram credits hold them back (MS below the 500 ms after which
 * a sender takes a peer that answers no credit request as draining
 * nothing).
 *
 * -u (rc_fanin, rc_fanout): the QPs are UC: no ACK, no resend, so every
 * SEND must arrive the first time (the receivers post a receive for
 * each, -r at least -n): what the datagram credits must keep from a
 * full socket buffer.
 *
 * -k (all-to-all): while the traffic flows the hub kills RESTARTS times a
 * host other than itself, chosen at random (SIGKILL, at random points
 * drawn from SEED; fabric.sh starts it again with -J), and leads the new
 * process back into the fabric (tests/wire/fabric_conductor.h): it
 * makes new QPs, every survivor makes new QPs to it, and the pairs run
 * their OPS operations from the start.  Checked besides: each WR posted
 * on a QP to the killed host completes exactly once too, in order,
 * successfully or (only once its peer was killed) with an error or a
 * flush, counted as ended by the restart; every receive posted there
 * likewise; no QP to any other host sees an error.
 *
 * The hub prints the totals and "PASS: fabric ..." when every host
 * passed.  Exit status 0 when every check of this host passed.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"

#include "fabric_conductor.h"
#include "fabric_rendezvous.h"
#include "peer_io.h"
#include "peer_side.h"

#define MAX_QPS_PER_PEER 8
#define MAX_QPS (FAB_MAX_HOSTS * MAX_QPS_PER_PEER)
#define WRITE_SLOTS 4
#define UD_GRH 40
#define QKEY 0x46414252u	/* "FABR" */

enum mode { RC_FANIN, RC_FANOUT, ALL2ALL, UD_FANIN, UD_FANOUT, RC_WRITE_FANIN, MODES };

static const char *const mode_names[MODES] = { "rc_fanin", "rc_fanout", "all2all", "ud_fanin",
					       "ud_fanout", "rc_write_fanin" };

struct params {
	enum mode mode;
	unsigned host, hosts, ops, qps, window, rq, seconds;
	unsigned stall_ms;	/* -P: UD, a receiver's adapter stalls this long */
	bool no_receiver_drops;	/* -D: no receive buffer of a host sent to may
				 * drop anything */
	bool bursts;		/* -b: UD, all of one destination's in a row */
	bool uc;		/* -u: rc_fanin, rc_fanout over UC QPs */
	unsigned restarts;	/* -k: peers the hub kills while the traffic flows */
	unsigned seed;		/* -S: where they fall */
	bool rejoin;		/* -J: this host was killed and started again */
	size_t size;
	const char *hub;
	uint16_t port;
};

/* What one QP tells its peer (host order; the TCP star carries it). */
struct qp_record {
	uint32_t qpn, psn, rkey, lid;
	uint64_t addr;
};

struct fab_qp {
	struct ibv_qp *qp;
	uint8_t *buf;
	struct ibv_mr *mr;
	unsigned peer, q;
	struct qp_record remote;
	bool sends, receives;
	bool broken;		/* its peer was killed: nothing more is posted */
	bool waiting;		/* a new QP to a host started again, not yet
				 * told that host is ready: posts nothing yet */
	uint32_t posted, completed, received, faa_seen;
	uint32_t ended;		/* send WRs ended by a restart (error, flush) */
	uint32_t recv_posted, recv_ended;
	uint64_t start_ns, done_ns;	/* since t0_ns: when it began, ended */
};

/* What every host reports to all the others at the end. */
struct report {
	uint32_t failed;
	uint32_t ud_posted;
	uint64_t ud_sent, ud_send_lost;		/* wire_packets_sent, _send_lost */
	uint64_t ud_received, ud_dropped;	/* taken; counted dropped */
	uint64_t rc_ops, rc_receives;
	/* on the QPs a restart broke: operations and receives completed,
	 * send WRs and receives ended by it */
	uint64_t broken_ops, broken_receives, ended, recv_ended;
	uint64_t ended_retry, ended_flush;	/* of `ended`: RETRY_EXC_ERR, WR_FLUSH_ERR */
	uint64_t bytes;
	uint64_t kernel_drops;			/* wire_packets_dropped */
	uint64_t credits_sent;			/* wire_credit_packets_sent */
	uint64_t cpu_ns;			/* this process's CPU time */
	uint64_t qp_ns[MAX_QPS];		/* time to a QP's last completion */
};

static struct params P;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *send_cq, *recv_cq;
static struct ibv_port_attr port_attr;
static struct fab_qp qps[MAX_QPS];
static unsigned nqps;
static struct mlx4emu_ctl ctl;
/* the adapter's counters when the traffic may begin */
static struct mlx4emu_counters base;
static struct fab_star star;
static uint64_t t0_ns;
/* the hub's conductor of restarts; the kills this host has heard of */
static struct fab_conductor conductor;
static uint32_t restart_epoch;

static int fail(const char *what)
{
	fprintf(stderr, "fabric: host %u: %s\n", P.host, what);
	return -1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool is_ud(void)
{
	return P.mode == UD_FANIN || P.mode == UD_FANOUT;
}

/* Whether peers may be killed and started again while the traffic
 * flows (-k): every host then hears the hub's conductor meanwhile. */
static bool restarts_on(void)
{
	return P.mode == ALL2ALL;
}

/* Whether host a sends to host b (RC: whether a's QPs to b post). */
static bool sends_to(unsigned a, unsigned b)
{
	if (a == b)
		return false;
	switch (P.mode) {
	case RC_FANIN:
	case RC_WRITE_FANIN:
	case UD_FANIN:
		return b == 0;
	case RC_FANOUT:
	case UD_FANOUT:
		return a == 0;
	case ALL2ALL:
		return true;
	case MODES:
		break;
	}
	return false;
}

static bool connected(unsigned a, unsigned b)
{
	return sends_to(a, b) || sends_to(b, a);
}

/* Byte k of message seq from src to dst on QP q: a different byte
 * everywhere, so that a misplaced or stale byte shows. */
static uint8_t pattern(unsigned src, unsigned dst, unsigned q, uint32_t seq, size_t k)
{
	uint64_t z = ((uint64_t)src << 56 | (uint64_t)dst << 48 | (uint64_t)q << 40 | seq) +
		     0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint8_t)((z >> ((k & 7) * 8)) + (k >> 3));
}

static void fill(uint8_t *p, unsigned src, unsigned dst, unsigned q, uint32_t seq)
{
	for (size_t k = 0; k < P.size; k++)
		p[k] = pattern(src, dst, q, seq, k);
}

/* Index of the first wrong byte, or -1. */
static long mismatch(const uint8_t *p, unsigned src, unsigned dst, unsigned q, uint32_t seq)
{
	for (size_t k = 0; k < P.size; k++)
		if (p[k] != pattern(src, dst, q, seq, k))
			return (long)k;
	return -1;
}

/* A READ's source: what the reader expects of its peer's QP q. */
#define READ_SEQ 0xffffffu

/* The layout of a QP's buffer: send slots (also READ destinations),
 * receive slots, WRITE targets, READ source, fetch-and-add counter,
 * atomic results. */
static size_t recv_slot_bytes(void)
{
	return is_ud() ? UD_GRH + P.size : P.size;
}

static size_t off_recv(void) { return P.window * P.size; }
static size_t off_write(void) { return off_recv() + P.rq * recv_slot_bytes(); }
/* write fan-in: a target per WRITE, so that every byte is checked */
static unsigned write_slots(void) { return P.mode == RC_WRITE_FANIN ? P.ops : WRITE_SLOTS; }
static size_t off_read(void) { return off_write() + write_slots() * P.size; }
static size_t off_counter(void) { return (off_read() + P.size + 7) & ~(size_t)7; }
static size_t off_results(void) { return off_counter() + 8; }
static size_t buf_bytes(void) { return off_results() + 8 * P.window; }

static int post_recv(struct fab_qp *f, unsigned slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(f->buf + off_recv() + slot * recv_slot_bytes()),
		.length = (uint32_t)recv_slot_bytes(),
		.lkey = f->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uint64_t)(f - qps) << 32 | slot, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(f->qp, &wr, &bad))
		return fail("post a receive");
	f->recv_posted++;
	return 0;
}

static struct ibv_qp *new_qp(void)
{
	struct ibv_qp_init_attr a = {
		.send_cq = send_cq,
		.recv_cq = recv_cq,
		.qp_type = is_ud() ? IBV_QPT_UD : P.uc ? IBV_QPT_UC : IBV_QPT_RC,
		.cap = { .max_send_wr = P.window, .max_recv_wr = P.rq, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &a);
}

static int open_qp(struct fab_qp *f, unsigned peer, unsigned q)
{
	void *buf;

	f->peer = peer;
	f->q = q;
	if (posix_memalign(&buf, 4096, buf_bytes()))
		return fail("no memory for a QP's buffer");
	f->buf = memset(buf, 0, buf_bytes());
	f->mr = ibv_reg_mr(pd, f->buf, buf_bytes(),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!f->mr)
		return peer_fail("fabric", "ibv_reg_mr");
	f->qp = new_qp();
	if (!f->qp)
		return peer_fail("fabric", "ibv_create_qp");
	return 0;
}

static int to_init(struct fab_qp *f)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (is_ud()) {
		a.qkey = QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = P.uc ? IBV_ACCESS_REMOTE_WRITE :
				    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
					    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(f->qp, &a, mask) ? fail("QP to INIT") : 0;
}

static int ud_ready(struct fab_qp *f)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };

	if (ibv_modify_qp(f->qp, &a, IBV_QP_STATE))
		return fail("UD QP to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? fail("UD QP to RTS") : 0;
}

/* UC: RTR with the path and PSN only, RTS with the send PSN only. */
static int uc_connect(struct fab_qp *f)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = port_attr.active_mtu,
		.dest_qp_num = f->remote.qpn,
		.rq_psn = f->remote.psn,
		.ah_attr = { .dlid = (uint16_t)f->remote.lid, .port_num = 1 },
	};

	if (ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		return fail("UC QP to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = (uint32_t)(f - qps) * 4096 & 0xffffff;
	return ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? fail("UC QP to RTS") : 0;
}

static int rc_connect(struct fab_qp *f)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = port_attr.active_mtu,
		.dest_qp_num = f->remote.qpn,
		.rq_psn = f->remote.psn,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.ah_attr = { .dlid = (uint16_t)f->remote.lid, .port_num = 1 },
	};

	if (ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return fail("RC QP to RTR");
	a.qp_state = IBV_QPS_RTS;
	/* 4.096 us x 2^15 = 134 ms, 7 retries: 1.07 s without progress before
	 * RETRY_EXC. Under 2 % drop the slowest of 960 QPs meets about four
	 * timeouts in a row at its tail, so the timeout, not the scheduling,
	 * sets the all-to-all's slowest-to-median ratio: 537 ms made it 0.2
	 * on an idle machine, 134 ms makes it 0.5.  With restarts (-k, -J)
	 * 268 ms: a dead peer's QPs still end within 2.1 s, and a host the
	 * restart's bursts (a process started, 60 QPs made anew) keep off
	 * the CPU for a second is not taken for a dead one */
	a.timeout = P.restarts || P.rejoin ? 16 : 15;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = (uint32_t)(f - qps) * 4096 & 0xffffff;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					     IBV_QP_MAX_QP_RD_ATOMIC)
		       ? fail("RC QP to RTS")
		       : 0;
}

/* A QP's READ source, and its receives. */
static int prime_qp(struct fab_qp *f)
{
	fill(f->buf + off_read(), P.host, f->peer, f->q, READ_SEQ);
	for (unsigned s = 0; s < P.rq && (f->receives || is_ud()); s++)
		if (post_recv(f, s))
			return -1;
	return 0;
}

/* The QPs of this host: QPS per connected peer (RC), or one (UD). */
static int create_qps(void)
{
	unsigned per_peer = is_ud() ? 1 : P.qps;

	for (unsigned p = 0; p < P.hosts; p++) {
		if (!connected(P.host, p) || (is_ud() && nqps))
			continue;
		for (unsigned q = 0; q < per_peer; q++) {
			struct fab_qp *f = &qps[nqps++];

			if (open_qp(f, p, q) || to_init(f))
				return -1;
			f->sends = !is_ud() && sends_to(P.host, p);
			f->receives = !is_ud() && sends_to(p, P.host);
		}
	}
	if (is_ud()) {
		qps[0].receives = (P.mode == UD_FANIN) == (P.host == 0);
		qps[0].sends = !qps[0].receives;
	}
	for (unsigned i = 0; i < nqps; i++)
		if (prime_qp(&qps[i]))
			return -1;
	return 0;
}

/* Slot of the table host h publishes for its QP q to peer p. */
static size_t slot(unsigned p, unsigned q)
{
	return (size_t)p * MAX_QPS_PER_PEER + q;
}

#define TABLE (FAB_MAX_HOSTS * MAX_QPS_PER_PEER)

/* Every host's records: table[h][slot(p, q)] is h's QP q towards p (UD:
 * slot 0 is h's UD QP). */
static struct qp_record table[FAB_MAX_HOSTS][TABLE];
static struct ibv_ah *ah[FAB_MAX_HOSTS];

/* What this host publishes of its QPs: its row of the table. */
static void my_records(struct qp_record *mine)
{
	for (unsigned i = 0; i < nqps; i++) {
		struct fab_qp *f = &qps[i];
		struct qp_record *r = &mine[is_ud() ? 0 : slot(f->peer, f->q)];

		*r = (struct qp_record){ .qpn = f->qp->qp_num,
					 .psn = (uint32_t)i * 4096 & 0xffffff,
					 .rkey = f->mr->rkey,
					 .lid = port_attr.lid,
					 .addr = (uintptr_t)f->buf };
	}
}

/* An RC QP to its peer's QP as the table has it. */
static int connect_to_table(struct fab_qp *f)
{
	f->remote = table[f->peer][slot(P.host, f->q)];
	if (!f->remote.qpn)
		return fail("a peer published no QP for this host");
	return P.uc ? uc_connect(f) : rc_connect(f);
}

/* A host started again: its row to the conductor, every survivor's new
 * one back (see fabric_conductor.h), its QPs connected to them. */
static int rejoin_and_connect(void)
{
	static struct qp_record mine[TABLE];
	struct fab_msg m;

	my_records(mine);
	if (fab_tell_hub(&star, FAB_JOIN, 0, mine, sizeof(mine)))
		return -1;
	if (fab_hear_hub(&star, &m, table, sizeof(table), FAB_RESTART_MS) != 1)
		return fail("no table of the survivors' new QPs from the hub");
	if (m.type == FAB_FINISH)
		return fail("the traffic ended (a failure) before this host rejoined");
	if (m.type != FAB_TABLE || m.len != P.hosts * sizeof(mine))
		return fail("a message of the hub other than the survivors' table");
	restart_epoch = m.arg;
	for (unsigned i = 0; i < nqps; i++)
		if (connect_to_table(&qps[i]))
			return -1;
	return fab_tell_hub(&star, FAB_READY, 0, NULL, 0);
}

static int exchange_and_connect(void)
{
	static struct qp_record mine[TABLE];

	if (P.rejoin)
		return rejoin_and_connect();
	my_records(mine);
	if (fab_allgather(&star, mine, sizeof(mine), table))
		return -1;
	for (unsigned i = 0; i < nqps && !is_ud(); i++)
		if (connect_to_table(&qps[i]))
			return -1;
	for (unsigned h = 0; h < P.hosts && is_ud(); h++) {
		struct ibv_ah_attr a = { .dlid = (uint16_t)table[h][0].lid, .port_num = 1 };

		if (!sends_to(P.host, h))
			continue;
		ah[h] = ibv_create_ah(pd, &a);
		if (!ah[h])
			return peer_fail("fabric", "ibv_create_ah");
	}
	if (is_ud() && ud_ready(&qps[0]))
		return -1;
	/* the counters' origin is taken before any host may send: a
	 * datagram the hub drops before it took them would be silent loss */
	ctl.get_counters(&base);
	/* a request sent to a QP not yet in RTR is dropped (the port filter
	 * admits a peer from RTR on) */
	return fab_barrier(&star, "ready");
}

/* ---- RC: the operations, their completions, their receives ---- */

static enum ibv_wr_opcode rc_opcode(uint32_t seq)
{
	static const enum ibv_wr_opcode mix[4] = {
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_FETCH_AND_ADD,
	};

	if (P.mode == RC_WRITE_FANIN)
		return IBV_WR_RDMA_WRITE;
	return P.mode == ALL2ALL ? mix[seq & 3] : IBV_WR_SEND_WITH_IMM;
}

static enum ibv_wc_opcode rc_wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

/* Receives a peer's QP sends this one in all (SENDs with immediate). */
static uint32_t rc_receives_due(void)
{
	if (P.mode == RC_WRITE_FANIN)
		return 0;
	return P.mode == ALL2ALL ? (P.ops + 3) / 4 : P.ops;
}

/* Sequence number of the n-th SEND of a QP. */
static uint32_t rc_send_seq(uint32_t n)
{
	return P.mode == ALL2ALL ? n * 4 : n;
}

static uint64_t fetch_adds_due(void)
{
	return P.mode == ALL2ALL ? P.ops / 4 : 0;
}

static int rc_post(struct fab_qp *f, uint32_t seq)
{
	unsigned s = seq % P.window;
	uint8_t *local = f->buf + s * P.size;
	struct ibv_sge sge = { .addr = (uintptr_t)local, .length = (uint32_t)P.size,
			       .lkey = f->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)(f - qps) << 32 | seq,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = rc_opcode(seq),
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	switch (wr.opcode) {
	case IBV_WR_SEND_WITH_IMM:
		fill(local, P.host, f->peer, f->q, seq);
		wr.imm_data = htobe32(seq);
		break;
	case IBV_WR_RDMA_WRITE:
		fill(local, P.host, f->peer, f->q, seq);
		wr.wr.rdma.remote_addr =
			f->remote.addr + off_write() +
			(P.mode == RC_WRITE_FANIN ? seq : seq / 4 % WRITE_SLOTS) * P.size;
		wr.wr.rdma.rkey = f->remote.rkey;
		break;
	case IBV_WR_RDMA_READ:
		memset(local, 0, P.size);
		wr.wr.rdma.remote_addr = f->remote.addr + off_read();
		wr.wr.rdma.rkey = f->remote.rkey;
		break;
	default:
		sge.addr = (uintptr_t)(f->buf + off_results() + 8 * s);
		sge.length = 8;
		wr.wr.atomic.remote_addr = f->remote.addr + off_counter();
		wr.wr.atomic.rkey = f->remote.rkey;
		wr.wr.atomic.compare_add = 1;
		break;
	}
	if (ibv_post_send(f->qp, &wr, &bad))
		return fail("post a send WR");
	f->posted++;
	return 0;
}

static struct fab_qp *qp_of(uint64_t wr_id)
{
	uint32_t i = (uint32_t)(wr_id >> 32);

	return i < nqps ? &qps[i] : NULL;
}

static int wc_failed(const struct ibv_wc *wc, const char *what)
{
	fprintf(stderr, "fabric: host %u: %s: status %s, opcode %d, QPN 0x%06x, wr_id 0x%" PRIx64
		"\n", P.host, what, ibv_wc_status_str(wc->status), wc->opcode, wc->qp_num,
		wc->wr_id);
	return -1;
}

static uint64_t ops_completed;	/* successfully, on every QP: the hub's progress */
/* send WRs a restart ended with RETRY_EXC_ERR (the peer gone silent, the
 * retries spent) and with WR_FLUSH_ERR */
static uint64_t ended_retry, ended_flush;
static int hear_hub(unsigned wait_ms);

/* Whether f's peer was killed: told by the hub before it kills, so
 * before any error completion can come; heard now if not yet. */
static bool peer_killed(struct fab_qp *f)
{
	if (!f->broken && restarts_on())
		hear_hub(0);
	return f->broken;
}

static int rc_send_done(const struct ibv_wc *wc)
{
	struct fab_qp *f = qp_of(wc->wr_id);
	uint32_t seq = (uint32_t)wc->wr_id;
	unsigned s = seq % P.window;
	enum ibv_wr_opcode op = rc_opcode(seq);

	if (!f || !f->sends || seq != f->completed + f->ended)
		return wc_failed(wc, "a send completion out of order, twice or of no QP");
	if (wc->status != IBV_WC_SUCCESS) {
		if (!peer_killed(f))
			return wc_failed(wc, "a send completion in error, its peer not killed");
		f->ended++;
		ended_retry += wc->status == IBV_WC_RETRY_EXC_ERR;
		ended_flush += wc->status == IBV_WC_WR_FLUSH_ERR;
		return 0;
	}
	if (f->ended || wc->opcode != rc_wc_opcode(op))
		return wc_failed(wc, "a send completion after an error or of another opcode");
	if (op == IBV_WR_RDMA_READ && mismatch(f->buf + s * P.size, f->peer, P.host, f->q,
					      READ_SEQ) >= 0)
		return wc_failed(wc, "a READ brought other bytes than the peer's");
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		uint64_t old;

		memcpy(&old, f->buf + off_results() + 8 * s, 8);
		if (old != f->faa_seen++)
			return wc_failed(wc, "a fetch-and-add returned another count");
	}
	ops_completed++;
	if (++f->completed == P.ops)
		f->done_ns = now_ns() - t0_ns;
	return 0;
}

static int rc_recv_done(const struct ibv_wc *wc)
{
	struct fab_qp *f = qp_of(wc->wr_id);
	unsigned s = (uint32_t)wc->wr_id;
	uint32_t seq;
	long bad;

	/* the RQ is a ring of the slots in turn: completion k takes slot k mod RQ */
	if (!f || !f->receives || s != (f->received + f->recv_ended) % P.rq)
		return wc_failed(wc, "a receive completion out of order, twice or of no QP");
	if (wc->status != IBV_WC_SUCCESS) {
		if (!peer_killed(f))
			return wc_failed(wc, "a receive completion in error, its peer not killed");
		f->recv_ended++;
		return 0;
	}
	seq = be32toh(wc->imm_data);
	if (f->recv_ended || wc->opcode != IBV_WC_RECV || !(wc->wc_flags & IBV_WC_WITH_IMM) ||
	    seq != rc_send_seq(f->received) || wc->byte_len != P.size)
		return wc_failed(wc, "a receive out of order, without its immediate or length");
	bad = mismatch(f->buf + off_recv() + s * P.size, f->peer, P.host, f->q, seq);
	if (bad >= 0) {
		fprintf(stderr, "fabric: host %u: SEND %u from host %u QP %u: byte %ld wrong\n",
			P.host, seq, f->peer, f->q, bad);
		return -1;
	}
	f->received++;
	/* a QP to a killed host takes no more: what it holds ends in flushes */
	return f->broken ? 0 : post_recv(f, s);
}

static bool rc_finished(void)
{
	for (unsigned i = 0; i < nqps; i++)
		if (qps[i].broken || (qps[i].sends && qps[i].completed < P.ops) ||
		    (qps[i].receives && qps[i].received < rc_receives_due()))
			return false;
	return true;
}

static void rc_progress_line(void)
{
	for (unsigned i = 0; i < nqps; i++)
		fprintf(stderr, "fabric: host %u QP %u to host %u: %u posted, %u completed, "
			"%u ended, %u received%s\n", P.host, qps[i].q, qps[i].peer, qps[i].posted,
			qps[i].completed, qps[i].ended, qps[i].received,
			qps[i].broken ? " (its peer was killed)" : "");
}

/* Posts what the windows allow, takes the completions there are. */
static int rc_step(void)
{
	struct ibv_wc wc[32];
	int n;

	for (unsigned i = 0; i < nqps; i++) {
		struct fab_qp *f = &qps[i];

		while (f->sends && !f->broken && !f->waiting && f->posted < P.ops &&
		       f->posted - f->completed < P.window)
			if (rc_post(f, f->posted))
				return -1;
	}
	n = ibv_poll_cq(send_cq, 32, wc);
	for (int k = 0; k < n; k++)
		if (rc_send_done(&wc[k]))
			return -1;
	if (n < 0)
		return fail("poll the send CQ");
	n = ibv_poll_cq(recv_cq, 32, wc);
	for (int k = 0; k < n; k++)
		if (rc_recv_done(&wc[k]))
			return -1;
	if (n < 0)
		return fail("poll the receive CQ");
	return 0;
}

/* ---- restarts: a host's side (the hub's conductor: fabric_conductor.c) ---- */

/* Longest wait for the completions of a QP moved to ERR (ms): its flushes
 * come at once, so one that does not is a completion lost. */
#define DRAIN_MS 10000

/* hosts started again that this host owes new QPs (FAB_JOIN heard), since */
static bool owed[FAB_MAX_HOSTS];
static uint64_t owed_ns[FAB_MAX_HOSTS];
static bool traffic_over, failure_told;
static uint32_t done_told;	/* restart_epoch + 1 once FAB_DONE said it */
/* what the QPs broken by restarts did before their replacement */
static uint64_t broken_ops, broken_receives, ended_sends, ended_receives;

static void on_killed(unsigned v, uint32_t epoch)
{
	restart_epoch = epoch;
	for (unsigned i = 0; i < nqps; i++)
		if (qps[i].peer == v)
			qps[i].broken = true;
}

/* Host v is back with new QPs: the old ones to it go to ERR (what their
 * retries have not ended yet is flushed) and are replaced once drained. */
static int on_join(unsigned v, const struct qp_record *row)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	memcpy(table[v], row, sizeof(table[v]));
	for (unsigned i = 0; i < nqps; i++)
		if (qps[i].peer == v && ibv_modify_qp(qps[i].qp, &a, IBV_QP_STATE))
			return fail("a QP to a killed host to ERR");
	owed[v] = true;
	owed_ns[v] = now_ns();
	return 0;
}

static void on_ready(unsigned v)
{
	for (unsigned i = 0; i < nqps; i++)
		if (qps[i].peer == v && qps[i].waiting) {
			qps[i].waiting = false;
			qps[i].start_ns = now_ns() - t0_ns;
		}
}

static int take_hub_message(const struct fab_msg *m, const void *payload)
{
	if ((m->type != FAB_FINISH && (m->host >= P.hosts || m->host == P.host)) ||
	    (m->type == FAB_JOIN) != (m->len == sizeof(table[0])))
		return fail("a message of the hub about no other host or of another length");
	switch (m->type) {
	case FAB_KILLED:
		on_killed(m->host, m->arg);
		return 0;
	case FAB_JOIN:
		return on_join(m->host, payload);
	case FAB_READY:
		on_ready(m->host);
		return 0;
	case FAB_FINISH:
		traffic_over = true;
		return 0;
	default:
		return fail("a message of the hub out of turn");
	}
}

static int hear_hub(unsigned wait_ms)
{
	static struct qp_record row[TABLE];
	struct fab_msg m;
	int rc;

	while ((rc = fab_hear_hub(&star, &m, row, sizeof(row), wait_ms)) > 0) {
		if (take_hub_message(&m, row))
			return -1;
		wait_ms = 0;
	}
	return rc;
}

static bool drained(const struct fab_qp *f)
{
	return f->completed + f->ended == f->posted &&
	       f->received + f->recv_ended == f->recv_posted;
}

/* A QP a restart broke, all its WRs completed: its counts to the totals,
 * a new QP in its place, connected to the new peer's. */
static int replace_qp(struct fab_qp *f)
{
	int rc = ibv_destroy_qp(f->qp);

	f->qp = NULL;
	if (rc)
		return fail("destroy a QP to a killed host");
	broken_ops += f->completed;
	broken_receives += f->received;
	ended_sends += f->ended;
	ended_receives += f->recv_ended;
	f->posted = f->completed = f->received = f->faa_seen = 0;
	f->ended = f->recv_posted = f->recv_ended = 0;
	f->done_ns = 0;
	memset(f->buf, 0, buf_bytes());
	f->qp = new_qp();
	if (!f->qp)
		return peer_fail("fabric", "ibv_create_qp");
	f->broken = false;
	f->waiting = true;
	return to_init(f) || prime_qp(f) || connect_to_table(f) ? -1 : 0;
}

static int drain_stuck(unsigned v)
{
	for (unsigned i = 0; i < nqps; i++) {
		const struct fab_qp *f = &qps[i];

		if (f->peer == v && !drained(f))
			fprintf(stderr, "fabric: host %u: completions lost: QP %u to the killed "
				"host %u: of %u send WRs %u completed and %u ended, of %u "
				"receives %u completed and %u ended, %d ms after its move to ERR\n",
				P.host, f->q, v, f->posted, f->completed, f->ended, f->recv_posted,
				f->received, f->recv_ended, DRAIN_MS);
	}
	return -1;
}

/* New QPs to host v, once every WR of the old ones completed. */
static int pay_owed(unsigned v)
{
	static struct qp_record mine[TABLE];

	for (unsigned i = 0; i < nqps; i++)
		if (qps[i].peer == v && !drained(&qps[i]))
			return now_ns() - owed_ns[v] > DRAIN_MS * 1000000ull ? drain_stuck(v) : 0;
	for (unsigned i = 0; i < nqps; i++)
		if (qps[i].peer == v && replace_qp(&qps[i]))
			return -1;
	owed[v] = false;
	my_records(mine);
	return fab_tell_hub(&star, FAB_REPLACED, 0, mine, sizeof(mine));
}

/* The conductor's step (hub), its messages, new QPs owed, FAB_DONE once
 * this host's QPs are all done since the latest kill. */
static int restart_work(void)
{
	if (P.host == 0 && fab_conductor_step(&conductor, ops_completed))
		return -1;
	if (hear_hub(0))
		return -1;
	for (unsigned v = 0; v < P.hosts; v++)
		if (owed[v] && pay_owed(v))
			return -1;
	if (!rc_finished() || done_told == restart_epoch + 1)
		return 0;
	done_told = restart_epoch + 1;
	return fab_tell_hub(&star, FAB_DONE, restart_epoch, NULL, 0);
}

/* After a failure this host only hears the hub (and conducts, at the
 * hub) until the traffic ends; -1 when not even the hub can be told. */
static int restart_service(bool *failed)
{
	if (!*failed) {
		*failed = restart_work() != 0;
	} else {
		if (P.host == 0)
			fab_conductor_step(&conductor, ops_completed);
		hear_hub(0);
	}
	if (!*failed || failure_told)
		return 0;
	failure_told = true;
	return fab_tell_hub(&star, FAB_FAILED, 0, NULL, 0);
}

static void rc_report(struct report *r)
{
	for (unsigned i = 0; i < nqps; i++) {
		r->rc_ops += qps[i].sends ? qps[i].completed : 0;
		r->rc_receives += qps[i].received;
		r->qp_ns[i] = qps[i].sends ? qps[i].done_ns - qps[i].start_ns : 0;
	}
	r->broken_ops = broken_ops;
	r->broken_receives = broken_receives;
	r->ended = ended_sends;
	r->recv_ended = ended_receives;
	r->ended_retry = ended_retry;
	r->ended_flush = ended_flush;
	r->bytes = (r->rc_ops + broken_ops) * P.size;
}

/* The traffic: until this host's QPs are done, or with restarts until
 * the conductor ends it for all (its messages heard every millisecond). */
static int rc_run(struct report *r)
{
	uint64_t end = now_ns() + (uint64_t)P.seconds * 1000000000ull, next = 0;
	bool failed = false;

	while (restarts_on() ? !traffic_over : !rc_finished()) {
		if (!failed && rc_step()) {
			if (!restarts_on())
				return -1;
			failed = true;
		}
		if (restarts_on() && now_ns() >= next) {
			if (restart_service(&failed))
				return -1;
			next = now_ns() + 1000000;
		}
		if (now_ns() > end) {
			rc_progress_line();
			return fail("the operations did not finish in time");
		}
		if (failed || rc_finished())
			usleep(1000);
	}
	if (failed)
		return -1;
	rc_report(r);
	return 0;
}

/* After every host finished: what the peers' WRITEs and fetch-and-adds
 * left in this host's QPs. */
static int rc_check_targets(void)
{
	for (unsigned i = 0; i < nqps && P.mode == RC_WRITE_FANIN; i++) {
		struct fab_qp *f = &qps[i];
		long bad;

		for (uint32_t seq = 0; seq < P.ops && f->receives; seq++) {
			bad = mismatch(f->buf + off_write() + seq * P.size, f->peer, P.host, f->q, seq);
			if (bad >= 0) {
				fprintf(stderr, "fabric: host %u: WRITE %u of host %u QP %u is wrong "
					"at byte %ld\n", P.host, seq, f->peer, f->q, bad);
				return -1;
			}
		}
	}
	for (unsigned i = 0; i < nqps && P.mode == ALL2ALL; i++) {
		struct fab_qp *f = &qps[i];
		uint64_t counter;

		for (unsigned j = 0; j < WRITE_SLOTS; j++) {
			long last = -1;

			for (uint32_t seq = 1; seq < P.ops; seq += 4)
				if (seq / 4 % WRITE_SLOTS == j)
					last = seq;
			if (last >= 0 && mismatch(f->buf + off_write() + j * P.size, f->peer,
						  P.host, f->q, (uint32_t)last) >= 0) {
				fprintf(stderr, "fabric: host %u: WRITE target %u of host %u QP %u "
					"does not hold WRITE %ld\n", P.host, j, f->peer, f->q, last);
				return -1;
			}
		}
		memcpy(&counter, f->buf + off_counter(), 8);
		if (counter != fetch_adds_due()) {
			fprintf(stderr, "fabric: host %u: the counter of host %u QP %u is %" PRIu64
				", %" PRIu64 " fetch-and-adds were done\n", P.host, f->peer, f->q,
				counter, fetch_adds_due());
			return -1;
		}
	}
	return 0;
}

/* ---- UD: datagrams, and the count of every one ---- */

/* What the receive side of this adapter counted dropped since `base`. */
static uint64_t ud_counted_drops(const struct mlx4emu_counters *c)
{
	return (c->wire_packets_dropped - base.wire_packets_dropped) +
	       (c->wire_packets_refused - base.wire_packets_refused) +
	       (c->ud_no_wqe_drops - base.ud_no_wqe_drops);
}

static int ud_send_all(struct report *r)
{
	uint64_t end = now_ns() + (uint64_t)P.seconds * 1000000000ull;
	struct fab_qp *f = &qps[0];
	unsigned dest[FAB_MAX_HOSTS], nd = 0;
	uint32_t total, posted = 0, completed = 0;
	struct ibv_wc wc[32];

	for (unsigned h = 0; h < P.hosts; h++)
		if (sends_to(P.host, h))
			dest[nd++] = h;
	total = P.ops * nd;
	while (completed < total) {
		int n;

		while (posted < total && posted - completed < P.window) {
			unsigned h = P.bursts ? dest[posted / P.ops] : dest[posted % nd];
			uint32_t seq = P.bursts ? posted % P.ops : posted / nd;
			uint8_t *local = f->buf + posted % P.window * P.size;
			struct ibv_sge sge = { .addr = (uintptr_t)local,
					       .length = (uint32_t)P.size,
					       .lkey = f->mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
				.imm_data = htobe32(seq),
				.wr.ud = { .ah = ah[h], .remote_qpn = table[h][0].qpn,
					   .remote_qkey = QKEY },
			}, *bad;

			fill(local, P.host, h, 0, seq);
			if (ibv_post_send(f->qp, &wr, &bad))
				return fail("post a datagram");
			posted++;
		}
		n = ibv_poll_cq(send_cq, 32, wc);
		if (n < 0)
			return fail("poll the send CQ");
		for (int k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS || wc[k].opcode != IBV_WC_SEND ||
			    wc[k].wr_id != completed)
				return wc_failed(&wc[k], "a datagram's send completion");
			completed++;
		}
		if (now_ns() > end)
			return fail("the datagrams were not all sent in time");
	}
	r->ud_posted = total;
	r->bytes = (uint64_t)total * P.size;
	return 0;
}

static int ud_source(uint16_t slid)
{
	for (unsigned h = 0; h < P.hosts; h++)
		if (table[h][0].lid == slid && h != P.host)
			return (int)h;
	return -1;
}

static int ud_take(const struct ibv_wc *wc, uint8_t *seen)
{
	struct fab_qp *f = &qps[0];
	unsigned s = (uint32_t)wc->wr_id;
	int src = ud_source(wc->slid);
	uint32_t seq = be32toh(wc->imm_data);
	long bad;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV || s >= P.rq ||
	    !(wc->wc_flags & IBV_WC_WITH_IMM) || src < 0 || !sends_to((unsigned)src, P.host) ||
	    seq >= P.ops || wc->byte_len != UD_GRH + P.size)
		return wc_failed(wc, "a datagram's receive completion");
	if (seen[(size_t)src * P.ops + seq]++) {
		fprintf(stderr, "fabric: host %u: datagram %u of host %d arrived twice\n", P.host,
			seq, src);
		return -1;
	}
	bad = mismatch(f->buf + off_recv() + s * recv_slot_bytes() + UD_GRH, (unsigned)src,
		       P.host, 0, seq);
	if (bad >= 0) {
		fprintf(stderr, "fabric: host %u: datagram %u of host %d: byte %ld wrong\n",
			P.host, seq, src, bad);
		return -1;
	}
	return post_recv(f, s);
}

/* Takes datagrams until every one due is accounted for (taken or counted
 * dropped here), or none came nor was counted for QUIET_S seconds (a
 * sender's kernel refused some: its report says so). */
#define QUIET_S 10

static int ud_receive_all(struct report *r)
{
	uint64_t end = now_ns() + (uint64_t)P.seconds * 1000000000ull, quiet_since = now_ns();
	uint64_t due = 0, taken = 0, last = 0;
	bool stalled = false;
	uint8_t *seen = calloc((size_t)P.hosts * P.ops, 1);
	struct mlx4emu_counters c = base;
	struct ibv_wc wc[32];
	int rc = -1;

	if (!seen)
		return fail("no memory");
	for (unsigned h = 0; h < P.hosts; h++)
		due += sends_to(h, P.host) ? P.ops : 0;
	for (unsigned spin = 0;; spin++) {
		int n = ibv_poll_cq(recv_cq, 32, wc);

		if (n < 0) {
			fail("poll the receive CQ");
			goto out;
		}
		for (int k = 0; k < n; k++, taken++)
			if (ud_take(&wc[k], seen))
				goto out;
		if (n > 0 && P.stall_ms && !stalled) {
			stalled = true;
			ctl.pause();
			usleep(P.stall_ms * 1000u);
			ctl.resume();
		}
		if (n > 0 || !(spin & 1023)) {
			ctl.get_counters(&c);
			if (taken + ud_counted_drops(&c) != last) {
				last = taken + ud_counted_drops(&c);
				quiet_since = now_ns();
			}
		}
		if (last >= due || now_ns() - quiet_since > QUIET_S * 1000000000ull)
			break;
		if (now_ns() > end) {
			fail("the datagrams did not all arrive in time");
			goto out;
		}
		if (!n)
			usleep(100);
	}
	/* the engine may hold a last few CQEs it wrote as the count completed */
	ctl.wait_idle(1000);
	for (int n; (n = ibv_poll_cq(recv_cq, 32, wc)) > 0;)
		for (int k = 0; k < n; k++, taken++)
			if (ud_take(&wc[k], seen))
				goto out;
	ctl.get_counters(&c);
	r->ud_received = taken;
	r->ud_dropped = ud_counted_drops(&c);
	r->bytes = taken * P.size;
	rc = 0;
out:
	free(seen);
	return rc;
}

/* ---- the whole fabric's verdict, at the hub ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The restarts done against those planned, and what they ended. */
static int restart_verdict(const struct report *sum)
{
	printf("fabric all2all: %u peer restarts", conductor.done);
	for (unsigned j = 0; j < conductor.done; j++)
		printf("%s%u", j ? " " : " (hosts ", conductor.victims[j]);
	printf("%s: %" PRIu64 " send WRs and %" PRIu64 " receives ended by them (send WRs: %" PRIu64
	       " RETRY_EXC_ERR, %" PRIu64 " WR_FLUSH_ERR, %" PRIu64 " another error); %" PRIu64
	       " operations and %" PRIu64 " receives completed and checked on the QPs they "
	       "broke\n", conductor.done ? ")" : "", sum->ended, sum->recv_ended, sum->ended_retry,
	       sum->ended_flush, sum->ended - sum->ended_retry - sum->ended_flush,
	       sum->broken_ops, sum->broken_receives);
	if (conductor.done == P.restarts)
		return 0;
	printf("FAIL: fabric all2all: %u of %u peer restarts done\n", conductor.done, P.restarts);
	return -1;
}

/* -D: what the receive buffers of the hosts sent to dropped; fails the
 * run when they dropped any. */
static int receiver_drops_verdict(const struct report *all)
{
	uint64_t drops = 0;
	unsigned hosts = 0;

	for (unsigned h = 0; h < P.hosts; h++) {
		bool sent_to = false;

		for (unsigned s = 0; s < P.hosts && !sent_to; s++)
			sent_to = s != h && sends_to(s, h);
		if (sent_to) {
			drops += all[h].kernel_drops;
			hosts++;
		}
	}
	if (!P.no_receiver_drops || !drops)
		return 0;
	printf("FAIL: fabric %s: the full receive buffers of the %u hosts sent to dropped %" PRIu64
	       " packets (wire_packets_dropped), none allowed\n", mode_names[P.mode], hosts, drops);
	return -1;
}

static int hub_verdict(const struct report *all, double seconds)
{
	uint64_t posted = 0, sent = 0, lost = 0, received = 0, dropped = 0, ops = 0, recvs = 0;
	uint64_t bytes = 0, kdrops = 0, credits = 0, hub_cpu = all[0].cpu_ns, want_ops = 0, want_recvs = 0, times[FAB_MAX_HOSTS * MAX_QPS];
	struct report broken = { 0 };
	unsigned failed = 0, nt = 0;
	int rc = 0;

	for (unsigned h = 0; h < P.hosts; h++) {
		const struct report *r = &all[h];

		failed += r->failed != 0;
		posted += r->ud_posted;
		sent += r->ud_sent;
		lost += r->ud_send_lost;
		received += r->ud_received;
		dropped += r->ud_dropped;
		ops += r->rc_ops;
		recvs += r->rc_receives;
		broken.broken_ops += r->broken_ops;
		broken.broken_receives += r->broken_receives;
		broken.ended += r->ended;
		broken.recv_ended += r->recv_ended;
		broken.ended_retry += r->ended_retry;
		broken.ended_flush += r->ended_flush;
		bytes += r->bytes;
		kdrops += r->kernel_drops;
		credits += r->credits_sent;
		for (unsigned i = 0; i < MAX_QPS; i++)
			if (r->qp_ns[i])
				times[nt++] = r->qp_ns[i];
		for (unsigned p = 0; p < P.hosts; p++)
			if (sends_to(h, p)) {
				want_ops += (uint64_t)P.qps * P.ops;
				want_recvs += (uint64_t)P.qps * rc_receives_due();
			}
	}
	if (failed) {
		printf("FAIL: fabric %s: %u of %u hosts failed\n", mode_names[P.mode], failed,
		       P.hosts);
		return -1;
	}
	if (is_ud()) {
		printf("fabric %s: %u hosts, %" PRIu64 " datagrams of %zu bytes posted: %" PRIu64
		       " sent, %" PRIu64 " refused on send; %" PRIu64 " received, %" PRIu64
		       " counted dropped by the receivers (%.0f%% delivered) in %.2f s; %" PRIu64
		       " datagram credit packets, %" PRIu64 " packets dropped by full receive "
		       "buffers\n",
		       mode_names[P.mode], P.hosts, posted, P.size, sent, lost, received, dropped,
		       posted ? 100.0 * (double)received / (double)posted : 0.0, seconds, credits,
		       kdrops);
		if (posted != sent + lost || sent != received + dropped) {
			printf("FAIL: fabric %s: %" PRIu64 " datagrams lost silently\n",
			       mode_names[P.mode], posted - lost - received - dropped);
			rc = -1;
		}
	} else {
		printf("fabric %s: %u hosts, %u QPs per pair and direction, %" PRIu64
		       " operations of %zu bytes completed, %" PRIu64 " receives checked, "
		       "%.1f MB/s in all over %.2f s; the hub's CPU %.1f ns per byte it took or "
		       "gave; %" PRIu64 " packets dropped by full receive buffers (recovered)\n",
		       mode_names[P.mode], P.hosts, P.qps, ops, P.size, recvs,
		       (double)bytes / seconds / 1e6, seconds,
		       (double)hub_cpu / (double)(P.mode == ALL2ALL ? bytes / P.hosts : bytes),
		       kdrops);
		if (ops != want_ops || recvs != want_recvs) {
			printf("FAIL: fabric %s: %" PRIu64 " operations and %" PRIu64
			       " receives, %" PRIu64 " and %" PRIu64 " due\n", mode_names[P.mode],
			       ops, recvs, want_ops, want_recvs);
			rc = -1;
		}
	}
	if (receiver_drops_verdict(all))
		rc = -1;
	if (P.mode == ALL2ALL && restart_verdict(&broken))
		rc = -1;
	if (P.mode == ALL2ALL && nt) {
		uint64_t median, slowest;

		qsort(times, nt, sizeof(times[0]), cmp_u64);
		median = times[nt / 2];
		slowest = times[nt - 1];
		printf("fabric all2all: %u QPs (%u connections), time to the last completion: "
		       "median %.3f s, slowest %.3f s (rate ratio %.2f, at least 0.25 asked)\n",
		       nt, nt / 2,
		       (double)median / 1e9, (double)slowest / 1e9,
		       (double)median / (double)slowest);
		if (slowest > 4 * median) {
			printf("FAIL: fabric all2all: a QP was starved\n");
			rc = -1;
		}
	}
	if (!rc)
		printf("PASS: fabric %s\n", mode_names[P.mode]);
	return rc;
}

/* ---- options and the run ---- */

static int usage(void)
{
	fprintf(stderr, "usage: fabric -m rc_fanin|rc_fanout|rc_write_fanin|all2all|ud_fanin|ud_fanout "
		"-i HOST "
		"-N HOSTS -H HUB_ADDR -p TCP_PORT [-n OPS] [-s BYTES] [-q QPS] [-w WINDOW] "
		"[-r RQ] [-t SECONDS] [-D] [-b] [-P MS] [-u] [-k RESTARTS [-S SEED]] [-J]\n");
	return 2;
}

static bool number(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < lo || v > hi)
		return false;
	*out = (unsigned)v;
	return true;
}

static int parse(int argc, char **argv)
{
	unsigned size = 1024, port = 0, mode = 99;
	int c;

	P = (struct params){ .ops = 200, .qps = 1, .window = 16, .rq = 64, .seconds = 100 };
	while ((c = getopt(argc, argv, "m:i:N:H:p:n:s:q:w:r:t:DbuP:k:S:J")) != -1) {
		bool ok = true;

		switch (c) {
		case 'm':
			for (unsigned m = 0; m < MODES; m++)
				if (!strcmp(optarg, mode_names[m]))
					mode = m;
			ok = mode < MODES;
			break;
		case 'i': ok = number(optarg, 0, FAB_MAX_HOSTS - 1, &P.host); break;
		case 'N': ok = number(optarg, 2, FAB_MAX_HOSTS, &P.hosts); break;
		case 'H': P.hub = optarg; break;
		case 'p': ok = number(optarg, 1, 65535, &port); break;
		case 'n': ok = number(optarg, 1, 1u << 24, &P.ops); break;
		case 's': ok = number(optarg, 8, 1u << 20, &size); break;
		case 'q': ok = number(optarg, 1, MAX_QPS_PER_PEER, &P.qps); break;
		case 'w': ok = number(optarg, 1, 256, &P.window); break;
		case 'r': ok = number(optarg, 1, 4096, &P.rq); break;
		case 't': ok = number(optarg, 1, 100000, &P.seconds); break;
		case 'D': P.no_receiver_drops = true; break;
		case 'b': P.bursts = true; break;
		case 'u': P.uc = true; break;
		case 'P': ok = number(optarg, 1, 200, &P.stall_ms); break;
		case 'k': ok = number(optarg, 0, FAB_MAX_RESTARTS, &P.restarts); break;
		case 'S': ok = number(optarg, 0, ~0u, &P.seed); break;
		case 'J': P.rejoin = true; break;
		default: ok = false;
		}
		if (!ok)
			return usage();
	}
	if (mode >= MODES || !P.hosts || !P.hub || !port || P.host >= P.hosts || optind != argc)
		return usage();
	P.mode = (enum mode)mode;
	P.size = size;
	P.port = (uint16_t)port;
	if ((P.restarts || P.rejoin) && (!restarts_on() || P.hosts < 3 || (P.rejoin && !P.host)))
		return usage();
	if (P.uc && P.mode != RC_FANIN && P.mode != RC_FANOUT)
		return usage();
	if (is_ud())
		P.qps = 1;
	return 0;
}

static int setup(void)
{
	unsigned cq_send = (P.hosts - 1) * P.qps * P.window + 1;
	unsigned cq_recv = (P.hosts - 1) * P.qps * P.rq + 1;

	if (mlx4emu_ctl_load(&ctl))
		return fail("the software adapter's control API is absent (run under mlx4emu-run)");
	ctx = peer_open_device("fabric", &port_attr);
	if (!ctx)
		return -1;
	if (is_ud() && P.size > 256u << port_attr.active_mtu)
		return fail("-s is larger than the port's MTU");
	pd = ibv_alloc_pd(ctx);
	send_cq = pd ? ibv_create_cq(ctx, (int)cq_send, NULL, NULL, 0) : NULL;
	recv_cq = send_cq ? ibv_create_cq(ctx, (int)cq_recv, NULL, NULL, 0) : NULL;
	if (!recv_cq)
		return peer_fail("fabric", "PD or CQs");
	if (fab_star_open(&star, P.host, P.hosts, P.hub, P.port,
			  (restarts_on() ? FAB_STAR_RESTARTS : 0) | (P.rejoin ? FAB_STAR_REJOIN : 0)))
		return -1;
	/* a barrier after the traffic waits for the slowest host's */
	star.wait_ms = (P.seconds + 60) * 1000;
	if (create_qps())
		return -1;
	/* the hub's progress is its own completions: nqps x OPS without restarts */
	if (P.host == 0 && restarts_on() &&
	    fab_conductor_init(&conductor, &star, P.restarts, P.seed, (uint64_t)nqps * P.ops,
			       sizeof(table[0])))
		return -1;
	return exchange_and_connect();
}

static void teardown(void)
{
	for (unsigned i = 0; i < nqps; i++) {
		if (qps[i].qp)
			ibv_destroy_qp(qps[i].qp);
		if (qps[i].mr)
			ibv_dereg_mr(qps[i].mr);
		free(qps[i].buf);
	}
	for (unsigned h = 0; h < FAB_MAX_HOSTS; h++)
		if (ah[h])
			ibv_destroy_ah(ah[h]);
	if (recv_cq)
		ibv_destroy_cq(recv_cq);
	if (send_cq)
		ibv_destroy_cq(send_cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	fab_star_close(&star);
	fab_conductor_free(&conductor);
}

static uint64_t cpu0_ns;

/* CPU time of the whole process: the program's thread and the adapter's
 * engine thread. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int run(struct report *r)
{
	struct mlx4emu_counters c;

	cpu0_ns = cpu_ns();
	t0_ns = now_ns();
	if (!is_ud())
		return rc_run(r);
	if (qps[0].sends) {
		if (ud_send_all(r))
			return -1;
		/* a datagram completes when queued; the pass in progress hands
		 * it to the kernel */
		if (ctl.wait_idle(10000))
			return fail("the adapter did not go idle");
		ctl.get_counters(&c);
		r->ud_sent = c.wire_packets_sent - base.wire_packets_sent;
		r->ud_send_lost = c.wire_packets_send_lost - base.wire_packets_send_lost;
		return 0;
	}
	return ud_receive_all(r);
}

int main(int argc, char **argv)
{
	static struct report mine, all[FAB_MAX_HOSTS];
	int status = parse(argc, argv);
	double seconds;

	if (status)
		return status;
	status = 1;
	if (setup())
		goto out;
	mine.failed = run(&mine) != 0;
	/* a WRITE target's program has nothing to wait for: its adapter
	 * works until the senders are done, at the barrier */
	if (P.mode == RC_WRITE_FANIN && P.host == 0 && fab_barrier(&star, "done"))
		goto out;
	seconds = (double)(now_ns() - t0_ns) / 1e9;
	mine.cpu_ns = cpu_ns() - cpu0_ns;
	{
		struct mlx4emu_counters c;

		ctl.get_counters(&c);
		mine.kernel_drops = c.wire_packets_dropped - base.wire_packets_dropped;
		mine.credits_sent = c.wire_credit_packets_sent - base.wire_credit_packets_sent;
	}
	/* every host's WRITEs and fetch-and-adds are done at this barrier */
	if (!(P.mode == RC_WRITE_FANIN && P.host == 0) && fab_barrier(&star, "done"))
		goto out;
	if (!mine.failed && rc_check_targets())
		mine.failed = 1;
	if (fab_allgather(&star, &mine, sizeof(mine), all))
		goto out;
	if (P.host == 0 ? hub_verdict(all, seconds) == 0 : !mine.failed)
		status = 0;
	/* the hub's verdict stands only once every host is done with its QPs */
	if (fab_barrier(&star, "end"))
		status = 1;
out:
	teardown();
	return status;
}
