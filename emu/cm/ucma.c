// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The ucma command frames (rdma/rdma_user_cm.h) as librdmacm 44 writes
 * them: struct rdma_ucm_cmd_hdr {cmd, in, out}, then `in` bytes of the
 * command, whose `response` field (where it has one) is the address of
 * `out` bytes for the answer.  As the kernel's ucma_write(): a frame
 * shorter than the header, or whose `in` runs past the write, is EINVAL;
 * an unknown command EINVAL; one the kernel leaves out (GET_OPTION)
 * ENOSYS; a command shorter than its structure EINVAL; a response area
 * smaller than the answer ENOSPC; an id of another file EINVAL, none
 * ENOENT; an unreadable or unwritable user address EFAULT.  Success
 * returns the whole length written.
 */
#include "cm/ucma.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>
#include <rdma/ib_user_sa.h>

#include "adapter/adapter.h"
#include "adapter/engine.h"
#include "adapter/lock.h"
#include "base/config.h"
#include "base/fdtab.h"
#include "base/libc.h"
#include "base/trace.h"
#include "base/usermem.h"
#include "cm/cm.h"
#include "wire/identity.h"
#include "wire/roce.h"

/* ucma's limit on a listener's backlog (its max_backlog default) */
#define UCMA_MAX_BACKLOG 1024
/* what REQ's private data leaves after the CMA header */
#define REQ_USER_PRIVATE_DATA 56
#define REP_USER_PRIVATE_DATA 196
#define SIDR_REQ_USER_PRIVATE_DATA 180
/* RDMA_USER_CM_CMD_RESOLVE_ADDR's sockaddr_ib: the address at byte 8 */
#define SIB_ADDR_OFFSET 8

struct cmd_ctx {
	unsigned file;
	const void *in;
	size_t out_len;
};

static struct cm_id *id_of(const struct cmd_ctx *c, uint32_t handle, int *err)
{
	struct cm_id *id = cm_id_get(handle);

	if (!id)
		*err = ENOENT;
	else if (id->file != c->file)
		*err = EINVAL;
	return id && id->file == c->file ? id : NULL;
}

static int respond(const struct cmd_ctx *c, uint64_t where, const void *resp, size_t len)
{
	if (c->out_len < len)
		return ENOSPC;
	return emu_copy_out(where, resp, len);
}

/* The engine must run for the wire to deliver MADs to this adapter. */
static int start_engine(void)
{
	return emu_engine_start();
}

static int cmd_create_id(struct cmd_ctx *c)
{
	const struct rdma_ucm_create_id *cmd = c->in;
	struct rdma_ucm_create_id_resp resp = { 0 };
	uint8_t qp_type;
	struct cm_id *id;
	int err;

	switch (cmd->ps) {
	case RDMA_PS_TCP:
		qp_type = IBV_QPT_RC;
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		qp_type = IBV_QPT_UD;
		break;
	case RDMA_PS_IB:
		qp_type = cmd->qp_type;
		if (qp_type != IBV_QPT_RC && qp_type != IBV_QPT_UD)
			return EINVAL;
		break;
	default:
		return EINVAL;
	}
	if (c->out_len < sizeof(resp))
		return ENOSPC;
	if (!(id = cm_id_new(c->file, cmd->ps, qp_type)))
		return ENOMEM;
	id->uid = cmd->uid;
	resp.id = id->handle;
	err = respond(c, cmd->response, &resp, sizeof(resp));
	if (err)
		cm_id_free(id);
	return err;
}

/* Requests of a listener the program never took: rejected with it. */
static void drop_pending(struct cm_id *id, void *arg)
{
	struct cm_id *l = arg;

	if (id->listener == l->handle + 1) {
		cm_proto_abandon(id);
		cm_events_drop(id);
		cm_id_free(id);
	}
}

static void drop_joins(struct cm_id *mc, void *arg)
{
	struct cm_id *parent = arg;

	if (mc->mc_parent == parent->handle + 1) {
		cm_events_drop(mc);
		cm_id_free(mc);
	}
}

static void destroy(struct cm_id *id)
{
	cm_id_each(drop_joins, id);
	if (id->state == CM_LISTEN)
		cm_id_each(drop_pending, id);
	if (id->listener) {
		struct cm_id *l = cm_id_get(id->listener - 1);

		if (l && l->pending)
			l->pending--;
	}
	cm_proto_abandon(id);
	cm_events_drop(id);
	cm_id_free(id);
}

static int cmd_destroy_id(struct cmd_ctx *c)
{
	const struct rdma_ucm_destroy_id *cmd = c->in;
	struct rdma_ucm_destroy_id_resp resp = { 0 };
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	if (c->out_len < sizeof(resp))
		return ENOSPC;
	resp.events_reported = id->events_reported;
	destroy(id);
	return respond(c, cmd->response, &resp, sizeof(resp));
}

struct port_query {
	const struct cm_id *self;
	uint16_t ps, udp_port;
	uint32_t ip;
	bool listen;
	int err;	/* 0: free */
};

static void port_user(struct cm_id *o, void *arg)
{
	struct port_query *q = arg;

	if (o == q->self || o->passive || o->ps != q->ps || o->src_port != q->udp_port ||
	    o->state == CM_IDLE)
		return;
	if (!cm_addr_wild(o->src_ip) && !cm_addr_wild(q->ip) && o->src_ip != q->ip)
		return;
	/* SO_REUSEADDR's rule: both asked for it and neither listens */
	if (o->reuseaddr && q->self->reuseaddr && !q->listen && o->state != CM_LISTEN)
		return;
	/* the kernel's cma_check_port: a wildcard on either side makes the
	 * address unavailable, the same address is in use */
	if (!q->err || q->err == EADDRINUSE)
		q->err = cm_addr_wild(o->src_ip) || cm_addr_wild(q->ip) ? EADDRNOTAVAIL : EADDRINUSE;
}

/* 0 when no other id holds the port for ip, else bind's errno. */
static int port_taken(const struct cm_id *id, uint32_t ip, uint16_t udp_port, bool listen)
{
	struct port_query q = { id, id->ps, udp_port, ip, listen, 0 };

	cm_id_each(port_user, &q);
	return q.err;
}

/* An ephemeral port from the kernel's default ip_local_port_range. */
static uint16_t pick_port(const struct cm_id *id, uint32_t ip)
{
	uint32_t start = cm_random_psn();

	for (uint32_t i = 0; i < 28232; i++) {
		uint16_t p = (uint16_t)(32768 + (start + i) % 28232);

		if (!port_taken(id, ip, p, false))
			return p;
	}
	return 0;
}

static int bind_id(struct cm_id *id, const struct sockaddr *sa)
{
	uint32_t ip;
	uint16_t udp_port;
	bool any;
	int err;

	if (id->state != CM_IDLE)
		return EINVAL;
	if (sa->sa_family == AF_IB)
		return EAFNOSUPPORT;
	if (!cm_addr_ipv4(sa, &ip, &udp_port, &any))
		return sa->sa_family == AF_INET6 ? EADDRNOTAVAIL : EAFNOSUPPORT;
	/* the kernel's: an address of an interface without an RDMA device
	 * has no device (cma_acquire_dev), one of no interface is not
	 * available (rdma_translate_ip) */
	if (!cm_addr_wild(ip) && !cm_addr_owner(ip))
		return cm_addr_host_only(ip) ? ENODEV : EADDRNOTAVAIL;
	/* every ephemeral port taken: cma_alloc_any_port's */
	if (!udp_port && !(udp_port = pick_port(id, ip)))
		return EADDRNOTAVAIL;
	if ((err = port_taken(id, ip, udp_port, false)))
		return err;
	id->src_ip = ip;
	id->src_port = udp_port;
	id->port = (uint8_t)cm_addr_owner(ip);
	cm_addr_sockaddr(&id->src, ip, udp_port);
	if (sa->sa_family == AF_INET6) {
		/* the program's own form, as getsockname would give it */
		memcpy(&id->src, sa, sizeof(struct sockaddr_in6));
		id->src.sin6_port = htons(udp_port);
	}
	id->state = CM_ADDR_BOUND;
	return start_engine();
}

static int cmd_bind_ip(struct cmd_ctx *c)
{
	const struct rdma_ucm_bind_ip *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	return id ? bind_id(id, (const struct sockaddr *)&cmd->addr) : err;
}

static int cmd_bind(struct cmd_ctx *c)
{
	const struct rdma_ucm_bind *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	if (cmd->addr_size > sizeof(cmd->addr) || cmd->addr_size < sizeof(sa_family_t))
		return EINVAL;
	return bind_id(id, (const struct sockaddr *)&cmd->addr);
}

static void peer_gid(struct cm_id *id)
{
	memset(id->peer_gid, 0, 16);
	if (emu_cfg.link_layer[id->port - 1] == EMU_LL_IB) {
		/* fe80::0002:c901:<address>: the peer's port GUID */
		id->peer_gid[0] = 0xfe;
		id->peer_gid[1] = 0x80;
		id->peer_gid[9] = 0x02;
		id->peer_gid[10] = 0xc9;
		id->peer_gid[11] = 0x01;
	} else {
		id->peer_gid[10] = id->peer_gid[11] = 0xff;
	}
	emu_put_be32(id->peer_gid + 12, id->peer);
}

static bool is_multicast(uint32_t ip)
{
	return ip >> 28 == 0xe;
}

static int resolve(struct cm_id *id, const struct sockaddr *src, const struct sockaddr *dst)
{
	uint32_t ip;
	uint16_t udp_port;
	bool any;
	unsigned port;
	uint32_t peer;
	int err;

	if (id->state == CM_IDLE) {
		struct sockaddr_in wild = { .sin_family = AF_INET };

		err = bind_id(id, src && src->sa_family ? src : (const struct sockaddr *)&wild);
		if (err)
			return err;
	}
	if (id->state != CM_ADDR_BOUND)
		return EINVAL;
	if (dst->sa_family == AF_IB)
		return EAFNOSUPPORT;
	memcpy(&id->dst, dst, dst->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							: sizeof(struct sockaddr_in));
	if (cm_addr_ipv4(dst, &ip, &udp_port, &any) && is_multicast(ip)) {
		/* a group: the device of the bound address (or port 1) sends */
		if (!id->port)
			id->port = 1;
		peer = 0;
		port = id->port;
	} else if (!cm_addr_ipv4(dst, &ip, &udp_port, &any) ||
		   cm_addr_route(ip, id->port, &port, &peer)) {
		cm_event_queue(id, id, RDMA_CM_EVENT_ADDR_ERROR, -EHOSTUNREACH, NULL);
		return 0;
	}
	if (!id->port)
		id->port = (uint8_t)port;
	else if (cm_addr_local_port(ip))
		peer = emu_port_addr(cm_addr_local_port(ip));
	id->peer = peer;
	id->dst_ip = any ? emu_port_addr(id->port) : ip;
	id->dst_port = udp_port;
	/* a source that names no port takes the port's address, but for a
	 * loopback destination a loopback source stays (the kernel's too) */
	if (!id->src_ip || (cm_addr_wild(id->src_ip) && ip != CM_LOOPBACK_IP)) {
		id->src_ip = emu_port_addr(id->port);
		((struct sockaddr_in *)&id->src)->sin_addr.s_addr = htonl(id->src_ip);
	}
	peer_gid(id);
	id->state = CM_ADDR_RESOLVED;
	cm_event_queue(id, id, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL);
	return 0;
}

static int cmd_resolve_ip(struct cmd_ctx *c)
{
	const struct rdma_ucm_resolve_ip *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	return id ? resolve(id, (const struct sockaddr *)&cmd->src_addr,
			    (const struct sockaddr *)&cmd->dst_addr) : err;
}

static int cmd_resolve_addr(struct cmd_ctx *c)
{
	const struct rdma_ucm_resolve_addr *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	if (cmd->src_size > sizeof(cmd->src_addr) || cmd->dst_size > sizeof(cmd->dst_addr) ||
	    cmd->dst_size < sizeof(sa_family_t))
		return EINVAL;
	return resolve(id, cmd->src_size ? (const struct sockaddr *)&cmd->src_addr : NULL,
		       (const struct sockaddr *)&cmd->dst_addr);
}

static int route_resolved(struct cm_id *id)
{
	if (id->state != CM_ADDR_RESOLVED)
		return EINVAL;
	id->state = CM_ROUTE_RESOLVED;
	cm_event_queue(id, id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL);
	return 0;
}

static int cmd_resolve_route(struct cmd_ctx *c)
{
	const struct rdma_ucm_resolve_route *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	return id ? route_resolved(id) : err;
}

static bool has_path(const struct cm_id *id)
{
	return id->port && id->state >= CM_ROUTE_RESOLVED && id->state != CM_LISTEN;
}

static void local_gid(const struct cm_id *id, uint8_t gid[16])
{
	bool v2;

	emu_port_gid_entry(id->port, emu_cfg.link_layer[id->port - 1] == EMU_LL_IB ? 0 : 1, gid,
			   &v2);
}

/* The path record of the connection (what the kernel keeps for it). */
static void path_record(const struct cm_id *id, struct ib_user_path_rec *r)
{
	bool ib = emu_cfg.link_layer[id->port - 1] == EMU_LL_IB;

	memset(r, 0, sizeof(*r));
	local_gid(id, r->sgid);
	if (id->state >= CM_ADDR_RESOLVED && id->state != CM_LISTEN)
		memcpy(r->dgid, id->peer_gid, 16);
	if (ib) {
		r->slid = htons(emu_port_lid(id->port));
		r->dlid = htons((uint16_t)id->peer);
	}
	r->reversible = 1;
	r->mtu = id->path_mtu ? id->path_mtu : IBV_MTU_1024;
	r->pkey = htons(EMU_DEFAULT_PKEY);
	r->hop_limit = ib ? 0 : 64;
	r->traffic_class = id->tos;
	r->numb_path = 1;
	r->mtu_selector = 2;	/* exactly */
	r->rate_selector = 2;
	r->rate = ib ? 11 : 7;	/* IB_RATE_56_GBPS (FDR 4X), IB_RATE_40_GBPS */
	r->packet_life_time_selector = 2;
	r->packet_life_time = CM_PACKET_LIFETIME;
}

static int cmd_query_route(struct cmd_ctx *c)
{
	const struct rdma_ucm_query *cmd = c->in;
	struct rdma_ucm_query_route_resp resp;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	memset(&resp, 0, sizeof(resp));
	memcpy(&resp.src_addr, &id->src, sizeof(resp.src_addr));
	memcpy(&resp.dst_addr, &id->dst, sizeof(resp.dst_addr));
	if (id->port) {
		resp.node_guid = htobe64(emu_node_guid());
		resp.port_num = id->port;
		path_record(id, &resp.ib_route[0]);
		resp.num_paths = has_path(id) ? 1 : 0;
	}
	/* mlx4_0 has no index without RDMA netlink: librdmacm matches by GUID */
	resp.ibdev_index = UINT32_MAX;
	return respond(c, cmd->response, &resp, sizeof(resp));
}

static int cmd_query(struct cmd_ctx *c)
{
	const struct rdma_ucm_query *cmd = c->in;
	struct rdma_ucm_query_addr_resp resp;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	memset(&resp, 0, sizeof(resp));
	switch (cmd->option) {
	case RDMA_USER_CM_QUERY_ADDR:
		resp.src_size = id->src.sin6_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								  : sizeof(struct sockaddr_in);
		resp.dst_size = id->dst.sin6_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								  : sizeof(struct sockaddr_in);
		memcpy(&resp.src_addr, &id->src, sizeof(id->src));
		memcpy(&resp.dst_addr, &id->dst, sizeof(id->dst));
		break;
	case RDMA_USER_CM_QUERY_GID:
		if (id->port) {
			uint8_t *s = (uint8_t *)&resp.src_addr, *d = (uint8_t *)&resp.dst_addr;

			s[0] = d[0] = (uint8_t)AF_IB;	/* little-endian sib_family */
			local_gid(id, s + SIB_ADDR_OFFSET);
			memcpy(d + SIB_ADDR_OFFSET, id->peer_gid, 16);
			resp.src_size = resp.dst_size = 48;	/* sizeof(struct sockaddr_ib) */
		}
		break;
	case RDMA_USER_CM_QUERY_PATH: {
		/* one path in the SA's wire format would follow; with no subnet
		 * administrator the path is the one QUERY_ROUTE describes */
		struct rdma_ucm_query_path_resp p = { 0 };

		return respond(c, cmd->response, &p, sizeof(p));
	}
	default:
		return ENOSYS;
	}
	if (id->port) {
		resp.node_guid = htobe64(emu_node_guid());
		resp.port_num = id->port;
		resp.pkey = EMU_DEFAULT_PKEY;
	}
	resp.ibdev_index = UINT32_MAX;
	return respond(c, cmd->response, &resp, sizeof(resp));
}

struct listen_query {
	const struct cm_id *self;
	bool taken;
};

static void other_listener(struct cm_id *o, void *arg)
{
	struct listen_query *q = arg;
	const struct cm_id *id = q->self;

	if (o != id && o->state == CM_LISTEN && o->ps == id->ps && o->src_port == id->src_port &&
	    (cm_addr_wild(o->src_ip) || cm_addr_wild(id->src_ip) || o->src_ip == id->src_ip))
		q->taken = true;
}

static int cmd_listen(struct cmd_ctx *c)
{
	const struct rdma_ucm_listen *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);
	struct listen_query q = { id, false };

	if (!id)
		return err;
	if (id->state == CM_IDLE) {
		struct sockaddr_in wild = { .sin_family = AF_INET };

		if ((err = bind_id(id, (const struct sockaddr *)&wild)))
			return err;
	}
	if (id->state != CM_ADDR_BOUND && id->state != CM_LISTEN)
		return EINVAL;
	cm_id_each(other_listener, &q);
	if (q.taken)
		return EADDRINUSE;
	id->backlog = cmd->backlog > 0 && cmd->backlog < UCMA_MAX_BACKLOG ? cmd->backlog
									    : UCMA_MAX_BACKLOG;
	id->state = CM_LISTEN;
	return start_engine();
}

static int cmd_connect(struct cmd_ctx *c)
{
	const struct rdma_ucm_connect *cmd = c->in;
	const struct rdma_ucm_conn_param *p = &cmd->conn_param;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	if (id->state != CM_ROUTE_RESOLVED || !p->valid)
		return EINVAL;
	if (id->qp_type == IBV_QPT_UD) {
		if (p->private_data_len > SIDR_REQ_USER_PRIVATE_DATA)
			return EINVAL;
		return cm_send_sidr_req(id, p);
	}
	if (p->private_data_len > REQ_USER_PRIVATE_DATA)
		return EINVAL;
	return cm_send_req(id, p);
}

static int cmd_accept(struct cmd_ctx *c)
{
	const struct rdma_ucm_accept *cmd = c->in;
	const struct rdma_ucm_conn_param *p = &cmd->conn_param;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	if (!p->valid) {
		/* the active side, its QP in RTS: RTU */
		if (id->state != CM_REP_RCVD)
			return EINVAL;
		return cm_send_rtu(id);
	}
	if (id->state != CM_REQ_RCVD || !id->passive)
		return EINVAL;
	id->uid = cmd->uid;
	if (id->qp_type == IBV_QPT_UD)
		return cm_send_sidr_rep(id, 0, p);
	if (p->private_data_len > REP_USER_PRIVATE_DATA)
		return EINVAL;
	return cm_send_rep(id, p);
}

static int cmd_reject(struct cmd_ctx *c)
{
	const struct rdma_ucm_reject *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);
	uint8_t reason = cmd->reason ? cmd->reason : 28;

	if (!id)
		return err;
	/* the consumer's two reasons (IBTA Table 109: 28 and 35) */
	if ((reason != 28 && reason != 35) || id->state != CM_REQ_RCVD || !id->passive)
		return EINVAL;
	if (id->qp_type == IBV_QPT_UD) {
		struct rdma_ucm_conn_param p = { 0 };

		memcpy(p.private_data, cmd->private_data, cmd->private_data_len);
		p.private_data_len = cmd->private_data_len;
		return cm_send_sidr_rep(id, 2, &p);
	}
	return cm_send_rej(id, reason, cmd->private_data, cmd->private_data_len);
}

static int cmd_disconnect(struct cmd_ctx *c)
{
	const struct rdma_ucm_disconnect *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	switch (id->state) {
	case CM_ESTABLISHED:
	case CM_REP_SENT:
	case CM_REP_RCVD:
		if (id->qp_type == IBV_QPT_UD)
			return EINVAL;
		return cm_send_dreq(id);
	case CM_DREQ_SENT:
	case CM_DISCONNECTED:
		return 0;	/* the peer's DREQ was answered already */
	default:
		return EINVAL;
	}
}

static int cmd_init_qp_attr(struct cmd_ctx *c)
{
	const struct rdma_ucm_init_qp_attr *cmd = c->in;
	struct ib_uverbs_qp_attr resp;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	if (c->out_len < sizeof(resp))
		return ENOSPC;
	if ((err = cm_init_qp_attr(id, cmd->qp_state, &resp)))
		return err;
	return respond(c, cmd->response, &resp, sizeof(resp));
}

static int cmd_set_option(struct cmd_ctx *c)
{
	const struct rdma_ucm_set_option *cmd = c->in;
	uint8_t val[64];
	int err = 0, ival;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	if (cmd->level == RDMA_OPTION_IB && cmd->optname == RDMA_OPTION_IB_PATH) {
		if (!cmd->optlen || cmd->optlen % sizeof(struct ib_path_rec_data))
			return EINVAL;
		return route_resolved(id);
	}
	if (cmd->optlen > sizeof(val) || cmd->level != RDMA_OPTION_ID)
		return cmd->level != RDMA_OPTION_ID ? ENOSYS : EINVAL;
	if (emu_copy_in(val, cmd->optval, cmd->optlen))
		return EFAULT;
	memcpy(&ival, val, sizeof(ival));
	switch (cmd->optname) {
	case RDMA_OPTION_ID_TOS:
		if (cmd->optlen != 1)
			return EINVAL;
		id->tos = val[0];
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		if (cmd->optlen != sizeof(int))
			return EINVAL;
		if (id->state != CM_IDLE)
			return EINVAL;
		id->reuseaddr = ival != 0;
		return 0;
	case RDMA_OPTION_ID_AFONLY:
		if (cmd->optlen != sizeof(int))
			return EINVAL;
		if (id->state != CM_IDLE && id->state != CM_ADDR_BOUND)
			return EINVAL;
		id->afonly = ival != 0;
		return 0;
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (cmd->optlen != 1 || val[0] > 31)
			return EINVAL;
		id->ack_timeout = val[0];
		return 0;
	default:
		return ENOSYS;
	}
}

static int cmd_notify(struct cmd_ctx *c)
{
	const struct rdma_ucm_notify *cmd = c->in;
	int err = 0;
	struct cm_id *id = id_of(c, cmd->id, &err);

	if (!id)
		return err;
	/* data arrived before the RTU: the connection is up (ib_cm_notify) */
	if (cmd->event == IBV_EVENT_COMM_EST && id->state == CM_REP_SENT) {
		id->state = CM_ESTABLISHED;
		id->due_ns = 0;
		cm_event_queue(id, id, RDMA_CM_EVENT_ESTABLISHED, 0, NULL);
	}
	return 0;
}

static int cmd_migrate_id(struct cmd_ctx *c)
{
	const struct rdma_ucm_migrate_id *cmd = c->in;
	struct rdma_ucm_migrate_resp resp = { 0 };
	int from = emu_fd_cm((int)cmd->fd);
	struct cm_id *id;
	unsigned old;

	if (from < 0)
		return EINVAL;
	if (!(id = cm_id_get(cmd->id)))
		return ENOENT;
	if (id->file != (unsigned)from)
		return EINVAL;
	if (c->out_len < sizeof(resp))
		return ENOSPC;
	old = id->file;
	id->file = c->file;
	cm_events_move(id, old);
	resp.events_reported = id->events_reported;
	return respond(c, cmd->response, &resp, sizeof(resp));
}

/*
 * The group's MGID and MLID as the kernel's CMA makes them: on Ethernet
 * the IPv4-mapped address (cma_iboe_set_mgid); on InfiniBand the IPoIB
 * mapping (ip_ib_mc_map) ff12:401b:ffff::<low 28 bits>, with byte 2 0x01
 * for the UDP port space (the RDMA CM signature).  With no subnet
 * administrator to assign an MLID, it is 0xc000 plus the group's low 14
 * bits, one LID per group as an SA would give.
 */
static void group_gid(const struct cm_id *mc, uint32_t ip, uint8_t mgid[16], uint16_t *mlid)
{
	memset(mgid, 0, 16);
	*mlid = 0;
	if (emu_cfg.link_layer[mc->port - 1] == EMU_LL_ETH) {
		mgid[10] = mgid[11] = 0xff;
		emu_put_be32(mgid + 12, ip);
		return;
	}
	mgid[0] = 0xff;
	mgid[1] = 0x12;
	mgid[2] = 0x40;
	mgid[3] = mc->ps == RDMA_PS_UDP ? 0x01 : 0x1b;
	mgid[4] = mgid[5] = 0xff;	/* P_Key */
	emu_put_be32(mgid + 12, ip & 0x0fffffff);
	*mlid = (uint16_t)(0xc000 | (ip & 0x3fff));
}

static int join(struct cmd_ctx *c, uint32_t handle, uint64_t resp_addr, uint64_t uid,
		const struct sockaddr *sa, uint16_t join_flags)
{
	struct rdma_ucm_create_id_resp resp = { 0 };
	struct rdma_ucm_event_resp r;
	int err = 0;
	struct cm_id *id = id_of(c, handle, &err), *mc;
	uint32_t ip;
	uint16_t udp_port;
	bool any, eth;

	if (!id)
		return err;
	if (c->out_len < sizeof(resp))
		return ENOSPC;
	if (join_flags > RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return EINVAL;
	if ((id->state != CM_ADDR_BOUND && id->state != CM_ADDR_RESOLVED) || !id->port)
		return EINVAL;
	if (!cm_addr_ipv4(sa, &ip, &udp_port, &any) || !is_multicast(ip))
		return EINVAL;
	if (!(mc = cm_id_new(c->file, id->ps, IBV_QPT_UD)))
		return ENOMEM;
	mc->uid = uid;
	mc->mc_parent = id->handle + 1;
	mc->port = id->port;
	mc->dst_ip = ip;
	group_gid(mc, ip, mc->mgid, &mc->mlid);
	resp.id = mc->handle;
	if ((err = respond(c, resp_addr, &resp, sizeof(resp)))) {
		cm_id_free(mc);
		return err;
	}
	eth = emu_cfg.link_layer[mc->port - 1] == EMU_LL_ETH;
	memset(&r, 0, sizeof(r));
	r.param.ud.ah_attr.is_global = 1;
	memcpy(r.param.ud.ah_attr.grh.dgid, mc->mgid, 16);
	r.param.ud.ah_attr.grh.sgid_index = eth ? 1 : 0;
	r.param.ud.ah_attr.grh.hop_limit = eth ? 1 : 0;
	r.param.ud.ah_attr.grh.traffic_class = id->tos;
	r.param.ud.ah_attr.dlid = mc->mlid;
	r.param.ud.ah_attr.port_num = mc->port;
	r.param.ud.qp_num = 0xffffff;
	r.param.ud.qkey = CM_UDP_QKEY;
	/* no subnet administrator to ask: the join completes at once */
	cm_event_queue(mc, mc, RDMA_CM_EVENT_MULTICAST_JOIN, 0, &r);
	return 0;
}

static int cmd_join_ip_mcast(struct cmd_ctx *c)
{
	const struct rdma_ucm_join_ip_mcast *cmd = c->in;

	return join(c, cmd->id, cmd->response, cmd->uid, (const struct sockaddr *)&cmd->addr,
		    RDMA_MC_JOIN_FLAG_FULLMEMBER);
}

static int cmd_join_mcast(struct cmd_ctx *c)
{
	const struct rdma_ucm_join_mcast *cmd = c->in;

	if (cmd->addr_size > sizeof(cmd->addr) || cmd->addr_size < sizeof(sa_family_t))
		return EINVAL;
	return join(c, cmd->id, cmd->response, cmd->uid, (const struct sockaddr *)&cmd->addr,
		    cmd->join_flags);
}

static int cmd_leave_mcast(struct cmd_ctx *c)
{
	const struct rdma_ucm_destroy_id *cmd = c->in;
	struct rdma_ucm_destroy_id_resp resp = { 0 };
	int err = 0;
	struct cm_id *mc = id_of(c, cmd->id, &err);

	if (!mc)
		return err;
	if (!mc->mc_parent)
		return EINVAL;
	if (c->out_len < sizeof(resp))
		return ENOSPC;
	resp.events_reported = mc->events_reported;
	cm_events_drop(mc);
	cm_id_free(mc);
	return respond(c, cmd->response, &resp, sizeof(resp));
}

/*
 * Another thread closed the file while this one waited in GET_EVENT: the
 * kernel's write() holds the file until it returns, and nothing wakes it
 * any more, so it sleeps until the process ends (rping's CM thread, whose
 * channel the main thread destroys, does exactly that on hardware).
 */
static _Noreturn void closed_while_waiting(void)
{
	for (;;)
		pause();
}

/* An event is waiting, or the file's fd is non-blocking. */
static int wait_event(unsigned file)
{
	int fd = cm_files[file].fd;
	int fl = fcntl(fd, F_GETFL);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (cm_event_peek(file))
		return 0;
	if (fl >= 0 && (fl & O_NONBLOCK))
		return EAGAIN;
	emu_adapter_unlock();
	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	if (pfd.revents & POLLNVAL)
		closed_while_waiting();
	emu_adapter_lock();
	if (!cm_files[file].used || cm_files[file].fd != fd) {
		emu_adapter_unlock();
		closed_while_waiting();
	}
	return EINTR;
}

static int cmd_get_event(struct cmd_ctx *c)
{
	const struct rdma_ucm_get_event *cmd = c->in;
	struct cm_event *e;
	struct cm_id *charged, *subject;
	int err;

	if (c->out_len < sizeof(struct rdma_ucm_event_resp))
		return ENOSPC;
	while (!(e = cm_event_peek(c->file))) {
		err = wait_event(c->file);
		if (err && err != EINTR)
			return err;
	}
	if ((err = emu_copy_out(cmd->response, &e->resp, sizeof(e->resp))))
		return err;	/* the event stays queued, as in the kernel */
	charged = cm_id_get(e->charged);
	subject = cm_id_get(e->subject);
	if (charged)
		charged->events_reported++;
	/* a join's events count for its id too (librdmacm waits for both) */
	if (charged && charged->mc_parent && cm_id_get(charged->mc_parent - 1))
		cm_id_get(charged->mc_parent - 1)->events_reported++;
	if (e->resp.event == RDMA_CM_EVENT_CONNECT_REQUEST && subject && subject->listener) {
		if (charged && charged->pending)
			charged->pending--;
		subject->listener = 0;
	}
	cm_event_take(c->file);
	return 0;
}

struct command {
	int (*fn)(struct cmd_ctx *c);
	size_t in_len;
};

static const struct command commands[] = {
	[RDMA_USER_CM_CMD_CREATE_ID] = { cmd_create_id, sizeof(struct rdma_ucm_create_id) },
	[RDMA_USER_CM_CMD_DESTROY_ID] = { cmd_destroy_id, sizeof(struct rdma_ucm_destroy_id) },
	[RDMA_USER_CM_CMD_BIND_IP] = { cmd_bind_ip, sizeof(struct rdma_ucm_bind_ip) },
	[RDMA_USER_CM_CMD_RESOLVE_IP] = { cmd_resolve_ip, sizeof(struct rdma_ucm_resolve_ip) },
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = { cmd_resolve_route,
					     sizeof(struct rdma_ucm_resolve_route) },
	[RDMA_USER_CM_CMD_QUERY_ROUTE] = { cmd_query_route, sizeof(struct rdma_ucm_query) },
	[RDMA_USER_CM_CMD_CONNECT] = { cmd_connect, offsetof(struct rdma_ucm_connect, ece) },
	[RDMA_USER_CM_CMD_LISTEN] = { cmd_listen, sizeof(struct rdma_ucm_listen) },
	[RDMA_USER_CM_CMD_ACCEPT] = { cmd_accept, offsetof(struct rdma_ucm_accept, ece) },
	[RDMA_USER_CM_CMD_REJECT] = { cmd_reject, sizeof(struct rdma_ucm_reject) },
	[RDMA_USER_CM_CMD_DISCONNECT] = { cmd_disconnect, sizeof(struct rdma_ucm_disconnect) },
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = { cmd_init_qp_attr,
					    sizeof(struct rdma_ucm_init_qp_attr) },
	[RDMA_USER_CM_CMD_GET_EVENT] = { cmd_get_event, sizeof(struct rdma_ucm_get_event) },
	[RDMA_USER_CM_CMD_SET_OPTION] = { cmd_set_option, sizeof(struct rdma_ucm_set_option) },
	[RDMA_USER_CM_CMD_NOTIFY] = { cmd_notify, sizeof(struct rdma_ucm_notify) },
	[RDMA_USER_CM_CMD_MIGRATE_ID] = { cmd_migrate_id, sizeof(struct rdma_ucm_migrate_id) },
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = { cmd_join_ip_mcast,
					     sizeof(struct rdma_ucm_join_ip_mcast) },
	[RDMA_USER_CM_CMD_LEAVE_MCAST] = { cmd_leave_mcast, sizeof(struct rdma_ucm_destroy_id) },
	[RDMA_USER_CM_CMD_QUERY] = { cmd_query, sizeof(struct rdma_ucm_query) },
	[RDMA_USER_CM_CMD_BIND] = { cmd_bind, sizeof(struct rdma_ucm_bind) },
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = { cmd_resolve_addr,
					    sizeof(struct rdma_ucm_resolve_addr) },
	[RDMA_USER_CM_CMD_JOIN_MCAST] = { cmd_join_mcast, sizeof(struct rdma_ucm_join_mcast) },
};

/* The largest command structure (RESOLVE_ADDR: two sockaddr_storage). */
#define CMD_MAX 512

ssize_t emu_ucma_write(int file, const void *buf, size_t len)
{
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t in[CMD_MAX];
	struct cmd_ctx c = { .file = (unsigned)file, .in = in };
	const struct command *cmd;
	int err;

	if (len < sizeof(hdr)) {
		errno = EINVAL;
		return -1;
	}
	if (emu_copy_in(&hdr, (uint64_t)(uintptr_t)buf, sizeof(hdr))) {
		errno = EFAULT;
		return -1;
	}
	if (hdr.in + sizeof(hdr) > len || hdr.cmd >= sizeof(commands) / sizeof(commands[0])) {
		errno = EINVAL;
		return -1;
	}
	cmd = &commands[hdr.cmd];
	if (!cmd->fn) {
		/* GET_OPTION: the kernel has none either */
		errno = ENOSYS;
		return -1;
	}
	if (hdr.in < cmd->in_len) {
		errno = EINVAL;
		return -1;
	}
	memset(in, 0, sizeof(in));
	if (emu_copy_in(in, (uint64_t)(uintptr_t)buf + sizeof(hdr),
			hdr.in < sizeof(in) ? hdr.in : sizeof(in))) {
		errno = EFAULT;
		return -1;
	}
	c.out_len = hdr.out;
	emu_adapter_lock();
	if (!cm_files[file].used && hdr.cmd == RDMA_USER_CM_CMD_GET_EVENT) {
		/* closed by another thread since this write() found the file:
		 * the kernel's write holds the file, and waits for ever */
		emu_adapter_unlock();
		closed_while_waiting();
	}
	if (!cm_files[file].used)
		err = EBADF;
	else
		err = cmd->fn(&c);
	emu_adapter_unlock();
	EMU_TRACE("rdma_cm fd %d: command %u -> %d", cm_files[file].fd, hdr.cmd, err);
	if (err) {
		errno = err;
		return -1;
	}
	return (ssize_t)len;
}

int emu_ucma_open(int flags)
{
	int fd = eventfd(0, EFD_SEMAPHORE | ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0) |
				    ((flags & O_NONBLOCK) ? EFD_NONBLOCK : 0));

	if (fd < 0)
		return -1;
	emu_adapter_lock();
	for (unsigned i = 0; i < CM_MAX_FILES; i++) {
		struct cm_file *f = &cm_files[i];

		if (f->used)
			continue;
		memset(f, 0, sizeof(*f));
		f->used = true;
		f->fd = fd;
		emu_fd_set_cm(fd, (int)i);
		emu_adapter_unlock();
		EMU_TRACE("open %s -> fd %d (file %u)", EMU_UCMA_PATH, fd, i);
		return fd;
	}
	emu_adapter_unlock();
	emu_real_close(fd);
	errno = EMFILE;
	return -1;
}

static void destroy_in_file(struct cm_id *id, void *arg)
{
	if (id->file == *(unsigned *)arg)
		destroy(id);
}

void emu_ucma_close(int file)
{
	unsigned f = (unsigned)file;

	emu_adapter_lock();
	cm_id_each(destroy_in_file, &f);
	while (cm_event_peek(f))
		cm_event_take(f);
	cm_files[f].used = false;
	emu_adapter_unlock();
}

void emu_cm_init(void)
{
	cm_proto_init();
}

void emu_cm_shutdown(void)
{
	cm_proto_shutdown();
}
