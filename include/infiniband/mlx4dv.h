/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mlx4dv.h - direct verbs for Mellanox ConnectX-3 (mlx4) adapters.
 *
 * A drop-in superset of rdma-core's <infiniband/mlx4dv.h> (rdma-core 44.0):
 * every type, enumerator, macro and prototype of that header keeps its name,
 * value, size and field offsets, so libmlx4's mlx4dv_init_obj() fills these
 * structures exactly as before and programs link -lmlx4 unchanged.
 *
 * On top of the layouts it carries a complete data path as static inline
 * functions: barriers and device writes, send WQE builders, doorbells and
 * BlueFlame, CQ polling, decoding and arming, and RQ/SRQ/WQ posting.
 *
 * It compiles on its own as C11/C17 and C++11..C++20 with
 * -Wall -Wextra -Wpedantic -Werror, without _DEFAULT_SOURCE.
 *
 * Contents. This file holds rdma-core's part (its layouts, its three
 * builders and libmlx4's entry points, in rdma-core's order); the rest is
 * one concept per file under <infiniband/mlx4dv/>, included below. Those
 * parts refuse to be included on their own: include this header only.
 *  compiler.h   inline rule, MLX4DV_ASSERT/MLX4DV_DEBUG, deprecation,
 *               code-generation hints
 *  byteorder.h  mlx4dv_cpu_to_be*, mlx4dv_be*_to_cpu
 *  barrier.h    barriers and device writes (mlx4dv_barrier_*,
 *               mlx4dv_mmio_*, mlx4dv_wc_*)
 *  handle.h     the queue handles (struct mlx4dv_sq_ring, _rq_ring,
 *               _srq_ring, _cq_ring)
 *  send.h       send WQE constants, SQ ring arithmetic, sq completion
 *  wqe.h        segment builders (mlx4dv_wqe_set_*, mlx4dv_sq_set_*)
 *  doorbell.h   WQE finish, stamping, doorbell and BlueFlame
 *               (mlx4dv_sq_ring_*)
 *  write.h      one-call writes (mlx4dv_sq_write_*)
 *  send_wr.h    writing a struct ibv_send_wr
 *  batch.h      template batches (mlx4dv_sq_batch_*)
 *  cq.h         CQE bits, finding and consuming CQEs (mlx4dv_cq_*)
 *  cqe.h        decoding a CQE (mlx4dv_cqe_*)
 *  arm.h        arming and completion events
 *  rq.h, srq.h  receive queues (mlx4dv_rq_*, mlx4dv_srq_*)
 *  poll.h       send completions and polls (mlx4dv_cq_poll_*)
 *  timestamp.h  completion timestamps (mlx4dv_ts_*)
 *  lib.h        libmlx4dv (-lmlx4dv): handles from ibverbs objects
 *               (mlx4dv_*_ring_init(), _release()), version, UD
 *               destinations
 *
 * Every public function and macro has a reference page generated from its
 * comment here (man mlx4dv_sq_write_send, man MLX4DV_WQE_CTRL_OWNER, ...;
 * the overview is libmlx4dv(7)); rdma-core's functions keep rdma-core's.
 *
 * Naming and calling rules (docs/api-conventions.md):
 *  - Verbs. "set": fill one segment or field in memory the caller names;
 *    nothing is handed to the device. "write": build WQEs in a queue's
 *    ring and advance its producer count; the device is not told.
 *    "ring": tell the device that a queue has new WQEs (the send doorbell
 *    register, BlueFlame, or the RQ/SRQ doorbell record). "post": write
 *    and ring in one call, what ibv_post_recv() does. "complete": account
 *    one completion (a CQE) against a queue (its consumer count
 *    advances, the wr_id comes back). "poll": take CQEs off a CQ (its
 *    consumer index advances) and complete them; the polls of an SQ, RQ
 *    and SRQ have the same outputs. "init"/"release": acquire and give
 *    back a handle's resources; "update", "reset", "from", "query" name
 *    the rest; "free_wqe" gives one SRQ WQE back. Object before verb.
 *  - Errors: a function that can refuse returns int, 0 on success or a
 *    positive errno value (as ibv_post_send(), ibv_post_recv() and
 *    mlx4dv_init_obj()); it never sets errno, and when it refuses it has
 *    written nothing to the ring or the device. A poll that finds nothing
 *    to take returns EAGAIN. A function that cannot fail returns its value
 *    (a count, a pointer, a flag, a decoded field, a value of its own
 *    enum) or void: an int is never anything but 0 or an errno.
 *  - A name never changes meaning. 0.2 names that 0.3 replaced are kept,
 *    deprecated (MLX4DV_WARN_DEPRECATED, compiler.h;
 *    docs/migration-0.3.md).
 *  - Counts (entries, WQEs, WQEBBs, completions) are uint32_t.
 *  - wr_id is the second argument, right after the queue or batch, of
 *    every function that writes a WQE; completions give it back through
 *    a uint64_t *wr_id output (NULL: not wanted).
 *  - Argument order: the queue, wr_id, the remote side as libibverbs'
 *    ibv_wr_*() orders it (rkey before the remote address; dest,
 *    remote_qpn, remote_qkey), the operands (compare before swap), the
 *    local buffer (an ibv_sge list and its count, or data and len; a key
 *    before its address and length, as ibv_wr_set_sge()), send_flags,
 *    then the word send_flags gives a meaning to (imm, invalidate_rkey,
 *    vlan_tci), as struct ibv_send_wr has send_flags before imm_data.
 *  - Names that begin with __mlx4dv_ or __MLX4DV_ are the header's own
 *    helpers: not part of the API, with no page and no stability.
 *  - The names rdma-core's mlx4dv.h declares keep rdma-core's spelling and
 *    meaning, whichever rule they predate.
 *
 * Conventions used by every function below:
 *  - "host order" arguments are converted by the function; arguments typed
 *    __be16/__be32/__be64 are already big-endian and are stored as given.
 *  - Every device-visible field is big-endian (ConnectX-3 PRM).
 *  - ds is the WQE size in 16-byte units; a WQEBB (stride) is 1 << wqe_shift
 *    bytes, at least 64.
 *
 * The header shares its include guard with rdma-core's copy, so including
 * both in one translation unit is harmless: whichever comes first wins.
 */

#ifndef _MLX4DV_H_
#define _MLX4DV_H_

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/types.h>
#include <linux/types.h>
#include <endian.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Always inline the functions */
#ifdef __GNUC__
#define MLX4DV_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MLX4DV_ALWAYS_INLINE inline
#endif

#include <infiniband/mlx4dv/compiler.h>

/* ======================================================================
 * rdma-core's mlx4dv.h: its layouts (ABI-identical), builders and
 * libmlx4's entry points.
 * ====================================================================== */

enum {
	MLX4_OPCODE_NOP			= 0x00,
	MLX4_OPCODE_SEND_INVAL		= 0x01,
	MLX4_OPCODE_RDMA_WRITE		= 0x08,
	MLX4_OPCODE_RDMA_WRITE_IMM	= 0x09,
	MLX4_OPCODE_SEND		= 0x0a,
	MLX4_OPCODE_SEND_IMM		= 0x0b,
	MLX4_OPCODE_LSO			= 0x0e,
	MLX4_OPCODE_RDMA_READ		= 0x10,
	MLX4_OPCODE_ATOMIC_CS		= 0x11,
	MLX4_OPCODE_ATOMIC_FA		= 0x12,
	MLX4_OPCODE_MASKED_ATOMIC_CS	= 0x14,
	MLX4_OPCODE_MASKED_ATOMIC_FA	= 0x15,
	MLX4_OPCODE_BIND_MW		= 0x18,
	MLX4_OPCODE_FMR			= 0x19,
	MLX4_OPCODE_LOCAL_INVAL		= 0x1b,
	MLX4_OPCODE_CONFIG_CMD		= 0x1f,

	MLX4_RECV_OPCODE_RDMA_WRITE_IMM	= 0x00,
	MLX4_RECV_OPCODE_SEND		= 0x01,
	MLX4_RECV_OPCODE_SEND_IMM	= 0x02,
	MLX4_RECV_OPCODE_SEND_INVAL	= 0x03,

	MLX4_CQE_OPCODE_ERROR		= 0x1e,
	MLX4_CQE_OPCODE_RESIZE		= 0x16,
};

/* Byte offset of the CQ arm doorbell in the UAR page. */
enum {
	MLX4_CQ_DOORBELL			= 0x20
};

/* Arm commands (bits 24..27 of the arm doorbell's high word). */
#define MLX4_CQ_DB_REQ_NOT_SOL			(1 << 24)
#define MLX4_CQ_DB_REQ_NOT			(2 << 24)

enum {
	MLX4_CQE_VLAN_PRESENT_MASK		= 1 << 29,
	MLX4_CQE_QPN_MASK			= 0xffffff,
};

/* Bits of the last CQE byte, owner_sr_opcode. */
enum {
	MLX4_CQE_OWNER_MASK			= 0x80,
	MLX4_CQE_IS_SEND_MASK			= 0x40,
	MLX4_CQE_OPCODE_MASK			= 0x1f
};

/* Syndromes of an error CQE (opcode MLX4_CQE_OPCODE_ERROR). */
enum {
	MLX4_CQE_SYNDROME_LOCAL_LENGTH_ERR		= 0x01,
	MLX4_CQE_SYNDROME_LOCAL_QP_OP_ERR		= 0x02,
	MLX4_CQE_SYNDROME_LOCAL_PROT_ERR		= 0x04,
	MLX4_CQE_SYNDROME_WR_FLUSH_ERR			= 0x05,
	MLX4_CQE_SYNDROME_MW_BIND_ERR			= 0x06,
	MLX4_CQE_SYNDROME_BAD_RESP_ERR			= 0x10,
	MLX4_CQE_SYNDROME_LOCAL_ACCESS_ERR		= 0x11,
	MLX4_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR		= 0x12,
	MLX4_CQE_SYNDROME_REMOTE_ACCESS_ERR		= 0x13,
	MLX4_CQE_SYNDROME_REMOTE_OP_ERR			= 0x14,
	MLX4_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR	= 0x15,
	MLX4_CQE_SYNDROME_RNR_RETRY_EXC_ERR		= 0x16,
	MLX4_CQE_SYNDROME_REMOTE_ABORTED_ERR		= 0x22,
};

/*
 * The valid 32 bytes of an error CQE. Same layout as rdma-core's, with the
 * device fields typed big-endian (same size and offsets).
 */
struct mlx4_err_cqe {
	__be32		vlan_my_qpn;
	uint32_t	reserved1[5];
	__be16		wqe_index;
	uint8_t		vendor_err;
	uint8_t		syndrome;
	uint8_t		reserved2[3];
	uint8_t		owner_sr_opcode;
};

/* Receive checksum status bits of mlx4_cqe.status (host order after be32toh). */
enum mlx4_cqe_status {
	MLX4_CQE_STATUS_TCP_UDP_CSUM_OK	= (1 <<  2),
	MLX4_CQE_STATUS_IPV4_PKT	= (1 << 22),
	MLX4_CQE_STATUS_IP_HDR_CSUM_OK	= (1 << 28),
	MLX4_CQE_STATUS_IPV4_CSUM_OK	= MLX4_CQE_STATUS_IPV4_PKT |
					MLX4_CQE_STATUS_IP_HDR_CSUM_OK |
					MLX4_CQE_STATUS_TCP_UDP_CSUM_OK
};

/* The valid 32 bytes of a CQE (the second half of a 64-byte CQE). */
struct mlx4_cqe {
	__be32		vlan_my_qpn;
	__be32		immed_rss_invalid;
	__be32		g_mlpath_rqpn;
	__MLX4DV_EXTENSION union {
		__MLX4DV_EXTENSION struct {
			__be16	sl_vid;
			__be16	rlid;
		};
		__be32	ts_47_16;
	};
	__be32		status;
	__be32		byte_cnt;
	__be16		wqe_index;
	__be16		checksum;
	uint8_t		reserved3;
	uint8_t		ts_15_8;
	uint8_t		ts_7_0;
	uint8_t		owner_sr_opcode;
};

enum mlx4dv_qp_comp_mask {
	MLX4DV_QP_MASK_UAR_MMAP_OFFSET		= 1 << 0,
};

/* QP layout filled by libmlx4's mlx4dv_init_obj(). comp_mask is an input. */
struct mlx4dv_qp {
	__be32		       *rdb;
	uint32_t		*sdb;
	__be32			doorbell_qpn;
	struct {
		uint32_t	wqe_cnt;
		int		wqe_shift;
		int		offset;
	} sq;
	struct {
		uint32_t	wqe_cnt;
		int		wqe_shift;
		int		offset;
	} rq;
	struct {
		void			*buf;
		size_t			length;
	} buf;
	uint64_t		comp_mask;
	off_t			uar_mmap_offset;
};

enum mlx4dv_cq_comp_mask {
	MLX4DV_CQ_MASK_UAR		= 1 << 0,
};

/* CQ layout filled by libmlx4's mlx4dv_init_obj(). comp_mask is an input. */
struct mlx4dv_cq {
	struct {
		void			*buf;
		size_t			length;
	} buf;
	uint32_t			cqe_cnt;
	uint32_t			cqn;
	__be32			       *set_ci_db;
	__be32			       *arm_db;
	int				arm_sn;
	int				cqe_size;
	uint64_t			comp_mask;
	void				*cq_uar;
};

/* SRQ layout filled by libmlx4's mlx4dv_init_obj(). */
struct mlx4dv_srq {
	struct {
		void			*buf;
		size_t			length;
	} buf;
	int				wqe_shift;
	int				head;
	int				tail;
	__be32			       *db;
	uint64_t			comp_mask;
};

/* Receive WQ layout filled by libmlx4's mlx4dv_init_obj(). */
struct mlx4dv_rwq {
	__be32			*rdb;
	struct {
		uint32_t	wqe_cnt;
		int		wqe_shift;
		int		offset;
	} rq;
	struct {
		void			*buf;
		size_t			length;
	} buf;
	uint64_t		comp_mask;
};

struct mlx4dv_obj {
	struct {
		struct ibv_qp		*in;
		struct mlx4dv_qp	*out;
	} qp;
	struct {
		struct ibv_cq		*in;
		struct mlx4dv_cq	*out;
	} cq;
	struct {
		struct ibv_srq		*in;
		struct mlx4dv_srq	*out;
	} srq;
	struct {
		struct ibv_wq		*in;
		struct mlx4dv_rwq	*out;
	} rwq;
};

enum mlx4dv_obj_type {
	MLX4DV_OBJ_QP	= 1 << 0,
	MLX4DV_OBJ_CQ	= 1 << 1,
	MLX4DV_OBJ_SRQ	= 1 << 2,
	MLX4DV_OBJ_RWQ	= 1 << 3,
};

/*
 * mlx4dv_init_obj - fill the raw layouts of the objects named in obj_type
 * (an OR of enum mlx4dv_obj_type). Exported by libmlx4 (-lmlx4), see
 * rdma-core providers/mlx4/mlx4.c.
 *
 * Each out->comp_mask is an input: set it to the optional fields wanted
 * (MLX4DV_QP_MASK_UAR_MMAP_OFFSET, MLX4DV_CQ_MASK_UAR) or to 0. An
 * uninitialised comp_mask asks for fields at random.
 *
 * Converting a CQ marks it as driven directly: from then on libmlx4 leaves
 * its consumer index to the application (no ibv_poll_cq on it).
 *
 * Returns 0, or an errno value. The objects must belong to an mlx4 device;
 * libmlx4 does not check. mlx4dv_sq_ring_init() and friends in libmlx4dv
 * check first.
 */
int
mlx4dv_init_obj(struct mlx4dv_obj *obj, uint64_t obj_type);

/* Owner bit (0x80 or 0) of a CQE; compare with the lap parity of the index. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_get_cqe_owner(struct mlx4_cqe *cqe)
{
	return cqe->owner_sr_opcode & MLX4_CQE_OWNER_MASK;
}

/* Set the owner bit (val & 0x80) of a CQE, keeping is-send and opcode. */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_set_cqe_owner(struct mlx4_cqe *cqe, uint8_t val)
{
	cqe->owner_sr_opcode = (uint8_t)((val & MLX4_CQE_OWNER_MASK) |
		(cqe->owner_sr_opcode & ~MLX4_CQE_OWNER_MASK));
}

/* CQE opcode (low 5 bits): MLX4_OPCODE_* for sends, MLX4_RECV_OPCODE_* for
 * receives, MLX4_CQE_OPCODE_ERROR or MLX4_CQE_OPCODE_RESIZE. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_get_cqe_opcode(struct mlx4_cqe *cqe)
{
	return cqe->owner_sr_opcode & MLX4_CQE_OPCODE_MASK;
}

/*
 * WQE related part
 */

/* Byte offset of the send doorbell register in the UAR page. */
enum {
	MLX4_SEND_DOORBELL	= 0x14,
};

/* Low flag bits of mlx4_wqe_ctrl_seg.srcrb_flags (host order). FENCE is a
 * bit of fence_size instead. */
enum {
	MLX4_WQE_CTRL_SOLICIT		= 1 << 1,
	MLX4_WQE_CTRL_CQ_UPDATE		= 3 << 2,
	MLX4_WQE_CTRL_IP_HDR_CSUM	= 1 << 4,
	MLX4_WQE_CTRL_TCP_UDP_CSUM	= 1 << 5,
	MLX4_WQE_CTRL_FENCE		= 1 << 6,
	MLX4_WQE_CTRL_STRONG_ORDER	= 1 << 7
};

/*
 * Three enumerations of rdma-core hold a value above INT_MAX. C++ allows
 * that, and there every enumerator of such an enumeration promotes to
 * unsigned int (MLX4_INLINE_ALIGN - 1 is unsigned, so
 * v & ~(MLX4_INLINE_ALIGN - 1) keeps the high half of a 64-bit v clear
 * and equal to what rdma-core's header gives): C++ gets rdma-core's
 * enumerations as they are. ISO C does not allow such an enumerator: in C
 * the large values are macros of the same names, values and type (a
 * 4-byte unsigned int, as GCC types rdma-core's enumerators) and their
 * companions stay int enumerators, as under GCC with rdma-core's header.
 * tests/abi checks both languages against the system header.
 */
#ifdef __cplusplus
enum {
	MLX4_WQE_BIND_TYPE_2		= (1UL<<31),
	MLX4_WQE_BIND_ZERO_BASED	= (1<<30),
};

enum {
	MLX4_INLINE_SEG		= 1UL << 31,
	MLX4_INLINE_ALIGN	= 64,
};
#else
/* flags2 bit 31 of a bind segment: a type 2 window (a macro in C,
 * rdma-core's enumerator in C++). */
#define MLX4_WQE_BIND_TYPE_2		(1U << 31)
enum {
	MLX4_WQE_BIND_ZERO_BASED	= (1<<30),
};

/* byte_count bit 31 of an inline data segment (a macro in C,
 * rdma-core's enumerator in C++). */
#define MLX4_INLINE_SEG			(1U << 31)
enum {
	MLX4_INLINE_ALIGN	= 64,
};
#endif

enum {
	MLX4_INVALID_LKEY	= 0x100,
};

#ifdef __cplusplus
enum {
	MLX4_WQE_MW_REMOTE_READ   = 1 << 29,
	MLX4_WQE_MW_REMOTE_WRITE  = 1 << 30,
	MLX4_WQE_MW_ATOMIC        = 1UL << 31
};
#else
enum {
	MLX4_WQE_MW_REMOTE_READ   = 1 << 29,
	MLX4_WQE_MW_REMOTE_WRITE  = 1 << 30,
};
/* flags1 bit 31 of a bind segment: remote atomic access (a
 * macro in C, rdma-core's enumerator in C++). */
#define MLX4_WQE_MW_ATOMIC		(1U << 31)
#endif

struct mlx4_wqe_local_inval_seg {
	uint64_t		reserved1;
	__be32			mem_key;
	uint32_t		reserved2;
	uint64_t		reserved3[2];
};

struct mlx4_wqe_bind_seg {
	__be32			flags1;
	__be32			flags2;
	__be32			new_rkey;
	__be32			lkey;
	__be64			addr;
	__be64			length;
};

/*
 * Control segment, the first 16 bytes of every send WQE.
 *  owner_opcode: owner bit 31 | WQE counter bits 8..23 (BlueFlame only) |
 *                opcode bits 0..4.
 *  fence_size:   fence bit 6 | ds (WQE size in 16-byte units) bits 0..5;
 *                bf_qpn overlays bytes 4..7 for BlueFlame (qpn << 8).
 *  srcrb_flags:  XRC remote SRQN bits 8..31 | MLX4_WQE_CTRL_* bits 0..7.
 *  imm:          immediate (big-endian as the application gave it) or the
 *                rkey to invalidate.
 */
struct mlx4_wqe_ctrl_seg {
	__be32			owner_opcode;
	__MLX4DV_EXTENSION union {
		__MLX4DV_EXTENSION struct {
			uint8_t			reserved[3];
			uint8_t			fence_size;
		};
		__be32		bf_qpn;
	};
	__MLX4DV_EXTENSION union {
		__be32 srcrb_flags;
		__be16 srcrb_flags16[2];
	};
	__be32			imm;
};

/* Address vector of a UD WQE (first 32 bytes of the datagram segment). */
struct mlx4_av {
	__be32				port_pd;
	uint8_t				reserved1;
	uint8_t				g_slid;
	__be16				dlid;
	uint8_t				reserved2;
	uint8_t				gid_index;
	uint8_t				stat_rate;
	uint8_t				hop_limit;
	__be32				sl_tclass_flowlabel;
	uint8_t				dgid[16];
};

/* Datagram segment of a UD WQE: 48 bytes. */
struct mlx4_wqe_datagram_seg {
	struct mlx4_av		av;
	__be32			dqpn;
	__be32			qkey;
	__be16			vlan;
	uint8_t			mac[6];
};

/* Gather/scatter entry: 16 bytes. */
struct mlx4_wqe_data_seg {
	__be32			byte_count;
	__be32			lkey;
	__be64			addr;
};

/* Inline data header: MLX4_INLINE_SEG | length in bytes, data follows. */
struct mlx4_wqe_inline_seg {
	__be32			byte_count;
};

/* First 16 bytes of an SRQ WQE; links the free list. */
struct mlx4_wqe_srq_next_seg {
	uint16_t		reserved1;
	__be16			next_wqe_index;
	uint32_t		reserved2[3];
};

struct mlx4_wqe_raddr_seg {
	__be64			raddr;
	__be32			rkey;
	__be32			reserved;
};

/*
 * LSO segment: mss << 16 | header size in bytes, then the header inline.
 * The trailing array is a flexible array member in C and a GNU zero-length
 * array in C++ (where flexible members are not standard); the size (4) and
 * offset of header (4) are those of rdma-core's layout.
 */
struct mlx4_wqe_lso_seg {
	__be32			mss_hdr_size;
#ifdef __cplusplus
	__MLX4DV_EXTENSION __be32	header[0];
#else
	__be32			header[];
#endif
};

struct mlx4_wqe_atomic_seg {
	__be64			swap_add;
	__be64			compare;
};

enum mlx4dv_qp_init_attr_mask {
	MLX4DV_QP_INIT_ATTR_MASK_INL_RECV	= 1 << 0,
	MLX4DV_QP_INIT_ATTR_MASK_RESERVED	= 1 << 1,
};

struct mlx4dv_qp_init_attr {
	uint64_t comp_mask; /* Use enum mlx4dv_qp_init_attr_mask */
	uint32_t inl_recv_sz;
};

/* Create a QP with mlx4-specific attributes (inline receive size).
 * Exported by libmlx4 (providers/mlx4/verbs.c). NULL and errno on error. */
struct ibv_qp *
mlx4dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr,
		 struct mlx4dv_qp_init_attr *mlx4_qp_attr);

/* Device attributes that ibv_query_device() does not report. */
struct mlx4dv_context {
	uint8_t		version;
	uint32_t	max_inl_recv_sz;
	uint64_t	comp_mask;
};

#include <infiniband/mlx4dv/byteorder.h>


/*
 * mlx4dv_set_ctrl_seg - rdma-core's control-segment builder, unchanged.
 *
 * seg:          the WQE's first 16 bytes.
 * owner_opcode: host order; owner bit 31, opcode in bits 0..4 (and the WQE
 *               counter in bits 8..23 for BlueFlame); stored big-endian.
 * fence_size:   fence bit 6 (MLX4_WQE_CTRL_FENCE) | ds, the WQE size in
 *               16-byte units, in bits 0..5; stored as is.
 * srcrb_flags:  host order; MLX4_WQE_CTRL_* flags in bits 0..7, XRC remote
 *               SRQN in bits 8..31; stored big-endian.
 * imm:          stored AS GIVEN, no conversion. For SEND_IMM and
 *               RDMA_WRITE_IMM pass ibv_send_wr.imm_data (already
 *               big-endian); for SEND_INVAL pass the rkey converted to
 *               big-endian.
 *
 * Ordering caveat: this writes the owner/opcode word FIRST, with no barrier,
 * so the device may see a half-written WQE if the owner bit hands it over.
 * Call it with the software-owned owner value, write the rest of the WQE,
 * then use mlx4dv_wqe_set_owner_opcode() - or use the send path of this
 * header (mlx4dv_sq_*), which writes word 0 last behind a barrier.
 * (rdma-core providers/mlx4/mlx4dv.h; PRM "Send WQE control segment".)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_set_ctrl_seg(struct mlx4_wqe_ctrl_seg *seg, uint32_t owner_opcode,
		    uint8_t fence_size, uint32_t srcrb_flags, uint32_t imm)
{
	seg->owner_opcode = mlx4dv_cpu_to_be32(owner_opcode);
	seg->fence_size = fence_size;
	seg->srcrb_flags = mlx4dv_cpu_to_be32(srcrb_flags);
	seg->imm = (__be32)imm;
}

/*
 * mlx4dv_set_dgram_seg - rdma-core's datagram-segment builder, unchanged.
 *
 * All integer arguments are host order and stored big-endian where the
 * field is wider than a byte:
 *  port_pd:             port number << 24 | PD number.
 *  g_slid:              GRH present bit 7 | source LID path bits 0..6.
 *  dlid:                destination LID (InfiniBand).
 *  gid_index:           source GID index in the port's table.
 *  stat_rate:           static rate (0 = port rate).
 *  hop_limit:           GRH hop limit.
 *  sl_tclass_flowlabel: SL << 28 | traffic class << 20 | flow label.
 *  dgid:                16 bytes, network order, copied.
 *  dqpn, qkey:          destination QPN and Q_Key.
 *  vlan:                VLAN tag (RoCE) and mac: 6 bytes of destination MAC.
 * Both dgid and mac must be valid pointers. The segment does not hand a
 * WQE to the device; the control segment's owner word does.
 * (rdma-core providers/mlx4/mlx4dv.h, providers/mlx4/qp.c set_datagram_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_set_dgram_seg(struct mlx4_wqe_datagram_seg *seg, uint32_t port_pd,
		     uint8_t g_slid, uint16_t dlid, uint8_t gid_index,
		     uint8_t stat_rate, uint8_t hop_limit,
		     uint32_t sl_tclass_flowlabel, uint8_t *dgid, uint32_t dqpn,
		     uint32_t qkey, uint16_t vlan, uint8_t *mac)
{
	seg->av.port_pd = mlx4dv_cpu_to_be32(port_pd);
	seg->av.g_slid = g_slid;
	seg->av.dlid = mlx4dv_cpu_to_be16(dlid);
	seg->av.gid_index = gid_index;
	seg->av.stat_rate = stat_rate;
	seg->av.hop_limit = hop_limit;
	seg->av.sl_tclass_flowlabel = mlx4dv_cpu_to_be32(sl_tclass_flowlabel);
	memcpy(seg->av.dgid, dgid, 16);
	seg->dqpn = mlx4dv_cpu_to_be32(dqpn);
	seg->qkey = mlx4dv_cpu_to_be32(qkey);
	seg->vlan = mlx4dv_cpu_to_be16(vlan);
	memcpy(seg->mac, mac, 6);
}

/*
 * mlx4dv_set_data_seg - rdma-core's data-segment builder, unchanged.
 *
 * length:  bytes, host order (0 is stored as 0, which the device reads as
 *          2 GiB; mlx4dv_wqe_set_data_seg() encodes a zero length right).
 * lkey:    host order.  address: host order (a virtual address in the MR).
 *
 * Ordering caveat: byte_count is written first; the device may prefetch a
 * 64-byte chunk whose first word is already valid while the rest is stale.
 * mlx4dv_wqe_set_data_seg() writes lkey and addr, a barrier, then
 * byte_count. (rdma-core providers/mlx4/mlx4dv.h, qp.c set_data_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_set_data_seg(struct mlx4_wqe_data_seg *seg, uint32_t length,
		    uint32_t lkey, uintptr_t address)
{
	seg->byte_count = mlx4dv_cpu_to_be32(length);
	seg->lkey       = mlx4dv_cpu_to_be32(lkey);
	seg->addr       = mlx4dv_cpu_to_be64(address);
}

/* Query mlx4-specific device attributes. Exported by libmlx4
 * (providers/mlx4/verbs.c). Returns 0 or an errno value. */
int
mlx4dv_query_device(struct ibv_context *ctx_in,
		    struct mlx4dv_context *attrs_out);

enum mlx4dv_set_ctx_attr_type {
	/* Attribute type uint8_t */
	MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ	= 0,
	MLX4DV_SET_CTX_ATTR_BUF_ALLOCATORS	= 1,
};

struct mlx4dv_ctx_allocators {
	void *(*alloc)(size_t size, void *priv_data);
	void (*free)(void *ptr, void *priv_data);
	void *data;
};

/* Set a context attribute (WQ-number range for RSS, buffer allocators).
 * Exported by libmlx4 (providers/mlx4/mlx4.c). Returns 0 or an errno value. */
int
mlx4dv_set_context_attr(struct ibv_context *context,
			enum mlx4dv_set_ctx_attr_type attr_type, void *attr);

#ifdef __cplusplus
}
#endif

/*
 * The project's data path and libmlx4dv, one concept per file. Without
 * __MLX4DV_PART_CHECK (tests/header, which compiles each part with only
 * the parts it includes itself) every part is included.
 */
#ifndef __MLX4DV_PART_CHECK
#include <infiniband/mlx4dv/barrier.h>
#include <infiniband/mlx4dv/handle.h>
#include <infiniband/mlx4dv/send.h>
#include <infiniband/mlx4dv/wqe.h>
#include <infiniband/mlx4dv/doorbell.h>
#include <infiniband/mlx4dv/write.h>
#include <infiniband/mlx4dv/send_wr.h>
#include <infiniband/mlx4dv/batch.h>
#include <infiniband/mlx4dv/cq.h>
#include <infiniband/mlx4dv/cqe.h>
#include <infiniband/mlx4dv/arm.h>
#include <infiniband/mlx4dv/rq.h>
#include <infiniband/mlx4dv/srq.h>
#include <infiniband/mlx4dv/poll.h>
#include <infiniband/mlx4dv/timestamp.h>
#include <infiniband/mlx4dv/lib.h>
#endif

#endif /* _MLX4DV_H_ */
