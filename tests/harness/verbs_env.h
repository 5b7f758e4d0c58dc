/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The verbs environment of the device tests: a device opened by name or
 * index, its PD and port, and QPs of every transport brought from RESET
 * to RTS, towards a QP of the same adapter (loopback) or of a peer
 * process (whose QPN, PSN, LID and GID came over the TCP exchange,
 * tests/wire/peer_io.h).
 *
 * Nothing here asserts: every call returns 0 or a positive errno and
 * prints on stderr what failed, so that cmocka tests assert on the
 * result and the two-process programs exit with it.
 */
#ifndef MLX4DV_TEST_VERBS_ENV_H
#define MLX4DV_TEST_VERBS_ENV_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __GNUC__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <infiniband/verbs.h>
#ifdef __GNUC__
#pragma GCC diagnostic pop
#endif

/* Q_Key of the tests' UD QPs unless a test sets its own. */
#define VX_QKEY 0x11111111u

/*
 * Opens a device of ibv_get_device_list(): the one called `name` (e.g.
 * "mlx4_0"), or, when name is NULL, the index-th (0: the first).  NULL
 * with errno ENODEV when there is no such device, or ibv_open_device's
 * errno.
 */
struct ibv_context *vx_device_open(const char *name, int index);

/* One adapter as the tests use it: a context, a PD and one port. */
struct vx_env {
	struct ibv_context	*ctx;
	struct ibv_pd		*pd;
	uint8_t			port;		/* 1 or 2 */
	struct ibv_port_attr	port_attr;
	union ibv_gid		gid;		/* GID index 0 of the port */
};

/* vx_device_open(name, index), a PD, `port`'s attributes and GID 0.
 * 0 or an errno, with nothing left open. */
int vx_env_open(struct vx_env *e, const char *name, int index, uint8_t port);
/* Deallocates the PD and closes the device; 0 or the first errno. */
int vx_env_close(struct vx_env *e);

/*
 * A QP of `type` on pd with send_cq, recv_cq (and srq, or NULL) and the
 * capacities in cap, in RESET.  NULL with ibv_create_qp's errno.
 */
struct ibv_qp *vx_qp_create(struct ibv_pd *pd, enum ibv_qp_type type,
			    struct ibv_cq *send_cq, struct ibv_cq *recv_cq,
			    struct ibv_srq *srq, const struct ibv_qp_cap *cap);

/*
 * Everything RESET -> INIT -> RTR -> RTS needs, for every QP type; each
 * field is used only by the types its comment names.  PSNs are 24 bits,
 * host order; the AV's dlid is host order, the GID network order (as
 * struct ibv_ah_attr has them).
 */
struct vx_qp_attrs {
	uint8_t		port;			/* all */
	uint32_t	qkey;			/* UD */
	unsigned int	access;			/* RC, UC, XRC: enum ibv_access_flags */
	enum ibv_mtu	path_mtu;		/* RC, UC, XRC */
	uint32_t	dest_qpn;		/* RC, UC, XRC */
	uint32_t	rq_psn;			/* RC, UC, XRC: the peer's sq_psn */
	uint32_t	sq_psn;			/* all but raw packet */
	struct ibv_ah_attr ah;			/* RC, UC, XRC: the peer's path */
	uint8_t		max_dest_rd_atomic;	/* RC, XRC_RECV */
	uint8_t		min_rnr_timer;		/* RC, XRC_RECV */
	uint8_t		timeout;		/* RC, XRC */
	uint8_t		retry_cnt;		/* RC, XRC_SEND */
	uint8_t		rnr_retry;		/* RC, XRC_SEND: 7 retries forever */
	uint8_t		max_rd_atomic;		/* RC, XRC_SEND */
};

/*
 * The values most tests want on `port`: Q_Key VX_QKEY, local write and
 * every remote access, path MTU 1024, PSNs 0, 4 reads/atomics each way,
 * RNR timer 1 (0.01 ms), timeout 14 (4.096 us << 14: 67 ms), retry_cnt 7
 * and rnr_retry 7; no destination (dest_qpn 0, ah only port_num).
 */
void vx_qp_attrs_default(struct vx_qp_attrs *a, uint8_t port);

/*
 * The address of `port` of ctx itself (a QP of the same adapter): its
 * LID, and on an Ethernet port a GRH to its GID 0 with hop limit 1.
 * 0 or the errno of the port or GID query.
 */
int vx_loopback_ah(struct ibv_context *ctx, uint8_t port, struct ibv_ah_attr *ah);

/*
 * The address of a peer's port: `dlid` (host order) on `port`, and when
 * sgid_index >= 0 (an Ethernet port, or a GRH wanted on InfiniBand) a
 * GRH from that local GID index to `dgid` (16 bytes, network order) with
 * hop limit 1.
 */
void vx_peer_ah(struct ibv_ah_attr *ah, uint8_t port, uint16_t dlid,
		int sgid_index, const uint8_t dgid[16]);

/*
 * RESET -> INIT -> RTR -> RTS with, in each transition, the attributes
 * the kernel's table of QP transitions (ib core verbs.c, qp_state_table)
 * requires for the QP's type and no optional one:
 *   raw packet  INIT: port; RTR, RTS: the state alone
 *   UD          INIT: pkey index, port, qkey; RTS: sq_psn
 *   UC          INIT: pkey index, port, access; RTR: AV, path MTU,
 *               dest QPN, rq_psn; RTS: sq_psn
 *   RC          as UC, and RTR: max_dest_rd_atomic, min_rnr_timer;
 *               RTS: timeout, retry_cnt, rnr_retry, max_rd_atomic
 *   XRC_SEND    as UC, and RTS: timeout, retry_cnt, rnr_retry,
 *               max_rd_atomic
 *   XRC_RECV    as UC, and RTR: max_dest_rd_atomic, min_rnr_timer;
 *               RTS: timeout
 * 0, or the errno of the first ibv_modify_qp() refused (the QP stays in
 * the state before it), with the QPN and the transition on stderr;
 * EINVAL for a QP type not listed.
 */
int vx_qp_to_rts(struct ibv_qp *qp, const struct vx_qp_attrs *a);

/* vx_qp_to_rts() towards a QP of the same adapter: `a` with its AV
 * replaced by vx_loopback_ah(ctx, a->port). */
int vx_qp_to_rts_loopback(struct ibv_context *ctx, struct ibv_qp *qp,
			  const struct vx_qp_attrs *a);

/*
 * Waits up to `ms` milliseconds for one CQE of cq, polling every
 * millisecond: 1 with *wc filled, 0 when none came (a test that wants
 * nothing to arrive asserts on that), or ibv_poll_cq's negative value.
 */
int vx_cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, unsigned ms);

/*
 * Posts `count` receive WQEs to qp, WQE i (wr_id i) one data segment of
 * slot_bytes at base + i * slot_bytes, lkey `lkey`.  0, or the errno of
 * the first post that failed (printed with its index).
 */
int vx_post_recv_slots(struct ibv_qp *qp, void *base, uint32_t slot_bytes, unsigned count,
		       uint32_t lkey);

/* Waits for the child process `child`: its exit status, or -1 when it
 * did not exit (killed by a signal, or waitpid failed). */
int vx_child_exit_status(pid_t child);

/*
 * The software ConnectX-3's address of `port` (IPv4, host order): the low
 * 32 bits of GID 0 (the port GUID 0002:c90P:<address>) on InfiniBand, of
 * GID 1 (::ffff:a.b.c.d) on Ethernet (emu/README.md, Identity).  0, or
 * the errno of the failed query (printed).
 */
int vx_port_ipv4(struct ibv_context *ctx, uint8_t port, uint32_t *addr);

/* The MAC of an Ethernet port, from GID 0 (fe80:: and the MAC's modified
 * EUI-64).  0, or the errno of the failed query (printed). */
int vx_port_mac(struct ibv_context *ctx, uint8_t port, uint8_t mac[6]);

/* A flow of `port` that steers the frames to destination MAC `mac` to the
 * raw packet QP qp; NULL with ibv_create_flow's errno (printed). */
struct ibv_flow *vx_flow_dst_mac(struct ibv_qp *qp, uint8_t port, const uint8_t mac[6]);

#endif
