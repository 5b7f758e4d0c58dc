/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The connection manager's state, shared by its files: the rdma_cm
 * files a program opened (each an event channel), the ids in them, and
 * the events queued on them.  Everything here is guarded by the adapter lock (adapter/lock.h).
 *
 *   ucma.c      the write() command frames of /dev/infiniband/rdma_cm
 *   cm_ids.c    ids, files and event queues
 *   cm_addr.c   which addresses the adapter owns, which it can reach
 *   cm_proto.c  the IB CM protocol on QP1: REQ/REP/RTU/REJ/DREQ/DREP/MRA,
 *               SIDR_REQ/SIDR_REP, their timers and retries
 *   cm_qp.c     the QP attributes a connection implies (init_qp_attr)
 */
#ifndef MLX4EMU_CM_H
#define MLX4EMU_CM_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <rdma/rdma_user_cm.h>

/* The events a program sees (the kernel's enum rdma_cm_event_type). */
enum {
	RDMA_CM_EVENT_ADDR_RESOLVED = 0,
	RDMA_CM_EVENT_ADDR_ERROR = 1,
	RDMA_CM_EVENT_ROUTE_RESOLVED = 2,
	RDMA_CM_EVENT_ROUTE_ERROR = 3,
	RDMA_CM_EVENT_CONNECT_REQUEST = 4,
	RDMA_CM_EVENT_CONNECT_RESPONSE = 5,
	RDMA_CM_EVENT_CONNECT_ERROR = 6,
	RDMA_CM_EVENT_UNREACHABLE = 7,
	RDMA_CM_EVENT_REJECTED = 8,
	RDMA_CM_EVENT_ESTABLISHED = 9,
	RDMA_CM_EVENT_DISCONNECTED = 10,
	RDMA_CM_EVENT_DEVICE_REMOVAL = 11,
	RDMA_CM_EVENT_MULTICAST_JOIN = 12,
	RDMA_CM_EVENT_MULTICAST_ERROR = 13,
	RDMA_CM_EVENT_ADDR_CHANGE = 14,
	RDMA_CM_EVENT_TIMEWAIT_EXIT = 15,
};

/* What the id is doing, in the order a connection goes through. */
enum cm_state {
	CM_IDLE,
	CM_ADDR_BOUND,		/* bind: an address (maybe the wildcard) */
	CM_ADDR_RESOLVED,	/* resolve_addr: a port and a peer */
	CM_ROUTE_RESOLVED,	/* resolve_route: the path */
	CM_LISTEN,
	CM_REQ_SENT,		/* active: REQ (or SIDR_REQ) out, waiting */
	CM_REP_RCVD,		/* active: REP in, the program's ACCEPT sends RTU */
	CM_REQ_RCVD,		/* passive: REQ (or SIDR_REQ) in, the program decides */
	CM_REP_SENT,		/* passive: REP out, waiting for RTU */
	CM_ESTABLISHED,
	CM_DREQ_SENT,
	CM_DISCONNECTED,	/* DREQ/DREP exchanged, or rejected, or timed out */
};

struct cm_id {
	uint32_t handle;	/* the kernel id librdmacm knows */
	unsigned file;		/* index of the file (event channel) it is in */
	uint64_t uid;		/* librdmacm's cookie, returned in its events */
	uint16_t ps;		/* port space: RDMA_PS_TCP, _UDP, _IB, _IPOIB */
	uint8_t qp_type;	/* IBV_QPT_RC or IBV_QPT_UD */
	enum cm_state state;

	struct sockaddr_in6 src, dst;	/* as the program gave them (v4 in sin6 storage) */
	uint32_t src_ip, dst_ip;	/* IPv4, host order (0: the wildcard) */
	uint16_t src_port, dst_port;	/* host order */
	uint8_t port;			/* adapter port, 0 before one is chosen */
	uint32_t peer;			/* the peer port's wire address */
	bool reuseaddr, afonly;
	uint8_t tos;
	uint8_t ack_timeout;		/* QP local ACK timeout (exponent) */

	/* listener */
	unsigned backlog, pending;	/* pending: requests not yet taken */
	uint32_t listener;		/* a request's listener handle + 1 until taken */
	bool passive;			/* made by a REQ or SIDR_REQ */

	/* a multicast join (JOIN_MCAST): of the id mc_parent - 1, group dst_ip */
	uint32_t mc_parent;
	uint8_t mgid[16];
	uint16_t mlid;

	/* the connection */
	uint32_t local_comm_id, remote_comm_id;
	uint64_t tid;
	uint64_t remote_guid;
	uint32_t qpn, remote_qpn;
	uint32_t qkey, remote_qkey;
	uint32_t sq_psn, rq_psn;
	uint8_t responder_resources, initiator_depth;
	uint8_t retry_count, rnr_retry_count, flow_control, srq;
	uint8_t path_mtu;		/* IBV_MTU_* */
	uint8_t peer_gid[16];
	uint16_t peer_lid;

	/* the message the timer sends again */
	uint8_t mad[256];
	unsigned retries_left;
	uint64_t due_ns;		/* 0: no timer */
	/* a connection DISCONNECTED: when its time wait ends, 0 when none */
	uint64_t timewait_end_ns;
	uint32_t events_reported;
};

struct cm_event {
	struct cm_event *next;
	uint32_t charged;		/* handle of the id the event counts for */
	uint32_t subject;		/* handle in resp.id (a new connection for a request) */
	struct rdma_ucm_event_resp resp;
};

/* A file of /dev/infiniband/rdma_cm: an eventfd (semaphore mode) that is
 * readable while events are queued, so poll/epoll on it work. */
struct cm_file {
	bool used;
	int fd;
	struct cm_event *head, *tail;
	unsigned nevents;
};

#define CM_MAX_FILES 1024
#define CM_MAX_IDS 65535	/* librdmacm's index map holds 65536 */

extern struct cm_file cm_files[CM_MAX_FILES];

/* cm_ids.c */
struct cm_id *cm_id_new(unsigned file, uint16_t ps, uint8_t qp_type);
struct cm_id *cm_id_get(uint32_t handle);
/* The id of the file with this handle, or NULL. */
struct cm_id *cm_id_in_file(unsigned file, uint32_t handle);
void cm_id_free(struct cm_id *id);
/* Calls fn on every id (which may free the id it is given). */
void cm_id_each(void (*fn)(struct cm_id *id, void *arg), void *arg);
/* The connection whose local comm ID this is. */
struct cm_id *cm_id_by_local_comm(uint32_t comm_id);
/* A passive connection made from the REQ of peer's comm ID. */
struct cm_id *cm_id_by_remote_comm(uint32_t peer, uint32_t remote_comm_id);
/* A fresh comm ID no live id has. */
uint32_t cm_new_comm_id(void);
/* 24 random bits: a starting PSN. */
uint32_t cm_random_psn(void);

/* Queues an event of id `charged` about id `subject` on charged's file. */
void cm_event_queue(struct cm_id *charged, struct cm_id *subject, uint32_t event, int32_t status,
		    const struct rdma_ucm_event_resp *param);
/* The first event of the file, or NULL; then takes it off the queue. */
struct cm_event *cm_event_peek(unsigned file);
void cm_event_take(unsigned file);
/* Drops the queued events charged to the id or about it. */
void cm_events_drop(struct cm_id *id);
/* Moves the id's queued events to its (new) file. */
void cm_events_move(struct cm_id *id, unsigned from);

/* Whether ip is an address of one of the host's own interfaces (not of
 * 127/8, where the adapters live, nor an adapter's): one a bind names a
 * netdev without an RDMA device by (ENODEV). */
bool cm_addr_host_only(uint32_t ip);

/* cm_addr.c */
/* The adapter port that owns the IPv4 address (host order), 0 if none. */
unsigned cm_addr_owner(uint32_t ip);
/* 127.0.0.1.  A destination there resolves to the first active port
 * (the kernel CMA's cma_bind_loopback); as a source it counts as the
 * wildcard (its cma_any_addr): bound there an id has no device, and a
 * listener there hears requests for any address of any port. */
#define CM_LOOPBACK_IP 0x7f000001u
/* The port a destination ip resolves to here: the owner, port 1 for the
 * loopback, 0 when the address is not this adapter's. */
unsigned cm_addr_local_port(uint32_t ip);
/* A source address that binds no device: the wildcard, or the loopback
 * when no port holds it (the other 127/8 addresses are adapters' here). */
bool cm_addr_wild(uint32_t ip);
/*
 * The port to reach the IPv4 address from and the address of the adapter
 * port there (its wire address): this adapter's own, one a live adapter
 * on this host holds, one --lid-map names, or a port of the wire segment.
 * 0 and *port, *peer set; EHOSTUNREACH for an address nobody owns.
 */
int cm_addr_route(uint32_t ip, unsigned prefer_port, unsigned *port, uint32_t *peer);
/* An adapter on this host that held ip is gone: nobody holds it now, and
 * it is neither this adapter's nor one --lid-map names (those, on other
 * hosts, cannot be seen from here). */
bool cm_addr_vanished(uint32_t ip);
/* The IPv4 address of a sockaddr (v4, or v4-mapped v6), host order; false
 * for other families and IPv6 addresses. *any tells the wildcard. */
bool cm_addr_ipv4(const struct sockaddr *sa, uint32_t *ip, uint16_t *udp_port, bool *any);
/* An AF_INET address (host order) in the id's address storage. */
void cm_addr_sockaddr(struct sockaddr_in6 *sa6, uint32_t ip, uint16_t udp_port);

/* cm_proto.c */
int cm_send_req(struct cm_id *id, const struct rdma_ucm_conn_param *p);
int cm_send_rep(struct cm_id *id, const struct rdma_ucm_conn_param *p);
int cm_send_rtu(struct cm_id *id);
int cm_send_rej(struct cm_id *id, uint16_t reason, const uint8_t *pdata, uint8_t len);
int cm_send_dreq(struct cm_id *id);
int cm_send_sidr_req(struct cm_id *id, const struct rdma_ucm_conn_param *p);
int cm_send_sidr_rep(struct cm_id *id, uint8_t status, const struct rdma_ucm_conn_param *p);
/* The id is going away: what the CM sends for its state (REJ, DREQ). */
void cm_proto_abandon(struct cm_id *id);
void cm_proto_init(void);
/* The process exits: every connection gets its DREQ. */
void cm_proto_shutdown(void);

/* cm_qp.c */
int cm_init_qp_attr(const struct cm_id *id, uint32_t qp_state, void *attr /* ib_uverbs_qp_attr */);
/* The address vector of the path to the peer (ib_uverbs_ah_attr). */
void cm_peer_ah(const struct cm_id *id, void *ah /* ib_uverbs_ah_attr */);

/* Q_Key of the RDMA IP CM's UDP port space (librdmacm's RDMA_UDP_QKEY). */
#define CM_UDP_QKEY 0x01234567u
/* The CMA's packet lifetime on RoCE (its CMA_IBOE_PACKET_LIFETIME) and here
 * on InfiniBand too (no subnet administrator): the QP's local ACK timeout
 * is one more, 4.096 us x 2^17 = 0.54 s. */
#define CM_PACKET_LIFETIME 16

#endif
