// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The transport's registrations and its engine sources (each a struct
 * that holds the engine's handle and what its poll needs): each pass runs
 * the connections' timers that are due, reads the packets waiting on every port,
 * dispatches them by transport (RC/UC requests to the responder, their
 * ACKs and responses to the completer, UD to ud.c), sends the coalesced
 * ACKs, lets the QPs waiting for link credits send, then everything the
 * pass queued.
 */
#include "transport/transport.h"

#include "adapter/engine.h"
#include "adapter/lock.h"
#include "adapter/objects.h"
#include "adapter/responder.h"
#include "adapter/wqe.h"
#include "base/config.h"
#include "base/guard.h"
#include "adapter/xrc.h"
#include "transport/ack_coalesce.h"
#include "transport/admission.h"
#include "transport/completer.h"
#include "transport/conn.h"
#include "transport/conn_timers.h"
#include "transport/datagram_credits.h"
#include "transport/eth_wire.h"
#include "transport/gsi.h"
#include "transport/requester.h"
#include "transport/responder.h"
#include "transport/ud.h"
#include "transport/xrc_wire.h"
#include "wire/faults.h"
#include "wire/identity.h"
#include "wire/peer_filter.h"
#include "wire/vxlan.h"

/* packets one pass reads from a port at most before it goes on */
#define RX_WORK_MAX 2048
#define RX_BATCH 64

/* A source that reads one port's socket: the RoCEv2 link's or the VXLAN
 * tunnel's. */
struct port_source {
	struct emu_engine_source source;
	unsigned port;
};

static struct port_source roce_sources[2], eth_sources[2];

static void qp_modified(struct emu_qp *qp, int cur, int next)
{
	(void)cur;
	/* RESET forgets the connection; a new one starts from the PSNs the
	 * next RTR and RTS set */
	if (next == EMU_QPS_RESET)
		conn_free(qp);
	emu_admission_qp_modified(qp, next);
}

static void qp_destroyed(struct emu_qp *qp)
{
	conn_free(qp);
	emu_admission_qp_destroyed(qp);
}

static const struct emu_remote_ops ops = {
	.ud_send = emu_ud_send_remote,
	.ud_mcast_send = emu_ud_mcast_send_remote,
	.eth_send = emu_eth_send_remote,
	.conn_post = req_post,
	.conn_queue_local = req_queue_local,
	.sq_flush = comp_sq_flush,
	.qp_modified = qp_modified,
	.qp_destroyed = qp_destroyed,
};

/* Touched by the guarded part, read after a fault (not a local). */
static struct {
	struct emu_conn *conn;
	bool completer;
} rx_at;

static void conn_dispatch(const struct emu_rx *rx, const struct emu_bth *bth,
			  const struct emu_ext_layout *l)
{
	uint32_t path;
	struct emu_qp *d = emu_admit_connected(rx, bth, &path);
	uint8_t bop = bth->opcode & 0x1f;
	struct emu_guard g;

	if (!d || !(rx_at.conn = conn_get(d)))
		return;
	/* every answer goes to the QP's path, whatever the packet says */
	rx_at.conn->peer = path;
	rx_at.completer = bop >= EMU_BOP_READ_RESP_FIRST && bop <= EMU_BOP_ATOMIC_ACK;
	if (!EMU_GUARD_ENTER(&g)) {
		/* the program unmapped memory a registration covers */
		emu_rq_undo_last();
		EMU_TRACE("QPN 0x%x: memory at %p is no longer mapped", rx_at.conn->qp->qpn,
			  g.fault_addr);
		if (rx_at.completer)
			comp_fault(rx_at.conn);
		else
			resp_fault(rx_at.conn);
		return;
	}
	emu_rq_undo_arm();
	if (rx_at.completer)
		comp_receive(rx_at.conn, rx, bth, l);
	else
		resp_receive(rx_at.conn, rx, bth, l);
	emu_guard_leave(&g);
}

static void dispatch(const struct emu_rx *rx)
{
	struct emu_ext_layout l;
	struct emu_bth bth;

	emu_bth_get(rx->pkt, &bth);
	if (bth.opcode == EMU_OP_DATAGRAM_CREDIT && bth.pkey == EMU_DEFAULT_PKEY) {
		emu_dgram_credits_receive(rx);
		return;
	}
	/* read from the socket: what it took of the buffer is free again */
	if (emu_dgram_paced(bth.opcode, bth.dest_qpn))
		emu_dgram_credits_count(rx);
	if (!emu_roce_layout(bth.opcode, &l) || rx->len < (size_t)(EMU_BTH_BYTES + l.len) ||
	    bth.pkey != EMU_DEFAULT_PKEY) {
		emu_admit_refuse(rx);
		return;
	}
	if ((bth.opcode & 0xe0) == EMU_TR_UD) {
		/* QP1's MADs belong to the connection manager, never to a QP */
		if (!emu_gsi_receive(rx, bth.dest_qpn))
			emu_ud_receive(rx, &bth);
	}
	else
		conn_dispatch(rx, &bth, &l);
}

/* The RC timers that are due, then the QPs waiting for link credits
 * that came back (a destroy, a flush, a timeout), then the datagram
 * credit requests to send again. */
static int timers_poll(struct emu_engine_source *src, uint64_t now_ns)
{
	int work;

	(void)src;
	work = conn_timers_run(now_ns);
	work += conn_link_serve(now_ns);
	return work + emu_dgram_credits_poll(now_ns);
}

static uint64_t timers_deadline(struct emu_engine_source *src)
{
	uint64_t rc, dgram;

	(void)src;
	if (conn_link_due())
		return 0;
	rc = conn_timers_deadline();
	dgram = emu_dgram_credits_deadline();
	return rc < dgram ? rc : dgram;
}

static int roce_poll(struct emu_engine_source *src, uint64_t now_ns)
{
	/* engine thread only; too large for its stack */
	static struct emu_rx rx[EMU_LINK_RX_MAX];
	unsigned port = EMU_SOURCE_OWNER(src, struct port_source, source)->port;
	int n, credits, work = 0;
	bool more;

	do {
		n = emu_link_recv(port, rx, EMU_LINK_RX_MAX, &more);
		for (int i = 0; i < n; i++)
			dispatch(&rx[i]);
		work += n;
		conn_flush_acks();
		/* the ACKs returned credits: the QPs waiting send now, in
		 * this pass's flush */
		work += conn_link_serve(now_ns);
		/* the datagrams read free their senders' credits: the updates
		 * go at once, not after the rest of this pass's reading, so
		 * that a sender never waits for what was freed */
		credits = emu_dgram_credits_poll(now_ns);
		if (credits)
			work += credits + emu_link_flush();
	} while (more && work < RX_WORK_MAX);
	work += emu_link_flush();
	return work;
}

/* A frame from the tunnel: a multicast datagram for the port's groups,
 * else (Ethernet ports) a raw frame. */
static void eth_dispatch(unsigned port, const struct emu_vxlan_rx *rx)
{
	if (emu_ud_mcast_receive(port, rx->src, rx->frame, rx->len))
		return;
	if (emu_cfg.link_layer[port - 1] == EMU_LL_ETH)
		emu_eth_receive(port, rx->frame, (uint32_t)rx->len);
	else
		emu_vxlan_count_bad(port);
}

/* Frames from other adapters (wire/vxlan.h) enter the port as its own
 * frames do; then the frames the pass queued go out. */
static int eth_poll(struct emu_engine_source *src, uint64_t now_ns)
{
	unsigned port = EMU_SOURCE_OWNER(src, struct port_source, source)->port;
	struct emu_vxlan_rx rx[EMU_VXLAN_BATCH];
	int n, work = 0;

	(void)now_ns;
	do {
		n = emu_vxlan_recv(port, rx, EMU_VXLAN_BATCH);
		for (int i = 0; i < n; i++)
			eth_dispatch(port, &rx[i]);
		work += n;
	} while (n == EMU_VXLAN_BATCH && work < 4 * RX_BATCH);
	return work + emu_vxlan_flush();
}

static int eth_sources_add(void)
{
	int err = 0;

	for (unsigned p = 1; p <= emu_cfg.ports && !err; p++) {
		struct port_source *s = &eth_sources[p - 1];

		*s = (struct port_source){
			.source = { .fd = emu_vxlan_socket(p), .poll = eth_poll },
			.port = p,
		};
		if (s->source.fd >= 0)
			err = emu_engine_add_source(&s->source);
	}
	return err;
}

/* Frames the faults on the wire hold (delay, reorder): released by their
 * deadline, so an idle engine sleeps until the next one is due. */
static int held_poll(struct emu_engine_source *src, uint64_t now_ns)
{
	(void)src;
	return emu_link_release_held(now_ns);
}

static uint64_t held_deadline(struct emu_engine_source *src)
{
	(void)src;
	return emu_link_next_held();
}

static int held_source_add(void)
{
	static struct emu_engine_source src = {
		.fd = -1,
		.poll = held_poll,
		.deadline = held_deadline,
	};

	return emu_engine_add_source(&src);
}

int emu_transport_init(void)
{
	static struct emu_engine_source timers = {
		.fd = -1,
		.poll = timers_poll,
		.deadline = timers_deadline,
	};
	int err;

	emu_remote_register(&ops);
	emu_vxlan_open();
	emu_adapter_lock();
	/* first: what a timer sends goes out with the ports' flush */
	err = emu_engine_add_source(&timers);
	for (unsigned p = 1; p <= emu_cfg.ports && !err; p++) {
		struct port_source *s = &roce_sources[p - 1];

		*s = (struct port_source){
			.source = { .fd = emu_port_socket(p), .poll = roce_poll },
			.port = p,
		};
		/* a kernel that refuses the filter leaves the port open to
		 * every datagram; the engine's checks still apply */
		emu_peer_filter_init(p);
		err = emu_engine_add_source(&s->source);
	}
	if (!err)
		err = eth_sources_add();
	if (!err && emu_faults_on)
		err = held_source_add();
	emu_adapter_unlock();
	return err;
}
