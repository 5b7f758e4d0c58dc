/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/lib.h> - libmlx4dv (-lmlx4dv): handles from ibverbs objects.
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_LIB_H_
#define _MLX4DV_LIB_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/lib.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/wqe.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * libmlx4dv: queue handles from ibverbs objects (-lmlx4dv).
 * ====================================================================== */
/*
 * The compiled unit turns ibverbs objects into the queue handles of handle.h.
 * It is the only part of this header that needs a library: link
 * -lmlx4dv -lmlx4 -libverbs (pkg-config mlx4dv, or the CMake target
 * mlx4dv::mlx4dv). See libmlx4dv(7) and the per-function pages.
 *
 * Common rules of every *_init() below:
 *  - The object must belong to a ConnectX-3 family device driven by
 *    libmlx4. The device is identified before anything of the object is
 *    read: the sysfs modalias of ibv_device.ibdev_path must be one that
 *    libmlx4 claims (PCI vendor 0x15b3, devices of rdma-core
 *    providers/mlx4/mlx4.c hca_table). The answer is cached per
 *    ibv_context. Any other device: EPROTONOSUPPORT.
 *  - The raw layout comes from libmlx4's mlx4dv_init_obj(); the values it
 *    does not export (SQ headroom, max_post, inline and gather limits)
 *    are derived with libmlx4's own arithmetic (rdma-core 44.0
 *    providers/mlx4/verbs.c create_qp_ex, qp.c mlx4_calc_sq_wqe_size and
 *    mlx4_set_sq_sizes) and cross-checked against ibv_query_qp().
 *  - On error the output handle is left exactly as it was and errno-style
 *    codes are returned (the function does not set errno). On success
 *    the whole handle is written, its reserved bytes zeroed (handle.h,
 *    "Sizes"). Programs built against the 0.2 header, whose handles are
 *    smaller, reach these functions through their MLX4DV_0.1 symbol
 *    versions (mlx4dv_cq_ring_resize(): MLX4DV_0.2), which write only the
 *    0.2 bytes; the default versions are MLX4DV_0.3.
 *  - Convert a queue before its first post or poll through verbs: the
 *    producer and consumer counts of a fresh queue are 0. After a QP is
 *    moved to RESET, libmlx4 zeroes its counters and its receive doorbell
 *    record; release and initialise the handles again.
 *  - No mixing: once a queue is driven through a handle, ibv_post_send(),
 *    ibv_post_recv(), ibv_post_srq_recv() and ibv_poll_cq() must not be
 *    used on that queue; libmlx4 keeps private counters the handle does
 *    not update.
 *  - Handles are plain memory; the release functions give back what the
 *    init functions acquired (wrid tables, BlueFlame registers). Those
 *    belong to the queue, not to one handle: initialising a queue again
 *    while they are held hands out the same ones (the wrid table zeroed),
 *    so a second init leaks nothing and a copy of the first handle keeps
 *    working. They are given back once: a second release, or a release
 *    through a copy of a send-queue handle whose queue was released
 *    meanwhile, gives back nothing, so it can never take the BlueFlame
 *    register another handle now uses (the ticket in flags bits 8..31,
 *    MLX4DV_SQ_RING_GRANT_MASK, tells the grants apart). Receive and SRQ
 *    handles have no room for a ticket: their release gives back the
 *    queue's wrid table when the handle names it, so do not release a
 *    copy made before the queue was released and initialised again.
 *    Release every handle before destroying its verbs object or closing
 *    its context.
 */

/* Version of this header; equal to the CMake project version. */
#define MLX4DV_VERSION_MAJOR	0
#define MLX4DV_VERSION_MINOR	3
#define MLX4DV_VERSION_PATCH	0

/* One integer per version: major << 16 | minor << 8 | patch. */
#define MLX4DV_VERSION_ENCODE(major, minor, patch) \
	(((uint32_t)(major) << 16) | ((uint32_t)(minor) << 8) | (uint32_t)(patch))
#define MLX4DV_VERSION \
	MLX4DV_VERSION_ENCODE(MLX4DV_VERSION_MAJOR, MLX4DV_VERSION_MINOR, \
			      MLX4DV_VERSION_PATCH)

/*
 * mlx4dv_version - version of the libmlx4dv the program runs with, encoded
 * as MLX4DV_VERSION_ENCODE(). Compare with MLX4DV_VERSION (the header the
 * program was compiled with): the major numbers must agree.
 */
uint32_t
mlx4dv_version(void);

/* mlx4dv_version_string - the same version as "major.minor.patch". */
const char *
mlx4dv_version_string(void);

/* Flags of the flags argument of the *_init() functions. */
enum mlx4dv_ring_init_flags {
	/* Allocate the handle's wrid table (wqe_cnt entries of uint64_t,
	 * zeroed); freed by the matching release function. */
	MLX4DV_RING_INIT_WRID		= 1 << 0,
	/* Send queues only: give the handle a BlueFlame register of its
	 * own (see mlx4dv_sq_ring_init()). */
	MLX4DV_RING_INIT_BLUEFLAME	= 1 << 1,
	/* SRQs only: the SRQ is an XRC SRQ (ibv_create_srq_ex() with
	 * IBV_SRQT_XRC); fill srqn with ibv_get_srq_num(). */
	MLX4DV_RING_INIT_XRC_SRQ	= 1 << 2,
};

/*
 * mlx4dv_sq_ring_init - fill a send-queue handle from a QP.
 *
 * qp:    an RC, UC, UD, RAW_PACKET or XRC_SEND QP of an mlx4 device.
 * flags: MLX4DV_RING_INIT_WRID and/or MLX4DV_RING_INIT_BLUEFLAME.
 *
 * Filled: buf = buffer + sq.offset; wqe_cnt and wqe_shift as libmlx4
 * allocated them; head = tail = 0; spare_wqes = (2048 >> wqe_shift) + 1;
 * max_post = wqe_cnt - spare_wqes (equal to ibv_query_qp()'s
 * cap.max_send_wr); max_gather and max_inline for one WQEBB-stride WQE of
 * the QP type, computed as libmlx4's mlx4_set_sq_sizes() does (equal to
 * cap.max_send_sge and cap.max_inline_data, which are checked), but at
 * most what a WQE of 63 ds holds: from the 1024-byte stride on libmlx4
 * reports more than any WQE can carry (2048 bytes, RC: 126 entries and
 * 1888 bytes; a post takes 61 and 912), and the handle reports what a
 * post accepts; qpn (host order);
 * doorbell_qpn (qpn << 8, big-endian); doorbell = UAR + 0x14; qp_type;
 * ring_stamped = 1 when the QP is in RESET (libmlx4 stamps the whole ring
 * on RESET->INIT) or when the stamps are found in the ring, else 0.
 *
 * BlueFlame (MLX4DV_RING_INIT_BLUEFLAME): the context's BlueFlame page is
 * mapped once per context (mmap of context->cmd_fd at offset
 * sysconf(_SC_PAGESIZE), as libmlx4 maps it) and shared, reference
 * counted, by every handle of that context. libmlx4 posts its own
 * BlueFlame WQEs through the FIRST register of that page (both halves,
 * toggled under a context lock), so this unit never uses register 0: each
 * handle gets a register of its own among registers 1 .. regs_per_page-1
 * at offset index * bf_reg_size, and no lock is needed. The register size
 * is not exported by libmlx4: the kernel reports it in the GET_CONTEXT
 * response (bf_reg_size, 512 bytes on ConnectX-3, hence bf_buf_size 256)
 * and regs_per_page defaults to 8 (the value the mlx4_core driver falls
 * back to); both can be overridden with mlx4dv_context_set_bf_layout() or
 * the environment variables MLX4DV_BF_REG_SIZE and MLX4DV_BF_REGS_PER_PAGE
 * (MLX4DV_BF_REG_SIZE=0 turns BlueFlame off). On success bf_reg,
 * bf_buf_size are set and flags has MLX4DV_SQ_RING_BLUEFLAME. When the
 * page cannot be mapped (the device has no BlueFlame) or every register is
 * taken, the handle uses plain doorbells and flags has
 * MLX4DV_SQ_RING_BLUEFLAME_FALLBACK; this is not an error.
 *
 * Errors: EINVAL (sq or qp NULL, unknown flag), EPROTONOSUPPORT (not an
 * mlx4 device), ENOENT (the QP has no send queue: XRC_RECV, RSS, no
 * usable WQE), ENOTSUP (a QP type or geometry the header cannot drive, or
 * libmlx4 reports limits that differ from its 44.0 arithmetic), ENOMEM,
 * or the errno of mlx4dv_init_obj().
 */
int
mlx4dv_sq_ring_init(struct mlx4dv_sq_ring *sq, struct ibv_qp *qp,
		    uint32_t flags);

/* mlx4dv_sq_ring_release - free the wrid table and give back the
 * BlueFlame register (the page is unmapped with its last user), when the
 * handle's grant ticket (flags bits 8..31) is the queue's live one. The
 * handle is left with wrid = NULL, bf_reg = NULL, both BlueFlame flags and
 * the ticket cleared. NULL, an already released handle, or a copy whose
 * grant was given back already: nothing is given back. */
void
mlx4dv_sq_ring_release(struct mlx4dv_sq_ring *sq);

/*
 * mlx4dv_rq_ring_init - fill a receive-queue handle from a QP.
 *
 * Filled: buf = buffer + rq.offset, wqe_cnt, wqe_shift, head = tail = 0,
 * max_scatter = (1 << wqe_shift) / 16, qpn, db (the doorbell record),
 * wrid when MLX4DV_RING_INIT_WRID is given.
 *
 * Errors: EINVAL (NULL, unknown flag or MLX4DV_RING_INIT_BLUEFLAME),
 * EPROTONOSUPPORT, ENOENT (the QP's receives go to an SRQ, or it has no
 * receive queue: XRC, RSS), ENOTSUP (geometry), ENOMEM.
 */
int
mlx4dv_rq_ring_init(struct mlx4dv_rq_ring *rq, struct ibv_qp *qp,
		    uint32_t flags);

/*
 * mlx4dv_wq_ring_init - fill a receive-queue handle from a receive WQ
 * (ibv_create_wq(), used behind an RSS QP). qpn is the WQ number, which
 * the WQ's CQEs carry. Same fields and errors as mlx4dv_rq_ring_init().
 */
int
mlx4dv_wq_ring_init(struct mlx4dv_rq_ring *rq, struct ibv_wq *wq,
		    uint32_t flags);

/* mlx4dv_rq_ring_release - free the wrid table of an RQ or WQ handle. */
void
mlx4dv_rq_ring_release(struct mlx4dv_rq_ring *rq);

/*
 * mlx4dv_srq_ring_init - fill an SRQ handle.
 *
 * Filled: buf, wqe_cnt (libmlx4 allocates roundup_pow_of_two(max_wr + 1)
 * WQEs: from ibv_query_srq(), or, for an SRQ never posted to, the free
 * list's tail + 1), wqe_shift, head and tail of the free list (as libmlx4
 * left them), counter (from the doorbell record), max_scatter =
 * ((1 << wqe_shift) - 16) / 16, db, wrid on request.
 *
 * flags: MLX4DV_RING_INIT_WRID, MLX4DV_RING_INIT_XRC_SRQ.
 * srqn: with MLX4DV_RING_INIT_XRC_SRQ, the XRC SRQ number from
 * ibv_get_srq_num() (senders put it in srcrb_flags); otherwise 0: the
 * device never needs an ordinary SRQ's number from software, and libmlx4
 * 44.0 answers ibv_get_srq_num() on an ordinary SRQ from memory it never
 * initialised, so the unit does not ask.
 *
 * Errors: EINVAL, EPROTONOSUPPORT, ENOTSUP (geometry), ENOMEM, or the
 * errno of ibv_get_srq_num() for MLX4DV_RING_INIT_XRC_SRQ.
 */
int
mlx4dv_srq_ring_init(struct mlx4dv_srq_ring *srq, struct ibv_srq *ibsrq,
		     uint32_t flags);

/* mlx4dv_srq_ring_release - free the wrid table of an SRQ handle. */
void
mlx4dv_srq_ring_release(struct mlx4dv_srq_ring *srq);

/*
 * mlx4dv_cq_ring_init - fill a CQ handle. flags must be 0.
 *
 * Filled: buf, cqe_cnt (power of two), cqe_size (32 or 64), cons_index
 * (from the consumer-index record, so a CQ libmlx4 polled before keeps
 * its position), arm_sn, cqn, set_ci_db, arm_db, uar.
 *
 * Ownership: libmlx4 marks a converted CQ as driven directly
 * (MLX4_CQ_FLAGS_DV_OWNED, rdma-core providers/mlx4/mlx4.c). From then on,
 * when a QP using this CQ is destroyed or moved to RESET, libmlx4 no
 * longer removes that QP's CQEs from the ring (cq.c __mlx4_cq_clean) nor
 * returns the SRQ WQEs they hold: the application skips CQEs of dead QPs
 * itself. ibv_get_cq_event() still counts events for
 * ibv_ack_cq_events(), but the handle's arm_sn is the application's to
 * advance. The mark is set even if this function then refuses the CQ.
 *
 * Errors: EINVAL (NULL, flags), EPROTONOSUPPORT, ENOTSUP (cqe_size not 32
 * or 64, cqe_cnt not a power of two, no UAR reported).
 */
int
mlx4dv_cq_ring_init(struct mlx4dv_cq_ring *cq, struct ibv_cq *ibcq,
		    uint32_t flags);

/* mlx4dv_cq_ring_release - the CQ handle holds no resource today; call it
 * anyway so that later versions can. */
void
mlx4dv_cq_ring_release(struct mlx4dv_cq_ring *cq);

/*
 * mlx4dv_cq_ring_resize - ibv_resize_cq() for a CQ driven by the handle cq:
 * resizes ibcq to at least cqe entries and leaves cq describing the new
 * ring, positioned after the last CQE it took.
 *
 * Do not call ibv_resize_cq() itself on a CQ a handle drives: libmlx4
 * copies the CQEs from its own consumer index, which the handle never
 * advanced, to the resize CQE into the new buffer (rdma-core 44.0
 * providers/mlx4/cq.c mlx4_cq_resize_copy_cqes) and sets the
 * consumer-index record to that index + 1, so a handle initialised again
 * takes every CQE since libmlx4 last polled a second time. This function
 * calls ibv_resize_cq() and then gives the handle the new buffer and size,
 * consumer index (the index before the resize) + 1, the resize CQE's slot
 * skipped as libmlx4 skips it, marks every slot of the new buffer
 * device-owned for the index the handle reads there next (which erases
 * libmlx4's copies, all of CQEs the handle took already), and writes the
 * consumer-index record.
 *
 * Precondition: no work request that completes on this CQ is outstanding
 * (every send and receive WQE of its QPs completed and taken, nothing
 * posted until the call returns): the resize CQE must be the next CQE
 * the device writes. A CQE that the device writes during the call is lost.
 * The CQ is checked to hold no untaken CQE (EBUSY otherwise).
 *
 * cq:   a handle of ibcq (mlx4dv_cq_ring_init()), as it is now.
 * cqe:  the minimum number of entries, as for ibv_resize_cq(); libmlx4
 *       rounds it up to a power of two minus one. The same size once
 *       rounded changes nothing and returns 0.
 * Returns 0, or: EINVAL (NULL, cqe above INT_MAX, cq not a handle of ibcq
 * in its present buffer), EPROTONOSUPPORT (not mlx4), EBUSY (a CQE is
 * waiting to be taken), the errno of ibv_resize_cq() (EINVAL for a size
 * below the CQEs libmlx4 counts as outstanding, ENOMEM): the handle and
 * the CQ are then as they were; or ENOTSUP when the CQ was resized but
 * libmlx4 reports a layout the header cannot drive (the handle then
 * describes the freed buffer: release it and do not poll it).
 */
int
mlx4dv_cq_ring_resize(struct mlx4dv_cq_ring *cq, struct ibv_cq *ibcq,
		      uint32_t cqe);

/* Flags of struct mlx4dv_qp_rings.flags (outputs). */
enum mlx4dv_qp_rings_flags {
	/* The QP has no send queue; sq is zeroed. */
	MLX4DV_QP_RINGS_NO_SQ		= 1 << 0,
	/* The QP's receives go to an SRQ; rq is zeroed (use
	 * mlx4dv_srq_ring_init() on ibv_qp.srq). */
	MLX4DV_QP_RINGS_RQ_ON_SRQ	= 1 << 1,
	/* The QP has no receive queue of its own (XRC); rq is zeroed. */
	MLX4DV_QP_RINGS_NO_RQ		= 1 << 2,
	/* send_cq and recv_cq are the same CQ: both handles describe it;
	 * drive only send_cq. */
	MLX4DV_QP_RINGS_SHARED_CQ	= 1 << 3,
};

/*
 * Every handle of one QP: 640 bytes with any pointer size, as the handles
 * it holds have fixed sizes (handle.h, "Sizes"). reserved is zeroed by
 * mlx4dv_qp_rings_init() and never touched by a program. The 0.2 struct
 * held the shorter 0.2 handles back to back, so every member after sq has
 * moved; a program built against 0.2 keeps the old layout through the
 * MLX4DV_0.1 symbols of the two functions below.
 */
struct mlx4dv_qp_rings {
	struct mlx4dv_sq_ring	sq;
	struct mlx4dv_rq_ring	rq;
	struct mlx4dv_cq_ring	send_cq;
	struct mlx4dv_cq_ring	recv_cq;
	uint32_t		flags;	/* enum mlx4dv_qp_rings_flags */
	uint8_t			reserved[60];
};

__MLX4DV_SIZE_IS(qp_rings, 640);
__MLX4DV_FIELD_AT(qp_rings, sq, 0, 0);
__MLX4DV_FIELD_AT(qp_rings, rq, 192, 192);
__MLX4DV_FIELD_AT(qp_rings, send_cq, 320, 320);
__MLX4DV_FIELD_AT(qp_rings, recv_cq, 448, 448);
__MLX4DV_FIELD_AT(qp_rings, flags, 576, 576);
__MLX4DV_FIELD_AT(qp_rings, reserved, 580, 580);

/*
 * mlx4dv_qp_rings_init - fill the SQ, RQ and both CQ handles of a QP in
 * one call. flags: as for mlx4dv_sq_ring_init() (WRID applies to sq and
 * rq, BLUEFLAME to sq). A missing SQ or RQ is reported in rings->flags,
 * not as an error; a QP with neither (RSS) gives ENOENT. Errors otherwise
 * as the single-object functions; on error nothing is kept and *rings is
 * unchanged.
 */
int
mlx4dv_qp_rings_init(struct mlx4dv_qp_rings *rings, struct ibv_qp *qp,
		     uint32_t flags);

/* mlx4dv_qp_rings_release - release every handle of rings. */
void
mlx4dv_qp_rings_release(struct mlx4dv_qp_rings *rings);

/*
 * mlx4dv_context_set_bf_layout - tell the unit the BlueFlame geometry of a
 * context when the defaults (see mlx4dv_sq_ring_init()) are wrong.
 *
 * bf_reg_size:     bytes of one register, a power of two 64..page size / 2,
 *                  or 0 for "no BlueFlame" (every request falls back).
 * bf_regs_per_page: registers in the page, a power of two >= 2; capped at
 *                  page size / bf_reg_size.
 *
 * The layout holds for this context until ibv_close_device(); a context
 * opened later starts from the default even when it gets the closed one's
 * address and fd numbers (libmlx4dv watches the context's async event fd,
 * whose open file ends with the context).
 *
 * Errors: EINVAL (bad values, NULL), EPROTONOSUPPORT (not mlx4), EBUSY
 * (the context's BlueFlame page is in use with another layout).
 */
int
mlx4dv_context_set_bf_layout(struct ibv_context *context, uint32_t bf_reg_size,
			     uint32_t bf_regs_per_page);

/*
 * mlx4dv_set_blueflame_layout - the 0.2 name of mlx4dv_context_set_bf_layout()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
__MLX4DV_DEPRECATED("mlx4dv_context_set_bf_layout()")
int
mlx4dv_set_blueflame_layout(struct ibv_context *context, uint32_t bf_reg_size,
			    uint32_t bf_regs_per_page);


/*
 * mlx4dv_ud_av_from_ah - the UD destination of an address handle, as
 * libmlx4 built it in ibv_create_ah(): the 32-byte address vector (PD
 * number and port in port_pd, LID, SL, rate, GRH), and on Ethernet ports
 * the resolved MAC and VLAN (0 on InfiniBand, as mlx4dv_ud_av_from_attr()
 * leaves them). Pass it to the UD writes of write.h; the PD
 * number is mlx4dv_ud_av_pdn(out).
 *
 * ah: created on an mlx4 device; the destination stays valid while the
 * AH's attributes do (libmlx4 never changes an AH).
 *
 * libmlx4 keeps the AV private and mlx4dv_init_obj() does not export it,
 * so this reads libmlx4's own output: the datagram segment
 * ibv_post_send() writes for a UD work request to ah, on a scratch UD QP
 * of ah->pd that stays in RESET (nothing is sent) and is destroyed before
 * the call returns (rdma-core 44.0 providers/mlx4/qp.c
 * set_datagram_seg). A setup-time call: it creates and destroys a CQ and
 * a QP.
 *
 * Errors: EINVAL (NULL), EPROTONOSUPPORT (not mlx4), ENOTSUP, or the errno
 * of creating the scratch CQ or QP (ENOMEM, ...) or of ibv_query_port().
 * *out is unchanged on error.
 */
int
mlx4dv_ud_av_from_ah(struct mlx4dv_ud_av *out, struct ibv_ah *ah);

/*
 * mlx4dv_pd_query_pdn - the PD number of pd (host order, 24 bits), the value
 * the UD address vector's port_pd carries (mlx4dv_ud_av_from_attr()). Read
 * from libmlx4's own output: an address handle to a fixed destination on
 * port 1 (a LID on InfiniBand, the multicast GID ff0e::1 where a GRH is
 * required) is created, converted with mlx4dv_ud_av_from_ah() and
 * destroyed. A setup-time call.
 *
 * Errors: EINVAL (NULL), EPROTONOSUPPORT, the errno of ibv_query_port(),
 * ibv_create_ah() or mlx4dv_ud_av_from_ah(). *pdn is unchanged on error.
 */
int
mlx4dv_pd_query_pdn(struct ibv_pd *pd, uint32_t *pdn);

/*
 * mlx4dv_pd_number - the 0.2 name of mlx4dv_pd_query_pdn()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
__MLX4DV_DEPRECATED("mlx4dv_pd_query_pdn()")
int
mlx4dv_pd_number(struct ibv_pd *pd, uint32_t *pdn);


#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_LIB_H_ */
