// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The IB Communication Manager between adapters (IBTA Vol. 1 ch. 12), as
 * the kernel's ib_cm and rdma_cm drive it for librdmacm:
 *
 *   active                         passive
 *   REQ  (service ID 0x0000000001060000 | port for RDMA_PS_TCP; private
 *         data: the CMA header with both IP addresses and the source
 *         port, then the program's)  ->  CONNECT_REQUEST on the listener
 *   CONNECT_RESPONSE  <-  REP  (the program's ACCEPT)
 *   RTU  (the program's ACCEPT, librdmacm's after it moved the QP to RTS)
 *                                  ->  ESTABLISHED
 *   DREQ -> DREP, DISCONNECTED on both sides; REJ where a REQ finds no
 *   listener (reason 8, invalid service ID), the program rejects
 *   (reason 28, consumer defined, with its private data) or an id goes
 *   away mid-way; MRA for a REQ repeated before the program decided.
 *   SIDR_REQ -> SIDR_REP for UD ids (the QPN and Q_Key of the service).
 *
 * REQ, REP and DREQ are sent again every CM response timeout until
 * answered, up to 15 times (the CMA's max_cm_retries); then the id gets
 * UNREACHABLE (REQ, REP) or DISCONNECTED (DREQ), status -ETIMEDOUT.  The
 * response timeout is 4.096 us x 2^16 plus twice the packet lifetime
 * (0.8 s; the kernel's CMA asks for 2^20, 4.3 s, sized for a fabric), so a
 * peer that is gone is given up on after about 13 s.
 */
#include "cm/cm.h"

#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "adapter/adapter.h"
#include "adapter/attributes.h"
#include "adapter/engine.h"
#include "adapter/lock.h"
#include "base/config.h"
#include "base/trace.h"
#include "cm/cm_mad.h"
#include "wire/identity.h"

#define CM_RESPONSE_TIMEOUT 16
#define CM_MAX_RETRIES 15
/* what the kernel's CMA puts in an MRA: 2^24 x 4.096 us */
#define CM_MRA_SERVICE_TIMEOUT 24
/* a ConnectX-3's local CA ACK delay (mlx4_ib: local_ca_ack_delay) */
#define CM_CA_ACK_DELAY 15
/* the CMA's private data header (its struct cma_hdr) */
#define CMA_HDR_BYTES 36

static uint64_t exp_ns(unsigned exponent)
{
	return 4096ull << exponent;
}

static uint64_t response_timeout_ns(void)
{
	return exp_ns(CM_RESPONSE_TIMEOUT) + 2 * exp_ns(CM_PACKET_LIFETIME);
}

static uint8_t *msg_of(uint8_t *mad)
{
	return mad + MAD_HDR_BYTES;
}

static int send_raw(unsigned port, uint32_t dst, const uint8_t *mad)
{
	int err = emu_gsi_send(port, dst, mad);

	if (err)
		EMU_TRACE("cm: MAD 0x%04x to 0x%08x not sent: %d", emu_get_be16(mad + 16), dst, err);
	return err;
}

/* Sends the id's message; with `retry`, again until answered. */
static int send_id_mad(struct cm_id *id, bool retry)
{
	if (retry) {
		id->retries_left = CM_MAX_RETRIES;
		id->due_ns = emu_now_ns() + response_timeout_ns();
		emu_engine_kick();
	}
	return send_raw(id->port, id->peer, id->mad);
}

static void stop_timer(struct cm_id *id)
{
	id->due_ns = 0;
}

/*
 * A connection ends DISCONNECTED, and its time wait begins: the kernel's
 * CM holds the QPN out of reuse for the path's packet lifetime plus one
 * (4.096 us x 2^17, 0.54 s; ib_cm cm_enter_timewait) and then tells the
 * rdma_cm id, which hands the program RDMA_CM_EVENT_TIMEWAIT_EXIT unless
 * it destroyed the id first (the timer goes with it).
 */
static void disconnected(struct cm_id *id)
{
	stop_timer(id);
	id->state = CM_DISCONNECTED;
	cm_event_queue(id, id, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
	if (id->qp_type != IBV_QPT_UD)
		id->timewait_end_ns = emu_now_ns() + exp_ns(CM_PACKET_LIFETIME + 1);
}

static uint64_t service_id(const struct cm_id *id, uint16_t port)
{
	return (uint64_t)id->ps << 16 | port;
}

static uint8_t port_mtu(unsigned port)
{
	struct ib_uverbs_query_port_resp r;

	emu_attr_query_port(port, &r);
	return r.active_mtu;
}

static bool is_ib(unsigned port)
{
	return emu_cfg.link_layer[port - 1] == EMU_LL_IB;
}

/* GID of this side for the connection (the port GID on InfiniBand, the
 * IP-based GID 1 on Ethernet). */
static void local_gid(const struct cm_id *id, uint8_t gid[16])
{
	bool v2;

	emu_port_gid_entry(id->port, is_ib(id->port) ? 0 : 1, gid, &v2);
}

static void put_ip(uint8_t *p, uint32_t ip)
{
	memset(p, 0, 16);
	p[10] = p[11] = 0xff;
	emu_put_be32(p + 12, ip);
}

static void cma_header(const struct cm_id *id, uint8_t *p)
{
	p[0] = 0;		/* CMA version */
	p[1] = 4 << 4;		/* IP version */
	emu_put_be16(p + 2, id->src_port);
	/* IPv4 in the last 4 bytes of each 16-byte address */
	memset(p + 4, 0, 32);
	emu_put_be32(p + 16, id->src_ip);
	emu_put_be32(p + 32, id->dst_ip);
}

int cm_send_req(struct cm_id *id, const struct rdma_ucm_conn_param *p)
{
	uint8_t *m = msg_of(id->mad);
	uint8_t gid[16];

	id->local_comm_id = cm_new_comm_id();
	id->tid = (uint64_t)cm_random_psn() << 32 | id->local_comm_id;
	id->qpn = p->qp_num & 0xffffff;
	id->sq_psn = cm_random_psn();
	id->responder_resources = p->responder_resources;
	id->initiator_depth = p->initiator_depth;
	id->retry_count = p->retry_count & 7;
	id->rnr_retry_count = p->rnr_retry_count & 7;
	id->flow_control = p->flow_control & 1;
	id->srq = p->srq & 1;
	id->path_mtu = port_mtu(id->port);
	cm_mad_header(id->mad, CM_ATTR_REQ, id->tid);
	memset(m, 0, CM_MSG_BYTES);
	emu_put_be32(m + REQ_LOCAL_COMM_ID, id->local_comm_id);
	emu_put_be64(m + REQ_SERVICE_ID, service_id(id, id->dst_port));
	emu_put_be64(m + REQ_LOCAL_CA_GUID, emu_node_guid());
	cm_put_be24(m + REQ_LOCAL_QPN, id->qpn);
	m[REQ_RESPONDER_RESOURCES] = id->responder_resources;
	m[REQ_INITIATOR_DEPTH] = id->initiator_depth;
	cm_put_bits(m + REQ_BYTE43, 0, 5, CM_RESPONSE_TIMEOUT);
	cm_put_bits(m + REQ_BYTE43, 5, 2, 0);	/* RC */
	cm_put_bits(m + REQ_BYTE43, 7, 1, id->flow_control);
	cm_put_be24(m + REQ_STARTING_PSN, id->sq_psn);
	cm_put_bits(m + REQ_BYTE47, 0, 5, CM_RESPONSE_TIMEOUT);
	cm_put_bits(m + REQ_BYTE47, 5, 3, id->retry_count);
	emu_put_be16(m + REQ_PKEY, EMU_DEFAULT_PKEY);
	cm_put_bits(m + REQ_BYTE50, 0, 4, id->path_mtu);
	cm_put_bits(m + REQ_BYTE50, 5, 3, id->rnr_retry_count);
	cm_put_bits(m + REQ_BYTE51, 0, 4, CM_MAX_RETRIES);
	cm_put_bits(m + REQ_BYTE51, 4, 1, id->srq);
	if (is_ib(id->port)) {
		emu_put_be16(m + REQ_PRIMARY_LOCAL_LID, emu_port_lid(id->port));
		emu_put_be16(m + REQ_PRIMARY_REMOTE_LID, (uint16_t)id->peer);
		cm_put_bits(m + REQ_BYTE94, 4, 1, 1);	/* subnet local */
	} else {
		/* RoCE: the permissive LID, the path is the GIDs' */
		emu_put_be16(m + REQ_PRIMARY_LOCAL_LID, 0xffff);
		emu_put_be16(m + REQ_PRIMARY_REMOTE_LID, 0xffff);
		m[REQ_PRIMARY_HOP_LIMIT] = 64;
		m[REQ_PRIMARY_TRAFFIC_CLASS] = id->tos;
	}
	local_gid(id, gid);
	memcpy(m + REQ_PRIMARY_LOCAL_GID, gid, 16);
	memcpy(m + REQ_PRIMARY_REMOTE_GID, id->peer_gid, 16);
	cm_put_bits(m + REQ_BYTE95, 0, 5, id->ack_timeout);
	cma_header(id, m + REQ_PRIVATE_DATA);
	memcpy(m + REQ_PRIVATE_DATA + CMA_HDR_BYTES, p->private_data, p->private_data_len);
	id->state = CM_REQ_SENT;
	return send_id_mad(id, true);
}

int cm_send_rep(struct cm_id *id, const struct rdma_ucm_conn_param *p)
{
	uint8_t *m = msg_of(id->mad);

	id->qpn = p->qp_num & 0xffffff;
	id->responder_resources = p->responder_resources;
	id->initiator_depth = p->initiator_depth;
	id->srq = p->srq & 1;
	cm_mad_header(id->mad, CM_ATTR_REP, id->tid);
	memset(m, 0, CM_MSG_BYTES);
	emu_put_be32(m + REP_LOCAL_COMM_ID, id->local_comm_id);
	emu_put_be32(m + REP_REMOTE_COMM_ID, id->remote_comm_id);
	cm_put_be24(m + REP_LOCAL_QPN, id->qpn);
	cm_put_be24(m + REP_STARTING_PSN, id->sq_psn);
	m[REP_RESPONDER_RESOURCES] = id->responder_resources;
	m[REP_INITIATOR_DEPTH] = id->initiator_depth;
	cm_put_bits(m + REP_BYTE26, 0, 5, CM_CA_ACK_DELAY);
	cm_put_bits(m + REP_BYTE26, 7, 1, p->flow_control & 1);
	cm_put_bits(m + REP_BYTE27, 0, 3, p->rnr_retry_count & 7);
	cm_put_bits(m + REP_BYTE27, 3, 1, id->srq);
	emu_put_be64(m + REP_LOCAL_CA_GUID, emu_node_guid());
	memcpy(m + REP_PRIVATE_DATA, p->private_data,
	       p->private_data_len < REP_PRIVATE_DATA_BYTES ? p->private_data_len
							     : REP_PRIVATE_DATA_BYTES);
	id->state = CM_REP_SENT;
	return send_id_mad(id, true);
}

/* A message of the connection that nothing answers: comm IDs and tid. */
static void short_msg(struct cm_id *id, uint8_t *mad, uint16_t attr, uint64_t tid)
{
	cm_mad_header(mad, attr, tid);
	memset(msg_of(mad), 0, CM_MSG_BYTES);
	emu_put_be32(msg_of(mad) + MSG_LOCAL_COMM_ID, id->local_comm_id);
	emu_put_be32(msg_of(mad) + MSG_REMOTE_COMM_ID, id->remote_comm_id);
}

int cm_send_rtu(struct cm_id *id)
{
	short_msg(id, id->mad, CM_ATTR_RTU, id->tid);
	id->state = CM_ESTABLISHED;
	stop_timer(id);
	/* kept in id->mad: a REP repeated because this RTU was lost gets it
	 * again */
	return send_id_mad(id, false);
}

int cm_send_rej(struct cm_id *id, uint16_t reason, const uint8_t *pdata, uint8_t len)
{
	uint8_t mad[EMU_MAD_BYTES];
	uint8_t *m = msg_of(mad);

	short_msg(id, mad, CM_ATTR_REJ, id->tid);
	cm_put_bits(m + REJ_MSG_REJECTED, 0, 2,
		    id->state == CM_REQ_RCVD ? CM_MSG_REQ :
		    id->state == CM_REP_RCVD ? CM_MSG_REP : CM_MSG_OTHER);
	emu_put_be16(m + REJ_REASON, reason);
	if (reason == CM_REJ_TIMEOUT) {
		/* ARI: the rejecting CA's GUID (Table 109) */
		cm_put_bits(m + REJ_INFO_LENGTH, 0, 7, 8);
		emu_put_be64(m + REJ_ARI, emu_node_guid());
	}
	if (pdata)
		memcpy(m + REJ_PRIVATE_DATA, pdata,
		       len < REJ_PRIVATE_DATA_BYTES ? len : REJ_PRIVATE_DATA_BYTES);
	stop_timer(id);
	id->state = CM_DISCONNECTED;
	return send_raw(id->port, id->peer, mad);
}

int cm_send_dreq(struct cm_id *id)
{
	short_msg(id, id->mad, CM_ATTR_DREQ, (uint64_t)cm_random_psn() << 32 | id->local_comm_id);
	cm_put_be24(msg_of(id->mad) + DREQ_REMOTE_QPN, id->remote_qpn);
	id->state = CM_DREQ_SENT;
	return send_id_mad(id, true);
}

int cm_send_sidr_req(struct cm_id *id, const struct rdma_ucm_conn_param *p)
{
	uint8_t *m = msg_of(id->mad);

	id->local_comm_id = cm_new_comm_id();
	id->tid = (uint64_t)cm_random_psn() << 32 | id->local_comm_id;
	cm_mad_header(id->mad, CM_ATTR_SIDR_REQ, id->tid);
	memset(m, 0, CM_MSG_BYTES);
	emu_put_be32(m + SIDR_REQ_REQUEST_ID, id->local_comm_id);
	emu_put_be16(m + SIDR_REQ_PKEY, EMU_DEFAULT_PKEY);
	emu_put_be64(m + SIDR_REQ_SERVICE_ID, service_id(id, id->dst_port));
	cma_header(id, m + SIDR_REQ_PRIVATE_DATA);
	memcpy(m + SIDR_REQ_PRIVATE_DATA + CMA_HDR_BYTES, p->private_data,
	       p->private_data_len);
	id->state = CM_REQ_SENT;
	return send_id_mad(id, true);
}

int cm_send_sidr_rep(struct cm_id *id, uint8_t status, const struct rdma_ucm_conn_param *p)
{
	uint8_t mad[EMU_MAD_BYTES];
	uint8_t *m = msg_of(mad);

	cm_mad_header(mad, CM_ATTR_SIDR_REP, id->tid);
	memset(m, 0, CM_MSG_BYTES);
	emu_put_be32(m + SIDR_REP_REQUEST_ID, id->remote_comm_id);
	m[SIDR_REP_STATUS] = status;
	emu_put_be64(m + SIDR_REP_SERVICE_ID, service_id(id, id->src_port));
	if (p) {
		cm_put_be24(m + SIDR_REP_QPN, p->qp_num & 0xffffff);
		emu_put_be32(m + SIDR_REP_QKEY, p->qkey ? p->qkey : CM_UDP_QKEY);
		memcpy(m + SIDR_REP_PRIVATE_DATA, p->private_data,
		       p->private_data_len < SIDR_REP_PRIVATE_DATA_BYTES
			       ? p->private_data_len : SIDR_REP_PRIVATE_DATA_BYTES);
	}
	id->state = status == SIDR_REP_OK ? CM_ESTABLISHED : CM_DISCONNECTED;
	return send_raw(id->port, id->peer, mad);
}

/* A REJ for a message no id takes (its comm IDs swapped). */
static void reject_unknown(unsigned port, uint32_t src, const uint8_t *mad, uint16_t reason,
			   unsigned rejected)
{
	uint8_t rej[EMU_MAD_BYTES];
	uint8_t *m = msg_of(rej);

	cm_mad_header(rej, CM_ATTR_REJ, emu_get_be64(mad + 8));
	memset(m, 0, CM_MSG_BYTES);
	emu_put_be32(m + MSG_REMOTE_COMM_ID, emu_get_be32(mad + MAD_HDR_BYTES));
	cm_put_bits(m + REJ_MSG_REJECTED, 0, 2, rejected);
	emu_put_be16(m + REJ_REASON, reason);
	send_raw(port, src, rej);
}

/* The connection param of an event, from what the peer sent. */
static void conn_event(struct rdma_ucm_event_resp *r, const uint8_t *pdata, unsigned len)
{
	memset(r, 0, sizeof(*r));
	if (pdata && len) {
		memcpy(r->param.conn.private_data, pdata, len);
		r->param.conn.private_data_len = (uint8_t)len;
	}
}

struct listen_query {
	uint16_t ps, udp_port;
	uint32_t dst_ip;
	unsigned port;
	struct cm_id *found;
};

static void match_listener(struct cm_id *l, void *arg)
{
	struct listen_query *q = arg;

	if (!q->found && l->state == CM_LISTEN && l->ps == q->ps && l->src_port == q->udp_port &&
	    (cm_addr_wild(l->src_ip) || (l->src_ip == q->dst_ip && cm_addr_owner(q->dst_ip) == q->port)))
		q->found = l;
}

/* The id listening for the service at dst_ip that a REQ on `port` names. */
static struct cm_id *find_listener(uint16_t ps, uint16_t udp_port, uint32_t dst_ip,
				   unsigned port)
{
	struct listen_query q = { ps, udp_port, dst_ip, port, NULL };

	cm_id_each(match_listener, &q);
	return q.found;
}

/* The conn id a REQ or SIDR_REQ makes under listener l. */
static struct cm_id *passive_id(struct cm_id *l, unsigned port, uint32_t src,
				const uint8_t *hdr, uint32_t comm_id, uint64_t tid)
{
	struct cm_id *id = cm_id_new(l->file, l->ps, l->qp_type);

	if (!id)
		return NULL;
	id->listener = l->handle + 1;
	id->passive = true;
	id->uid = 0;
	id->port = (uint8_t)port;
	id->peer = src;
	put_ip(id->peer_gid, src);
	id->src_ip = emu_get_be32(hdr + 32);
	id->src_port = l->src_port;
	id->dst_ip = emu_get_be32(hdr + 16);
	id->dst_port = emu_get_be16(hdr + 2);
	/* what rdma_get_local_addr() and rdma_get_peer_addr() give for the
	 * request: AF_INET from the CMA header, as the kernel's CMA saves
	 * them whatever family the listener was bound with */
	cm_addr_sockaddr(&id->src, id->src_ip, id->src_port);
	cm_addr_sockaddr(&id->dst, id->dst_ip, id->dst_port);
	id->remote_comm_id = comm_id;
	id->local_comm_id = cm_new_comm_id();
	id->tid = tid;
	id->tos = l->tos;
	id->state = CM_REQ_RCVD;
	l->pending++;
	return id;
}

static bool cma_header_ok(const uint8_t *hdr)
{
	return hdr[0] == 0 && hdr[1] >> 4 == 4;
}

static void on_req(unsigned port, uint32_t src, const uint8_t *mad)
{
	const uint8_t *m = mad + MAD_HDR_BYTES;
	const uint8_t *hdr = m + REQ_PRIVATE_DATA;
	uint32_t comm = emu_get_be32(m + REQ_LOCAL_COMM_ID);
	uint64_t sid = emu_get_be64(m + REQ_SERVICE_ID);
	struct rdma_ucm_event_resp r;
	struct cm_id *id = cm_id_by_remote_comm(src, comm), *l;
	uint8_t mtu;

	if (id) {
		/* a repeated REQ: the REP again, or an MRA while the program decides */
		if (id->state == CM_REP_SENT)
			send_raw(id->port, id->peer, id->mad);
		else if (id->state == CM_REQ_RCVD) {
			uint8_t mra[EMU_MAD_BYTES];

			short_msg(id, mra, CM_ATTR_MRA, id->tid);
			cm_put_bits(msg_of(mra) + MRA_MSG_MRAED, 0, 2, CM_MSG_REQ);
			cm_put_bits(msg_of(mra) + MRA_SERVICE_TIMEOUT, 0, 5, CM_MRA_SERVICE_TIMEOUT);
			send_raw(id->port, id->peer, mra);
		}
		return;
	}
	l = (sid >> 32) == 0 && cma_header_ok(hdr)
		    ? find_listener((uint16_t)(sid >> 16), (uint16_t)sid, emu_get_be32(hdr + 32), port)
		    : NULL;
	if (!l || l->qp_type == IBV_QPT_UD) {
		reject_unknown(port, src, mad, CM_REJ_INVALID_SERVICE_ID, CM_MSG_REQ);
		return;
	}
	if (l->pending >= l->backlog || !(id = passive_id(l, port, src, hdr, comm, emu_get_be64(mad + 8)))) {
		reject_unknown(port, src, mad, CM_REJ_CONSUMER_DEFINED, CM_MSG_REQ);
		return;
	}
	id->remote_guid = emu_get_be64(m + REQ_LOCAL_CA_GUID);
	id->remote_qpn = cm_get_be24(m + REQ_LOCAL_QPN);
	id->rq_psn = cm_get_be24(m + REQ_STARTING_PSN);
	id->sq_psn = cm_random_psn();
	/* the passive side's view: what the peer initiates it answers */
	id->responder_resources = m[REQ_INITIATOR_DEPTH];
	id->initiator_depth = m[REQ_RESPONDER_RESOURCES];
	id->retry_count = (uint8_t)cm_get_bits(m + REQ_BYTE47, 5, 3);
	id->rnr_retry_count = (uint8_t)cm_get_bits(m + REQ_BYTE50, 5, 3);
	id->flow_control = (uint8_t)cm_get_bits(m + REQ_BYTE43, 7, 1);
	id->srq = (uint8_t)cm_get_bits(m + REQ_BYTE51, 4, 1);
	mtu = (uint8_t)cm_get_bits(m + REQ_BYTE50, 0, 4);
	id->path_mtu = mtu && mtu < port_mtu(port) ? mtu : port_mtu(port);
	if (cm_get_bits(m + REQ_BYTE95, 0, 5))
		id->ack_timeout = (uint8_t)cm_get_bits(m + REQ_BYTE95, 0, 5);
	if (!is_ib(port))
		memcpy(id->peer_gid, m + REQ_PRIMARY_LOCAL_GID, 16);
	conn_event(&r, hdr + CMA_HDR_BYTES, REQ_PRIVATE_DATA_BYTES - CMA_HDR_BYTES);
	r.param.conn.qp_num = id->remote_qpn;
	r.param.conn.responder_resources = id->responder_resources;
	r.param.conn.initiator_depth = id->initiator_depth;
	r.param.conn.flow_control = id->flow_control;
	r.param.conn.retry_count = id->retry_count;
	r.param.conn.rnr_retry_count = id->rnr_retry_count;
	r.param.conn.srq = id->srq;
	cm_event_queue(l, id, RDMA_CM_EVENT_CONNECT_REQUEST, 0, &r);
}

/* The id a reply is for: its local comm ID, from the peer it talks to. */
static struct cm_id *reply_target(uint32_t src, const uint8_t *m)
{
	struct cm_id *id = cm_id_by_local_comm(emu_get_be32(m + MSG_REMOTE_COMM_ID));

	return id && id->peer == src ? id : NULL;
}

static void on_rep(unsigned port, uint32_t src, const uint8_t *mad)
{
	const uint8_t *m = mad + MAD_HDR_BYTES;
	struct cm_id *id = reply_target(src, m);
	struct rdma_ucm_event_resp r;

	if (!id) {
		reject_unknown(port, src, mad, CM_REJ_STALE_CONN, CM_MSG_REP);
		return;
	}
	if (id->state == CM_ESTABLISHED && id->remote_comm_id == emu_get_be32(m + REP_LOCAL_COMM_ID)) {
		send_raw(id->port, id->peer, id->mad);	/* our RTU was lost */
		return;
	}
	if (id->state != CM_REQ_SENT)
		return;
	stop_timer(id);
	id->remote_comm_id = emu_get_be32(m + REP_LOCAL_COMM_ID);
	id->remote_qpn = cm_get_be24(m + REP_LOCAL_QPN);
	id->rq_psn = cm_get_be24(m + REP_STARTING_PSN);
	id->responder_resources = m[REP_INITIATOR_DEPTH];
	id->initiator_depth = m[REP_RESPONDER_RESOURCES];
	id->rnr_retry_count = (uint8_t)cm_get_bits(m + REP_BYTE27, 0, 3);
	id->srq = (uint8_t)cm_get_bits(m + REP_BYTE27, 3, 1);
	id->remote_guid = emu_get_be64(m + REP_LOCAL_CA_GUID);
	id->state = CM_REP_RCVD;
	conn_event(&r, m + REP_PRIVATE_DATA, REP_PRIVATE_DATA_BYTES);
	r.param.conn.qp_num = id->remote_qpn;
	r.param.conn.responder_resources = id->responder_resources;
	r.param.conn.initiator_depth = id->initiator_depth;
	r.param.conn.flow_control = (uint8_t)cm_get_bits(m + REP_BYTE26, 7, 1);
	r.param.conn.rnr_retry_count = id->rnr_retry_count;
	r.param.conn.srq = id->srq;
	cm_event_queue(id, id, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, &r);
}

static void on_rtu(uint32_t src, const uint8_t *mad)
{
	struct cm_id *id = reply_target(src, mad + MAD_HDR_BYTES);

	if (!id || id->state != CM_REP_SENT)
		return;
	stop_timer(id);
	id->state = CM_ESTABLISHED;
	cm_event_queue(id, id, RDMA_CM_EVENT_ESTABLISHED, 0, NULL);
}

static void on_rej(uint32_t src, const uint8_t *mad)
{
	const uint8_t *m = mad + MAD_HDR_BYTES;
	struct cm_id *id = reply_target(src, m);
	struct rdma_ucm_event_resp r;
	uint16_t reason = emu_get_be16(m + REJ_REASON);

	if (!id || (id->state != CM_REQ_SENT && id->state != CM_REP_SENT &&
		    id->state != CM_REP_RCVD))
		return;
	stop_timer(id);
	id->state = CM_DISCONNECTED;
	conn_event(&r, m + REJ_PRIVATE_DATA, REJ_PRIVATE_DATA_BYTES);
	cm_event_queue(id, id, RDMA_CM_EVENT_REJECTED, reason, &r);
}

static void on_mra(uint32_t src, const uint8_t *mad)
{
	const uint8_t *m = mad + MAD_HDR_BYTES;
	struct cm_id *id = reply_target(src, m);

	if (!id || (id->state != CM_REQ_SENT && id->state != CM_REP_SENT))
		return;
	/* the peer's program is deciding: wait its service timeout once more */
	id->due_ns = emu_now_ns() + exp_ns(cm_get_bits(m + MRA_SERVICE_TIMEOUT, 0, 5)) +
		     2 * exp_ns(CM_PACKET_LIFETIME);
}

static void on_dreq(unsigned port, uint32_t src, const uint8_t *mad)
{
	const uint8_t *m = mad + MAD_HDR_BYTES;
	struct cm_id *id = reply_target(src, m);
	uint8_t drep[EMU_MAD_BYTES];

	cm_mad_header(drep, CM_ATTR_DREP, emu_get_be64(mad + 8));
	memset(msg_of(drep), 0, CM_MSG_BYTES);
	emu_put_be32(msg_of(drep) + MSG_LOCAL_COMM_ID, emu_get_be32(m + MSG_REMOTE_COMM_ID));
	emu_put_be32(msg_of(drep) + MSG_REMOTE_COMM_ID, emu_get_be32(m + MSG_LOCAL_COMM_ID));
	/* answered whether or not the connection is still known, so that the
	 * peer's DREQ never waits out its retries */
	send_raw(port, src, drep);
	if (!id || (id->state != CM_ESTABLISHED && id->state != CM_DREQ_SENT &&
		    id->state != CM_REP_SENT && id->state != CM_REP_RCVD))
		return;
	disconnected(id);
}

static void on_drep(uint32_t src, const uint8_t *mad)
{
	struct cm_id *id = reply_target(src, mad + MAD_HDR_BYTES);

	if (!id || id->state != CM_DREQ_SENT)
		return;
	disconnected(id);
}

static void on_sidr_req(unsigned port, uint32_t src, const uint8_t *mad)
{
	const uint8_t *m = mad + MAD_HDR_BYTES;
	const uint8_t *hdr = m + SIDR_REQ_PRIVATE_DATA;
	uint64_t sid = emu_get_be64(m + SIDR_REQ_SERVICE_ID);
	uint32_t req_id = emu_get_be32(m + SIDR_REQ_REQUEST_ID);
	struct rdma_ucm_event_resp r;
	struct cm_id *l, *id;

	if (cm_id_by_remote_comm(src, req_id))
		return;	/* the program has not answered the first one yet */
	l = (sid >> 32) == 0 && cma_header_ok(hdr)
		    ? find_listener((uint16_t)(sid >> 16), (uint16_t)sid, emu_get_be32(hdr + 32), port)
		    : NULL;
	if (!l || l->qp_type != IBV_QPT_UD || l->pending >= l->backlog ||
	    !(id = passive_id(l, port, src, hdr, req_id, emu_get_be64(mad + 8)))) {
		uint8_t rep[EMU_MAD_BYTES];

		cm_mad_header(rep, CM_ATTR_SIDR_REP, emu_get_be64(mad + 8));
		memset(msg_of(rep), 0, CM_MSG_BYTES);
		emu_put_be32(msg_of(rep) + SIDR_REP_REQUEST_ID, req_id);
		msg_of(rep)[SIDR_REP_STATUS] = l ? SIDR_REP_REJECT : SIDR_REP_NO_SERVICE;
		emu_put_be64(msg_of(rep) + SIDR_REP_SERVICE_ID, sid);
		send_raw(port, src, rep);
		return;
	}
	if (!is_ib(port))
		put_ip(id->peer_gid, src);
	memset(&r, 0, sizeof(r));
	memcpy(r.param.ud.private_data, hdr + CMA_HDR_BYTES,
	       SIDR_REQ_PRIVATE_DATA_BYTES - CMA_HDR_BYTES);
	r.param.ud.private_data_len = SIDR_REQ_PRIVATE_DATA_BYTES - CMA_HDR_BYTES;
	cm_peer_ah(id, &r.param.ud.ah_attr);
	cm_event_queue(l, id, RDMA_CM_EVENT_CONNECT_REQUEST, 0, &r);
}

static void on_sidr_rep(uint32_t src, const uint8_t *mad)
{
	const uint8_t *m = mad + MAD_HDR_BYTES;
	struct cm_id *id = cm_id_by_local_comm(emu_get_be32(m + SIDR_REP_REQUEST_ID));
	struct rdma_ucm_event_resp r;
	uint8_t status = m[SIDR_REP_STATUS];

	if (!id || id->peer != src || id->state != CM_REQ_SENT || id->qp_type != IBV_QPT_UD)
		return;
	stop_timer(id);
	memset(&r, 0, sizeof(r));
	if (status != SIDR_REP_OK) {
		id->state = CM_DISCONNECTED;
		/* the kernel's CMA: UNREACHABLE with the SIDR status, -EINVAL
		 * when the QPN is invalid */
		cm_event_queue(id, id, RDMA_CM_EVENT_UNREACHABLE, status, &r);
		return;
	}
	id->state = CM_ESTABLISHED;
	id->remote_qpn = cm_get_be24(m + SIDR_REP_QPN);
	id->remote_qkey = emu_get_be32(m + SIDR_REP_QKEY);
	cm_peer_ah(id, &r.param.ud.ah_attr);
	r.param.ud.qp_num = id->remote_qpn;
	r.param.ud.qkey = id->remote_qkey;
	memcpy(r.param.ud.private_data, m + SIDR_REP_PRIVATE_DATA, SIDR_REP_PRIVATE_DATA_BYTES);
	r.param.ud.private_data_len = SIDR_REP_PRIVATE_DATA_BYTES;
	cm_event_queue(id, id, RDMA_CM_EVENT_ESTABLISHED, 0, &r);
}

static void cm_receive(unsigned port, uint32_t src, const uint8_t *mad, size_t len)
{
	if (len < EMU_MAD_BYTES || mad[0] != MAD_BASE_VERSION || mad[1] != CM_MGMT_CLASS ||
	    mad[2] != CM_CLASS_VERSION || mad[3] != MAD_METHOD_SEND)
		return;
	switch (emu_get_be16(mad + 16)) {
	case CM_ATTR_REQ:
		on_req(port, src, mad);
		break;
	case CM_ATTR_REP:
		on_rep(port, src, mad);
		break;
	case CM_ATTR_RTU:
		on_rtu(src, mad);
		break;
	case CM_ATTR_REJ:
		on_rej(src, mad);
		break;
	case CM_ATTR_MRA:
		on_mra(src, mad);
		break;
	case CM_ATTR_DREQ:
		on_dreq(port, src, mad);
		break;
	case CM_ATTR_DREP:
		on_drep(src, mad);
		break;
	case CM_ATTR_SIDR_REQ:
		on_sidr_req(port, src, mad);
		break;
	case CM_ATTR_SIDR_REP:
		on_sidr_rep(src, mad);
		break;
	default:
		break;	/* LAP/APR: no alternate paths */
	}
}

void cm_proto_abandon(struct cm_id *id)
{
	switch (id->state) {
	case CM_REQ_SENT:
		if (id->qp_type != IBV_QPT_UD)
			cm_send_rej(id, CM_REJ_TIMEOUT, NULL, 0);
		break;
	case CM_REQ_RCVD:
		if (id->qp_type == IBV_QPT_UD)
			cm_send_sidr_rep(id, SIDR_REP_REJECT, NULL);
		else
			cm_send_rej(id, CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case CM_REP_RCVD:
	case CM_REP_SENT:
		cm_send_rej(id, CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case CM_ESTABLISHED:
		if (id->qp_type != IBV_QPT_UD)
			cm_send_dreq(id);
		break;
	default:
		break;
	}
	stop_timer(id);
}

/* A time wait over: TIMEWAIT_EXIT. */
static void end_timewait(struct cm_id *id, uint64_t now)
{
	if (!id->timewait_end_ns || id->timewait_end_ns > now)
		return;
	id->timewait_end_ns = 0;
	if (id->state == CM_DISCONNECTED)
		cm_event_queue(id, id, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0, NULL);
}

/* A message unanswered for its response timeout: again, or give up; a
 * time wait over. */
static void expire(struct cm_id *id, void *arg)
{
	uint64_t now = *(uint64_t *)arg;

	end_timewait(id, now);
	if (!id->due_ns || id->due_ns > now)
		return;
	if (id->retries_left) {
		id->retries_left--;
		id->due_ns = now + response_timeout_ns();
		EMU_TRACE("cm: id %u resends MAD 0x%04x", id->handle, emu_get_be16(id->mad + 16));
		send_raw(id->port, id->peer, id->mad);
		return;
	}
	id->due_ns = 0;
	if (id->state == CM_DREQ_SENT) {
		disconnected(id);
	} else if (id->state == CM_REQ_SENT || id->state == CM_REP_SENT) {
		if (id->qp_type != IBV_QPT_UD)
			cm_send_rej(id, CM_REJ_TIMEOUT, NULL, 0);
		id->state = CM_DISCONNECTED;
		cm_event_queue(id, id, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL);
	}
}

static void earliest(struct cm_id *id, void *arg)
{
	uint64_t *t = arg;

	if (id->due_ns && id->due_ns < *t)
		*t = id->due_ns;
	if (id->timewait_end_ns && id->timewait_end_ns < *t)
		*t = id->timewait_end_ns;
}

/*
 * A process killed with its connections open: on a host its kernel would
 * close its files and send a DREQ for each; here the CM died with it, so
 * the side that survives looks once a second whether each peer adapter on
 * this host still holds its address, and a connection whose peer is gone
 * is DISCONNECTED as that DREQ would have made it.
 */
#define PEER_CHECK_NS 1000000000ull

static uint64_t next_peer_check;

static bool watched(const struct cm_id *id)
{
	return id->state == CM_ESTABLISHED || id->state == CM_REP_SENT ||
	       id->state == CM_REP_RCVD;
}

static void any_watched(struct cm_id *id, void *arg)
{
	if (watched(id) && id->qp_type != IBV_QPT_UD)
		*(bool *)arg = true;
}

static void peer_gone(struct cm_id *id, void *arg)
{
	uint32_t gone = *(uint32_t *)arg;

	if (!watched(id) || id->qp_type == IBV_QPT_UD || id->peer != gone)
		return;
	EMU_TRACE("cm: id %u: the adapter at 0x%08x is gone", id->handle, gone);
	disconnected(id);
}

static void check_peer(struct cm_id *id, void *arg)
{
	uint32_t peer = id->peer;

	(void)arg;
	if (watched(id) && id->qp_type != IBV_QPT_UD && cm_addr_vanished(peer))
		cm_id_each(peer_gone, &peer);
}

static int check_peers(uint64_t now_ns)
{
	bool any = false;

	cm_id_each(any_watched, &any);
	if (!any) {
		next_peer_check = 0;
		return 0;
	}
	if (!next_peer_check) {
		next_peer_check = now_ns + PEER_CHECK_NS;
		return 0;
	}
	if (now_ns < next_peer_check)
		return 0;
	next_peer_check = now_ns + PEER_CHECK_NS;
	cm_id_each(check_peer, NULL);
	return 1;
}

static int timers_poll(struct emu_engine_source *src, uint64_t now_ns)
{
	uint64_t due = UINT64_MAX;
	int work = check_peers(now_ns);

	(void)src;
	cm_id_each(earliest, &due);
	if (due > now_ns)
		return work;
	cm_id_each(expire, &now_ns);
	return 1;
}

static uint64_t timers_deadline(struct emu_engine_source *src)
{
	uint64_t due = UINT64_MAX;
	bool any = false;

	(void)src;
	cm_id_each(earliest, &due);
	cm_id_each(any_watched, &any);
	if (any && (!next_peer_check || next_peer_check < due))
		due = next_peer_check ? next_peer_check : emu_now_ns() + PEER_CHECK_NS;
	return due;
}

void cm_proto_init(void)
{
	static struct emu_engine_source src = {
		.fd = -1,
		.poll = timers_poll,
		.deadline = timers_deadline,
	};

	emu_gsi_register(cm_receive);
	emu_adapter_lock();
	if (emu_engine_add_source(&src))
		EMU_TRACE("cm: no engine source for the CM timers");
	emu_adapter_unlock();
}

static void disconnect_at_exit(struct cm_id *id, void *arg)
{
	(void)arg;
	if (id->state == CM_ESTABLISHED && id->qp_type != IBV_QPT_UD)
		cm_send_dreq(id);
	else if (id->state == CM_REQ_SENT || id->state == CM_REQ_RCVD ||
		 id->state == CM_REP_SENT || id->state == CM_REP_RCVD)
		cm_proto_abandon(id);
	id->due_ns = 0;
}

void cm_proto_shutdown(void)
{
	emu_adapter_lock();
	cm_id_each(disconnect_at_exit, NULL);
	emu_adapter_unlock();
}
