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
 * Contents
 *  Part 1  rdma-core's layouts, builders and libmlx4 entry points
 *          (mlx4dv_init_obj() ...), unchanged; byte-order helpers.
 *  Part 2  Barriers and device writes (mlx4dv_barrier_*, mlx4dv_mmio_*,
 *          mlx4dv_wc_*).
 *  Part 3  Queue handles (struct mlx4dv_sq_ring, _rq_ring, _srq_ring,
 *          _cq_ring).
 *  Part 4  Send path: ring arithmetic, segment builders (mlx4dv_wqe_set_*,
 *          mlx4dv_sq_set_*), WQE finish and stamping, doorbell and
 *          BlueFlame (mlx4dv_sq_ring_*), one-call writes
 *          (mlx4dv_sq_write_*), template batches (mlx4dv_sq_batch_*).
 *  Part 5  Completion and receive path: 5.1 CQE bits, 5.2 finding and
 *          consuming CQEs (mlx4dv_cq_*), 5.3 decoding (mlx4dv_cqe_*),
 *          5.4 arming, 5.5 RQ (mlx4dv_rq_*), 5.6 SRQ (mlx4dv_srq_*),
 *          5.7 send completions and polls (mlx4dv_cq_poll_*), 5.8
 *          completion timestamps (mlx4dv_ts_*).
 *  Part 6  libmlx4dv (-lmlx4dv): handles from ibverbs objects
 *          (mlx4dv_*_ring_init(), _release()), version, UD destinations.
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
 *    one completion against a queue (its consumer count advances, the
 *    wr_id comes back). "poll": take CQEs off a CQ (its consumer index
 *    advances) and complete them. "init"/"release": acquire and give
 *    back a handle's resources; "free_wqe" gives one SRQ WQE back.
 *  - Errors: a function that can refuse returns int, 0 on success or a
 *    positive errno value (as ibv_post_send(), ibv_post_recv() and
 *    mlx4dv_init_obj()); it never sets errno, and when it refuses it has
 *    written nothing to the ring or the device. A poll that finds nothing
 *    to take returns EAGAIN. A function that cannot fail returns its value
 *    (a count, a pointer, a flag, a decoded field) or void.
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

/*
 * Preconditions of the segment builders and the free-list functions that
 * are too costly to test on every call (a walk of a list, a test in a
 * builder that returns nothing) are stated in their comments and checked
 * with MLX4DV_ASSERT() when the program is compiled with MLX4DV_DEBUG
 * defined: assert() then aborts on a violation. A program may define
 * MLX4DV_ASSERT itself before including the header (a test framework's
 * assertion, a log). Without MLX4DV_DEBUG the checks compile to nothing.
 */
#ifndef MLX4DV_ASSERT
#ifdef MLX4DV_DEBUG
#include <assert.h>
#define MLX4DV_ASSERT(cond)	assert(cond)
#else
#define MLX4DV_ASSERT(cond)	((void)0)
#endif
#endif

/*
 * GNU C marks a declaration that uses a language extension so that
 * -Wpedantic stays quiet. Used for the anonymous structs and the trailing
 * header array rdma-core's layouts have always had.
 */
#if defined(__GNUC__)
#define __MLX4DV_EXTENSION __extension__
#else
#define __MLX4DV_EXTENSION
#endif

/* ======================================================================
 * Part 1. The layouts of rdma-core's mlx4dv.h (ABI-identical).
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

/*
 * Part 1 byte-order helpers. glibc hides htobe32() and friends under
 * strict -std=c11, so the header carries its own, named by direction.
 */
static MLX4DV_ALWAYS_INLINE __be16
mlx4dv_cpu_to_be16(uint16_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be16)__builtin_bswap16(v);
#else
	return (__be16)v;
#endif
}

static MLX4DV_ALWAYS_INLINE __be32
mlx4dv_cpu_to_be32(uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be32)__builtin_bswap32(v);
#else
	return (__be32)v;
#endif
}

static MLX4DV_ALWAYS_INLINE __be64
mlx4dv_cpu_to_be64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be64)__builtin_bswap64(v);
#else
	return (__be64)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_be16_to_cpu(__be16 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16((uint16_t)v);
#else
	return (uint16_t)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_be32_to_cpu(__be32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32((uint32_t)v);
#else
	return (uint32_t)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_be64_to_cpu(__be64 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64((uint64_t)v);
#else
	return (uint64_t)v;
#endif
}

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

/* ======================================================================
 * Part 2. Barriers and device writes.
 * ====================================================================== */
/*
 * Why these exist: a WQE, a doorbell record or a CQE is ordinary host
 * memory shared with the device by DMA, while the doorbell and BlueFlame
 * registers are device memory (the UAR page, uncached; the BlueFlame page,
 * write-combining). Each function below names the ordering it provides;
 * the data-path functions of this header call them where the sequence
 * requires, so users of the one-call posts and the poll loop need none of
 * them. Users who build WQEs by hand follow the same rules.
 *
 * The instruction for each architecture is the one rdma-core gives in
 * util/udma_barrier.h (udma_to_device_barrier, udma_from_device_barrier,
 * mmio_flush_writes), with three documented differences:
 *  - x86 (64- and 32-bit) load barrier: x86-TSO never reorders loads with
 *    older loads on write-back memory (Intel SDM vol. 3, 8.2.2), so a
 *    compiler barrier is enough, as in DPDK's rte_io_rmb(); rdma-core
 *    issues lfence (x86-64) or a locked add (i386).
 *  - aarch64: dmb oshst / dmb oshld, which rdma-core uses from 55.0 on
 *    (44.0 had dsb st / dsb ld): Armv8 is other-multi-copy atomic, so a
 *    DMB orders accesses for a device in the outer shareable domain, as
 *    the kernel's dma_wmb()/dma_rmb() do.
 *  - mips: "sync" (rdma-core 44.0 spells it "sync 0", the same encoding,
 *    which MIPS IV assemblers refuse; later rdma-core writes "sync").
 * The release barrier has no rdma-core counterpart (see
 * mlx4dv_barrier_release_to_device()); it is the full barrier of each
 * architecture, or a compiler barrier where the architecture never lets a
 * store pass an older load (x86, s390x, 32-bit SPARC TSO).
 *
 * rdma-core defines no DMA barrier for the other architectures (32-bit
 * ARM, alpha, hppa, m68k, sh4...) and builds no libmlx4 there (its
 * HAVE_COHERENT_DMA test). There, as with rdma-core's header, the layouts
 * and builders of Part 1 compile; a program that uses a function of the
 * data path fails to build, naming
 * __mlx4dv_no_device_barriers_for_this_architecture.
 */
#if defined(__x86_64__) || defined(__i386__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("" ::: "memory")
#if defined(__x86_64__)
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("sfence" ::: "memory")
#else
/* sfence needs SSE, which i386 does not assume; a locked instruction
 * drains the write-combining buffers on every x86. */
#define __MLX4DV_BARRIER_WC_FLUSH() \
	__asm__ __volatile__("lock; addl $0,0(%%esp)" ::: "memory", "cc")
#endif
#elif defined(__aarch64__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("dmb oshst" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("dmb oshld" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("dsb st" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("dmb osh" ::: "memory")
#elif defined(__PPC64__) || defined(__PPC__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#if defined(__PPC64__)
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("lwsync" ::: "memory")
#else
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#endif
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("sync" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("sync" ::: "memory")
#elif defined(__s390x__)
/* s390x orders host memory for the device by itself; PCI stores are
 * instructions of their own, flushed by pciwb (mlx4dv_wc_flush below). */
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__mlx4dv_s390_pciwb()
#elif defined(__riscv)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("fence ow,ow" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("fence ir,ir" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("fence ow,ow" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("fence iorw,ow" ::: "memory")
#elif defined(__mips__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("sync" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("sync" ::: "memory")
#elif defined(__loongarch__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("dbar 0" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("dbar 0" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("dbar 0" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("dbar 0" ::: "memory")
#elif defined(__sparc_v9__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("membar #StoreStore" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("membar #LoadLoad" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("membar #StoreStore" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE() \
	__asm__ __volatile__("membar #LoadStore | #StoreStore" ::: "memory")
#elif defined(__sparc__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("" ::: "memory")
#elif defined(__ia64__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("mf" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("mf" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("fwb" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("mf" ::: "memory")
#else
#define __MLX4DV_NO_DEVICE_BARRIERS 1
#endif

#if defined(__MLX4DV_NO_DEVICE_BARRIERS)
/* Never defined anywhere: a call that survives compilation is an error
 * at compile time (GCC, clang 14+) or else at link time. */
#if defined(__has_attribute)
#if __has_attribute(__error__)
__attribute__((__error__("mlx4dv.h: rdma-core defines no device barriers for "
			 "this architecture, so the data path is unavailable")))
#endif
#endif
void
__mlx4dv_no_device_barriers_for_this_architecture(void);
#define __MLX4DV_BARRIER_TO_DEVICE()	__mlx4dv_no_device_barriers_for_this_architecture()
#define __MLX4DV_BARRIER_FROM_DEVICE()	__mlx4dv_no_device_barriers_for_this_architecture()
#define __MLX4DV_BARRIER_WC_FLUSH()	__mlx4dv_no_device_barriers_for_this_architecture()
#define __MLX4DV_BARRIER_RELEASE()	__mlx4dv_no_device_barriers_for_this_architecture()
#endif

#if defined(__s390x__)
/*
 * s390x reaches PCI memory only through PCI load/store instructions: the
 * unprivileged MIO ones (pcistgi, pcistbi, pciwb; z15 and later, when the
 * kernel sets HWCAP_S390_PCI_MIO) or else the s390_pci_mmio_write system
 * call, exactly as rdma-core's util/mmio.h and util/s390_mmio_insn.h do.
 * Plain stores to the UAR or BlueFlame mapping do not reach the device.
 */
#include <sys/auxv.h>
#include <sys/syscall.h>
#ifndef __cplusplus
/* glibc declares syscall() only with _DEFAULT_SOURCE, which a strict C11
 * program lacks; the redeclaration is compatible with glibc's. (C++
 * compilers define _GNU_SOURCE, so <unistd.h> declares it there.) */
long syscall(long number, ...);
#else
#include <unistd.h>
#endif

#define __MLX4DV_S390_HWCAP_PCI_MIO	(1UL << 21)	/* HWCAP_S390_PCI_MIO */

/* 1 when the MIO instructions may be used; read once per translation
 * unit (a benign race: every thread computes the same value). */
static inline int
__mlx4dv_s390_mio(void)
{
	static int mio = -1;
	int v = __atomic_load_n(&mio, __ATOMIC_RELAXED);

	if (v < 0) {
		v = !!(getauxval(AT_HWCAP) & __MLX4DV_S390_HWCAP_PCI_MIO);
		__atomic_store_n(&mio, v, __ATOMIC_RELAXED);
	}
	return v;
}

/* pcistgi: store len (1, 2, 4 or 8) low-order bytes of val to ioaddr. The
 * address/length operand is an even/odd register pair. */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_s390_pcistgi(void *ioaddr, uint64_t val, uint64_t len)
{
	__MLX4DV_EXTENSION unsigned __int128 addr_len =
		(__MLX4DV_EXTENSION (unsigned __int128)(uintptr_t)ioaddr << 64) | len;

	__asm__ __volatile__(".insn rre,0xb9d40000,%[val],%[addr_len]"
			     : [addr_len] "+&d" (addr_len)
			     : [val] "d" (val)
			     : "cc", "memory");
}

/* pcistbi: one block store of len bytes (8-byte aligned, within 4 KiB). */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_s390_pcistbi(void *ioaddr, const void *src, uint64_t len)
{
	__asm__ __volatile__(".insn rsy,0xeb00000000d4,%[len],%[ioaddr],%[src]"
			     : [len] "+d" (len)
			     : [ioaddr] "d" (ioaddr),
			       [src] "Q" (*(const uint8_t *)src)
			     : "cc", "memory");
}

/* Without MIO: the kernel performs the PCI store (arch/s390/pci/pci_mmio.c). */
static inline void
__mlx4dv_s390_mmio_write(void *ioaddr, const void *src, size_t len)
{
	syscall(__NR_s390_pci_mmio_write, ioaddr, src, len);
}

static MLX4DV_ALWAYS_INLINE void
__mlx4dv_s390_pciwb(void)
{
	if (__mlx4dv_s390_mio())
		__asm__ __volatile__(".insn rre,0xb9d50000,0,0" ::: "memory");
	else
		__asm__ __volatile__("" ::: "memory");
}
#endif

/*
 * mlx4dv_barrier_to_device - make every earlier store to host memory
 * visible to the device before any later store.
 *
 * Protects: WQE body before the WQE's owner/opcode word; data segment
 * lkey/addr before its byte_count; inline data before its header; RQ/SRQ
 * WQEs before the doorbell record; the last WQE before the send doorbell;
 * CQE consumption before the consumer-index record; the arm record before
 * the arm doorbell.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_barrier_to_device(void)
{
	__MLX4DV_BARRIER_TO_DEVICE();
}

/*
 * mlx4dv_barrier_from_device - no later load is performed before the
 * earlier ones.
 *
 * Protects: the CQE owner-bit test before reading the rest of the CQE.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_barrier_from_device(void)
{
	__MLX4DV_BARRIER_FROM_DEVICE();
}

/*
 * mlx4dv_barrier_release_to_device - every earlier load AND store to host
 * memory is complete before any later store the device can see.
 *
 * Protects: reading the CQEs before the consumer-index record hands their
 * slots back to the device, which may overwrite them at once. A store
 * barrier alone (dmb oshst on aarch64, as rdma-core's cq.c uses) does not
 * order the loads; x86-TSO never moves a store before an older load, so
 * there it is a compiler barrier (Intel SDM vol. 3, 8.2.2); aarch64 uses a
 * full dmb osh; ppc64 sync.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_barrier_release_to_device(void)
{
	__MLX4DV_BARRIER_RELEASE();
}

/*
 * mlx4dv_wc_flush - drain the write-combining buffers: every earlier store
 * to write-combining memory (the BlueFlame page) reaches the device before
 * any later store. Also orders earlier normal stores before later
 * write-combining ones.
 *
 * Protects: the end of a BlueFlame copy before the next BlueFlame use or
 * the toggle of the BlueFlame offset; the WQE in host memory before the
 * BlueFlame copy of it.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wc_flush(void)
{
	__MLX4DV_BARRIER_WC_FLUSH();
}

/*
 * mlx4dv_mmio_write32_be - one 32-bit store of an already big-endian value
 * to a device register (reg: 4-byte aligned, in the UAR page). Used for the
 * send doorbell: UAR + MLX4_SEND_DOORBELL <- doorbell_qpn. The caller
 * issues mlx4dv_barrier_to_device() first. On s390x a PCI store
 * instruction or system call (see above); elsewhere a volatile store.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_mmio_write32_be(void *reg, __be32 val)
{
#if defined(__s390x__)
	if (__mlx4dv_s390_mio())
		__mlx4dv_s390_pcistgi(reg, (uint32_t)val, sizeof(val));
	else
		__mlx4dv_s390_mmio_write(reg, &val, sizeof(val));
#else
	*(volatile __be32 *)reg = val;
#endif
}

/*
 * mlx4dv_mmio_write64_be - one 64-bit store of an already big-endian value
 * to a device register (reg: 8-byte aligned). Used for the CQ arm doorbell
 * at UAR + MLX4_CQ_DOORBELL, which the device must see as one write. The
 * caller issues mlx4dv_barrier_to_device() first. On 32-bit architectures
 * an 8-byte atomic store (x87 or SSE on i386), never two 32-bit ones
 * (rdma-core util/mmio.c uses SSE there, or two stores under a global lock).
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_mmio_write64_be(void *reg, __be64 val)
{
#if defined(__s390x__)
	if (__mlx4dv_s390_mio())
		__mlx4dv_s390_pcistgi(reg, (uint64_t)val, sizeof(val));
	else
		__mlx4dv_s390_mmio_write(reg, &val, sizeof(val));
#elif UINTPTR_MAX == 0xffffffffu
	__atomic_store_n((volatile uint64_t *)reg, (uint64_t)val, __ATOMIC_RELAXED);
#else
	*(volatile __be64 *)reg = val;
#endif
}

/*
 * mlx4dv_wc_copy64 - copy one 64-byte block to write-combining device
 * memory in ascending address order (dst and src 8-byte aligned; dst
 * 64-byte aligned for the device to see one burst): eight 64-bit stores
 * (pairs of 32-bit ones on 32-bit architectures), or on s390x one PCI
 * block store.
 *
 * Not memcpy(): a string copy (rep movs) may write out of order or in
 * pieces the BlueFlame buffer does not accept (rdma-core util/mmio.h).
 * The caller flushes with mlx4dv_wc_flush() after the last block.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wc_copy64(void *dst, const void *src)
{
#if defined(__s390x__)
	/* a 64-byte aligned block never crosses pcistbi's 4 KiB boundary */
	if (__mlx4dv_s390_mio())
		__mlx4dv_s390_pcistbi(dst, src, 64);
	else
		__mlx4dv_s390_mmio_write(dst, src, 64);
#else
	volatile uint64_t *d = (volatile uint64_t *)dst;
	const unsigned char *s = (const unsigned char *)src;
	uint64_t w[8];

	/* memcpy keeps the load free of aliasing assumptions; it compiles to
	 * plain loads, and the stores below stay eight ordered volatile ones. */
	memcpy(w, s, sizeof(w));
	d[0] = w[0];
	d[1] = w[1];
	d[2] = w[2];
	d[3] = w[3];
	d[4] = w[4];
	d[5] = w[5];
	d[6] = w[6];
	d[7] = w[7];
#endif
}

/* ======================================================================
 * Part 3. Queue handles.
 * ====================================================================== */
/*
 * A queue handle is a plain struct holding everything the inline data path
 * needs: the ring geometry, free-running counters, and the addresses of the
 * doorbell record and registers. libmlx4dv fills them from ibverbs objects
 * (mlx4dv_sq_ring_init() and friends, see <infiniband/mlx4dv.h> Part 6 and
 * libmlx4dv(7)); a program can also fill one by hand from mlx4dv_init_obj()'s
 * output. The data path never calls into a library.
 *
 * Counters are free-running 32-bit values; a slot index is
 * (count & (wqe_cnt - 1)) and the room left is a subtraction, which stays
 * right across the 32-bit wrap. A handle is not thread-safe: one thread
 * drives a queue at a time. The data path trusts the geometry of a handle:
 * use one only once it is filled, by its *_ring_init() call or completely
 * by hand. A zeroed handle is not an empty queue (polling one faults).
 */

/* Flags of struct mlx4dv_sq_ring.flags. */
enum mlx4dv_sq_ring_flags {
	/* bf_reg is mapped: mlx4dv_sq_ring_bf() may be used. */
	MLX4DV_SQ_RING_BLUEFLAME	= 1 << 0,
	/* BlueFlame was requested but is unavailable (no register, or the
	 * mapping failed); plain doorbells are used. */
	MLX4DV_SQ_RING_BLUEFLAME_FALLBACK	= 1 << 1,
};
/*
 * Bits 8..31 of struct mlx4dv_sq_ring.flags: libmlx4dv's ticket for the
 * wrid table and BlueFlame register mlx4dv_sq_ring_init() handed out
 * (0: none). mlx4dv_sq_ring_release() gives them back only while the
 * ticket is the queue's live one, so releasing twice, or releasing a
 * stale copy after the queue was released (and its register perhaps
 * handed to another handle), gives back nothing. Keep the bits when
 * copying a handle; a hand-built handle leaves them 0. Macros: the mask
 * is above INT_MAX.
 */
#define MLX4DV_SQ_RING_GRANT_SHIFT	8
#define MLX4DV_SQ_RING_GRANT_MASK	0xffffff00U

/* Bits of struct mlx4dv_sq_ring.fast_path. */
enum mlx4dv_sq_fast_path {
	/* qp_type is RC, UC or XRC_SEND, max_gather >= 1 and
	 * spare_wqes >= 1: a connected-QP post of one gather entry or one
	 * inline buffer checks nothing but the room (and the inline
	 * length against max_inline). */
	MLX4DV_SQ_FAST_CONNECTED	= 1 << 0,
	/* wrid is not NULL: the one-call writes of a connected QP record
	 * wr_id without testing the table pointer. Clear it (call
	 * mlx4dv_sq_fast_path_init()) before setting wrid to NULL. */
	MLX4DV_SQ_FAST_WRID		= 1 << 1,
};

/*
 * Send queue handle.
 *
 * buf:          first WQEBB of the SQ (mlx4dv_qp.buf.buf + sq.offset).
 * wqe_cnt:      WQEBBs in the ring, a power of two.
 * wqe_shift:    log2 of the stride in bytes (6..11: 64..2048 bytes).
 * head:         producer count in WQEBBs, free-running; the owner bit of
 *               WQEBB n handed to the device is ((n & wqe_cnt) != 0).
 * tail:         consumer count in WQEBBs (advanced by send completions).
 * spare_wqes:   headroom: WQEBBs kept free because the device prefetches up
 *               to 2 KB ahead; (2048 >> wqe_shift) + 1, as libmlx4 computes
 *               it (providers/mlx4/verbs.c, mlx4_calc_sq_wqe_size/qp.c).
 * max_post:     usable WQEBBs = wqe_cnt - spare_wqes.
 * max_inline:   inline bytes one WQE of one stride holds for this QP type,
 *               at most what a 63-ds WQE holds (the posts accept exactly
 *               up to this).
 * max_gather:   data segments one WQE of one stride holds for this QP type,
 *               at most what a 63-ds WQE holds.
 * qpn:          QP number, host order.
 * doorbell_qpn: qpn << 8, big-endian: the value for the send doorbell
 *               (mlx4dv_cq_poll_send() also matches CQE QPNs against it).
 * doorbell:     UAR + MLX4_SEND_DOORBELL (device memory).
 * bf_reg:       BlueFlame register base, or NULL.
 * bf_buf_size:  bytes of one BlueFlame buffer (half of bf_reg_size).
 * bf_offset:    0 or bf_buf_size: the half to use next.
 * qp_type:      enum ibv_qp_type of the QP.
 * flags:        enum mlx4dv_sq_ring_flags; bits 8..31 the grant ticket
 *               (MLX4DV_SQ_RING_GRANT_MASK).
 * wrid:         optional, wqe_cnt entries indexed by the first WQEBB of a
 *               WQE, for wr_id bookkeeping; NULL when unused.
 * ring_stamped: 1 while every 64-byte chunk but the first of every WQEBB
 *               holds the stamp in its first word and no WQE longer than
 *               64 bytes has been posted: then no WQEBB entering the
 *               prefetch window needs a stamp, and the posts skip the
 *               stamping step (see Part 4, "Stamping"). Set by
 *               mlx4dv_sq_ring_init() (libmlx4 stamps the whole ring at
 *               RESET->INIT, qp.c mlx4_qp_init_sq_ownership) and by
 *               mlx4dv_sq_init_ownership(); cleared by the first post of a
 *               longer WQE. 0 (stamp on every post) is always safe.
 * fast_path:    enum mlx4dv_sq_fast_path: checks made once for the ring
 *               that the posts then skip; 0 is always safe (every check
 *               made on every post). Set by mlx4dv_sq_ring_init(); call
 *               mlx4dv_sq_fast_path_init() after building or changing
 *               qp_type, max_gather, spare_wqes or wrid by hand.
 * single_wqebb: 1 while every WQE posted since the ring was initialised
 *               took one WQEBB: mlx4dv_sq_complete() then moves tail one
 *               WQEBB past the completed WQE without reading its ds back
 *               from the ring (as libmlx4, whose WQEs always take one
 *               WQEBB, does in cq.c). Set by mlx4dv_sq_ring_init() and
 *               mlx4dv_sq_init_ownership(); cleared for good by the first
 *               post of a WQE of several WQEBBs. 0 (read every size from
 *               the ring) is always safe; a program that finishes WQEs of
 *               several WQEBBs without mlx4dv_sq_wqe_finish() clears it.
 */
struct mlx4dv_sq_ring {
	uint8_t			*buf;
	uint32_t		wqe_cnt;
	uint32_t		wqe_shift;
	uint32_t		head;
	uint32_t		tail;
	uint32_t		spare_wqes;
	uint32_t		max_post;
	uint32_t		max_inline;
	uint32_t		max_gather;
	uint32_t		qpn;
	__be32			doorbell_qpn;
	uint32_t		qp_type;
	void			*doorbell;
	uint8_t			*bf_reg;
	uint32_t		bf_buf_size;
	uint32_t		bf_offset;
	uint32_t		flags;
	uint64_t		*wrid;
	uint32_t		ring_stamped;
	uint32_t		fast_path;
	uint32_t		single_wqebb;
};

/* __mlx4dv_sq_hot() reads ring_stamped and fast_path as one 8-byte word. */
#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(offsetof(struct mlx4dv_sq_ring, fast_path) ==
	      offsetof(struct mlx4dv_sq_ring, ring_stamped) + 4,
	      "fast_path must follow ring_stamped");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(offsetof(struct mlx4dv_sq_ring, fast_path) ==
	       offsetof(struct mlx4dv_sq_ring, ring_stamped) + 4,
	       "fast_path must follow ring_stamped");
#endif

/*
 * Receive queue handle, for the RQ of a QP and for a receive WQ (RSS).
 *
 * buf:        first WQE of the RQ.
 * wqe_cnt:    WQEs in the ring, a power of two.
 * wqe_shift:  log2 of the WQE size in bytes (16 bytes per scatter entry).
 * head:       producer count (WQEs posted), free-running; the doorbell
 *             record holds its low 16 bits, big-endian.
 * tail:       consumer count (receive completions).
 * max_scatter: scatter entries per WQE = (1 << wqe_shift) / 16.
 * db:         doorbell record (host memory the device reads).
 * wrid:       optional, wqe_cnt entries, for wr_id bookkeeping; or NULL.
 * qpn:        QPN (or WQ number) the CQEs of this ring carry.
 */
struct mlx4dv_rq_ring {
	uint8_t			*buf;
	uint32_t		wqe_cnt;
	uint32_t		wqe_shift;
	uint32_t		head;
	uint32_t		tail;
	uint32_t		max_scatter;
	uint32_t		qpn;
	__be32			*db;
	uint64_t		*wrid;
};

/*
 * Shared receive queue handle.
 *
 * buf:         first WQE; each WQE is a 16-byte next segment then scatter
 *              entries.
 * wqe_cnt:     WQEs in the buffer (libmlx4 allocates max_wr + 1, rounded to
 *              a power of two; one stays unused so that head != tail).
 * wqe_shift:   log2 of the WQE size in bytes.
 * head, tail:  indices of the first and last free WQE (the free list runs
 *              through next_wqe_index).
 * counter:     WQEs posted, free-running; its low 16 bits, big-endian, are
 *              the doorbell record.
 * max_scatter: scatter entries per WQE = ((1 << wqe_shift) - 16) / 16.
 * db:          doorbell record.
 * srqn:        SRQ number.
 * wrid:        optional, wqe_cnt entries indexed by WQE index; or NULL.
 */
struct mlx4dv_srq_ring {
	uint8_t			*buf;
	uint32_t		wqe_cnt;
	uint32_t		wqe_shift;
	uint32_t		head;
	uint32_t		tail;
	uint32_t		counter;
	uint32_t		max_scatter;
	uint32_t		srqn;
	__be32			*db;
	uint64_t		*wrid;
};

/*
 * Completion queue handle.
 *
 * buf:        first CQE.
 * cqe_cnt:    CQEs in the ring, a power of two.
 * cqe_size:   32 or 64 bytes; with 64 the valid 32 bytes are the second half.
 * cons_index: consumer index, free-running; CQE i lives at
 *             (i & (cqe_cnt - 1)) and is software-owned when its owner bit
 *             equals ((i & cqe_cnt) != 0).
 * set_ci_db:  consumer-index record: big-endian (cons_index & 0xffffff).
 * arm_db:     arm record.
 * arm_sn:     arm sequence number (2 bits used); +1 per event acknowledged.
 * cqn:        CQ number.
 * uar:        UAR page; the arm doorbell is at uar + MLX4_CQ_DOORBELL.
 */
struct mlx4dv_cq_ring {
	uint8_t			*buf;
	uint32_t		cqe_cnt;
	uint32_t		cqe_size;
	uint32_t		cons_index;
	uint32_t		arm_sn;
	uint32_t		cqn;
	__be32			*set_ci_db;
	__be32			*arm_db;
	uint8_t			*uar;
};

/* ======================================================================
 * Part 4. Send path.
 * ====================================================================== */
/*
 * The send path builds WQEs in the SQ ring of a struct mlx4dv_sq_ring and
 * hands them to the device. Layers, each usable on its own:
 *  1. ring arithmetic: slot of a count, room, WQEBBs of a WQE, completion;
 *  2. segment builders: one per PRM segment, host-order arguments stored
 *     big-endian, never touching the owner/opcode word;
 *  3. WQE finish: owner/opcode word last behind a barrier, stamping of the
 *     WQEBBs entering the prefetch window, producer count advanced;
 *  4. doorbell (one per batch) or BlueFlame (one small WQE);
 *  5. one-call posts (validate everything, then build, then finish);
 *  6. template batches: constant words prepared once, room reserved once,
 *     then a few stores per WQE (mlx4dv_sq_batch_*).
 * A one-call post never rings the doorbell: post a batch, then ring once
 * with mlx4dv_sq_ring_doorbell(), or post one WQE and hand it over with
 * mlx4dv_sq_ring_bf(). See docs/send-path.md.
 *
 * A WQE is ds 16-byte units long (ds <= 63) and occupies
 * ceil(ds * 16 / stride) consecutive WQEBBs; it may wrap past the ring
 * end, and every writer below treats the ring as circular. Segments that
 * follow the control segment at a fixed place (remote address, atomic,
 * bind, local invalidate, datagram) always lie in the first 64 bytes of
 * the WQE, which never wraps because WQEs start on a WQEBB.
 */

/* A value the compiler may no longer treat as a constant (it stays in a
 * register, and a loop keeps it there). A select between two constant
 * words then becomes a conditional move of registers (test, cmov) instead
 * of the compare, borrow and add that rebuild a constant: two instructions
 * fewer per WQE. Code generation only; no memory is touched. */
#ifdef __GNUC__
#define __MLX4DV_OPAQUE(v)	__asm__("" : "+r"(v))
#else
#define __MLX4DV_OPAQUE(v)	((void)0)
#endif

/*
 * A compiler-only barrier between the stores of a template WQE. Without
 * it GCC's SLP vectorizer pairs two 8-byte stores of registers into one
 * 16-byte store built with extra moves and shuffles: more instructions,
 * no fewer cycles. The values are in registers, so it costs nothing.
 */
#ifdef __GNUC__
#define __MLX4DV_STORE_GROUP()	__asm__ __volatile__("" ::: "memory")
#else
#define __MLX4DV_STORE_GROUP()	do { } while (0)
#endif

/* At the head of a rare branch: a compiler-only barrier, so that a load
 * the branch shares with the common one is not hoisted above the branch
 * into a register, where the common path would pay a move for what it
 * takes as a memory operand. Code generation only. */
#ifdef __GNUC__
#define __MLX4DV_RARE_PATH()	__asm__ __volatile__("" ::: "memory")
#else
#define __MLX4DV_RARE_PATH()	do { } while (0)
#endif

/* A fact the compiler may rely on (the branch it would test never runs). */
#ifdef __GNUC__
#define __MLX4DV_ASSUME(c)	do { if (!(c)) __builtin_unreachable(); } while (0)
#else
#define __MLX4DV_ASSUME(c)	((void)0)
#endif

/* Branch hints for the rare paths of a post (stamping, errors) and the
 * common one-WQEBB case of a completion. */
#ifdef __GNUC__
#define __MLX4DV_UNLIKELY(x)	__builtin_expect(!!(x), 0)
#define __MLX4DV_LIKELY(x)	__builtin_expect(!!(x), 1)
#else
#define __MLX4DV_UNLIKELY(x)	(x)
#define __MLX4DV_LIKELY(x)	(x)
#endif

/* ---- Constants of the send WQE (host order) ---- */

/* Owner bit of owner_opcode: the WQE at producer count n is the device's
 * when this bit equals ((n & wqe_cnt) != 0). (libmlx4 qp.c, PRM.) */
#define MLX4DV_WQE_CTRL_OWNER		(1U << 31)
/* owner_opcode bit 29: no error completion (firmware >= 2.2.232; kernel
 * include/linux/mlx4/qp.h MLX4_WQE_CTRL_NEC). */
#define MLX4DV_WQE_CTRL_NEC		(1U << 29)
/* owner_opcode bits 28/27: checksum of the inner IP header and of the
 * inner TCP/UDP header of a tunnelled (VXLAN, GRE) frame (kernel
 * MLX4_WQE_CTRL_IIP/ILP, DPDK mlx4_prm.h MLX4_WQE_CTRL_IIP_HDR_CSUM /
 * IL4_HDR_CSUM). The outer IP checksum stays MLX4_WQE_CTRL_IP_HDR_CSUM. */
#define MLX4DV_WQE_CTRL_INNER_IP_CSUM	(1U << 28)
#define MLX4DV_WQE_CTRL_INNER_L4_CSUM	(1U << 27)
/* owner_opcode bit 6 of an LSO WQE: the LSO segment with its header is
 * longer than 64 bytes (kernel mlx4_ib qp.c build_lso_seg "blh"). */
#define MLX4DV_WQE_CTRL_LSO_BIG_HEADER	(1U << 6)
/* Stamp: first word of every 64-byte chunk but the first of a free WQE
 * (libmlx4 qp.c stamp_send_wqe). Same value in both byte orders. */
#define MLX4DV_WQE_STAMP		0xffffffffU
/* byte_count of a data segment of length 0 (libmlx4 qp.c set_data_seg:
 * a plain 0 would mean 2 GiB). */
#define MLX4DV_DATA_SEG_ZERO_LENGTH	0x80000000U
/* Largest length of one gather entry: 2^31 - 1 bytes. Bit 31 of a data
 * segment's byte_count is not part of the length: with the length bits 0
 * it is the zero-length marker above, otherwise the device reads the
 * segment as inline data (MLX4_INLINE_SEG). A length of 2^31 or more
 * would therefore move 0 bytes or a few bytes of inline garbage; the
 * posts refuse it with EINVAL (split such a buffer into two entries). */
#define MLX4DV_DATA_SEG_MAX_LENGTH	0x7fffffffU

enum {
	/* srcrb_flags bit 0: deliver to the local port too (kernel
	 * MLX4_WQE_CTRL_FORCE_LOOPBACK). */
	MLX4DV_WQE_CTRL_FORCE_LOOPBACK	= 1 << 0,
	/* ins_vlan values (byte 6 of the control segment; kernel
	 * MLX4_WQE_CTRL_INS_CVLAN/SVLAN, mlx4_en en_tx.c). */
	MLX4DV_WQE_CTRL_INS_CVLAN	= 1 << 6,
	MLX4DV_WQE_CTRL_INS_SVLAN	= 1 << 7,
	/* Largest ds (6-bit field of fence_size). */
	MLX4DV_WQE_MAX_DS		= 63,
	/* Bytes per prefetch/stamp chunk and inline alignment unit. */
	MLX4DV_WQE_CHUNK		= 64,
	/* Sizes in 16-byte units of the fixed segments. */
	MLX4DV_WQE_CTRL_DS		= 1,
	MLX4DV_WQE_RADDR_DS		= 1,
	MLX4DV_WQE_ATOMIC_DS		= 1,
	MLX4DV_WQE_MASKED_ATOMIC_DS	= 2,
	MLX4DV_WQE_BIND_DS		= 2,
	MLX4DV_WQE_LOCAL_INVAL_DS	= 2,
	MLX4DV_WQE_DATAGRAM_DS		= 3,
	MLX4DV_WQE_DATA_DS		= 1,
};

/*
 * Extra flags of the send_flags argument of the one-call posts, next to
 * IBV_SEND_FENCE, IBV_SEND_SIGNALED, IBV_SEND_SOLICITED, IBV_SEND_INLINE
 * and IBV_SEND_IP_CSUM (bits 0..4). Bits 8..31 depend on the QP type:
 * XRC_SEND: the remote XRC SRQN (MLX4DV_SEND_XRC_SRQN()); RAW_PACKET:
 * MLX4DV_SEND_INS_CVLAN or MLX4DV_SEND_INS_SVLAN; any other: 0.
 */
enum mlx4dv_send_flags {
	/* Raw Ethernet: checksum the inner IP and TCP/UDP headers of a
	 * tunnelled frame; IBV_SEND_IP_CSUM then asks for the outer IP
	 * header checksum only (DPDK mlx4_rxtx.c). */
	MLX4DV_SEND_TUNNEL_CSUM		= 1 << 5,
	/* Also deliver the packet to the local port (srcrb bit 0). */
	MLX4DV_SEND_FORCE_LOOPBACK	= 1 << 6,
	/* Strong ordering (srcrb bit 7): start only after all earlier WQEs
	 * of this SQ completed locally; set by libmlx4 for local invalidate
	 * and bind. */
	MLX4DV_SEND_STRONG_ORDER	= 1 << 7,
	/* Raw Ethernet posts only: insert the VLAN tag passed as vlan_tci,
	 * as a customer (802.1Q) or service (802.1ad) tag. */
	MLX4DV_SEND_INS_CVLAN		= 1 << 8,
	MLX4DV_SEND_INS_SVLAN		= 1 << 9,
};

/* send_flags bits 8..31 of an XRC_SEND post: the remote XRC SRQ number
 * (host order, 24 bits), stored in srcrb_flags bits 8..31
 * (libmlx4 mlx4.h MLX4_REMOTE_SRQN_FLAGS). */
#define MLX4DV_SEND_XRC_SRQN(srqn)	((uint32_t)(srqn) << 8)

/* Masked atomic segment (32 bytes) of MLX4_OPCODE_MASKED_ATOMIC_CS,
 * after the remote-address segment (kernel mlx4_ib qp.c
 * set_masked_atomic_seg, include/linux/mlx4/qp.h). */
struct mlx4dv_wqe_masked_atomic_seg {
	__be64			swap_add;
	__be64			compare;
	__be64			swap_add_mask;
	__be64			compare_mask;
};

/* ---- Ring arithmetic ---- */

/* Bytes of one WQEBB (the stride), 64..2048. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_wqebb_size(const struct mlx4dv_sq_ring *sq)
{
	return 1U << sq->wqe_shift;
}

/* Address of the WQEBB at producer count `count` (any free-running value):
 * buf + (count & (wqe_cnt - 1)) * stride. */
static MLX4DV_ALWAYS_INLINE uint8_t *
mlx4dv_sq_wqebb(const struct mlx4dv_sq_ring *sq, uint32_t count)
{
	return sq->buf + ((size_t)(count & (sq->wqe_cnt - 1)) << sq->wqe_shift);
}

/* First byte past the ring (buf + wqe_cnt * stride). */
static MLX4DV_ALWAYS_INLINE uint8_t *
mlx4dv_sq_ring_end(const struct mlx4dv_sq_ring *sq)
{
	return sq->buf + ((size_t)sq->wqe_cnt << sq->wqe_shift);
}

/* Bring a pointer that ran past the ring end back to the ring start
 * (p must be below end + ring size): the ring is circular. */
static MLX4DV_ALWAYS_INLINE uint8_t *
mlx4dv_sq_wrap(const struct mlx4dv_sq_ring *sq, uint8_t *p)
{
	uint8_t *end = mlx4dv_sq_ring_end(sq);

	return p >= end ? p - ((size_t)sq->wqe_cnt << sq->wqe_shift) : p;
}

/* WQEBBs posted and not yet completed: head - tail (right across the
 * 32-bit wrap). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_outstanding(const struct mlx4dv_sq_ring *sq)
{
	return sq->head - sq->tail;
}

/* WQEBBs that may still be posted: max_post - (head - tail). The spare
 * WQEBBs beyond max_post are the device's prefetch headroom and are never
 * used (libmlx4 qp.c wq_overflow). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_room(const struct mlx4dv_sq_ring *sq)
{
	return sq->max_post - (sq->head - sq->tail);
}

/* WQEBBs a WQE of ds 16-byte units occupies: ceil(ds * 16 / stride). */
static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_wqebbs_of_ds(uint32_t wqe_shift, uint32_t ds)
{
	/* 1..4 units fit in the smallest stride (64 bytes): one WQEBB, a
	 * constant when ds is (the fixed-size posts). */
	if (ds - 1 < MLX4DV_WQE_CHUNK / 16)
		return 1;
	return ((ds << 4) + (1U << wqe_shift) - 1) >> wqe_shift;
}

/* WQEBBs a WQE of ds 16-byte units occupies in this ring:
 * ceil(ds * 16 / stride), 1 for ds 1..4. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_ds_to_wqebbs(const struct mlx4dv_sq_ring *sq, uint32_t ds)
{
	return __mlx4dv_wqebbs_of_ds(sq->wqe_shift, ds);
}

/* ds (16-byte units) of the WQE whose control segment is ctrl: the low
 * 6 bits of fence_size. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_wqe_ds(const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return ctrl->fence_size & 0x3f;
}

/*
 * Record wr_id for the WQE built at sq->head (sq->wrid at the slot of
 * head; nothing when sq->wrid is NULL), for the writes, which take wr_id
 * as an argument. The slot of head is never an outstanding WQE's (room
 * keeps head - tail <= max_post < wqe_cnt), so storing before a write
 * that then fails leaves nothing behind: the next write takes the slot.
 */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_set_wr_id(struct mlx4dv_sq_ring *sq, uint64_t wr_id)
{
	size_t slot = sq->head & (sq->wqe_cnt - 1);

	if (sq->wrid)
		sq->wrid[slot] = wr_id;
}

static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_sq_complete_sized(struct mlx4dv_sq_ring *sq, uint16_t wqe_index,
			 uint64_t *wr_id, int single_wqebb);

/*
 * mlx4dv_sq_complete - account a send completion.
 *
 * wqe_index: host order (mlx4dv_be16_to_cpu(cqe->wqe_index)) of a send CQE
 *            or an error CQE of this SQ: the low 16 bits of the producer
 *            count of the first WQEBB of the last WQE that completed. Every
 *            earlier WQE, signaled or not, completed with it.
 * wr_id:     out, may be NULL: the wr_id the WQE was written with (when
 *            sq->wrid is not NULL; else untouched).
 *
 * tail moves to the named WQE (a 16-bit difference, so right across the
 * 16-bit wrap of wqe_index while fewer than 65536 WQEBBs are outstanding)
 * and then past it by its size in WQEBBs: one while sq->single_wqebb
 * holds, else read from its ds in the ring (the control segment of a
 * completed WQE stays intact: stamping never touches the first 64 bytes,
 * and the slot is reused only after tail has passed it). (libmlx4 cq.c mlx4_parse_cqe: wq->tail += (uint16_t)
 * (wqe_index - (uint16_t)wq->tail).)
 *
 * Returns the WQEBBs freed (>= 1), or 0 and changes nothing when
 * wqe_index does not name an outstanding WQEBB (a stale or foreign CQE).
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_complete(struct mlx4dv_sq_ring *sq, uint16_t wqe_index,
		   uint64_t *wr_id)
{
	return __mlx4dv_sq_complete_sized(sq, wqe_index, wr_id,
					sq->single_wqebb & 1);
}

/* The body of mlx4dv_sq_complete(); single_wqebb as sq->single_wqebb & 1
 * was read (a caller that has tested it already passes the result, so
 * that the field is not read again). */
static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_sq_complete_sized(struct mlx4dv_sq_ring *sq, uint16_t wqe_index,
			 uint64_t *wr_id, int single_wqebb)
{
	uint32_t tail = sq->tail, head = sq->head;
	uint32_t skip = (uint16_t)(wqe_index - (uint16_t)tail);
	uint32_t start = tail + skip;
	size_t slot = start & (sq->wqe_cnt - 1);
	const struct mlx4_wqe_ctrl_seg *ctrl;
	uint32_t ds, wqebbs;

	if (skip >= head - tail)
		return 0;
	if (__MLX4DV_LIKELY(single_wqebb)) {
		if (wr_id && sq->wrid)
			*wr_id = sq->wrid[slot];
		sq->tail = start + 1;
		return skip + 1;
	}
	ctrl = (const struct mlx4_wqe_ctrl_seg *)
		(sq->buf + (slot << sq->wqe_shift));
	ds = mlx4dv_wqe_ds(ctrl);
	if (__MLX4DV_LIKELY(ds - 1 < MLX4DV_WQE_CHUNK / 16)) {
		/* One WQEBB, and start < head by the test above. */
		wqebbs = 1;
	} else {
		wqebbs = __mlx4dv_wqebbs_of_ds(sq->wqe_shift, ds);
		if (wqebbs == 0 || wqebbs > head - start)
			return 0;
	}
	if (wr_id && sq->wrid)
		*wr_id = sq->wrid[slot];
	sq->tail = start + wqebbs;
	return skip + wqebbs;
}

/* ---- Segment builders ---- */

/*
 * mlx4dv_wqe_set_ctrl - words 1..3 of the control segment; word 0
 * (owner/opcode) is left to mlx4dv_wqe_set_owner_opcode().
 *
 * ds:          WQE size in 16-byte units, 1..63, control segment included.
 * srcrb_flags: host order. Bits 0..7: MLX4DV_WQE_CTRL_FORCE_LOOPBACK,
 *              MLX4_WQE_CTRL_SOLICIT, MLX4_WQE_CTRL_CQ_UPDATE,
 *              MLX4_WQE_CTRL_IP_HDR_CSUM, MLX4_WQE_CTRL_TCP_UDP_CSUM,
 *              MLX4_WQE_CTRL_STRONG_ORDER, and MLX4_WQE_CTRL_FENCE (bit 6),
 *              which goes to fence_size instead. Bits 8..31: XRC remote
 *              SRQN (XRC_SEND QPs) else 0. On raw Ethernet QPs SOLICIT
 *              means "no ICRC" and libmlx4 always sets it.
 * imm:         big-endian as stored: ibv_send_wr.imm_data for *_WITH_IMM;
 *              mlx4dv_cpu_to_be32(rkey) for SEND_WITH_INV; else 0.
 *
 * Writes bytes 4..15; bytes 4..6 (VLAN insert) become 0, so call
 * mlx4dv_wqe_set_ctrl_vlan() and mlx4dv_wqe_set_ctrl_dmac() after this.
 * (PRM "Send WQE control segment"; libmlx4 qp.c mlx4_post_send; kernel
 * include/linux/mlx4/qp.h struct mlx4_wqe_ctrl_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_ctrl(struct mlx4_wqe_ctrl_seg *ctrl, uint32_t ds,
		    uint32_t srcrb_flags, __be32 imm)
{
	ctrl->bf_qpn = mlx4dv_cpu_to_be32((srcrb_flags & MLX4_WQE_CTRL_FENCE) | ds);
	ctrl->srcrb_flags = mlx4dv_cpu_to_be32(srcrb_flags &
					       ~(uint32_t)MLX4_WQE_CTRL_FENCE);
	ctrl->imm = imm;
}

/*
 * mlx4dv_wqe_set_ctrl_vlan - ask the device to insert a VLAN tag into an
 * Ethernet frame (raw packet QPs). vlan_tci: host order, PCP/DEI/VID as in
 * the tag; ins_vlan: MLX4DV_WQE_CTRL_INS_CVLAN (802.1Q) or
 * MLX4DV_WQE_CTRL_INS_SVLAN (802.1ad). Writes bytes 4..5 (tag, big-endian)
 * and byte 6; call after mlx4dv_wqe_set_ctrl(). Not for BlueFlame: bytes
 * 4..7 then carry the QPN (mlx4_en en_tx.c turns BlueFlame off for
 * VLAN-tagged sends). (kernel mlx4_en en_tx.c, include/linux/mlx4/qp.h.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_ctrl_vlan(struct mlx4_wqe_ctrl_seg *ctrl, uint16_t vlan_tci,
			 uint8_t ins_vlan)
{
	uint8_t *b = (uint8_t *)ctrl;

	b[4] = (uint8_t)(vlan_tci >> 8);
	b[5] = (uint8_t)vlan_tci;
	b[6] = ins_vlan;
}

/*
 * mlx4dv_wqe_set_ctrl_dmac - copy the destination MAC (the first 6 bytes of
 * the frame, network order) into the upper half of srcrb_flags and the
 * immediate, so that the embedded switch can loop the frame back to a
 * local function (raw packet QPs on Ethernet; libmlx4 qp.c does it for
 * every raw packet send, DPDK mlx4_rxtx.c when loopback is on). Keeps the
 * low 16 bits of srcrb_flags; call after mlx4dv_wqe_set_ctrl().
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_ctrl_dmac(struct mlx4_wqe_ctrl_seg *ctrl, const uint8_t *dmac)
{
	memcpy(&ctrl->srcrb_flags16[0], dmac, 2);
	memcpy(&ctrl->imm, dmac + 2, 4);
}

/*
 * mlx4dv_wqe_set_owner_opcode - hand the WQE to the device: a store
 * barrier (every other byte of the WQE first), then word 0.
 *
 * owner_opcode: host order; MLX4DV_WQE_CTRL_OWNER when the WQE's producer
 * count has (count & wqe_cnt) != 0, OR the opcode (MLX4_OPCODE_*), OR
 * MLX4DV_WQE_CTRL_NEC / _INNER_IP_CSUM / _INNER_L4_CSUM /
 * _LSO_BIG_HEADER as needed. mlx4dv_sq_wqe_finish() computes the owner
 * bit and calls this. (libmlx4 qp.c: udma_to_device_barrier() before
 * owner_opcode.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_owner_opcode(struct mlx4_wqe_ctrl_seg *ctrl,
			    uint32_t owner_opcode)
{
	mlx4dv_barrier_to_device();
	ctrl->owner_opcode = mlx4dv_cpu_to_be32(owner_opcode);
}

/* Two 32-bit words as the 8 bytes they occupy in memory, first at the
 * lower address. Built with shifts where the byte order is known, so that
 * a word already in a register becomes the 8-byte value without a detour
 * through a vector register. */
static MLX4DV_ALWAYS_INLINE uint64_t
__mlx4dv_u32_pair(uint32_t first, uint32_t second)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint64_t)first | ((uint64_t)second << 32);
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return ((uint64_t)first << 32) | (uint64_t)second;
#else
	uint64_t v;

	memcpy(&v, &first, 4);
	memcpy((uint8_t *)&v + 4, &second, 4);
	return v;
#endif
}

/* Two big-endian words as the 8 bytes they occupy in the ring. */
static MLX4DV_ALWAYS_INLINE uint64_t
__mlx4dv_be32_pair(__be32 first, __be32 second)
{
	return __mlx4dv_u32_pair((uint32_t)first, (uint32_t)second);
}

/* Bytes 8..15 of a remote address segment: rkey big-endian, then the
 * reserved word 0: the big-endian form of rkey << 32 in any host byte
 * order, so that both words are one 8-byte store. */
static MLX4DV_ALWAYS_INLINE __be64
__mlx4dv_raddr_rkey_rsvd(uint32_t rkey)
{
	return mlx4dv_cpu_to_be64((uint64_t)rkey << 32);
}

/* The remote address segment from its two 8-byte halves as stored. */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_wqe_set_raddr_words(struct mlx4_wqe_raddr_seg *seg, __be64 raddr,
			   __be64 rkey_rsvd)
{
	seg->raddr = raddr;
	__MLX4DV_STORE_GROUP();
	memcpy(&seg->rkey, &rkey_rsvd, sizeof(rkey_rsvd));
}

/* Remote address segment (16 bytes): raddr, rkey host order, stored
 * big-endian; reserved word 0. (libmlx4 qp.c set_raddr_seg.) */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_raddr_seg(struct mlx4_wqe_raddr_seg *seg, uint64_t raddr,
			 uint32_t rkey)
{
	__mlx4dv_wqe_set_raddr_words(seg, mlx4dv_cpu_to_be64(raddr),
				   __mlx4dv_raddr_rkey_rsvd(rkey));
}

/* Atomic segment (16 bytes) of a compare-and-swap: swap_add = swap,
 * compare = compare; host order, stored big-endian. Follows the remote
 * address segment. (libmlx4 qp.c set_atomic_seg.) */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_atomic_cas_seg(struct mlx4_wqe_atomic_seg *seg, uint64_t compare,
			      uint64_t swap)
{
	seg->swap_add = mlx4dv_cpu_to_be64(swap);
	seg->compare = mlx4dv_cpu_to_be64(compare);
}

/* Atomic segment (16 bytes) of a fetch-and-add: swap_add = add, compare 0;
 * host order, stored big-endian. (libmlx4 qp.c set_atomic_seg.) */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_atomic_faa_seg(struct mlx4_wqe_atomic_seg *seg, uint64_t add)
{
	seg->swap_add = mlx4dv_cpu_to_be64(add);
	seg->compare = 0;
}

/*
 * Masked compare-and-swap segment (32 bytes, opcode
 * MLX4_OPCODE_MASKED_ATOMIC_CS): the bits of compare_mask are compared
 * with compare, the bits of swap_mask are replaced from swap. Host order,
 * stored big-endian: swap, compare, swap_mask, compare_mask in that order
 * (kernel mlx4_ib qp.c set_masked_atomic_seg). Follows the remote address
 * segment; WQE ds 1 + 1 + 2 + data.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_masked_atomic_cas_seg(struct mlx4dv_wqe_masked_atomic_seg *seg,
				     uint64_t compare, uint64_t compare_mask,
				     uint64_t swap, uint64_t swap_mask)
{
	seg->swap_add = mlx4dv_cpu_to_be64(swap);
	seg->compare = mlx4dv_cpu_to_be64(compare);
	seg->swap_add_mask = mlx4dv_cpu_to_be64(swap_mask);
	seg->compare_mask = mlx4dv_cpu_to_be64(compare_mask);
}

/*
 * Masked fetch-and-add segment (16 bytes, opcode
 * MLX4_OPCODE_MASKED_ATOMIC_FA): swap_add = add, compare = the field
 * boundary mask (a set bit ends a field: no carry out of it). Host order,
 * stored big-endian. The kernel uses the plain 16-byte atomic segment for
 * this opcode, not the 32-byte masked one (kernel mlx4_ib qp.c
 * set_atomic_seg, IB_WR_MASKED_ATOMIC_FETCH_AND_ADD).
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_masked_atomic_faa_seg(struct mlx4_wqe_atomic_seg *seg,
				     uint64_t add, uint64_t field_boundary_mask)
{
	seg->swap_add = mlx4dv_cpu_to_be64(add);
	seg->compare = mlx4dv_cpu_to_be64(field_boundary_mask);
}

/* What a bind-memory-window WQE binds (host order throughout). */
struct mlx4dv_bind_mw_attr {
	uint64_t		addr;		/* start (virtual, or offset if
						 * IBV_ACCESS_ZERO_BASED) */
	uint64_t		length;		/* bytes */
	uint32_t		new_rkey;	/* rkey the window gets */
	uint32_t		mr_lkey;	/* lkey of the MR bound to */
	uint32_t		access;		/* IBV_ACCESS_REMOTE_READ/WRITE/
						 * ATOMIC, IBV_ACCESS_ZERO_BASED */
	uint32_t		mw_type;	/* IBV_MW_TYPE_1 or IBV_MW_TYPE_2 */
};

/*
 * Bind segment (32 bytes, opcode MLX4_OPCODE_BIND_MW): flags1 = remote
 * access bits (atomic 31, write 30, read 29); flags2 = type 2 (bit 31),
 * zero based (bit 30); new rkey, MR lkey, address, length, big-endian.
 * libmlx4 also sets MLX4_WQE_CTRL_STRONG_ORDER in the control segment.
 * (libmlx4 qp.c set_bind_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_bind_seg(struct mlx4_wqe_bind_seg *seg,
			const struct mlx4dv_bind_mw_attr *attr)
{
	uint32_t flags1 = 0, flags2 = 0;

	if (attr->access & IBV_ACCESS_REMOTE_ATOMIC)
		flags1 |= (uint32_t)MLX4_WQE_MW_ATOMIC;
	if (attr->access & IBV_ACCESS_REMOTE_WRITE)
		flags1 |= MLX4_WQE_MW_REMOTE_WRITE;
	if (attr->access & IBV_ACCESS_REMOTE_READ)
		flags1 |= MLX4_WQE_MW_REMOTE_READ;
	if (attr->mw_type == IBV_MW_TYPE_2)
		flags2 |= (uint32_t)MLX4_WQE_BIND_TYPE_2;
	if (attr->access & IBV_ACCESS_ZERO_BASED)
		flags2 |= MLX4_WQE_BIND_ZERO_BASED;
	seg->flags1 = mlx4dv_cpu_to_be32(flags1);
	seg->flags2 = mlx4dv_cpu_to_be32(flags2);
	seg->new_rkey = mlx4dv_cpu_to_be32(attr->new_rkey);
	seg->lkey = mlx4dv_cpu_to_be32(attr->mr_lkey);
	seg->addr = mlx4dv_cpu_to_be64(attr->addr);
	seg->length = mlx4dv_cpu_to_be64(attr->length);
}

/* Local invalidate segment (32 bytes, opcode MLX4_OPCODE_LOCAL_INVAL):
 * mem_key host order stored big-endian at byte 8, the rest 0. libmlx4
 * also sets MLX4_WQE_CTRL_STRONG_ORDER. (libmlx4 qp.c set_local_inv_seg.) */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_local_inval_seg(struct mlx4_wqe_local_inval_seg *seg,
			       uint32_t mem_key)
{
	seg->reserved1 = 0;
	seg->mem_key = mlx4dv_cpu_to_be32(mem_key);
	seg->reserved2 = 0;
	seg->reserved3[0] = 0;
	seg->reserved3[1] = 0;
}

/*
 * A prepared UD destination: the device image of the address vector plus
 * the Ethernet fields of the datagram segment, built once per destination
 * by mlx4dv_ud_av_init() (what libmlx4 keeps in its private struct
 * mlx4_ah). av is big-endian as stored; vlan is big-endian; mac network
 * order.
 */
struct mlx4dv_ud_av {
	struct mlx4_av		av;
	__be16			vlan;
	uint8_t			mac[6];
};

/* Ethernet (RoCE) part of a UD destination: the resolved destination MAC
 * (network order) and VLAN ID (host order, 0..4095; 0xffff for none). */
struct mlx4dv_ud_av_eth {
	uint8_t			mac[6];
	uint16_t		vlan_id;
};

/*
 * mlx4dv_ud_av_init - build a UD destination from an address handle
 * description, as libmlx4's mlx4_create_ah() does (rdma-core
 * providers/mlx4/verbs.c).
 *
 * pdn:  the PD number (host order, 24 bits) the kernel gave the PD (mlx4
 *       ALLOC_PD response, kernel-headers/rdma/mlx4-abi.h), which
 *       libmlx4dv's mlx4dv_pd_number() reads; stored in the low 24 bits
 *       of port_pd, attr->port_num in the high 8. For a destination that
 *       has an ibv_ah already, mlx4dv_ud_av_from_ah() gives the whole
 *       destination as libmlx4 built it.
 * attr: IB: dlid, src_path_bits, sl (bits 28..31); with is_global the GRH
 *       fields (g_slid bit 7, sgid_index, hop_limit, traffic class << 20 |
 *       flow label, dgid). static_rate: an enum ibv_rate, stored + 5.
 * eth:  NULL on InfiniBand ports. On Ethernet (RoCE) ports: sl goes to
 *       bits 29..31, is_global is required, dlid stays 0, and a VLAN ID
 *       <= 4095 sets port_pd bit 29 and vlan = vid | (sl & 7) << 13. mac
 *       and vlan_id are what ibv_resolve_eth_l2_from_gid() gives for
 *       attr (the MAC of the DGID's neighbour, 33:33 + its low 32 bits
 *       for an IPv6 multicast DGID): libmlx4 takes them from there on
 *       ports with IP-based GIDs (IBV_PORT_IP_BASED_GIDS, which mlx4_ib
 *       reports on every Ethernet port), and a multicast DGID gets no
 *       other bit (its dlid 0xc000 and port_pd bit 31 belong to
 *       mlx4_resolve_grh_to_l2(), the path of ports without IP-based
 *       GIDs, which this function does not build).
 * Returns 0, or EINVAL (NULL argument, pdn over 24 bits, RoCE without
 * GRH).
 */
static inline int
mlx4dv_ud_av_init(struct mlx4dv_ud_av *out, uint32_t pdn,
		  const struct ibv_ah_attr *attr,
		  const struct mlx4dv_ud_av_eth *eth)
{
	uint32_t port_pd, sl_tc_fl;
	uint16_t vlan = 0;

	if (!out || !attr || pdn > 0xffffff || (eth && !attr->is_global))
		return EINVAL;
	memset(out, 0, sizeof(*out));
	port_pd = pdn | ((uint32_t)attr->port_num << 24);
	if (!eth) {
		out->av.g_slid = attr->src_path_bits;
		out->av.dlid = mlx4dv_cpu_to_be16(attr->dlid);
		sl_tc_fl = (uint32_t)attr->sl << 28;
	} else {
		sl_tc_fl = (uint32_t)attr->sl << 29;
	}
	if (attr->static_rate)
		out->av.stat_rate = (uint8_t)(attr->static_rate + 5);
	if (attr->is_global) {
		out->av.g_slid |= 0x80;
		out->av.gid_index = attr->grh.sgid_index;
		out->av.hop_limit = attr->grh.hop_limit;
		sl_tc_fl |= ((uint32_t)attr->grh.traffic_class << 20) |
			    attr->grh.flow_label;
		memcpy(out->av.dgid, attr->grh.dgid.raw, 16);
	}
	if (eth) {
		memcpy(out->mac, eth->mac, 6);
		if (eth->vlan_id <= 0xfff) {
			port_pd |= 1U << 29;
			vlan = (uint16_t)(eth->vlan_id | ((attr->sl & 7) << 13));
		}
	}
	out->av.port_pd = mlx4dv_cpu_to_be32(port_pd);
	out->av.sl_tclass_flowlabel = mlx4dv_cpu_to_be32(sl_tc_fl);
	out->vlan = mlx4dv_cpu_to_be16(vlan);
	return 0;
}

/* The PD number (host order, 24 bits) in a UD destination: the low 24
 * bits of its port_pd word (libmlx4 verbs.c mlx4_create_ah). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_ud_av_pdn(const struct mlx4dv_ud_av *dest)
{
	return mlx4dv_be32_to_cpu(dest->av.port_pd) & 0xffffff;
}

/*
 * Datagram segment (48 bytes) of a UD send: the 32-byte address vector
 * from dest, then remote QPN and Q_Key (host order, stored big-endian),
 * then dest's VLAN and MAC. (libmlx4 qp.c set_datagram_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_datagram_seg(struct mlx4_wqe_datagram_seg *seg,
			    const struct mlx4dv_ud_av *dest,
			    uint32_t remote_qpn, uint32_t remote_qkey)
{
	memcpy(&seg->av, &dest->av, sizeof(seg->av));
	seg->dqpn = mlx4dv_cpu_to_be32(remote_qpn);
	seg->qkey = mlx4dv_cpu_to_be32(remote_qkey);
	seg->vlan = dest->vlan;
	memcpy(seg->mac, dest->mac, 6);
}

/*
 * mlx4dv_wqe_set_data_seg - one gather entry (16 bytes), written safely:
 * lkey and addr, a store barrier, then byte_count, so that a prefetched
 * chunk never shows a valid byte count in front of stale lkey/addr.
 * length: bytes, host order, at most MLX4DV_DATA_SEG_MAX_LENGTH (a
 * precondition, asserted under MLX4DV_DEBUG: the one-call posts refuse
 * longer entries with EINVAL); 0 is encoded as MLX4DV_DATA_SEG_ZERO_LENGTH
 * (a plain 0 means 2 GiB). lkey, addr: host order. Write the entries of a
 * WQE last-to-first (mlx4dv_sq_set_data_segs() does). (libmlx4 qp.c
 * set_data_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_data_seg(struct mlx4_wqe_data_seg *seg, uint32_t length,
			uint32_t lkey, uint64_t addr)
{
	MLX4DV_ASSERT(length <= MLX4DV_DATA_SEG_MAX_LENGTH);
	seg->lkey = mlx4dv_cpu_to_be32(lkey);
	seg->addr = mlx4dv_cpu_to_be64(addr);
	mlx4dv_barrier_to_device();
	seg->byte_count = mlx4dv_cpu_to_be32(length ? length :
					     MLX4DV_DATA_SEG_ZERO_LENGTH);
}

/*
 * A gather entry that lies in the first 64-byte chunk of its WQE. That
 * chunk holds the owner word, which is written last behind a store
 * barrier (__mlx4dv_sq_geom_finish_stamped()): the device takes none of the
 * chunk before it, so the chunk's other words may be stored in any order.
 * The byte-count-last barrier of mlx4dv_wqe_set_data_seg() is for an
 * entry that starts a chunk of its own, which the device may prefetch
 * apart from the owner word (libmlx4 qp.c set_data_seg: "if the segment
 * begins a new cacheline"); here byte_count and lkey go as one 8-byte
 * store, as in the template batch. Same bytes.
 */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_wqe_set_data_seg_chunk0(struct mlx4_wqe_data_seg *seg, uint32_t length,
			       uint32_t lkey, uint64_t addr)
{
	uint64_t count_lkey = __mlx4dv_be32_pair(
		mlx4dv_cpu_to_be32(length ? length : MLX4DV_DATA_SEG_ZERO_LENGTH),
		mlx4dv_cpu_to_be32(lkey));

	MLX4DV_ASSERT(length <= MLX4DV_DATA_SEG_MAX_LENGTH);
	memcpy(seg, &count_lkey, sizeof(count_lkey));
	seg->addr = mlx4dv_cpu_to_be64(addr);
}

/*
 * The ring's geometry read once into locals. The device barriers are
 * compiler memory clobbers, and every store into the ring may alias the
 * handle, so the posts work from this copy instead of re-reading the
 * handle after each store.
 */
struct __mlx4dv_sq_geom {
	uint8_t			*buf;		/* first WQEBB */
	uint8_t			*end;		/* first byte past the ring */
	size_t			size;		/* wqe_cnt << wqe_shift bytes */
	uint32_t		wqe_cnt;
	uint32_t		wqe_shift;
	uint32_t		head;
	uint32_t		spare_wqes;
};

static MLX4DV_ALWAYS_INLINE struct __mlx4dv_sq_geom
__mlx4dv_sq_geom_load(const struct mlx4dv_sq_ring *sq)
{
	struct __mlx4dv_sq_geom g;

	g.buf = sq->buf;
	g.size = (size_t)sq->wqe_cnt << sq->wqe_shift;
	g.end = g.buf + g.size;
	g.wqe_cnt = sq->wqe_cnt;
	g.wqe_shift = sq->wqe_shift;
	g.head = sq->head;
	g.spare_wqes = sq->spare_wqes;
	return g;
}

/* WQEBB of producer count `count` in a loaded geometry. */
static MLX4DV_ALWAYS_INLINE uint8_t *
__mlx4dv_sq_geom_wqebb(const struct __mlx4dv_sq_geom *g, uint32_t count)
{
	return g->buf + ((size_t)(count & (g->wqe_cnt - 1)) << g->wqe_shift);
}

/* p brought back into the ring when it ran past the end. */
static MLX4DV_ALWAYS_INLINE uint8_t *
__mlx4dv_sq_geom_wrap(const struct __mlx4dv_sq_geom *g, uint8_t *p)
{
	return p >= g->end ? p - g->size : p;
}

/* Gather entries last-to-first at first (see mlx4dv_sq_set_data_segs);
 * may_wrap 0 when the whole WQE lies before the ring end; first_ds: the
 * ds offset of entry 0 in its WQE, so that the entries in the WQE's first
 * chunk skip the barrier (__mlx4dv_wqe_set_data_seg_chunk0()); 4 or more
 * when unknown. */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_set_data_segs(const struct __mlx4dv_sq_geom *g, uint8_t *first,
			       const struct ibv_sge *sg, uint32_t num_sge,
			       int may_wrap, uint32_t first_ds)
{
	uint32_t i;

	for (i = num_sge; i-- > 0;) {
		uint8_t *p = first + ((size_t)i << 4);

		if (may_wrap)
			p = __mlx4dv_sq_geom_wrap(g, p);
		if (first_ds + i < MLX4DV_WQE_CHUNK / 16)
			__mlx4dv_wqe_set_data_seg_chunk0(
				(struct mlx4_wqe_data_seg *)p, sg[i].length,
				sg[i].lkey, sg[i].addr);
		else
			mlx4dv_wqe_set_data_seg((struct mlx4_wqe_data_seg *)p,
						sg[i].length, sg[i].lkey,
						sg[i].addr);
	}
}

/*
 * mlx4dv_sq_set_data_segs - num_sge gather entries from sg (host order
 * ibv_sge: addr, length in bytes, lkey) at seg, a 16-byte-aligned place in
 * the SQ ring; entries past the ring end continue at its start. Written
 * last-to-first, so that the first word of every 64-byte chunk is the last
 * store to it. Returns the ds used (num_sge).
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_set_data_segs(const struct mlx4dv_sq_ring *sq, void *seg,
			const struct ibv_sge *sg, uint32_t num_sge)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	__mlx4dv_sq_geom_set_data_segs(&g, (uint8_t *)seg, sg, num_sge, 1,
				       MLX4DV_WQE_CHUNK / 16);
	return num_sge;
}

/*
 * mlx4dv_inline_ds - ds (16-byte units) of total_bytes of inline data
 * whose first header starts at byte chunk_offset (0, 16, 32 or 48) of a
 * 64-byte chunk. A new 4-byte header opens at every 64-byte boundary the
 * data reaches; a boundary reached exactly at the end opens nothing.
 * total_bytes 0: 0 (no header at all, as libmlx4). (libmlx4 qp.c
 * mlx4_post_send inline branch.)
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_inline_ds(uint32_t chunk_offset, uint32_t total_bytes)
{
	uint32_t first = MLX4DV_WQE_CHUNK - 4 - chunk_offset;
	uint32_t headers;

	if (!total_bytes)
		return 0;
	headers = total_bytes < first ? 1 :
		1 + (total_bytes - first + MLX4DV_WQE_CHUNK - 5) /
		(MLX4DV_WQE_CHUNK - 4);
	return (total_bytes + 4 * headers + 15) >> 4;
}

/* The body of mlx4dv_sq_set_inline_sge() on a loaded geometry. */
static inline uint32_t
__mlx4dv_sq_geom_set_inline_sge(const struct __mlx4dv_sq_geom *g, uint8_t *pos,
				const struct ibv_sge *sg, uint32_t num_src)
{
	uint8_t *p = pos;
	struct mlx4_wqe_inline_seg *hdr = (struct mlx4_wqe_inline_seg *)p;
	uint32_t off = (uint32_t)((p - g->buf) & (MLX4DV_WQE_CHUNK - 1)) + 4;
	uint32_t seg_len = 0, total = 0, headers = 0, i;

	p += 4;
	for (i = 0; i < num_src; i++) {
		const uint8_t *src = (const uint8_t *)(uintptr_t)sg[i].addr;
		uint32_t len = sg[i].length;

		total += len;
		while (len >= MLX4DV_WQE_CHUNK - off) {
			uint32_t part = MLX4DV_WQE_CHUNK - off;

			memcpy(p, src, part);
			src += part;
			len -= part;
			seg_len += part;
			mlx4dv_barrier_to_device();
			hdr->byte_count = mlx4dv_cpu_to_be32(
				(uint32_t)MLX4_INLINE_SEG | seg_len);
			headers++;
			hdr = (struct mlx4_wqe_inline_seg *)
				__mlx4dv_sq_geom_wrap(g, p + part);
			p = (uint8_t *)hdr + 4;
			off = 4;
			seg_len = 0;
		}
		if (len)	/* an empty entry may carry a NULL address */
			memcpy(p, src, len);
		p += len;
		off += len;
		seg_len += len;
	}
	if (seg_len) {
		mlx4dv_barrier_to_device();
		hdr->byte_count = mlx4dv_cpu_to_be32((uint32_t)MLX4_INLINE_SEG |
						     seg_len);
		headers++;
	}
	return (total + 4 * headers + 15) >> 4;
}

/*
 * mlx4dv_sq_set_inline_sge - copy inline data into the SQ ring at pos (a
 * 16-byte-aligned place after the WQE's fixed segments), gathered from
 * num_src buffers (sg[i].addr, sg[i].length bytes; lkey ignored).
 *
 * Each 64-byte chunk (counted from the ring start, hence from the WQE
 * start) gets its own header {MLX4_INLINE_SEG | bytes} at its first byte
 * (or at pos in the first chunk); the header is written after its data,
 * behind a store barrier, so a prefetched chunk never shows a valid header
 * over stale bytes. Past the ring end the copy continues at the ring
 * start. Returns the ds used, equal to mlx4dv_inline_ds().
 * (libmlx4 qp.c mlx4_post_send; PRM "Inline data segment".)
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_set_inline_sge(const struct mlx4dv_sq_ring *sq, void *pos,
			 const struct ibv_sge *sg, uint32_t num_src)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	return __mlx4dv_sq_geom_set_inline_sge(&g, (uint8_t *)pos, sg, num_src);
}

/*
 * One inline buffer of len bytes at pos, byte chunk_off (0, 16, 32, 48)
 * of its 64-byte chunk (after the fixed segments, so in the WQE's first
 * chunk): the data is cut at each 64-byte boundary, every header written
 * after its data. The posts pass chunk_off as a constant (WQEs start on a
 * WQEBB, a multiple of 64 bytes from the ring start), so that a buffer of
 * constant length is copied without a loop.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_sq_geom_set_inline(const struct __mlx4dv_sq_geom *g, uint8_t *pos,
			    uint32_t chunk_off, const void *data, uint32_t len)
{
	const uint8_t *src = (const uint8_t *)data;
	uint32_t room = MLX4DV_WQE_CHUNK - 4 - chunk_off;
	uint32_t total = len, headers = 0;
	uint8_t *hdr = pos;

	if (!len)
		return 0;
	while (len >= room) {
		memcpy(hdr + 4, src, room);
		src += room;
		len -= room;
		mlx4dv_barrier_to_device();
		((struct mlx4_wqe_inline_seg *)hdr)->byte_count =
			mlx4dv_cpu_to_be32((uint32_t)MLX4_INLINE_SEG | room);
		headers++;
		hdr = __mlx4dv_sq_geom_wrap(g, hdr + 4 + room);
		room = MLX4DV_WQE_CHUNK - 4;
	}
	if (len) {
		memcpy(hdr + 4, src, len);
		mlx4dv_barrier_to_device();
		((struct mlx4_wqe_inline_seg *)hdr)->byte_count =
			mlx4dv_cpu_to_be32((uint32_t)MLX4_INLINE_SEG | len);
		headers++;
	}
	return (total + 4 * headers + 15) >> 4;
}

/* mlx4dv_sq_set_inline - the same as mlx4dv_sq_set_inline_sge() for
 * one source buffer of len bytes (data may be NULL when len is 0). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_set_inline(const struct mlx4dv_sq_ring *sq, void *pos,
		     const void *data, uint32_t len)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	return __mlx4dv_sq_geom_set_inline(&g, (uint8_t *)pos,
		(uint32_t)(((uint8_t *)pos - g.buf) & (MLX4DV_WQE_CHUNK - 1)),
		data, len);
}

/*
 * mlx4dv_wqe_lso_ds - ds of an LSO segment with a header of header_size
 * bytes: align(4 + header_size, 16) / 16. Above 4 ds (64 bytes) the
 * WQE needs MLX4DV_WQE_CTRL_LSO_BIG_HEADER in owner_opcode.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_wqe_lso_ds(uint32_t header_size)
{
	return (4 + header_size + 15) >> 4;
}

/*
 * mlx4dv_sq_set_lso_seg - LSO segment at seg (16-byte aligned, in the
 * ring): word mss << 16 | header_size (host order, stored big-endian),
 * then the header_size bytes of header (the packet headers the device
 * repeats in every segment), zero-padded to 16 bytes; continues at the
 * ring start past the ring end. The first word is written last, behind a
 * barrier (it may start a 64-byte chunk; kernel mlx4_ib qp.c writes it
 * after the data segments). mss: bytes of payload per segment. Returns the
 * ds used (mlx4dv_wqe_lso_ds()). Opcode MLX4_OPCODE_LSO. (kernel mlx4_ib
 * qp.c build_lso_seg, mlx4_en en_tx.c.)
 */
static inline uint32_t
mlx4dv_sq_set_lso_seg(const struct mlx4dv_sq_ring *sq, void *seg, uint16_t mss,
		      const void *header, uint16_t header_size)
{
	uint32_t ds = mlx4dv_wqe_lso_ds(header_size);
	uint32_t bytes = (ds << 4) - 4;
	uint8_t *p = (uint8_t *)seg + 4;
	uint8_t *end = mlx4dv_sq_ring_end(sq);
	const uint8_t *src = (const uint8_t *)header;
	uint32_t done = 0;

	while (done < bytes) {
		uint32_t room, n, from_src;

		p = mlx4dv_sq_wrap(sq, p);
		room = (uint32_t)(end - p);
		n = bytes - done < room ? bytes - done : room;
		from_src = done < header_size ?
			(header_size - done < n ? header_size - done : n) : 0;
		memcpy(p, src + done, from_src);
		memset(p + from_src, 0, n - from_src);
		p += n;
		done += n;
	}
	mlx4dv_barrier_to_device();
	((struct mlx4_wqe_lso_seg *)seg)->mss_hdr_size =
		mlx4dv_cpu_to_be32(((uint32_t)mss << 16) | header_size);
	return ds;
}

/* ---- WQE finish, stamping, doorbells ---- */

/* Chunks 1.. of the WQE at wqe (count), over its old ds, when it is
 * longer than one WQEBB (the rare case: left to the compiler). */
static inline void
__mlx4dv_sq_stamp_chunks(const struct mlx4dv_sq_ring *sq, uint8_t *wqe,
			 uint32_t count, uint32_t bytes)
{
	const uint32_t low31 = MLX4DV_WQE_STAMP & ~MLX4DV_WQE_CTRL_OWNER;
	struct __mlx4dv_sq_geom geom = __mlx4dv_sq_geom_load(sq);
	const struct __mlx4dv_sq_geom *g = &geom;
	uint32_t stride_mask = (1U << g->wqe_shift) - 1;
	uint32_t off;

	if ((mlx4dv_be32_to_cpu(((const struct mlx4_wqe_ctrl_seg *)wqe)->
				owner_opcode) & low31) == low31)
		return;
	for (off = MLX4DV_WQE_CHUNK; off < bytes; off += MLX4DV_WQE_CHUNK) {
		uint32_t stamp = MLX4DV_WQE_STAMP;

		if (!(off & stride_mask) &&
		    ((count + (off >> g->wqe_shift)) & g->wqe_cnt))
			stamp = low31;
		*(__be32 *)__mlx4dv_sq_geom_wrap(g, wqe + off) =
			mlx4dv_cpu_to_be32(stamp);
	}
}

/* Stamp the WQEBB at count; a WQE of at most 64 bytes (the common case,
 * tested first) has nothing to stamp. A continuation WQEBB has data in
 * byte 7: either it reads <= 4 or its stamped first word stops it. */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_stamp_wqe(const struct mlx4dv_sq_ring *sq,
			   const struct __mlx4dv_sq_geom *g, uint32_t count)
{
	uint8_t *wqe = __mlx4dv_sq_geom_wqebb(g, count);
	uint32_t bytes = (uint32_t)(wqe[7] & 0x3f) << 4;
	uint32_t off;

	if (bytes <= MLX4DV_WQE_CHUNK)
		return;
	if (bytes > (1U << g->wqe_shift)) {
		__mlx4dv_sq_stamp_chunks(sq, wqe, count, bytes);
		return;
	}
	/* Within this WQEBB (libmlx4's case). Were the WQEBB the tail of an
	 * older, longer WQE, its chunks are stamped already and these
	 * stores only repeat the stamp in a free WQEBB. */
	for (off = MLX4DV_WQE_CHUNK; off < bytes; off += MLX4DV_WQE_CHUNK)
		*(__be32 *)(wqe + off) = (__be32)MLX4DV_WQE_STAMP;
}

/*
 * mlx4dv_sq_stamp_wqe - stamp the WQE that starts at producer count
 * `count`: MLX4DV_WQE_STAMP in the first word of every 64-byte chunk but
 * the first, over the ds the WQE last held (libmlx4 qp.c stamp_send_wqe).
 * A chunk that starts a further WQEBB of a WQE longer than one stride is
 * the first word the device tests for ownership at that WQEBB's count, so
 * its stamp carries the owner bit of software for that count: bit 31
 * cleared when (count & wqe_cnt) != 0 (the kernel's mlx4_ib qp.c did the
 * same, 0x7fffffff / 0xffffffff, for WQEs of several WQEBBs). A WQEBB
 * whose first word already is a stamp (low 31 bits set) is the
 * continuation of a longer WQE stamped before it and is left alone.
 * Chunks past the ring end continue at its start.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_sq_stamp_wqe(const struct mlx4dv_sq_ring *sq, uint32_t count)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	__mlx4dv_sq_geom_stamp_wqe(sq, &g, count);
}

/*
 * mlx4dv_sq_init_ownership - prepare a hand-built ring for its first lap,
 * as libmlx4 does at QP creation and RESET->INIT
 * (mlx4_qp_init_sq_ownership): every WQEBB gets a control word that is the
 * software's for the lap the producer count is in (owner bit opposite to
 * the device-owned value) and ds = one stride (fence_size =
 * stride / 16, as libmlx4), then is stamped. Rings filled by
 * mlx4dv_sq_ring_init() were prepared by libmlx4 already.
 */
static inline void
mlx4dv_sq_init_ownership(struct mlx4dv_sq_ring *sq)
{
	uint32_t i;

	for (i = 0; i < sq->wqe_cnt; i++) {
		uint32_t count = sq->head + i;
		struct mlx4_wqe_ctrl_seg *ctrl =
			(struct mlx4_wqe_ctrl_seg *)mlx4dv_sq_wqebb(sq, count);

		ctrl->owner_opcode = mlx4dv_cpu_to_be32(
			(count & sq->wqe_cnt) ? 0 : MLX4DV_WQE_CTRL_OWNER);
		ctrl->fence_size = (uint8_t)(1U << (sq->wqe_shift - 4));
		mlx4dv_sq_stamp_wqe(sq, count);
	}
	sq->ring_stamped = 1;
	sq->single_wqebb = 1;
}

/* Stamp the n WQEBBs from producer count `count` on, each over the ds
 * it last held (WQEBBs 2.. of a WQE of several WQEBBs, or the WQEBBs a
 * batch brings into the prefetch window), apart from the hot path. */
static inline void
__mlx4dv_sq_stamp_more(const struct mlx4dv_sq_ring *sq, uint32_t count,
		       uint32_t n)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);
	uint32_t i;

	for (i = 0; i < n; i++)
		__mlx4dv_sq_geom_stamp_wqe(sq, &g, count + i);
}

/*
 * Hand over the WQE of ds units (wqebbs WQEBBs) at g->head, stamp, and
 * advance head. Stamping is skipped while sq->ring_stamped holds: every
 * WQEBB entering the window then carries the stamp in each chunk past its
 * first already (the WQEs posted so far wrote first chunks only), and
 * stamping would store the values that are there. A WQE longer than 64
 * bytes (ds > 4) ends that state for good: its chunks past the first are
 * stale WQE content once it completes. stamped: 1 when the caller read
 * sq->ring_stamped as 1 before building this WQE (__mlx4dv_sq_hot()), so
 * that it is not read again here; 0 reads it.
 */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_finish_stamped(struct mlx4dv_sq_ring *sq,
				const struct __mlx4dv_sq_geom *g,
				struct mlx4_wqe_ctrl_seg *ctrl,
				uint32_t owner_opcode, uint32_t ds,
				uint32_t wqebbs, int stamped)
{
	/* Both words are constants when the opcode is: a select, no
	 * arithmetic, on the hot path. */
	__be32 owned = mlx4dv_cpu_to_be32(owner_opcode | MLX4DV_WQE_CTRL_OWNER);
	__be32 not_owned = mlx4dv_cpu_to_be32(owner_opcode);

	__MLX4DV_OPAQUE(owned);
	mlx4dv_barrier_to_device();
	ctrl->owner_opcode = (g->head & g->wqe_cnt) ? owned : not_owned;
	if (ds > MLX4DV_WQE_CHUNK / 16) {
		sq->ring_stamped = 0;
		stamped = 0;
		/* Only a WQE longer than 64 bytes can take several WQEBBs, so
		 * this test stays off the path of small WQEs. */
		if (wqebbs > 1)
			sq->single_wqebb = 0;
	}
	/* ring_stamped is 0 or 1; testing bit 0 is one instruction. */
	if (__MLX4DV_UNLIKELY(!stamped && !(sq->ring_stamped & 1))) {
		/* spare_wqes read here, not from g: the copy would cost a
		 * load on every post, stamping or not. */
		uint32_t ahead = g->head + sq->spare_wqes;

		__mlx4dv_sq_geom_stamp_wqe(sq, g, ahead);
		if (wqebbs > 1)
			__mlx4dv_sq_stamp_more(sq, ahead + 1, wqebbs - 1);
	}
	sq->head = g->head + wqebbs;
}

static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_finish(struct mlx4dv_sq_ring *sq, const struct __mlx4dv_sq_geom *g,
		      struct mlx4_wqe_ctrl_seg *ctrl, uint32_t owner_opcode,
		      uint32_t ds, uint32_t wqebbs)
{
	__mlx4dv_sq_geom_finish_stamped(sq, g, ctrl, owner_opcode, ds, wqebbs, 0);
}

/* The body of mlx4dv_sq_wqe_finish(), for the posts that record their
 * wr_id themselves. */
static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_sq_wqe_finish(struct mlx4dv_sq_ring *sq,
		       struct mlx4_wqe_ctrl_seg *ctrl, uint32_t owner_opcode)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);
	uint32_t ds = mlx4dv_wqe_ds(ctrl);
	uint32_t wqebbs = mlx4dv_sq_ds_to_wqebbs(sq, ds);

	__mlx4dv_sq_geom_finish(sq, &g, ctrl, owner_opcode, ds, wqebbs);
	return wqebbs;
}

/*
 * mlx4dv_sq_wqe_finish - hand the WQE at producer count sq->head to the
 * device and advance head.
 *
 * wr_id:        recorded for the WQE in sq->wrid (when the handle has a
 *               table); a completion of the WQE hands it back.
 * ctrl:         its control segment (mlx4dv_sq_wqebb(sq, sq->head)), with
 *               words 1..3 written (mlx4dv_wqe_set_ctrl(): ds is read from
 *               there) and every other segment written.
 * owner_opcode: host order, opcode (MLX4_OPCODE_*) and the optional
 *               bits of word 0; the owner bit is added here from head:
 *               (head & wqe_cnt) != 0 gives MLX4DV_WQE_CTRL_OWNER.
 *
 * Order: store barrier, word 0; then the WQEBBs that enter the device's
 * prefetch window (spare_wqes ahead) are stamped, unless sq->ring_stamped
 * says they are already (a WQE over 64 bytes clears it first); then head
 * advances by the WQEBBs the WQE uses. Room must have been checked by the
 * caller. Returns the WQEBBs used. The doorbell is not rung. A WQE handed
 * over without this function must clear sq->ring_stamped itself when it
 * is longer than 64 bytes.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_wqe_finish(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
		     struct mlx4_wqe_ctrl_seg *ctrl, uint32_t owner_opcode)
{
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_wqe_finish(sq, ctrl, owner_opcode);
}

/*
 * mlx4dv_sq_ring_doorbell - tell the device that the SQ has new WQEs: a
 * store barrier (all WQEs before the doorbell), then one 32-bit write of
 * doorbell_qpn (qpn << 8, big-endian) to UAR + MLX4_SEND_DOORBELL. Once
 * per batch; ringing with nothing new is harmless. (libmlx4 qp.c
 * mlx4_post_send; PRM "Send doorbell".)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_sq_ring_doorbell(struct mlx4dv_sq_ring *sq)
{
	mlx4dv_barrier_to_device();
	mlx4dv_mmio_write32_be(sq->doorbell, sq->doorbell_qpn);
}

/*
 * mlx4dv_sq_bf_eligible - 1 when the WQE posted at producer count
 * wqe_count can go by BlueFlame: the ring has a BlueFlame register
 * (bf_reg), the WQE is the only one since the last doorbell (head ==
 * wqe_count + its WQEBBs), and its ds * 16 bytes (ds > 1) fit in one
 * BlueFlame buffer (bf_buf_size). libmlx4 (qp.c mlx4_post_send) uses BlueFlame
 * under the same size rule but only for a single work request that
 * carries inline data (more than 0 bytes), is an RDMA read, or is an RDMA
 * write without gather entries; see mlx4dv_send_wr_bf_candidate().
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_bf_eligible(const struct mlx4dv_sq_ring *sq, uint32_t wqe_count)
{
	const struct mlx4_wqe_ctrl_seg *ctrl =
		(const struct mlx4_wqe_ctrl_seg *)mlx4dv_sq_wqebb(sq, wqe_count);
	uint32_t ds = mlx4dv_wqe_ds(ctrl);

	return sq->bf_reg && ds > 1 && (ds << 4) <= sq->bf_buf_size &&
	       sq->head - wqe_count == mlx4dv_sq_ds_to_wqebbs(sq, ds);
}

/*
 * mlx4dv_sq_ring_bf - hand over the single WQE posted at producer count
 * wqe_count (sq->head before the post) by BlueFlame when
 * mlx4dv_sq_bf_eligible(), else ring the doorbell.
 *
 * BlueFlame: word 0 gets the WQE counter (wqe_count & 0xffff) << 8 and
 * word 1 (bf_qpn) doorbell_qpn, in the ring too (as libmlx4); a
 * write-combining flush orders the WQE before the copy; the WQE goes in
 * 64-byte chunks (mlx4dv_wc_copy64) to bf_reg + bf_offset; a flush pushes
 * the burst out; bf_offset toggles between the two buffers
 * (bf_offset ^= bf_buf_size). The WQE must not use VLAN insertion (bytes
 * 4..6 are the QPN then). Not thread-safe: one thread per register.
 * Returns 1 when BlueFlame was used, 0 when the doorbell was rung.
 * (libmlx4 qp.c mlx4_post_send; kernel mlx4_en en_tx.c.)
 */
static inline int
mlx4dv_sq_ring_bf(struct mlx4dv_sq_ring *sq, uint32_t wqe_count)
{
	uint8_t *wqe = mlx4dv_sq_wqebb(sq, wqe_count);
	struct mlx4_wqe_ctrl_seg *ctrl = (struct mlx4_wqe_ctrl_seg *)wqe;
	uint8_t *dst;
	uint32_t bytes, off;

	if (!mlx4dv_sq_bf_eligible(sq, wqe_count)) {
		mlx4dv_sq_ring_doorbell(sq);
		return 0;
	}
	bytes = (mlx4dv_wqe_ds(ctrl) << 4);
	ctrl->owner_opcode |= mlx4dv_cpu_to_be32((wqe_count & 0xffff) << 8);
	ctrl->bf_qpn |= sq->doorbell_qpn;
	mlx4dv_wc_flush();
	dst = sq->bf_reg + sq->bf_offset;
	if (bytes <= (1U << sq->wqe_shift)) {
		/* one WQEBB (every libmlx4 geometry): nothing can wrap */
		for (off = 0; off < bytes; off += MLX4DV_WQE_CHUNK)
			mlx4dv_wc_copy64(dst + off, wqe + off);
	} else {
		for (off = 0; off < bytes; off += MLX4DV_WQE_CHUNK)
			mlx4dv_wc_copy64(dst + off,
					 mlx4dv_sq_wrap(sq, wqe + off));
	}
	mlx4dv_wc_flush();
	sq->bf_offset ^= sq->bf_buf_size;
	return 1;
}

/* ---- One-call posts ---- */

/* 1 for the QP types whose send WQE has a remote address segment. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_is_connected(const struct mlx4dv_sq_ring *sq)
{
	return sq->qp_type == IBV_QPT_RC || sq->qp_type == IBV_QPT_UC ||
	       sq->qp_type == IBV_QPT_XRC_SEND;
}

/*
 * mlx4dv_sq_fast_path_init - derive sq->fast_path (enum
 * mlx4dv_sq_fast_path) from qp_type, max_gather, spare_wqes and wrid.
 * Call it after filling a handle by hand or changing one of those fields
 * (wrid set to NULL above all: a stale MLX4DV_SQ_FAST_WRID would have the
 * posts store through it); mlx4dv_sq_ring_init() and
 * mlx4dv_sq_ring_release() keep it in step. A handle whose fast_path is 0
 * makes every check on every post.
 */
static inline void
mlx4dv_sq_fast_path_init(struct mlx4dv_sq_ring *sq)
{
	sq->fast_path = 0;
	if (__mlx4dv_sq_is_connected(sq) && sq->max_gather >= 1 &&
	    sq->spare_wqes >= 1)
		sq->fast_path |= MLX4DV_SQ_FAST_CONNECTED;
	if (sq->wrid)
		sq->fast_path |= MLX4DV_SQ_FAST_WRID;
}

/* ring_stamped (low half) and fast_path (high half) as one 8-byte word. */
static MLX4DV_ALWAYS_INLINE uint64_t
__mlx4dv_sq_hot_word(const struct mlx4dv_sq_ring *sq)
{
	uint64_t both;

	memcpy(&both, &sq->ring_stamped, sizeof(both));
	return both;
}

/* The word of a ring in the state every small connected-QP post hopes
 * for, with a wr_id table: fast_path exactly MLX4DV_SQ_FAST_CONNECTED |
 * MLX4DV_SQ_FAST_WRID and ring_stamped 1 (the type, gather and headroom
 * checks, the stamping step and the table's NULL test all skipped). */
#define __MLX4DV_SQ_HOT_WRID \
	__mlx4dv_u32_pair(1, MLX4DV_SQ_FAST_CONNECTED | MLX4DV_SQ_FAST_WRID)

/*
 * 1 when the ring is in that state with or without a wr_id table. The
 * two fields are adjacent, so both are tested with one 8-byte load and
 * compare (after setting the WRID bit) instead of a test and a branch
 * each; any other value of either field takes the general path, which
 * tests them one by one.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_hot(const struct mlx4dv_sq_ring *sq)
{
	return (__mlx4dv_sq_hot_word(sq) |
		__mlx4dv_u32_pair(0, MLX4DV_SQ_FAST_WRID)) == __MLX4DV_SQ_HOT_WRID;
}

/*
 * mlx4dv_send_srcrb_flags - srcrb_flags (host order, for
 * mlx4dv_wqe_set_ctrl()) of send_flags: SIGNALED -> CQ_UPDATE, SOLICITED
 * -> SOLICIT, FENCE -> fence bit, MLX4DV_SEND_STRONG_ORDER,
 * MLX4DV_SEND_FORCE_LOOPBACK, and bits 8..31 (the XRC SRQN) unchanged.
 * IBV_SEND_IP_CSUM and tunnel bits are added by the posts that take them.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_send_srcrb_flags(uint32_t send_flags)
{
	return ((send_flags & IBV_SEND_SIGNALED) ? MLX4_WQE_CTRL_CQ_UPDATE : 0) |
	       ((send_flags & IBV_SEND_SOLICITED) ? MLX4_WQE_CTRL_SOLICIT : 0) |
	       ((send_flags & IBV_SEND_FENCE) ? MLX4_WQE_CTRL_FENCE : 0) |
	       ((send_flags & MLX4DV_SEND_STRONG_ORDER) ?
		MLX4_WQE_CTRL_STRONG_ORDER : 0) |
	       ((send_flags & MLX4DV_SEND_FORCE_LOOPBACK) ?
		MLX4DV_WQE_CTRL_FORCE_LOOPBACK : 0) |
	       (send_flags & 0xffffff00U);
}

/* What follows the fixed segments of a WQE: gather entries, or inline data
 * from gather entries, or inline data from one buffer (sg == NULL). */
struct __mlx4dv_sq_payload {
	const struct ibv_sge	*sg;
	uint32_t		num_sge;
	const void		*data;
	uint32_t		len;
	int			is_inline;
};

/*
 * 1 when a gather entry of the list is longer than
 * MLX4DV_DATA_SEG_MAX_LENGTH: bit 31 of any length, ORed over the list.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sge_length_over_max(const struct ibv_sge *sg, uint32_t num_sge)
{
	uint32_t all = 0, i;

	for (i = 0; i < num_sge; i++)
		all |= sg[i].length;
	return (all & ~MLX4DV_DATA_SEG_MAX_LENGTH) != 0;
}

/* Sum of the lengths of an inline gather list, or UINT64_MAX when an entry
 * with bytes has a NULL address (nothing to copy from). */
static MLX4DV_ALWAYS_INLINE uint64_t
__mlx4dv_inline_sge_total(const struct ibv_sge *sg, uint32_t num_sge)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < num_sge; i++) {
		if (sg[i].length && !sg[i].addr)
			return UINT64_MAX;
		total += sg[i].length;
	}
	return total;
}

/*
 * __mlx4dv_sq_payload_ds - validate a payload placed at ds offset
 * fixed_ds of a WQE and give the WQE's total ds. Errors (nothing
 * written): EINVAL for more gather entries than sq->max_gather, a gather
 * entry longer than MLX4DV_DATA_SEG_MAX_LENGTH, more inline bytes than
 * sq->max_inline, a NULL list with entries (also with IBV_SEND_INLINE),
 * an inline entry with bytes at a NULL address, a WQE over 63 ds, or a
 * WQE of more WQEBBs than sq->spare_wqes (the stamping ahead of a WQE
 * must not reach into it; libmlx4's headroom, 2048 / stride + 1, always
 * covers the largest WQE); ENOMEM when the ring has fewer free WQEBBs
 * than the WQE needs.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_payload_ds_checked(const struct mlx4dv_sq_ring *sq,
			       uint32_t fixed_ds,
			       const struct __mlx4dv_sq_payload *pl,
			       uint32_t *ds_out, int fast)
{
	uint32_t ds, wqebbs;

	if (pl->is_inline) {
		uint64_t total = pl->len;

		if (pl->sg) {
			if (pl->num_sge > sq->max_gather)
				return EINVAL;
			total = __mlx4dv_inline_sge_total(pl->sg, pl->num_sge);
		} else if (pl->num_sge || (pl->len && !pl->data)) {
			return EINVAL;
		}
		if (total > sq->max_inline)
			return EINVAL;
		ds = fixed_ds + mlx4dv_inline_ds((fixed_ds & 3) << 4,
						 (uint32_t)total);
	} else {
		if ((pl->num_sge && !pl->sg) ||
		    (!(fast && pl->num_sge <= 1) && pl->num_sge > sq->max_gather) ||
		    __mlx4dv_sge_length_over_max(pl->sg, pl->num_sge))
			return EINVAL;
		ds = fixed_ds + pl->num_sge;
	}
	wqebbs = mlx4dv_sq_ds_to_wqebbs(sq, ds);
	if (ds > MLX4DV_WQE_MAX_DS ||
	    (!(fast && wqebbs == 1) && wqebbs > sq->spare_wqes))
		return EINVAL;
	if (wqebbs > mlx4dv_sq_room(sq))
		return ENOMEM;
	*ds_out = ds;
	return 0;
}

static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_payload_ds(const struct mlx4dv_sq_ring *sq, uint32_t fixed_ds,
		       const struct __mlx4dv_sq_payload *pl, uint32_t *ds_out)
{
	return __mlx4dv_sq_payload_ds_checked(sq, fixed_ds, pl, ds_out, 0);
}

/* Write a validated payload at ds offset fixed_ds of the WQE at wqe;
 * may_wrap 0 when the WQE takes one WQEBB (then nothing can wrap). */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_set_payload(const struct __mlx4dv_sq_geom *g, uint8_t *wqe,
			     uint32_t fixed_ds,
			     const struct __mlx4dv_sq_payload *pl, int may_wrap)
{
	uint8_t *pos = wqe + (fixed_ds << 4);

	if (may_wrap)
		pos = __mlx4dv_sq_geom_wrap(g, pos);
	if (!pl->is_inline)
		__mlx4dv_sq_geom_set_data_segs(g, pos, pl->sg, pl->num_sge,
					       may_wrap, fixed_ds);
	else if (pl->sg)
		__mlx4dv_sq_geom_set_inline_sge(g, pos, pl->sg, pl->num_sge);
	else
		__mlx4dv_sq_geom_set_inline(g, pos, (fixed_ds & 3) << 4,
						pl->data, pl->len);
}

static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_set_payload(const struct mlx4dv_sq_ring *sq, uint8_t *wqe,
			uint32_t fixed_ds, const struct __mlx4dv_sq_payload *pl)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	__mlx4dv_sq_geom_set_payload(&g, wqe, fixed_ds, pl, 1);
}

/* send_flags every connected-QP post accepts; IBV_SEND_IP_CSUM is ignored
 * there, as libmlx4 does. */
#define __MLX4DV_SEND_FLAGS_CONNECTED \
	((uint32_t)(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | \
		    IBV_SEND_INLINE | IBV_SEND_IP_CSUM | \
		    MLX4DV_SEND_STRONG_ORDER | MLX4DV_SEND_FORCE_LOOPBACK))

/* Check send_flags for a connected QP: known bits only; SRQN bits on
 * XRC_SEND only. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_connected_flags_ok(const struct mlx4dv_sq_ring *sq,
			       uint32_t send_flags)
{
	uint32_t bad = send_flags & ~__MLX4DV_SEND_FLAGS_CONNECTED;

	if (sq->qp_type == IBV_QPT_XRC_SEND)
		bad &= ~0xffffff00U;
	return !bad;
}

/* The body of __mlx4dv_sq_write_connected(); fast and stamped as the
 * ring's fast_path bit and ring_stamped were read before it. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_connected_as(struct mlx4dv_sq_ring *sq, uint32_t opcode,
			       int with_raddr, __be64 raddr, __be64 rkey_rsvd,
			       __be32 imm, uint32_t send_flags,
			       const struct __mlx4dv_sq_payload *pl, int fast,
			       int stamped)
{
	uint32_t fixed_ds = MLX4DV_WQE_CTRL_DS + (with_raddr ? 1 : 0);
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct __mlx4dv_sq_geom g;
	uint32_t ds, wqebbs;
	int err;

	/* The fast bit stands for the QP-type check, and for the gather
	 * and headroom limits of a one-entry, one-WQEBB payload. */
	if ((!fast && !__mlx4dv_sq_is_connected(sq)) ||
	    !__mlx4dv_sq_connected_flags_ok(sq, send_flags))
		return EINVAL;
	err = __mlx4dv_sq_payload_ds_checked(sq, fixed_ds, pl, &ds, fast);
	if (err)
		return err;
	g = __mlx4dv_sq_geom_load(sq);
	wqebbs = __mlx4dv_wqebbs_of_ds(g.wqe_shift, ds);
	ctrl = (struct mlx4_wqe_ctrl_seg *)__mlx4dv_sq_geom_wqebb(&g, g.head);
	if (with_raddr)
		__mlx4dv_wqe_set_raddr_words((struct mlx4_wqe_raddr_seg *)(ctrl + 1),
					     raddr, rkey_rsvd);
	__mlx4dv_sq_geom_set_payload(&g, (uint8_t *)ctrl, fixed_ds, pl,
				     wqebbs > 1);
	mlx4dv_wqe_set_ctrl(ctrl, ds, mlx4dv_send_srcrb_flags(send_flags), imm);
	__mlx4dv_sq_geom_finish_stamped(sq, &g, ctrl, opcode, ds, wqebbs,
					stamped);
	return 0;
}

/*
 * __mlx4dv_sq_write_connected - common body of the RC/UC/XRC posts.
 * opcode: MLX4_OPCODE_*; raddr/rkey used when with_raddr; imm stored as
 * given. Validates (QP type, flags, payload, room) before writing. A ring
 * in the common state (__mlx4dv_sq_hot()) gets its own copy of the body, in
 * which the fast-path and stamping tests are constants. wr_id is the
 * caller's to record.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_connected(struct mlx4dv_sq_ring *sq, uint32_t opcode,
			 int with_raddr, uint64_t raddr, uint32_t rkey,
			 __be32 imm, uint32_t send_flags,
			 const struct __mlx4dv_sq_payload *pl)
{
	/* Swapped here, ahead of the branch, so that a loop of posts to one
	 * rkey swaps it once. */
	__be64 ra = mlx4dv_cpu_to_be64(raddr);
	__be64 rk = __mlx4dv_raddr_rkey_rsvd(rkey);

	if (__MLX4DV_LIKELY(__mlx4dv_sq_hot(sq)))
		return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr,
						   ra, rk, imm, send_flags,
						   pl, 1, 1);
	return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr, ra, rk,
					   imm, send_flags, pl,
					   !!(sq->fast_path &
					      MLX4DV_SQ_FAST_CONNECTED), 0);
}

/*
 * __mlx4dv_sq_write_connected() for the one-call writes, which record
 * wr_id too. A ring in the common state with a wr_id table
 * (__MLX4DV_SQ_HOT_WRID, one 8-byte compare) stores wr_id without testing
 * the table pointer. Any other ring records it as __mlx4dv_sq_set_wr_id()
 * does; then the common state without a table still gets the lean copy
 * of the body, everything else the general one.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_connected_wr_id(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				  uint32_t opcode, int with_raddr,
				  uint64_t raddr, uint32_t rkey, __be32 imm,
				  uint32_t send_flags,
				  const struct __mlx4dv_sq_payload *pl)
{
	/* Swapped here, ahead of the branch, so that a loop of posts to one
	 * rkey swaps it once. */
	__be64 ra = mlx4dv_cpu_to_be64(raddr);
	__be64 rk = __mlx4dv_raddr_rkey_rsvd(rkey);

	if (__MLX4DV_LIKELY(__mlx4dv_sq_hot_word(sq) == __MLX4DV_SQ_HOT_WRID)) {
		MLX4DV_ASSERT(sq->wrid != NULL);
		sq->wrid[sq->head & (sq->wqe_cnt - 1)] = wr_id;
		return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr,
						   ra, rk, imm, send_flags,
						   pl, 1, 1);
	}
	/* Without this barrier GCC keeps values of the branch above (the
	 * hot word, the index mask) for the branches below, and a loop of
	 * posts pays for them in registers: a spill and a copy per WQE.
	 * Past it everything is read again from the handle. Code
	 * generation only (docs/performance.md). */
	__MLX4DV_RARE_PATH();
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	/* ring_stamped 1 and fast_path exactly MLX4DV_SQ_FAST_CONNECTED:
	 * the common state of a ring without a table. Written out, without
	 * a branch hint, rather than through __mlx4dv_sq_write_connected():
	 * either form moves GCC's register choices in the loop around the
	 * branch above (a spill per WQE again). */
	if (__mlx4dv_sq_hot_word(sq) ==
	    __mlx4dv_u32_pair(1, MLX4DV_SQ_FAST_CONNECTED))
		return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr,
						   ra, rk, imm, send_flags,
						   pl, 1, 1);
	return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr, ra, rk,
					   imm, send_flags, pl,
					   !!(sq->fast_path &
					      MLX4DV_SQ_FAST_CONNECTED), 0);
}

/*
 * The one-call writes below build one WQE at sq->head and finish it
 * (owner word last, stamping, head advanced); like every "write" they do
 * not ring the doorbell: call mlx4dv_sq_ring_doorbell() after a batch, or
 * mlx4dv_sq_ring_bf(sq, head_before) for a single WQE.
 *
 * Argument order (the header's rule): sq, wr_id, the remote side as
 * libibverbs' ibv_wr_*() orders it (rkey, raddr; or dest, remote_qpn,
 * remote_qkey), the operands (compare, swap; add), the local buffer,
 * send_flags, then the word send_flags makes meaningful (imm,
 * invalidate_rkey, vlan_tci).
 *
 * Common arguments:
 *  wr_id:       recorded in sq->wrid for the WQE when the handle has a
 *               table (MLX4DV_RING_INIT_WRID); the send completion that
 *               covers it hands it back (mlx4dv_cq_poll_send(),
 *               mlx4dv_sq_complete()). Ignored without a table.
 *  sg, num_sge: gather list (ibv_sge: addr, length in bytes, lkey; host
 *               order), 0..sq->max_gather entries of at most
 *               MLX4DV_DATA_SEG_MAX_LENGTH bytes each; a zero length is
 *               encoded as MLX4DV_DATA_SEG_ZERO_LENGTH. With
 *               IBV_SEND_INLINE in send_flags the listed bytes are copied
 *               into the WQE instead (total <= sq->max_inline; an entry
 *               with bytes needs a non-NULL addr).
 *  data, len:   the *_inline forms: len bytes (<= sq->max_inline) copied
 *               into the WQE; data may be NULL when len is 0.
 *  rkey, raddr: remote key and remote virtual address, host order.
 *  send_flags:  IBV_SEND_SIGNALED, IBV_SEND_SOLICITED, IBV_SEND_FENCE,
 *               IBV_SEND_INLINE, MLX4DV_SEND_STRONG_ORDER,
 *               MLX4DV_SEND_FORCE_LOOPBACK, and on XRC_SEND QPs
 *               MLX4DV_SEND_XRC_SRQN(srqn); IBV_SEND_IP_CSUM is ignored
 *               on connected QPs (as libmlx4).
 * Returns 0, or (nothing written to the ring, head unchanged):
 *  EINVAL  wrong QP type for the operation, unknown flag bits, more
 *          entries or inline bytes than the ring allows, a gather entry
 *          of 2^31 bytes or more, a WQE over 63 ds, NULL where a pointer
 *          is needed (sg with num_sge > 0, inline or not; an inline entry's
 *          addr; data with len > 0), misaligned atomic address;
 *  ENOMEM  the ring has fewer free WQEBBs than the WQE needs (complete
 *          some with mlx4dv_sq_complete()).
 * WQE layouts (PRM; libmlx4 qp.c mlx4_post_send): ctrl | raddr (writes,
 * reads, atomics) | atomic (atomics) | data or inline.
 */

/* SEND (opcode MLX4_OPCODE_SEND) on RC, UC or XRC_SEND. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
		     const struct ibv_sge *sg, uint32_t num_sge,
		     uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND, 0, 0, 0, 0,
					send_flags, &pl);
}

/* SEND of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			    const void *data, uint32_t len, uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND, 0, 0, 0, 0,
					send_flags, &pl);
}

/* SEND_WITH_IMM (MLX4_OPCODE_SEND_IMM); imm big-endian as the receiver
 * will read it (ibv_send_wr.imm_data). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_imm(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			 const struct ibv_sge *sg, uint32_t num_sge,
			 uint32_t send_flags, __be32 imm)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND_IMM, 0, 0, 0, imm,
					send_flags, &pl);
}

/* SEND_WITH_IMM of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_imm_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				const void *data, uint32_t len,
				uint32_t send_flags, __be32 imm)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND_IMM, 0, 0, 0, imm,
					send_flags, &pl);
}

/* SEND_WITH_INV (MLX4_OPCODE_SEND_INVAL) on RC or XRC_SEND: the receiver
 * invalidates invalidate_rkey (host order, stored big-endian in imm). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_inv(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			 const struct ibv_sge *sg, uint32_t num_sge,
			 uint32_t send_flags, uint32_t invalidate_rkey)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	if (sq->qp_type == IBV_QPT_UC)
		return EINVAL;
	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND_INVAL, 0, 0, 0,
					mlx4dv_cpu_to_be32(invalidate_rkey),
					send_flags, &pl);
}

/* SEND_WITH_INV of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_inv_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				const void *data, uint32_t len,
				uint32_t send_flags, uint32_t invalidate_rkey)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	if (sq->qp_type == IBV_QPT_UC)
		return EINVAL;
	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND_INVAL, 0, 0, 0,
					mlx4dv_cpu_to_be32(invalidate_rkey),
					send_flags, &pl);
}

/* RDMA WRITE (MLX4_OPCODE_RDMA_WRITE) on RC, UC or XRC_SEND. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_write(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			   uint32_t rkey, uint64_t raddr,
			   const struct ibv_sge *sg, uint32_t num_sge,
			   uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_WRITE, 1, raddr,
					rkey, 0, send_flags, &pl);
}

/* RDMA WRITE of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_write_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				  uint32_t rkey, uint64_t raddr,
				  const void *data, uint32_t len,
				  uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_WRITE, 1, raddr,
					rkey, 0, send_flags, &pl);
}

/* RDMA WRITE_WITH_IMM (MLX4_OPCODE_RDMA_WRITE_IMM); imm big-endian as the
 * receiver will read it. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_write_imm(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			       uint32_t rkey, uint64_t raddr,
			       const struct ibv_sge *sg, uint32_t num_sge,
			       uint32_t send_flags, __be32 imm)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_WRITE_IMM, 1,
					raddr, rkey, imm, send_flags, &pl);
}

/* RDMA WRITE_WITH_IMM of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_write_imm_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				      uint32_t rkey, uint64_t raddr,
				      const void *data, uint32_t len,
				      uint32_t send_flags, __be32 imm)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_WRITE_IMM, 1,
					raddr, rkey, imm, send_flags, &pl);
}

/* RDMA READ (MLX4_OPCODE_RDMA_READ) on RC or XRC_SEND into the gather list
 * sg (scatter targets). IBV_SEND_INLINE: EINVAL. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_read(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			  uint32_t rkey, uint64_t raddr,
			  const struct ibv_sge *sg, uint32_t num_sge,
			  uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0, 0 };

	if (sq->qp_type == IBV_QPT_UC || (send_flags & IBV_SEND_INLINE))
		return EINVAL;
	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_READ, 1, raddr,
					rkey, 0, send_flags, &pl);
}

/* Common body of the atomics: ctrl | raddr | atomic | one data segment. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_atomic(struct mlx4dv_sq_ring *sq, uint32_t opcode,
			 const struct ibv_sge *result, uint64_t raddr,
			 uint32_t rkey, uint64_t swap_add, uint64_t compare,
			 uint32_t send_flags)
{
	const uint32_t fixed_ds = MLX4DV_WQE_CTRL_DS + MLX4DV_WQE_RADDR_DS +
				  MLX4DV_WQE_ATOMIC_DS;
	struct __mlx4dv_sq_payload pl = { result, 1, NULL, 0, 0 };
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct mlx4_wqe_atomic_seg *aseg;
	struct __mlx4dv_sq_geom g;
	uint32_t ds, wqebbs;
	int err;

	if ((sq->qp_type != IBV_QPT_RC && sq->qp_type != IBV_QPT_XRC_SEND) ||
	    !__mlx4dv_sq_connected_flags_ok(sq, send_flags) ||
	    (send_flags & IBV_SEND_INLINE) || !result || (raddr & 7))
		return EINVAL;
	err = __mlx4dv_sq_payload_ds(sq, fixed_ds, &pl, &ds);
	if (err)
		return err;
	g = __mlx4dv_sq_geom_load(sq);
	wqebbs = __mlx4dv_wqebbs_of_ds(g.wqe_shift, ds);
	ctrl = (struct mlx4_wqe_ctrl_seg *)__mlx4dv_sq_geom_wqebb(&g, g.head);
	mlx4dv_wqe_set_raddr_seg((struct mlx4_wqe_raddr_seg *)(ctrl + 1),
				 raddr, rkey);
	aseg = (struct mlx4_wqe_atomic_seg *)((uint8_t *)ctrl + 32);
	aseg->swap_add = mlx4dv_cpu_to_be64(swap_add);
	aseg->compare = mlx4dv_cpu_to_be64(compare);
	__mlx4dv_sq_geom_set_payload(&g, (uint8_t *)ctrl, fixed_ds, &pl,
				     wqebbs > 1);
	mlx4dv_wqe_set_ctrl(ctrl, ds, mlx4dv_send_srcrb_flags(send_flags), 0);
	__mlx4dv_sq_geom_finish(sq, &g, ctrl, opcode, ds, wqebbs);
	return 0;
}

/* ATOMIC compare-and-swap (MLX4_OPCODE_ATOMIC_CS) of the 8 bytes at raddr
 * (8-byte aligned) on RC or XRC_SEND: if equal to compare, replace with
 * swap; the old value lands in result (one entry, 8 bytes). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_cas(struct mlx4dv_sq_ring *sq, uint64_t wr_id, uint32_t rkey,
		    uint64_t raddr, uint64_t compare, uint64_t swap,
		    const struct ibv_sge *result, uint32_t send_flags)
{
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_atomic(sq, MLX4_OPCODE_ATOMIC_CS, result, raddr,
				     rkey, swap, compare, send_flags);
}

/* ATOMIC fetch-and-add (MLX4_OPCODE_ATOMIC_FA) of add to the 8 bytes at
 * raddr (8-byte aligned); the old value lands in result. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_faa(struct mlx4dv_sq_ring *sq, uint64_t wr_id, uint32_t rkey,
		    uint64_t raddr, uint64_t add, const struct ibv_sge *result,
		    uint32_t send_flags)
{
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_atomic(sq, MLX4_OPCODE_ATOMIC_FA, result, raddr,
				     rkey, add, 0, send_flags);
}

/* Common body of UD sends: ctrl | datagram | data or inline. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_ud(struct mlx4dv_sq_ring *sq, uint32_t opcode,
		     const struct mlx4dv_ud_av *dest, uint32_t remote_qpn,
		     uint32_t remote_qkey, __be32 imm, uint32_t send_flags,
		     const struct __mlx4dv_sq_payload *pl)
{
	const uint32_t fixed_ds = MLX4DV_WQE_CTRL_DS + MLX4DV_WQE_DATAGRAM_DS;
	const uint32_t allowed = IBV_SEND_FENCE | IBV_SEND_SIGNALED |
		IBV_SEND_SOLICITED | IBV_SEND_INLINE | IBV_SEND_IP_CSUM |
		MLX4DV_SEND_STRONG_ORDER | MLX4DV_SEND_FORCE_LOOPBACK;
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct __mlx4dv_sq_geom g;
	uint32_t ds, srcrb, wqebbs;
	int err;

	if (sq->qp_type != IBV_QPT_UD || !dest || (send_flags & ~allowed))
		return EINVAL;
	err = __mlx4dv_sq_payload_ds(sq, fixed_ds, pl, &ds);
	if (err)
		return err;
	srcrb = mlx4dv_send_srcrb_flags(send_flags);
	if (send_flags & IBV_SEND_IP_CSUM)
		srcrb |= MLX4_WQE_CTRL_IP_HDR_CSUM | MLX4_WQE_CTRL_TCP_UDP_CSUM;
	g = __mlx4dv_sq_geom_load(sq);
	wqebbs = __mlx4dv_wqebbs_of_ds(g.wqe_shift, ds);
	ctrl = (struct mlx4_wqe_ctrl_seg *)__mlx4dv_sq_geom_wqebb(&g, g.head);
	mlx4dv_wqe_set_datagram_seg((struct mlx4_wqe_datagram_seg *)(ctrl + 1),
				    dest, remote_qpn, remote_qkey);
	__mlx4dv_sq_geom_set_payload(&g, (uint8_t *)ctrl, fixed_ds, pl,
				     wqebbs > 1);
	mlx4dv_wqe_set_ctrl(ctrl, ds, srcrb, imm);
	__mlx4dv_sq_geom_finish(sq, &g, ctrl, opcode, ds, wqebbs);
	return 0;
}

/*
 * UD SEND to dest (mlx4dv_ud_av_init()), remote_qpn, remote_qkey (host
 * order). IBV_SEND_IP_CSUM asks for IPoIB checksum offload (IP and
 * TCP/UDP; libmlx4 rejects it when the device lacks
 * IBV_DEVICE_UD_IP_CSUM, which this header cannot see: check
 * ibv_query_device() first).
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_ud_send(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			const struct mlx4dv_ud_av *dest, uint32_t remote_qpn,
			uint32_t remote_qkey, const struct ibv_sge *sg,
			uint32_t num_sge, uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_ud(sq, MLX4_OPCODE_SEND, dest, remote_qpn,
				 remote_qkey, 0, send_flags, &pl);
}

/* UD SEND of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_ud_send_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			       const struct mlx4dv_ud_av *dest,
			       uint32_t remote_qpn, uint32_t remote_qkey,
			       const void *data, uint32_t len,
			       uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_ud(sq, MLX4_OPCODE_SEND, dest, remote_qpn,
				 remote_qkey, 0, send_flags, &pl);
}

/* Common body of raw Ethernet sends: ctrl | [lso] | data or inline. */
static inline int
__mlx4dv_sq_write_eth(struct mlx4dv_sq_ring *sq,
		      const struct __mlx4dv_sq_payload *pl, uint32_t send_flags,
		      uint16_t vlan_tci, uint16_t mss, const void *header,
		      uint16_t header_size)
{
	const uint32_t allowed = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
		IBV_SEND_FENCE | IBV_SEND_INLINE | IBV_SEND_IP_CSUM |
		MLX4DV_SEND_TUNNEL_CSUM | MLX4DV_SEND_FORCE_LOOPBACK |
		MLX4DV_SEND_STRONG_ORDER | MLX4DV_SEND_INS_CVLAN |
		MLX4DV_SEND_INS_SVLAN;
	uint32_t fixed_ds = MLX4DV_WQE_CTRL_DS;
	uint32_t opcode = MLX4_OPCODE_SEND, srcrb, ds;
	struct mlx4_wqe_ctrl_seg *ctrl;
	uint8_t dmac[6];
	int err;

	if (sq->qp_type != IBV_QPT_RAW_PACKET || (send_flags & ~allowed) ||
	    ((send_flags & MLX4DV_SEND_INS_CVLAN) &&
	     (send_flags & MLX4DV_SEND_INS_SVLAN)))
		return EINVAL;
	if (header) {
		if (!mss || header_size < 6)
			return EINVAL;
		fixed_ds += mlx4dv_wqe_lso_ds(header_size);
		opcode = MLX4_OPCODE_LSO;
		if (mlx4dv_wqe_lso_ds(header_size) > 4)
			opcode |= MLX4DV_WQE_CTRL_LSO_BIG_HEADER;
		memcpy(dmac, header, 6);
	} else if (pl->sg) {
		if (!pl->num_sge || pl->sg[0].length < 6 || !pl->sg[0].addr)
			return EINVAL;
		memcpy(dmac, (const void *)(uintptr_t)pl->sg[0].addr, 6);
	} else {
		if (pl->len < 6 || !pl->data)
			return EINVAL;
		memcpy(dmac, pl->data, 6);
	}
	err = __mlx4dv_sq_payload_ds(sq, fixed_ds, pl, &ds);
	if (err)
		return err;
	srcrb = mlx4dv_send_srcrb_flags(send_flags & 0xff) |
		MLX4_WQE_CTRL_SOLICIT;
	if (send_flags & MLX4DV_SEND_TUNNEL_CSUM) {
		opcode |= MLX4DV_WQE_CTRL_INNER_IP_CSUM |
			  MLX4DV_WQE_CTRL_INNER_L4_CSUM;
		if (send_flags & IBV_SEND_IP_CSUM)
			srcrb |= MLX4_WQE_CTRL_IP_HDR_CSUM;
	} else if (send_flags & IBV_SEND_IP_CSUM) {
		srcrb |= MLX4_WQE_CTRL_IP_HDR_CSUM | MLX4_WQE_CTRL_TCP_UDP_CSUM;
	}
	ctrl = (struct mlx4_wqe_ctrl_seg *)mlx4dv_sq_wqebb(sq, sq->head);
	__mlx4dv_sq_set_payload(sq, (uint8_t *)ctrl, fixed_ds, pl);
	if (header)
		mlx4dv_sq_set_lso_seg(sq, ctrl + 1, mss, header, header_size);
	mlx4dv_wqe_set_ctrl(ctrl, ds, srcrb, 0);
	mlx4dv_wqe_set_ctrl_dmac(ctrl, dmac);
	if (send_flags & (MLX4DV_SEND_INS_CVLAN | MLX4DV_SEND_INS_SVLAN))
		mlx4dv_wqe_set_ctrl_vlan(ctrl, vlan_tci,
			(send_flags & MLX4DV_SEND_INS_SVLAN) ?
			MLX4DV_WQE_CTRL_INS_SVLAN : MLX4DV_WQE_CTRL_INS_CVLAN);
	__mlx4dv_sq_wqe_finish(sq, ctrl, opcode);
	return 0;
}

/*
 * Raw Ethernet send (RAW_PACKET QP) of the frame in sg (gather, or copied
 * inline with IBV_SEND_INLINE); the first entry must hold the destination
 * MAC (>= 6 bytes), which is copied into the control segment for loopback
 * (libmlx4 qp.c). SOLICIT (no ICRC) is always set. send_flags also take
 * IBV_SEND_IP_CSUM (IP and TCP/UDP checksum; libmlx4 rejects it without
 * IBV_DEVICE_RAW_IP_CSUM), MLX4DV_SEND_TUNNEL_CSUM and
 * MLX4DV_SEND_INS_CVLAN or MLX4DV_SEND_INS_SVLAN with vlan_tci (host
 * order) inserted by the device; vlan_tci is ignored without them.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_eth(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
		    const struct ibv_sge *sg, uint32_t num_sge,
		    uint32_t send_flags, uint16_t vlan_tci)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	if (!sg)
		return EINVAL;
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_eth(sq, &pl, send_flags, vlan_tci, 0,
					 NULL, 0);
}

/* Raw Ethernet send of one frame of len bytes (>= 6) copied inline. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_eth_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			   const void *frame, uint32_t len, uint32_t send_flags,
			   uint16_t vlan_tci)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, frame, len, 1 };

	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_eth(sq, &pl, send_flags, vlan_tci, 0,
					 NULL, 0);
}

/* What an LSO (TSO) send repeats in every segment. */
struct mlx4dv_lso_attr {
	const void		*header;	/* L2..L4 headers of the frame */
	uint16_t		header_size;	/* bytes, >= 6 */
	uint16_t		mss;		/* payload bytes per segment, > 0 */
};

/*
 * Raw Ethernet LSO send (MLX4_OPCODE_LSO): ctrl | LSO segment (mss,
 * header inline, padded to 16 bytes; MLX4DV_WQE_CTRL_LSO_BIG_HEADER when
 * it exceeds 64 bytes) | gather entries with the payload. The destination
 * MAC comes from the header. Set IBV_SEND_IP_CSUM (the device rewrites
 * IP and TCP checksums per segment). (kernel mlx4_en en_tx.c, mlx4_ib
 * qp.c build_lso_seg.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_eth_lso(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			const struct mlx4dv_lso_attr *lso,
			const struct ibv_sge *sg, uint32_t num_sge,
			uint32_t send_flags, uint16_t vlan_tci)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0, 0 };

	if (!lso || !lso->header || (send_flags & IBV_SEND_INLINE))
		return EINVAL;
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_eth(sq, &pl, send_flags, vlan_tci,
					 lso->mss, lso->header,
					 lso->header_size);
}

/* ---- Posting an ibv_send_wr ---- */

/*
 * mlx4dv_send_wr_bf_candidate - 1 when libmlx4 would post this single
 * work request by BlueFlame (given room in the BlueFlame buffer): inline
 * data of more than 0 bytes, an RDMA read, or an RDMA write without
 * gather entries on a connected QP. (libmlx4 qp.c mlx4_post_send: the
 * `inl` condition.) 0 for entries (num_sge > 0) with a NULL sg_list,
 * which mlx4dv_sq_write_send_wr() refuses.
 */
static inline int
mlx4dv_send_wr_bf_candidate(const struct mlx4dv_sq_ring *sq,
			    const struct ibv_send_wr *wr)
{
	/* A list the post refuses (EINVAL) is no candidate either. */
	if (wr->num_sge > 0 && !wr->sg_list)
		return 0;
	if ((wr->send_flags & IBV_SEND_INLINE) && wr->num_sge > 0) {
		int i;

		for (i = 0; i < wr->num_sge; i++)
			if (wr->sg_list[i].length)
				return 1;
		return 0;
	}
	if (!__mlx4dv_sq_is_connected(sq))
		return 0;
	return wr->opcode == IBV_WR_RDMA_READ ||
	       ((wr->opcode == IBV_WR_RDMA_WRITE ||
		 wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) && !wr->num_sge);
}

/*
 * mlx4dv_sq_write_send_wr - build the WQE of one ibv_send_wr (wr->next is
 * not followed) exactly as libmlx4's ibv_post_send() would, without
 * ringing the doorbell; records wr->wr_id when sq->wrid is set.
 *
 * Opcodes: SEND, SEND_WITH_IMM on every QP type but raw packet (SEND
 * only there); RDMA_WRITE(_WITH_IMM) on RC/UC/XRC; RDMA_READ, atomics,
 * SEND_WITH_INV on RC/XRC; LOCAL_INV and BIND_MW (no gather entries,
 * strong ordering added) on RC/UC/XRC. ud_dest: the destination of a UD
 * work request (wr->wr.ud.ah is not read: libmlx4 keeps its AV private),
 * ignored otherwise. On XRC_SEND, wr->qp_type.xrc.remote_srqn goes to
 * srcrb_flags. send_flags: the IBV_SEND_* flags (IP_CSUM on UD and raw
 * packet QPs).
 *
 * Returns 0, EINVAL (opcode not valid for the QP type, num_sge < 0 or
 * over sq->max_gather, inline bytes over sq->max_inline, IBV_SEND_INLINE
 * on a read or atomic, gather entries on LOCAL_INV/BIND_MW, raw packet
 * frame shorter than 6 bytes in its first entry, missing ud_dest), or
 * ENOMEM (no room); nothing is written on error. libmlx4 returns ENOMEM
 * for too many entries or inline bytes.
 */
static inline int
mlx4dv_sq_write_send_wr(struct mlx4dv_sq_ring *sq, const struct ibv_send_wr *wr,
			const struct mlx4dv_ud_av *ud_dest)
{
	struct __mlx4dv_sq_payload pl;
	uint32_t flags;
	uint64_t saved_wrid = 0;
	uint32_t slot = sq->head & (sq->wqe_cnt - 1);
	int err = EINVAL;

	if (!wr || wr->num_sge < 0 ||
	    (wr->send_flags & ~(uint32_t)(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
		IBV_SEND_SOLICITED | IBV_SEND_INLINE | IBV_SEND_IP_CSUM)))
		return EINVAL;
	flags = wr->send_flags;
	pl.sg = wr->sg_list;
	pl.num_sge = (uint32_t)wr->num_sge;
	pl.data = NULL;
	pl.len = 0;
	pl.is_inline = (flags & IBV_SEND_INLINE) && wr->num_sge;
	if (!pl.is_inline)
		flags &= ~(uint32_t)IBV_SEND_INLINE;
	if (sq->qp_type == IBV_QPT_XRC_SEND) {
		if (wr->qp_type.xrc.remote_srqn > 0xffffff)
			return EINVAL;
		flags |= MLX4DV_SEND_XRC_SRQN(wr->qp_type.xrc.remote_srqn);
	}
	if (sq->wrid)
		saved_wrid = sq->wrid[slot];
	__mlx4dv_sq_set_wr_id(sq, wr->wr_id);

	if (sq->qp_type == IBV_QPT_UD) {
		if (wr->opcode == IBV_WR_SEND)
			err = __mlx4dv_sq_write_ud(sq, MLX4_OPCODE_SEND, ud_dest,
				wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey, 0,
				flags, &pl);
		else if (wr->opcode == IBV_WR_SEND_WITH_IMM)
			err = __mlx4dv_sq_write_ud(sq, MLX4_OPCODE_SEND_IMM,
				ud_dest, wr->wr.ud.remote_qpn,
				wr->wr.ud.remote_qkey, wr->imm_data, flags, &pl);
	} else if (sq->qp_type == IBV_QPT_RAW_PACKET) {
		if (wr->opcode == IBV_WR_SEND && wr->sg_list)
			err = __mlx4dv_sq_write_eth(sq, &pl, flags, 0, 0,
							NULL, 0);
	} else if (__mlx4dv_sq_is_connected(sq)) {
		int rc_only = sq->qp_type != IBV_QPT_UC;

		flags &= ~(uint32_t)IBV_SEND_IP_CSUM;
		switch (wr->opcode) {
		case IBV_WR_SEND:
			err = __mlx4dv_sq_write_connected(sq, MLX4_OPCODE_SEND, 0,
				0, 0, 0, flags, &pl);
			break;
		case IBV_WR_SEND_WITH_IMM:
			err = __mlx4dv_sq_write_connected(sq, MLX4_OPCODE_SEND_IMM,
				0, 0, 0, wr->imm_data, flags, &pl);
			break;
		case IBV_WR_SEND_WITH_INV:
			if (rc_only)
				err = __mlx4dv_sq_write_connected(sq,
					MLX4_OPCODE_SEND_INVAL, 0, 0, 0,
					mlx4dv_cpu_to_be32(wr->invalidate_rkey),
					flags, &pl);
			break;
		case IBV_WR_RDMA_WRITE:
			err = __mlx4dv_sq_write_connected(sq,
				MLX4_OPCODE_RDMA_WRITE, 1,
				wr->wr.rdma.remote_addr, wr->wr.rdma.rkey, 0,
				flags, &pl);
			break;
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			err = __mlx4dv_sq_write_connected(sq,
				MLX4_OPCODE_RDMA_WRITE_IMM, 1,
				wr->wr.rdma.remote_addr, wr->wr.rdma.rkey,
				wr->imm_data, flags, &pl);
			break;
		case IBV_WR_RDMA_READ:
			if (rc_only && !pl.is_inline)
				err = __mlx4dv_sq_write_connected(sq,
					MLX4_OPCODE_RDMA_READ, 1,
					wr->wr.rdma.remote_addr,
					wr->wr.rdma.rkey, 0, flags, &pl);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			if (wr->num_sge == 1 && !pl.is_inline) {
				int cas = wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP;

				err = __mlx4dv_sq_write_atomic(sq, cas ?
					MLX4_OPCODE_ATOMIC_CS :
					MLX4_OPCODE_ATOMIC_FA, wr->sg_list,
					wr->wr.atomic.remote_addr,
					wr->wr.atomic.rkey,
					cas ? wr->wr.atomic.swap :
					wr->wr.atomic.compare_add,
					cas ? wr->wr.atomic.compare_add : 0,
					flags);
			}
			break;
		case IBV_WR_LOCAL_INV:
		case IBV_WR_BIND_MW:
			if (!wr->num_sge && (wr->opcode == IBV_WR_LOCAL_INV ||
			    (wr->bind_mw.mw && wr->bind_mw.bind_info.mr))) {
				struct __mlx4dv_sq_payload none = { NULL, 0, NULL,
								  0, 0 };
				uint32_t ds, fixed = MLX4DV_WQE_CTRL_DS + 2;
				struct mlx4_wqe_ctrl_seg *ctrl;

				if (!__mlx4dv_sq_connected_flags_ok(sq, flags))
					break;
				err = __mlx4dv_sq_payload_ds(sq, fixed, &none,
							   &ds);
				if (err)
					break;
				ctrl = (struct mlx4_wqe_ctrl_seg *)
					mlx4dv_sq_wqebb(sq, sq->head);
				if (wr->opcode == IBV_WR_LOCAL_INV) {
					mlx4dv_wqe_set_local_inval_seg(
						(struct mlx4_wqe_local_inval_seg *)
						(ctrl + 1), wr->invalidate_rkey);
				} else {
					struct mlx4dv_bind_mw_attr b;

					b.addr = wr->bind_mw.bind_info.addr;
					b.length = wr->bind_mw.bind_info.length;
					b.new_rkey = wr->bind_mw.rkey;
					b.mr_lkey =
						wr->bind_mw.bind_info.mr->lkey;
					b.access = wr->bind_mw.bind_info
						.mw_access_flags;
					b.mw_type = wr->bind_mw.mw->type;
					mlx4dv_wqe_set_bind_seg(
						(struct mlx4_wqe_bind_seg *)
						(ctrl + 1), &b);
				}
				mlx4dv_wqe_set_ctrl(ctrl, ds,
					mlx4dv_send_srcrb_flags(flags) |
					MLX4_WQE_CTRL_STRONG_ORDER, 0);
				__mlx4dv_sq_wqe_finish(sq, ctrl,
					wr->opcode == IBV_WR_LOCAL_INV ?
					MLX4_OPCODE_LOCAL_INVAL :
					MLX4_OPCODE_BIND_MW);
			}
			break;
		default:
			break;
		}
	}
	if (err && sq->wrid)
		sq->wrid[slot] = saved_wrid;
	return err;
}

/* ---- Batches of WQEs built from a template ---- */

/*
 * A run of WQEs of one shape (same operation, keys, length and flags; the
 * addresses and the wr_id change) is cheap once its constant words are
 * prepared:
 *  - mlx4dv_sq_wqe_template_init() validates the operation for the ring
 *    once and keeps every constant word big-endian, as it is stored;
 *  - mlx4dv_sq_batch_begin() checks the template against the ring and
 *    reserves room for up to n WQEs (one WQEBB each);
 *  - mlx4dv_sq_batch_write() writes one WQE: its only check is one pointer
 *    compare (end of the reservation or of the ring);
 *  - mlx4dv_sq_batch_end() publishes the new producer count; then ring the
 *    doorbell once (mlx4dv_sq_ring_doorbell()).
 * The WQEs are byte for byte those of the one-call posts (and of
 * libmlx4's ibv_post_send()) for the same request: control segment,
 * [remote address segment,] one gather entry, 2 or 3 units, so every
 * template WQE lies in the first 64-byte chunk of its WQEBB. The owner
 * word, written last behind a store barrier, guards that whole chunk, so
 * the other words of the chunk may be stored in any order (the
 * byte_count-last rule of mlx4dv_wqe_set_data_seg() is for a gather entry
 * that starts a chunk of its own).
 */

/*
 * struct mlx4dv_sq_wqe_template - the constant words of a template WQE,
 * each big-endian as stored in the ring (fill with
 * mlx4dv_sq_wqe_template_init()).
 *
 * owner_opcode: control word 0 without the owner bit (the batch adds it).
 * bf_qpn:       control bytes 4..7: 0, 0, 0, fence bit | ds.
 * srcrb_flags:  control word 2 (CQ update, solicited, ..., XRC SRQN).
 * imm:          control word 3: the immediate of *_WITH_IMM, else 0.
 * rkey:         remote key (remote address segment word 2); 0 for sends.
 * byte_count:   gather entry length (0 stored as 0x80000000).
 * lkey:         gather entry local key.
 * ds:           host order: 2 (SEND) or 3 (RDMA WRITE/READ) units.
 * qp_type:      the ring's QP type the template was made for.
 */
struct mlx4dv_sq_wqe_template {
	__be32			owner_opcode;
	__be32			bf_qpn;
	__be32			srcrb_flags;
	__be32			imm;
	__be32			rkey;
	__be32			byte_count;
	__be32			lkey;
	uint32_t		ds;
	uint32_t		qp_type;
};

/*
 * mlx4dv_sq_wqe_template_init - prepare t for WQEs of one operation on
 * the connected-QP ring sq.
 *
 * opcode:     IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
 *             IBV_WR_RDMA_WRITE_WITH_IMM or IBV_WR_RDMA_READ (not on UC).
 * rkey:       remote key, host order; ignored for sends.
 * lkey:       local key of every gather entry, host order.
 * length:     bytes of every gather entry, host order (0 allowed; at
 *             most MLX4DV_DATA_SEG_MAX_LENGTH).
 * send_flags: as for mlx4dv_sq_write_rdma_write() (IBV_SEND_SIGNALED, FENCE,
 *             SOLICITED, MLX4DV_SEND_STRONG_ORDER, _FORCE_LOOPBACK,
 *             MLX4DV_SEND_XRC_SRQN() on XRC_SEND); not IBV_SEND_INLINE.
 * imm:        big-endian as the receiver reads it (ibv_send_wr.imm_data),
 *             for the *_WITH_IMM opcodes; ignored otherwise.
 * Returns 0, or EINVAL for a QP type other than RC, UC or XRC_SEND, an
 * opcode outside the list or READ on UC, IBV_SEND_INLINE or an unknown
 * flag, a length over MLX4DV_DATA_SEG_MAX_LENGTH, or a ring without a
 * gather entry or headroom; t is then cleared
 * (ds 0), and mlx4dv_sq_batch_begin() refuses it.
 * (Encodings: libmlx4 qp.c mlx4_post_send, set_raddr_seg, set_data_seg.)
 */
static inline int
mlx4dv_sq_wqe_template_init(struct mlx4dv_sq_wqe_template *t,
			    const struct mlx4dv_sq_ring *sq,
			    enum ibv_wr_opcode opcode, uint32_t rkey,
			    uint32_t lkey, uint32_t length, uint32_t send_flags,
			    __be32 imm)
{
	struct mlx4_wqe_ctrl_seg ctrl;
	uint32_t op, ds = MLX4DV_WQE_CTRL_DS + MLX4DV_WQE_DATA_DS;

	/* ds 0 until the end: a refused template makes no batch. */
	memset(t, 0, sizeof(*t));
	switch (opcode) {
	case IBV_WR_SEND:
		op = MLX4_OPCODE_SEND;
		imm = 0;
		break;
	case IBV_WR_SEND_WITH_IMM:
		op = MLX4_OPCODE_SEND_IMM;
		break;
	case IBV_WR_RDMA_WRITE:
		op = MLX4_OPCODE_RDMA_WRITE;
		imm = 0;
		ds += MLX4DV_WQE_RADDR_DS;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		op = MLX4_OPCODE_RDMA_WRITE_IMM;
		ds += MLX4DV_WQE_RADDR_DS;
		break;
	case IBV_WR_RDMA_READ:
		if (sq->qp_type == IBV_QPT_UC)
			return EINVAL;
		op = MLX4_OPCODE_RDMA_READ;
		imm = 0;
		ds += MLX4DV_WQE_RADDR_DS;
		break;
	default:
		return EINVAL;
	}
	if (!__mlx4dv_sq_is_connected(sq) ||
	    !__mlx4dv_sq_connected_flags_ok(sq, send_flags) ||
	    (send_flags & IBV_SEND_INLINE) || sq->max_gather < 1 ||
	    sq->spare_wqes < 1 || length > MLX4DV_DATA_SEG_MAX_LENGTH)
		return EINVAL;
	memset(&ctrl, 0, sizeof(ctrl));
	mlx4dv_wqe_set_ctrl(&ctrl, ds, mlx4dv_send_srcrb_flags(send_flags), imm);
	t->owner_opcode = mlx4dv_cpu_to_be32(op);
	t->bf_qpn = ctrl.bf_qpn;
	t->srcrb_flags = ctrl.srcrb_flags;
	t->imm = ctrl.imm;
	t->rkey = ds > 2 ? mlx4dv_cpu_to_be32(rkey) : 0;
	t->byte_count = mlx4dv_cpu_to_be32(length ? length :
					   MLX4DV_DATA_SEG_ZERO_LENGTH);
	t->lkey = mlx4dv_cpu_to_be32(lkey);
	t->ds = ds;
	t->qp_type = sq->qp_type;
	return 0;
}

/*
 * struct mlx4dv_sq_batch - a batch in progress (a local of the posting
 * function: kept whole in registers when everything is inlined). Opaque;
 * filled by mlx4dv_sq_batch_begin().
 */
struct mlx4dv_sq_batch {
	uint8_t			*wqe;		/* WQEBB of the next WQE */
	uint8_t			*stop;		/* next place to turn: limit or ring end */
	uint8_t			*limit;		/* end of the reservation */
	uint8_t			*buf;		/* ring start */
	uint8_t			*ring_end;	/* first byte past the ring */
	uint64_t		*wrid;		/* slot of the next WQE in sq->wrid, or NULL */
	uint64_t		*wrid_base;	/* sq->wrid */
	size_t			stride;		/* bytes of a WQEBB */
	size_t			data_offset;	/* 16 (send) or 32 (RDMA) */
	uint32_t		wqe_shift;
	uint32_t		start_head;	/* sq->head at begin */
	uint32_t		wrap_pending;	/* the reservation runs past the ring end */
	__be32			owner_opcode;	/* word 0 of the next WQE */
	__be32			owner_bit;	/* MLX4DV_WQE_CTRL_OWNER, big-endian */
	__be32			bf_qpn;		/* control bytes 4..7 */
	/* Pairs of big-endian words as 8 bytes in ring order, so that each
	 * pair is one store (memcpy, any host byte order). */
	uint64_t		srcrb_imm;	/* control bytes 8..15 */
	uint64_t		rkey_rsvd;	/* remote address segment bytes 8..15 */
	uint64_t		count_lkey;	/* gather entry bytes 0..7 */
};

/*
 * mlx4dv_sq_batch_begin - start a batch of at most n template WQEs at
 * sq->head.
 *
 * Checks, once: t was made for this ring's QP type; n WQEBBs are free
 * (n <= mlx4dv_sq_room(sq)). When sq->ring_stamped is 0 the n WQEBBs the
 * batch brings into the prefetch window are stamped here, before any WQE
 * is written (they are free: the room check puts them behind tail).
 * Returns 0, EINVAL (t not made for this QP type, or not by
 * mlx4dv_sq_wqe_template_init()), or ENOMEM (fewer than n free WQEBBs).
 * On error nothing is written and b is an empty batch: its posts return
 * ENOSPC, its end publishes nothing.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_batch_begin(struct mlx4dv_sq_ring *sq, struct mlx4dv_sq_batch *b,
		      const struct mlx4dv_sq_wqe_template *t, uint32_t n)
{
	uint32_t head = sq->head, slot = head & (sq->wqe_cnt - 1);
	int err = 0;

	if (t->qp_type != sq->qp_type || t->ds < 2 || t->ds > 3)
		err = EINVAL;
	else if (n > mlx4dv_sq_room(sq))
		err = ENOMEM;
	/* On error the batch is still valid, with nothing reserved: its
	 * posts return ENOSPC and its end publishes nothing. */
	if (err)
		n = 0;
	if (__MLX4DV_UNLIKELY(!(sq->ring_stamped & 1)) && n)
		__mlx4dv_sq_stamp_more(sq, head + sq->spare_wqes, n);
	b->buf = sq->buf;
	b->ring_end = mlx4dv_sq_ring_end(sq);
	b->stride = (size_t)1 << sq->wqe_shift;
	b->wqe_shift = sq->wqe_shift;
	b->wqe = b->buf + ((size_t)slot << sq->wqe_shift);
	b->wrap_pending = slot + n > sq->wqe_cnt;
	b->limit = b->buf + ((size_t)((slot + n) & (b->wrap_pending ?
		sq->wqe_cnt - 1 : ~(uint32_t)0)) << sq->wqe_shift);
	b->stop = b->wrap_pending ? b->ring_end : b->limit;
	b->wrid_base = sq->wrid;
	b->wrid = sq->wrid ? sq->wrid + slot : NULL;
	b->data_offset = (size_t)t->ds == 3 ? 32 : 16;
	b->start_head = head;
	b->owner_bit = mlx4dv_cpu_to_be32(MLX4DV_WQE_CTRL_OWNER);
	b->owner_opcode = t->owner_opcode |
		((head & sq->wqe_cnt) ? b->owner_bit : 0);
	b->bf_qpn = t->bf_qpn;
	b->srcrb_imm = __mlx4dv_be32_pair(t->srcrb_flags, t->imm);
	b->rkey_rsvd = __mlx4dv_be32_pair(t->rkey, 0);
	b->count_lkey = __mlx4dv_be32_pair(t->byte_count, t->lkey);
	return err;
}

/* At b->stop: past the ring end when the reservation goes on there
 * (owner bit flips: a new lap), else the reservation is used up (0). */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_batch_turn(struct mlx4dv_sq_batch *b)
{
	if (b->stop != b->ring_end || !b->wrap_pending)
		return 0;
	b->wrap_pending = 0;
	b->wqe = b->buf;
	b->stop = b->limit;
	b->owner_opcode ^= b->owner_bit;
	b->wrid = b->wrid_base;
	return b->wqe != b->stop;
}

/* The body of the batch posts: control bytes 4..15 from bf_qpn and
 * srcrb_imm (the template's, or with a WQE's own flags added). */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_batch_store(struct mlx4dv_sq_batch *b, uint64_t laddr,
			uint64_t raddr, uint64_t wr_id, __be32 bf_qpn,
			uint64_t srcrb_imm)
{
	__be64 la = mlx4dv_cpu_to_be64(laddr);
	__be64 ra = mlx4dv_cpu_to_be64(raddr);
	uint8_t *wqe;

	if (__MLX4DV_UNLIKELY(b->wqe == b->stop) && !__mlx4dv_sq_batch_turn(b))
		return ENOSPC;
	wqe = b->wqe;
	/* A send's gather entry (at 16) overwrites the remote address
	 * words stored first: one store sequence for both shapes. */
	memcpy(wqe + 4, &bf_qpn, 4);
	memcpy(wqe + 8, &srcrb_imm, 8);
	__MLX4DV_STORE_GROUP();
	memcpy(wqe + 16, &ra, 8);
	__MLX4DV_STORE_GROUP();
	memcpy(wqe + 24, &b->rkey_rsvd, 8);
	__MLX4DV_STORE_GROUP();
	memcpy(wqe + b->data_offset, &b->count_lkey, 8);
	__MLX4DV_STORE_GROUP();
	memcpy(wqe + b->data_offset + 8, &la, 8);
	if (b->wrid)
		*b->wrid++ = wr_id;
	mlx4dv_barrier_to_device();
	((struct mlx4_wqe_ctrl_seg *)wqe)->owner_opcode = b->owner_opcode;
	b->wqe = wqe + b->stride;
	return 0;
}

/*
 * mlx4dv_sq_batch_write - write the next template WQE of the batch.
 *
 * wr_id:  stored in sq->wrid for the WQE when the ring has a table.
 * raddr:  remote address, host order (RDMA templates; ignored for sends).
 * laddr:  gather entry address, host order.
 *
 * Stores the fixed words from the template, the two addresses, then a
 * store barrier and word 0 (owner bit of the WQE's lap | opcode). No
 * stamping is needed per WQE (see mlx4dv_sq_batch_begin()).
 * Returns 0, or ENOSPC (nothing written) when the n WQEs reserved by
 * mlx4dv_sq_batch_begin() are all posted.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_batch_write(struct mlx4dv_sq_batch *b, uint64_t wr_id, uint64_t raddr,
		      uint64_t laddr)
{
	return __mlx4dv_sq_batch_store(b, laddr, raddr, wr_id, b->bf_qpn,
				     b->srcrb_imm);
}

/* send_flags one WQE of a batch may add to its template's. */
#define MLX4DV_SQ_BATCH_WQE_FLAGS \
	((uint32_t)(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE))

/*
 * mlx4dv_sq_batch_write_flags - mlx4dv_sq_batch_write() for a WQE that also
 * asks for a completion, a solicited event or a fence, without a second
 * template: send_flags is IBV_SEND_SIGNALED, IBV_SEND_SOLICITED and/or
 * IBV_SEND_FENCE, added to the template's flags for this WQE only
 * (control word 2 gets MLX4_WQE_CTRL_CQ_UPDATE / MLX4_WQE_CTRL_SOLICIT,
 * control byte 7 the fence bit 0x40, exactly as the one-call posts store
 * them; libmlx4 qp.c mlx4_post_send). Flags the template has already
 * stay; none can be taken away. Typical use: an unsignalled template
 * and IBV_SEND_SIGNALED on the last WQE of the batch, so one send CQE
 * completes the whole batch (mlx4dv_cq_poll_send()).
 * Returns 0; EINVAL (nothing written) for any other flag bit; ENOSPC as
 * mlx4dv_sq_batch_write(). With constant send_flags the extra words are
 * constants and the WQE costs what mlx4dv_sq_batch_write() costs.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_batch_write_flags(struct mlx4dv_sq_batch *b, uint64_t wr_id,
			    uint64_t raddr, uint64_t laddr, uint32_t send_flags)
{
	uint32_t srcrb = mlx4dv_send_srcrb_flags(send_flags &
		(uint32_t)(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED));
	__be32 fence = mlx4dv_cpu_to_be32((send_flags & IBV_SEND_FENCE) ?
					  (uint32_t)MLX4_WQE_CTRL_FENCE : 0);

	if (__MLX4DV_UNLIKELY(send_flags & ~MLX4DV_SQ_BATCH_WQE_FLAGS))
		return EINVAL;
	return __mlx4dv_sq_batch_store(b, laddr, raddr, wr_id, b->bf_qpn | fence,
		b->srcrb_imm | __mlx4dv_be32_pair(mlx4dv_cpu_to_be32(srcrb), 0));
}

/*
 * mlx4dv_sq_batch_end - publish the WQEs posted in the batch: sq->head
 * advances by their number, which is returned (0..n). Ring the doorbell
 * afterwards, once. (A batch may also be ended early; the rest of the
 * reservation is simply not used.)
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_batch_end(struct mlx4dv_sq_ring *sq, const struct mlx4dv_sq_batch *b)
{
	size_t size = (size_t)(b->ring_end - b->buf);
	size_t first = (size_t)b->start_head << b->wqe_shift;
	uint32_t posted = (uint32_t)((((size_t)(b->wqe - b->buf) - first) &
				      (size - 1)) >> b->wqe_shift);

	sq->head = b->start_head + posted;
	return posted;
}

/* ======================================================================
 * Part 5. Completion and receive path.
 * ====================================================================== */
/*
 * The completion side of a queue pair: CQ polling, CQE decoding, CQ arming,
 * and the receive rings (the RQ of a QP, a receive WQ, an SRQ) that the
 * receive completions give back. Every fact below comes from rdma-core 44.0
 * providers/mlx4 (cq.c, qp.c, srq.c, verbs.c), the Linux mlx4_ib and
 * mlx4_en drivers (drivers/infiniband/hw/mlx4/cq.c,
 * include/linux/mlx4/cq.h) or DPDK drivers/net/mlx4 (mlx4_prm.h,
 * mlx4_rxtx.c); each function names its source.
 *
 * Errors follow the header's rule (top of the file): 0 or a positive
 * errno value; a function that fails writes nothing to the ring or the
 * device; a poll returns EAGAIN when there is nothing to take.
 */

/* ---- 5.1 CQE bits rdma-core's header does not name -------------------- */

/*
 * Bits of mlx4_cqe.vlan_my_qpn (host order after mlx4dv_be32_to_cpu()),
 * above the 24-bit QPN. Source: include/linux/mlx4/cq.h (MLX4_CQE_*_MASK,
 * MLX4_CQE_L2_TUNNEL*), DPDK mlx4_prm.h. MLX4DV_CQE_CVLAN_PRESENT equals
 * rdma-core's MLX4_CQE_VLAN_PRESENT_MASK.
 */
enum mlx4dv_cqe_qpn_word_bits {
	MLX4DV_CQE_L2_TUNNEL_IPV4	= 1 << 25,
	MLX4DV_CQE_L2_TUNNEL_L4_CSUM	= 1 << 26,
	MLX4DV_CQE_L2_TUNNEL		= 1 << 27,
	MLX4DV_CQE_CVLAN_PRESENT	= 1 << 29,
	MLX4DV_CQE_SVLAN_PRESENT	= 1 << 30,
};
/* Inner IP header checksum of a tunnelled packet is good (bit 31: above
 * INT_MAX, so a macro). */
#define MLX4DV_CQE_L2_TUNNEL_IPOK	(1U << 31)

/* The XRC bit of a receive CQE's QPN: the SRQ number is then in the low 24
 * bits of g_mlpath_rqpn (rdma-core providers/mlx4/mlx4.h MLX4_XRC_QPN_BIT,
 * cq.c mlx4_parse_cqe). */
enum {
	MLX4DV_CQE_XRC_QPN_BIT		= 1 << 23,
};

/*
 * Receive packet-type and checksum bits of mlx4_cqe.status (host order
 * after mlx4dv_be32_to_cpu()). The kernel reads the same 32 bits as a
 * 16-bit status (bits 16..31 here), ipv6_ext_mask (8..15) and badfcs_enc
 * (0..7). Sources: DPDK mlx4_prm.h (MLX4_CQE_STATUS_*),
 * include/linux/mlx4/cq.h, rdma-core mlx4dv.h (enum mlx4_cqe_status).
 * Valid on raw-packet (Ethernet) and UD-over-IB receives on devices that
 * offer receive checksum; see mlx4dv_cqe_ip_csum_ok().
 */
enum mlx4dv_cqe_status_bits {
	MLX4DV_CQE_STATUS_L4_CSUM_OK	= 1 << 2,
	MLX4DV_CQE_STATUS_IPV6_FRAG	= 1 << 12,
	MLX4DV_CQE_STATUS_IPV4		= 1 << 22,
	MLX4DV_CQE_STATUS_IPV4_FRAG	= 1 << 23,
	MLX4DV_CQE_STATUS_IPV6		= 1 << 24,
	MLX4DV_CQE_STATUS_IPV4_OPT	= 1 << 25,
	MLX4DV_CQE_STATUS_TCP		= 1 << 26,
	MLX4DV_CQE_STATUS_UDP		= 1 << 27,
	MLX4DV_CQE_STATUS_IP_HDR_CSUM_OK = 1 << 28,
};

/*
 * What the decoder must know about the QP a receive CQE belongs to, which
 * the CQE itself does not say (libmlx4 keeps both per QP: mlx4_qp.link_layer
 * and MLX4_RX_CSUM_VALID in qp_cap_cache, set in verbs.c mlx4_modify_qp).
 */
enum mlx4dv_cqe_rx_flags {
	/* The port's link layer is Ethernet (RoCE, raw packet): the SL is the
	 * top 3 bits of sl_vid, and sl_vid carries the VLAN ID. */
	MLX4DV_CQE_RX_ETHERNET		= 1 << 0,
	/* The checksum bits are valid for this QP: libmlx4 sets this for a
	 * raw-packet QP on Ethernet when the device reports
	 * IBV_DEVICE_RAW_IP_CSUM, and for a UD QP on InfiniBand with
	 * IBV_DEVICE_UD_IP_CSUM. Only then is IBV_WC_IP_CSUM_OK reported. */
	MLX4DV_CQE_RX_CSUM_VALID	= 1 << 1,
};

/* ---- 5.2 Finding and consuming CQEs ------------------------------------ */

/*
 * mlx4dv_cq_cqe - the valid 32 bytes of CQE n (free-running index; slot
 * n & (cqe_cnt - 1)). For 64-byte CQEs that is the second half of the slot
 * (rdma-core cq.c get_sw_cqe). Does not test ownership.
 */
static MLX4DV_ALWAYS_INLINE struct mlx4_cqe *
mlx4dv_cq_cqe(const struct mlx4dv_cq_ring *cq, uint32_t n)
{
	size_t slot_end = ((size_t)(n & (cq->cqe_cnt - 1)) + 1) * cq->cqe_size;

	return (struct mlx4_cqe *)(cq->buf + slot_end - sizeof(struct mlx4_cqe));
}

/*
 * mlx4dv_cqe_sw_owned - 1 when the CQE at free-running index n belongs to
 * software: its owner bit (0x80 of the last byte) equals the lap parity
 * (n & cqe_cnt) != 0. The device flips the owner bit each lap it writes.
 * The byte is read with a relaxed atomic load so that a polling loop
 * re-reads it (the compiler may not hoist it) while the address still
 * folds into one instruction.
 * (rdma-core cq.c get_sw_cqe; PRM CQE owner field.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_sw_owned(const struct mlx4_cqe *cqe, uint32_t n, uint32_t cqe_cnt)
{
	/* The owner bit sign-extended to all 32 bits: 0 or ~0. XORed into n,
	 * it clears the lap-parity bit exactly when the two agree. */
	int32_t owner = (int8_t)__atomic_load_n(&cqe->owner_sr_opcode,
						__ATOMIC_RELAXED);

	return !(((uint32_t)(owner >> 7) ^ n) & cqe_cnt);
}

/*
 * mlx4dv_cq_peek - the next completion without consuming it.
 *
 * Returns the valid 32 bytes of CQE cons_index when software owns it, with
 * mlx4dv_barrier_from_device() already issued after the owner test (so the
 * other fields are read after it), else NULL. cons_index is unchanged.
 */
static MLX4DV_ALWAYS_INLINE struct mlx4_cqe *
mlx4dv_cq_peek(const struct mlx4dv_cq_ring *cq)
{
	struct mlx4_cqe *cqe;
	uint32_t ci = cq->cons_index;
	size_t size = cq->cqe_size;
	/* Written out rather than through mlx4dv_cq_cqe() so that the owner
	 * byte's address, slot + size - 1, folds into the load: the empty
	 * poll is the hot path of every polling loop. */
	uint8_t *slot = cq->buf + (size_t)(ci & (cq->cqe_cnt - 1)) * size;

	/* Without it the non-NULL hint below makes GCC form slot + size in a
	 * register ahead of the owner test, one addition more on the empty
	 * poll; kept opaque, the owner byte's address folds into the load
	 * and the CQE pointer is made on the hit path only. */
	__MLX4DV_OPAQUE(slot);
	/* The owner test of mlx4dv_cqe_sw_owned() on the slot's last byte. */
	int32_t owner = (int8_t)__atomic_load_n(slot + size - 1, __ATOMIC_RELAXED);

	if (((uint32_t)(owner >> 7) ^ ci) & cq->cqe_cnt)
		return NULL;
	mlx4dv_barrier_from_device();
	cqe = (struct mlx4_cqe *)(slot + size - sizeof(struct mlx4_cqe));
	/* A CQE of the ring is never at address 0: a caller's NULL test
	 * then folds into the owner test instead of testing the pointer. */
	__MLX4DV_ASSUME(cqe != NULL);
	return cqe;
}

/*
 * mlx4dv_cq_next - consume the next completion.
 *
 * Like mlx4dv_cq_peek(), and advances cons_index by one when a CQE is
 * returned. The consumer-index record is not written: the slot stays
 * reserved until mlx4dv_cq_update_ci(), so the CQE may be read until then.
 * Call mlx4dv_cq_update_ci() once per batch.
 */
static MLX4DV_ALWAYS_INLINE struct mlx4_cqe *
mlx4dv_cq_next(struct mlx4dv_cq_ring *cq)
{
	struct mlx4_cqe *cqe = mlx4dv_cq_peek(cq);

	if (cqe)
		cq->cons_index++;
	return cqe;
}

/*
 * mlx4dv_cq_update_ci - hand the consumed CQE slots back to the device.
 *
 * Issues mlx4dv_barrier_release_to_device() (the CQEs are read before the
 * device may reuse their slots), then writes the consumer-index record:
 * big-endian (cons_index & 0xffffff). (rdma-core cq.c/mlx4.h
 * mlx4_update_cons_index; PRM CQ doorbell record.) Once per batch; after
 * it no CQE pointer returned before stays valid.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_cq_update_ci(struct mlx4dv_cq_ring *cq)
{
	/* Read before the barrier, so that right after a poll the compiler
	 * can reuse the index it has just stored instead of reloading it. */
	uint32_t ci = cq->cons_index;
	__be32 *record = cq->set_ci_db;

	mlx4dv_barrier_release_to_device();
	*(volatile __be32 *)record = mlx4dv_cpu_to_be32(ci & 0xffffff);
}

/*
 * mlx4dv_cq_poll_batch - copy up to max completions out of the CQ.
 *
 * out:    room for max CQEs; each gets the valid 32 bytes as the device
 *         wrote them (big-endian fields, owner bit included).
 * Returns the number copied (0 when the CQ is empty or max is 0).
 * The CQEs are copied before the consumer-index record is written (once,
 * when at least one was taken), because afterwards the device may
 * overwrite their slots.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cq_poll_batch(struct mlx4dv_cq_ring *cq, struct mlx4_cqe *out,
		     uint32_t max)
{
	size_t n, limit = max;

	for (n = 0; n < limit; n++) {
		struct mlx4_cqe *cqe = mlx4dv_cq_peek(cq);

		if (!cqe)
			break;
		memcpy(&out[n], cqe, sizeof(*cqe));
		cq->cons_index++;
	}
	if (n)
		mlx4dv_cq_update_ci(cq);
	return (uint32_t)n;
}

/* ---- 5.3 Decoding a CQE ----------------------------------------------- */
/*
 * All accessors take the valid 32 bytes of a software-owned CQE (from
 * mlx4dv_cq_peek()/mlx4dv_cq_next() or a copy) and return host-order
 * values unless the type is __be32. Which fields mean something depends
 * on the kind of completion: mlx4dv_cqe_to_wc() applies libmlx4's rules.
 * An error CQE (opcode MLX4_CQE_OPCODE_ERROR) is laid out as struct
 * mlx4_err_cqe over the same 32 bytes.
 */

/* QPN of the completion (low 24 bits of vlan_my_qpn): the QP, or for a
 * receive WQ of an RSS QP the WQ number. (rdma-core cq.c mlx4_parse_cqe.) */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_qpn(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->vlan_my_qpn) & MLX4_CQE_QPN_MASK;
}

/* Nonzero for a send-queue completion (bit 6 of the last byte), zero for a
 * receive. Also valid in an error CQE. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_is_send(const struct mlx4_cqe *cqe)
{
	return cqe->owner_sr_opcode & MLX4_CQE_IS_SEND_MASK;
}

/* The 5-bit CQE opcode: MLX4_OPCODE_* of the WQE for a send,
 * MLX4_RECV_OPCODE_* for a receive, MLX4_CQE_OPCODE_ERROR (0x1e) or
 * MLX4_CQE_OPCODE_RESIZE (0x16). */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_opcode(const struct mlx4_cqe *cqe)
{
	return cqe->owner_sr_opcode & MLX4_CQE_OPCODE_MASK;
}

/* Nonzero for an error CQE (flushed work requests included). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_is_error(const struct mlx4_cqe *cqe)
{
	return mlx4dv_cqe_opcode(cqe) == MLX4_CQE_OPCODE_ERROR;
}

/* Syndrome of an error CQE (MLX4_CQE_SYNDROME_*; byte 27). Meaningless for
 * a good CQE. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_syndrome(const struct mlx4_cqe *cqe)
{
	return ((const uint8_t *)cqe)[offsetof(struct mlx4_err_cqe, syndrome)];
}

/* Vendor syndrome of an error CQE (byte 26), reported by libmlx4 as
 * ibv_wc.vendor_err. Meaningless for a good CQE. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_vendor_syndrome(const struct mlx4_cqe *cqe)
{
	return ((const uint8_t *)cqe)[offsetof(struct mlx4_err_cqe, vendor_err)];
}

/*
 * mlx4dv_cqe_syndrome_to_wc_status - the ibv_wc_status libmlx4 reports for
 * an error CQE's syndrome (rdma-core cq.c mlx4_handle_error_cqe; the
 * kernel's mlx4_ib_handle_error_cqe agrees). Unknown syndromes map to
 * IBV_WC_GENERAL_ERR.
 */
static MLX4DV_ALWAYS_INLINE enum ibv_wc_status
mlx4dv_cqe_syndrome_to_wc_status(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX4_CQE_SYNDROME_LOCAL_LENGTH_ERR:	return IBV_WC_LOC_LEN_ERR;
	case MLX4_CQE_SYNDROME_LOCAL_QP_OP_ERR:		return IBV_WC_LOC_QP_OP_ERR;
	case MLX4_CQE_SYNDROME_LOCAL_PROT_ERR:		return IBV_WC_LOC_PROT_ERR;
	case MLX4_CQE_SYNDROME_WR_FLUSH_ERR:		return IBV_WC_WR_FLUSH_ERR;
	case MLX4_CQE_SYNDROME_MW_BIND_ERR:		return IBV_WC_MW_BIND_ERR;
	case MLX4_CQE_SYNDROME_BAD_RESP_ERR:		return IBV_WC_BAD_RESP_ERR;
	case MLX4_CQE_SYNDROME_LOCAL_ACCESS_ERR:	return IBV_WC_LOC_ACCESS_ERR;
	case MLX4_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:	return IBV_WC_REM_INV_REQ_ERR;
	case MLX4_CQE_SYNDROME_REMOTE_ACCESS_ERR:	return IBV_WC_REM_ACCESS_ERR;
	case MLX4_CQE_SYNDROME_REMOTE_OP_ERR:		return IBV_WC_REM_OP_ERR;
	case MLX4_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:	return IBV_WC_RETRY_EXC_ERR;
	case MLX4_CQE_SYNDROME_RNR_RETRY_EXC_ERR:	return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX4_CQE_SYNDROME_REMOTE_ABORTED_ERR:	return IBV_WC_REM_ABORT_ERR;
	default:					return IBV_WC_GENERAL_ERR;
	}
}

/* IBV_WC_SUCCESS for a good CQE, else the status of its syndrome. */
static MLX4DV_ALWAYS_INLINE enum ibv_wc_status
mlx4dv_cqe_wc_status(const struct mlx4_cqe *cqe)
{
	if (!mlx4dv_cqe_is_error(cqe))
		return IBV_WC_SUCCESS;
	return mlx4dv_cqe_syndrome_to_wc_status(mlx4dv_cqe_syndrome(cqe));
}

/*
 * mlx4dv_cqe_wc_opcode - the ibv_wc_opcode of a good CQE, as libmlx4's
 * ibv_poll_cq reports it (rdma-core cq.c handle_good_req, mlx4_parse_cqe).
 * Sends: RDMA_WRITE[_IMM] -> IBV_WC_RDMA_WRITE, SEND[_IMM|_INVAL] ->
 * IBV_WC_SEND, RDMA_READ, ATOMIC_CS -> COMP_SWAP, ATOMIC_FA -> FETCH_ADD,
 * LOCAL_INVAL, BIND_MW; any other send opcode -> IBV_WC_SEND. Receives:
 * RDMA_WRITE_IMM -> IBV_WC_RECV_RDMA_WITH_IMM, SEND[_IMM|_INVAL] ->
 * IBV_WC_RECV; any other receive opcode (the device writes none) ->
 * IBV_WC_RECV. Meaningless for an error CQE (libmlx4 leaves opcode unset).
 */
static MLX4DV_ALWAYS_INLINE enum ibv_wc_opcode
mlx4dv_cqe_wc_opcode(const struct mlx4_cqe *cqe)
{
	if (!mlx4dv_cqe_is_send(cqe))
		return mlx4dv_cqe_opcode(cqe) == MLX4_RECV_OPCODE_RDMA_WRITE_IMM ?
			IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;

	switch (mlx4dv_cqe_opcode(cqe)) {
	case MLX4_OPCODE_RDMA_WRITE_IMM:
	case MLX4_OPCODE_RDMA_WRITE:	return IBV_WC_RDMA_WRITE;
	case MLX4_OPCODE_RDMA_READ:	return IBV_WC_RDMA_READ;
	case MLX4_OPCODE_ATOMIC_CS:	return IBV_WC_COMP_SWAP;
	case MLX4_OPCODE_ATOMIC_FA:	return IBV_WC_FETCH_ADD;
	case MLX4_OPCODE_LOCAL_INVAL:	return IBV_WC_LOCAL_INV;
	case MLX4_OPCODE_BIND_MW:	return IBV_WC_BIND_MW;
	default:			return IBV_WC_SEND;
	}
}

/* Byte count of a good CQE, host order: bytes received (receive), bytes
 * read (RDMA READ). libmlx4 reports 8 for atomics and leaves byte_len
 * alone for other sends; see mlx4dv_cqe_to_wc(). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_byte_len(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->byte_cnt);
}

/* Immediate data of a SEND_IMM or RDMA_WRITE_IMM receive, big-endian as
 * the sender gave it in ibv_send_wr.imm_data (stored as is, like
 * ibv_wc.imm_data). */
static MLX4DV_ALWAYS_INLINE __be32
mlx4dv_cqe_imm_data(const struct mlx4_cqe *cqe)
{
	return cqe->immed_rss_invalid;
}

/* The rkey a SEND_WITH_INV receive invalidated, host order (the same word
 * as the immediate; libmlx4 converts it). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_invalidated_rkey(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->immed_rss_invalid);
}

/* RSS hash of a receive on an RSS QP (raw packet), host order: the same
 * word as the immediate (mlx4_en en_rx.c passes be32_to_cpu of it to
 * skb_set_hash). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_rss_hash(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->immed_rss_invalid);
}

/* P_Key index of a receive (UD/GSI): low 7 bits of immed_rss_invalid, as
 * libmlx4 and mlx4_ib report it. */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_pkey_index(const struct mlx4_cqe *cqe)
{
	return (uint16_t)(mlx4dv_be32_to_cpu(cqe->immed_rss_invalid) & 0x7f);
}

/* Source QPN of a receive (UD): low 24 bits of g_mlpath_rqpn. For an XRC
 * receive (QPN has MLX4DV_CQE_XRC_QPN_BIT) the same bits hold the SRQN. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_src_qp(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->g_mlpath_rqpn) & 0xffffff;
}

/* Destination LID path bits of a receive: bits 24..30 of g_mlpath_rqpn. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_dlid_path_bits(const struct mlx4_cqe *cqe)
{
	return (uint8_t)((mlx4dv_be32_to_cpu(cqe->g_mlpath_rqpn) >> 24) & 0x7f);
}

/* Nonzero when the received packet had a GRH (bit 31 of g_mlpath_rqpn);
 * its 40 bytes are then at the start of the receive buffer (UD). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_has_grh(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_be32_to_cpu(cqe->g_mlpath_rqpn) >> 31) != 0;
}

/* Source LID of a receive (InfiniBand), host order. */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_slid(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be16_to_cpu(cqe->rlid);
}

/* Service level of a receive: sl_vid >> 12 on InfiniBand, sl_vid >> 13 on
 * Ethernet where the low 12 bits are the VLAN ID (rdma-core cq.c
 * mlx4_parse_cqe, mlx4_ib cq.c). is_ethernet: the port's link layer. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_sl(const struct mlx4_cqe *cqe, int is_ethernet)
{
	return (uint8_t)(mlx4dv_be16_to_cpu(cqe->sl_vid) >> (is_ethernet ? 13 : 12));
}

/* Nonzero when the device stripped a customer VLAN tag (Ethernet; bit 29
 * of vlan_my_qpn, MLX4_CQE_VLAN_PRESENT_MASK). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_vlan_present(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_be32_to_cpu(cqe->vlan_my_qpn) & MLX4DV_CQE_CVLAN_PRESENT) != 0;
}

/* VLAN ID of the stripped tag (low 12 bits of sl_vid, MLX4_CQE_VID_MASK in
 * the kernel), or 0xffff when none was present, as mlx4_ib reports it. */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_vlan_id(const struct mlx4_cqe *cqe)
{
	if (!mlx4dv_cqe_vlan_present(cqe))
		return 0xffff;
	return mlx4dv_be16_to_cpu(cqe->sl_vid) & 0xfff;
}

/* The status word (packet type and checksum bits, enum
 * mlx4dv_cqe_status_bits), host order. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_status(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->status);
}

/* Received packet is IPv4 (status bit 22). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_is_ipv4(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4DV_CQE_STATUS_IPV4) != 0;
}

/* Received packet is IPv6 (status bit 24; DPDK mlx4_prm.h). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_is_ipv6(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4DV_CQE_STATUS_IPV6) != 0;
}

/* The IPv4 header checksum was good (status bit 28). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_ip_hdr_csum_ok(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4DV_CQE_STATUS_IP_HDR_CSUM_OK) != 0;
}

/* The TCP or UDP checksum was good (status bit 2, badfcs_enc L4_CSUM). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_l4_csum_ok(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4DV_CQE_STATUS_L4_CSUM_OK) != 0;
}

/*
 * mlx4dv_cqe_ip_csum_ok - libmlx4's rule for IBV_WC_IP_CSUM_OK: all three
 * of IPv4, IP header checksum good and TCP/UDP checksum good
 * (MLX4_CQE_STATUS_IPV4_CSUM_OK). libmlx4 applies it only on QPs with
 * valid checksum bits (MLX4DV_CQE_RX_CSUM_VALID). (rdma-core cq.c
 * mlx4_parse_cqe.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_ip_csum_ok(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4_CQE_STATUS_IPV4_CSUM_OK) ==
		MLX4_CQE_STATUS_IPV4_CSUM_OK;
}

/* The 16-bit one's-complement checksum the device computed over the IP
 * payload, host order (mlx4_en en_rx.c check_csum uses it for
 * CHECKSUM_COMPLETE). */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_checksum(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be16_to_cpu(cqe->checksum);
}

/* The 48-bit completion timestamp in device clock ticks (CQs created with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP): ts_47_16 << 16 | ts_15_8 << 8 |
 * ts_7_0. Overlays sl_vid/rlid. (rdma-core cq.c
 * mlx4_cq_read_wc_completion_ts.) */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_cqe_timestamp(const struct mlx4_cqe *cqe)
{
	return (uint64_t)mlx4dv_be32_to_cpu(cqe->ts_47_16) << 16 |
		(uint64_t)cqe->ts_15_8 << 8 | cqe->ts_7_0;
}

/* WQE index, host order, 16 bits (wraps at 65536): for a send the WQE
 * counter (first WQEBB) of the last completed WQE; for an SRQ receive the
 * SRQ WQE used; not meaningful for a plain RQ receive (RQ completions come
 * in order). Same offset in an error CQE. */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_wqe_index(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be16_to_cpu(cqe->wqe_index);
}

/*
 * mlx4dv_cqe_wc_flags - the ibv_wc.wc_flags libmlx4 reports for a good
 * CQE. Sends: IBV_WC_WITH_IMM for RDMA_WRITE_IMM and SEND_IMM. Receives:
 * IBV_WC_WITH_IMM (RDMA_WRITE_IMM, SEND_IMM) or IBV_WC_WITH_INV
 * (SEND_INVAL), IBV_WC_GRH, and IBV_WC_IP_CSUM_OK when rx_flags has
 * MLX4DV_CQE_RX_CSUM_VALID and mlx4dv_cqe_ip_csum_ok(). rx_flags: enum
 * mlx4dv_cqe_rx_flags. 0 for an error CQE (libmlx4 leaves wc_flags unset).
 */
static MLX4DV_ALWAYS_INLINE unsigned int
mlx4dv_cqe_wc_flags(const struct mlx4_cqe *cqe, uint32_t rx_flags)
{
	unsigned int flags = 0;
	uint8_t op = mlx4dv_cqe_opcode(cqe);

	if (op == MLX4_CQE_OPCODE_ERROR)
		return 0;
	if (mlx4dv_cqe_is_send(cqe))
		return (op == MLX4_OPCODE_RDMA_WRITE_IMM ||
			op == MLX4_OPCODE_SEND_IMM) ? IBV_WC_WITH_IMM : 0;

	if (op == MLX4_RECV_OPCODE_RDMA_WRITE_IMM ||
	    op == MLX4_RECV_OPCODE_SEND_IMM)
		flags = IBV_WC_WITH_IMM;
	else if (op == MLX4_RECV_OPCODE_SEND_INVAL)
		flags = IBV_WC_WITH_INV;
	if (mlx4dv_cqe_has_grh(cqe))
		flags |= IBV_WC_GRH;
	if ((rx_flags & MLX4DV_CQE_RX_CSUM_VALID) && mlx4dv_cqe_ip_csum_ok(cqe))
		flags |= IBV_WC_IP_CSUM_OK;
	return flags;
}

/*
 * mlx4dv_cqe_to_wc - fill *wc from a CQE exactly as libmlx4's ibv_poll_cq
 * does (rdma-core cq.c mlx4_parse_cqe, handle_good_req), except wr_id,
 * which comes from the ring (mlx4dv_rq_complete(), mlx4dv_srq_complete(),
 * mlx4dv_sq_complete_cqe()) and is left alone here.
 *
 * rx_flags: enum mlx4dv_cqe_rx_flags of the QP the CQE belongs to.
 * Written fields, as libmlx4 writes them:
 *  - always: qp_num, status;
 *  - error CQE: vendor_err; nothing else;
 *  - good send: opcode, wc_flags; byte_len for RDMA READ (byte count) and
 *    atomics (8) only;
 *  - good receive: opcode, wc_flags, byte_len, imm_data (IMM opcodes) or
 *    invalidated_rkey (SEND_INVAL), slid, src_qp, dlid_path_bits,
 *    pkey_index, sl.
 * Fields not listed keep their previous value, as with libmlx4, so zero
 * *wc first when every field is read. One difference: for SEND_INVAL
 * libmlx4 ORs IBV_WC_WITH_INV into the previous wc_flags; this stores the
 * flags, which is the same on a zeroed wc.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_cqe_to_wc(const struct mlx4_cqe *cqe, uint32_t rx_flags,
		 struct ibv_wc *wc)
{
	uint8_t op = mlx4dv_cqe_opcode(cqe);

	wc->qp_num = mlx4dv_cqe_qpn(cqe);
	if (op == MLX4_CQE_OPCODE_ERROR) {
		wc->status = mlx4dv_cqe_syndrome_to_wc_status(mlx4dv_cqe_syndrome(cqe));
		wc->vendor_err = mlx4dv_cqe_vendor_syndrome(cqe);
		return;
	}
	wc->status = IBV_WC_SUCCESS;
	wc->wc_flags = mlx4dv_cqe_wc_flags(cqe, rx_flags);
	if (mlx4dv_cqe_is_send(cqe)) {
		wc->opcode = mlx4dv_cqe_wc_opcode(cqe);
		if (op == MLX4_OPCODE_RDMA_READ)
			wc->byte_len = mlx4dv_cqe_byte_len(cqe);
		else if (op == MLX4_OPCODE_ATOMIC_CS || op == MLX4_OPCODE_ATOMIC_FA)
			wc->byte_len = 8;
		return;
	}

	wc->byte_len = mlx4dv_cqe_byte_len(cqe);
	if (op <= MLX4_RECV_OPCODE_SEND_INVAL)
		wc->opcode = mlx4dv_cqe_wc_opcode(cqe);
	if (op == MLX4_RECV_OPCODE_RDMA_WRITE_IMM || op == MLX4_RECV_OPCODE_SEND_IMM)
		wc->imm_data = mlx4dv_cqe_imm_data(cqe);
	else if (op == MLX4_RECV_OPCODE_SEND_INVAL)
		wc->invalidated_rkey = mlx4dv_cqe_invalidated_rkey(cqe);
	wc->slid = mlx4dv_cqe_slid(cqe);
	wc->src_qp = mlx4dv_cqe_src_qp(cqe);
	wc->dlid_path_bits = mlx4dv_cqe_dlid_path_bits(cqe);
	wc->pkey_index = mlx4dv_cqe_pkey_index(cqe);
	wc->sl = mlx4dv_cqe_sl(cqe, (rx_flags & MLX4DV_CQE_RX_ETHERNET) != 0);
}

/* ---- 5.4 Arming and completion events ---------------------------------- */

/*
 * mlx4dv_cq_arm - request a completion event for the next completion
 * (solicited_only == 0: MLX4_CQ_DB_REQ_NOT) or the next solicited or error
 * completion (MLX4_CQ_DB_REQ_NOT_SOL) after cons_index.
 *
 * With sn = arm_sn & 3 and ci = cons_index & 0xffffff it writes the arm
 * record (big-endian sn << 28 | cmd | ci), issues
 * mlx4dv_barrier_to_device() so the record is in memory first, then one
 * 64-bit big-endian store of (sn << 28 | cmd | cqn) << 32 | ci to
 * uar + MLX4_CQ_DOORBELL (0x20). (rdma-core cq.c mlx4_arm_cq; kernel
 * include/linux/mlx4/cq.h mlx4_cq_arm.)
 *
 * Poll the CQ empty (and update the consumer-index record) before arming,
 * then poll once more: a completion that arrived in between raises no
 * event. After each event delivered by ibv_get_cq_event() call
 * mlx4dv_cq_ack_event() before arming again, or the device ignores the
 * arm (stale sequence number). Never mix with ibv_req_notify_cq(): libmlx4
 * arms with its own, stale consumer index and sequence number.
 * The handle's uar must be the CQ's UAR page (mlx4dv_cq.cq_uar with
 * MLX4DV_CQ_MASK_UAR).
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_cq_arm(struct mlx4dv_cq_ring *cq, int solicited_only)
{
	uint32_t sn = cq->arm_sn & 3;
	uint32_t ci = cq->cons_index & 0xffffff;
	uint32_t cmd = solicited_only ? (uint32_t)MLX4_CQ_DB_REQ_NOT_SOL :
					(uint32_t)MLX4_CQ_DB_REQ_NOT;
	uint64_t doorbell = (uint64_t)(sn << 28 | cmd | (cq->cqn & 0xffffff)) << 32 | ci;

	*(volatile __be32 *)cq->arm_db = mlx4dv_cpu_to_be32(sn << 28 | cmd | ci);
	mlx4dv_barrier_to_device();
	mlx4dv_mmio_write64_be(cq->uar + MLX4_CQ_DOORBELL,
			       mlx4dv_cpu_to_be64(doorbell));
}

/*
 * mlx4dv_cq_ack_event - account for one completion event of this CQ
 * returned by ibv_get_cq_event(): arm_sn += 1 (rdma-core cq.c
 * mlx4_cq_event). libmlx4 increments its own copy inside
 * ibv_get_cq_event(), which the handle does not see. ibv_ack_cq_events()
 * is still needed for the verbs event count; it does not touch arm_sn.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_cq_ack_event(struct mlx4dv_cq_ring *cq)
{
	cq->arm_sn++;
}

/* ---- 5.5 Receive queue (QP RQ, receive WQ of an RSS QP) ----------------- */

/* Scatter entries of RQ WQE n (free-running; slot n & (wqe_cnt - 1)). */
static MLX4DV_ALWAYS_INLINE struct mlx4_wqe_data_seg *
mlx4dv_rq_wqe(const struct mlx4dv_rq_ring *rq, uint32_t n)
{
	return (struct mlx4_wqe_data_seg *)
		(rq->buf + ((size_t)(n & (rq->wqe_cnt - 1)) << rq->wqe_shift));
}

/*
 * mlx4dv_wqe_set_scatter - write num_sge scatter entries (length, lkey,
 * addr from sg, host order, stored big-endian) and, when num_sge <
 * max_scatter, the terminating entry {0, MLX4_INVALID_LKEY, 0} that tells
 * the device where the list ends. A zero length is stored as 0, as
 * ibv_post_recv() stores it. (rdma-core qp.c _mlx4_post_recv, srq.c
 * mlx4_post_srq_recv.) The caller checked num_sge <= max_scatter.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_scatter(struct mlx4_wqe_data_seg *scat, const struct ibv_sge *sg,
		       uint32_t num_sge, uint32_t max_scatter)
{
	uint32_t i;

	for (i = 0; i < num_sge; i++) {
		scat[i].byte_count = mlx4dv_cpu_to_be32(sg[i].length);
		scat[i].lkey = mlx4dv_cpu_to_be32(sg[i].lkey);
		scat[i].addr = mlx4dv_cpu_to_be64(sg[i].addr);
	}
	if (i < max_scatter) {
		scat[i].byte_count = 0;
		scat[i].lkey = mlx4dv_cpu_to_be32(MLX4_INVALID_LKEY);
		scat[i].addr = 0;
	}
}

/*
 * mlx4dv_rq_write - write one receive WQE at head and advance head; no
 * doorbell (call mlx4dv_rq_ring_doorbell() once per batch).
 *
 * sg: num_sge entries (host order). wr_id is stored in wrid[head] when the
 * ring has a wrid table.
 * Errors: EINVAL when num_sge > max_scatter; ENOMEM when the ring
 * is full (head - tail == wqe_cnt, libmlx4's limit: max_post = wqe_cnt).
 * Nothing is written on error. (libmlx4 returns ENOMEM for too many SGEs;
 * this keeps that errno for the full ring only.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_rq_write(struct mlx4dv_rq_ring *rq, uint64_t wr_id,
		const struct ibv_sge *sg, uint32_t num_sge)
{
	if (num_sge > rq->max_scatter)
		return EINVAL;
	if (rq->head - rq->tail >= rq->wqe_cnt)
		return ENOMEM;
	mlx4dv_wqe_set_scatter(mlx4dv_rq_wqe(rq, rq->head), sg,
				  num_sge, rq->max_scatter);
	if (rq->wrid)
		rq->wrid[rq->head & (rq->wqe_cnt - 1)] = wr_id;
	rq->head++;
	return 0;
}

/*
 * mlx4dv_rq_ring_doorbell - tell the device how many WQEs were posted:
 * mlx4dv_barrier_to_device() (the WQEs first), then the doorbell record
 * <- big-endian 32-bit (head & 0xffff). (rdma-core qp.c _mlx4_post_recv.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_rq_ring_doorbell(struct mlx4dv_rq_ring *rq)
{
	mlx4dv_barrier_to_device();
	*(volatile __be32 *)rq->db = mlx4dv_cpu_to_be32(rq->head & 0xffff);
}

/* mlx4dv_rq_post - mlx4dv_rq_write() then, on success, mlx4dv_rq_ring_doorbell().
 * Same errors. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_rq_post(struct mlx4dv_rq_ring *rq, uint64_t wr_id,
	       const struct ibv_sge *sg, uint32_t num_sge)
{
	int err = mlx4dv_rq_write(rq, wr_id, sg, num_sge);

	if (!err)
		mlx4dv_rq_ring_doorbell(rq);
	return err;
}

/*
 * __mlx4dv_recv_wr_check - internal: the list posts' check of receive
 * request w on a ring of max_scatter entries per WQE, full when no WQE is
 * left for it: EINVAL (num_sge negative or above max_scatter), else
 * ENOMEM (full), else 0; on error *bad_wr (when not NULL) names w.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_recv_wr_check(const struct ibv_recv_wr *w, uint32_t max_scatter,
		       int full, const struct ibv_recv_wr **bad_wr)
{
	int err = 0;

	if (w->num_sge < 0 || (uint32_t)w->num_sge > max_scatter)
		err = EINVAL;
	else if (full)
		err = ENOMEM;
	if (err && bad_wr)
		*bad_wr = w;
	return err;
}

/*
 * mlx4dv_rq_post_list - post a list of receive work requests, with the
 * semantics of ibv_post_recv() except that it is all or nothing: the whole
 * list is checked first, and on error *bad_wr (when bad_wr is not NULL)
 * names the offending request and nothing is written. One doorbell record
 * write for the list. Errors: EINVAL (num_sge), ENOMEM (the list does not
 * fit: head - tail + requests > wqe_cnt).
 */
static inline int
mlx4dv_rq_post_list(struct mlx4dv_rq_ring *rq, const struct ibv_recv_wr *wr,
		    const struct ibv_recv_wr **bad_wr)
{
	const struct ibv_recv_wr *w;
	uint32_t room = rq->wqe_cnt - (rq->head - rq->tail);
	uint32_t n = 0;

	for (w = wr; w; w = w->next, n++) {
		int err = __mlx4dv_recv_wr_check(w, rq->max_scatter, n >= room,
						 bad_wr);

		if (err)
			return err;
	}
	for (w = wr; w; w = w->next)
		(void)mlx4dv_rq_write(rq, w->wr_id, w->sg_list,
				      (uint32_t)w->num_sge);
	if (n)
		mlx4dv_rq_ring_doorbell(rq);
	return 0;
}

/*
 * mlx4dv_rq_complete - account for a receive CQE (good or error/flush) of
 * this ring: RQ completions come in posting order, so the WQE is the one
 * at tail; *wr_id (when wr_id is not NULL) gets wrid[tail] (0 without a
 * wrid table) and tail advances by one. (rdma-core cq.c mlx4_parse_cqe.)
 * Errors: EINVAL when the CQE is a send completion or its QPN is not
 * qpn; ERANGE when no WQE is outstanding (head == tail). The ring is
 * unchanged on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_rq_complete(struct mlx4dv_rq_ring *rq, const struct mlx4_cqe *cqe,
		   uint64_t *wr_id)
{
	if (mlx4dv_cqe_is_send(cqe) || mlx4dv_cqe_qpn(cqe) != rq->qpn)
		return EINVAL;
	if (rq->head == rq->tail)
		return ERANGE;
	if (wr_id)
		*wr_id = rq->wrid ? rq->wrid[rq->tail & (rq->wqe_cnt - 1)] : 0;
	rq->tail++;
	return 0;
}

/* ---- 5.6 Shared receive queue ----------------------------------------- */

/* SRQ WQE number index (0 .. wqe_cnt - 1): the 16-byte next segment, then
 * the scatter entries. */
static MLX4DV_ALWAYS_INLINE struct mlx4_wqe_srq_next_seg *
mlx4dv_srq_wqe(const struct mlx4dv_srq_ring *srq, uint32_t index)
{
	return (struct mlx4_wqe_srq_next_seg *)
		(srq->buf + ((size_t)(index & (srq->wqe_cnt - 1)) << srq->wqe_shift));
}

/*
 * mlx4dv_srq_write - take the free WQE at head, write its scatter entries,
 * and count it; no doorbell (mlx4dv_srq_ring_doorbell() once per batch).
 *
 * The free WQEs form a list through next_wqe_index (big-endian 16 bits);
 * head moves to the next free WQE. wr_id goes to wrid[index] when the ring
 * has a wrid table. (rdma-core srq.c mlx4_post_srq_recv.)
 * Errors: EINVAL when num_sge > max_scatter; ENOMEM when the SRQ is
 * full (head == tail: the last free WQE is never handed out). Nothing is
 * written on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_srq_write(struct mlx4dv_srq_ring *srq, uint64_t wr_id,
		 const struct ibv_sge *sg, uint32_t num_sge)
{
	struct mlx4_wqe_srq_next_seg *next;
	uint32_t index = srq->head;

	if (num_sge > srq->max_scatter)
		return EINVAL;
	if (index == srq->tail)
		return ENOMEM;
	next = mlx4dv_srq_wqe(srq, index);
	/* Masked: a corrupted link cannot send head out of the buffer. */
	srq->head = mlx4dv_be16_to_cpu(next->next_wqe_index) & (srq->wqe_cnt - 1);
	mlx4dv_wqe_set_scatter((struct mlx4_wqe_data_seg *)(next + 1), sg,
				  num_sge, srq->max_scatter);
	if (srq->wrid)
		srq->wrid[index & (srq->wqe_cnt - 1)] = wr_id;
	srq->counter++;
	return 0;
}

/*
 * mlx4dv_srq_ring_doorbell - mlx4dv_barrier_to_device() (the WQEs first), then
 * the doorbell record <- big-endian 32-bit (counter & 0xffff), the number
 * of WQEs ever posted modulo 2^16. (rdma-core srq.c mlx4_post_srq_recv;
 * libmlx4's counter is a uint16_t.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_srq_ring_doorbell(struct mlx4dv_srq_ring *srq)
{
	mlx4dv_barrier_to_device();
	*(volatile __be32 *)srq->db = mlx4dv_cpu_to_be32(srq->counter & 0xffff);
}

/* mlx4dv_srq_post - mlx4dv_srq_write() then, on success,
 * mlx4dv_srq_ring_doorbell(). Same errors. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_srq_post(struct mlx4dv_srq_ring *srq, uint64_t wr_id,
		const struct ibv_sge *sg, uint32_t num_sge)
{
	int err = mlx4dv_srq_write(srq, wr_id, sg, num_sge);

	if (!err)
		mlx4dv_srq_ring_doorbell(srq);
	return err;
}

/*
 * mlx4dv_srq_post_list - ibv_post_srq_recv() semantics, all or nothing:
 * the list is checked first (SGE counts, and the free list walked to see
 * that every request gets a WQE before head reaches tail); on error
 * *bad_wr (when not NULL) names the offending request and nothing is
 * written. One doorbell record write. Errors: EINVAL, ENOMEM.
 */
static inline int
mlx4dv_srq_post_list(struct mlx4dv_srq_ring *srq, const struct ibv_recv_wr *wr,
		     const struct ibv_recv_wr **bad_wr)
{
	const struct ibv_recv_wr *w;
	uint32_t index = srq->head;
	uint32_t n = 0;

	for (w = wr; w; w = w->next, n++) {
		int err = __mlx4dv_recv_wr_check(w, srq->max_scatter,
						 index == srq->tail || n >= srq->wqe_cnt,
						 bad_wr);

		if (err)
			return err;
		index = mlx4dv_be16_to_cpu(mlx4dv_srq_wqe(srq, index)->next_wqe_index) &
			(srq->wqe_cnt - 1);
	}
	for (w = wr; w; w = w->next)
		(void)mlx4dv_srq_write(srq, w->wr_id, w->sg_list,
				       (uint32_t)w->num_sge);
	if (n)
		mlx4dv_srq_ring_doorbell(srq);
	return 0;
}

/*
 * mlx4dv_srq_wqe_is_free - 1 when SRQ WQE index is on the free list
 * (head .. tail), that is, not posted; a walk of up to wqe_cnt links.
 *
 * mlx4dv_srq_free_wqe - give SRQ WQE index back to the free list: it is
 * linked after tail (the tail WQE's next_wqe_index <- big-endian index)
 * and becomes the new tail, as libmlx4 does for each receive completion
 * (rdma-core srq.c mlx4_free_srq_wqe). No barrier is needed: the device
 * does not read the free list.
 * Precondition: index is a WQE handed out by mlx4dv_srq_write() and not
 * released since (one release per receive completion). Releasing a WQE
 * that is on the free list already links it twice and cuts the list;
 * telling that apart costs a walk of the list, so only a build with
 * MLX4DV_DEBUG checks it (mlx4dv_srq_wqe_is_free(), asserted).
 * Errors: ERANGE when index >= wqe_cnt; EINVAL when index is the tail (it
 * is free already). Nothing is written on error.
 */
static inline int
mlx4dv_srq_wqe_is_free(const struct mlx4dv_srq_ring *srq, uint32_t index)
{
	uint32_t at = srq->head, n;

	/* head .. tail through next_wqe_index: at most wqe_cnt links. */
	for (n = 0; n < srq->wqe_cnt; n++) {
		if (at == index)
			return 1;
		if (at == srq->tail)
			return 0;
		at = mlx4dv_be16_to_cpu(mlx4dv_srq_wqe(srq, at)->next_wqe_index) &
		     (srq->wqe_cnt - 1);
	}
	return 0;
}

static MLX4DV_ALWAYS_INLINE int
mlx4dv_srq_free_wqe(struct mlx4dv_srq_ring *srq, uint32_t index)
{
	if (index >= srq->wqe_cnt)
		return ERANGE;
	if (index == srq->tail)
		return EINVAL;
	MLX4DV_ASSERT(!mlx4dv_srq_wqe_is_free(srq, index));
	mlx4dv_srq_wqe(srq, srq->tail)->next_wqe_index =
		mlx4dv_cpu_to_be16((uint16_t)index);
	srq->tail = index;
	return 0;
}

/*
 * mlx4dv_srq_complete - account for a receive CQE (good or error/flush)
 * whose QP receives from this SRQ: the CQE's wqe_index names the WQE;
 * *wr_id (when not NULL) gets wrid[wqe_index] (0 without a wrid table) and
 * the WQE is released (mlx4dv_srq_free_wqe()). The QPN is the receiving
 * QP's, so the caller chose the SRQ. (rdma-core cq.c mlx4_parse_cqe.)
 * Errors: EINVAL for a send CQE or a WQE that is the tail; ERANGE when
 * wqe_index >= wqe_cnt. Nothing changes on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_srq_complete(struct mlx4dv_srq_ring *srq, const struct mlx4_cqe *cqe,
		    uint64_t *wr_id)
{
	uint32_t index = mlx4dv_cqe_wqe_index(cqe);
	int err;

	if (mlx4dv_cqe_is_send(cqe))
		return EINVAL;
	err = mlx4dv_srq_free_wqe(srq, index);
	if (err)
		return err;
	if (wr_id)
		*wr_id = srq->wrid ? srq->wrid[index] : 0;
	return 0;
}

/* ---- 5.7 Send completions and ibv_wc-style polling ---------------------- */

/*
 * mlx4dv_sq_complete_cqe - account for a send CQE (good or error/flush) of
 * this SQ: checks that the CQE is a send completion of qpn, then applies
 * mlx4dv_sq_complete() (Part 4) to its wqe_index, the 16-bit WQE counter
 * (first WQEBB) of the last WQE it completes. WQEs posted before it
 * without a completion request complete with it; tail passes the named
 * WQE by its size in WQEBBs, read from its ds in the ring (so sq->buf and
 * wqe_shift must describe the ring). *wr_id (when not NULL) gets the
 * wr_id recorded for that WQE, or 0 without a wrid table.
 * (rdma-core cq.c mlx4_parse_cqe; mlx4_ib cq.c mlx4_ib_poll_one.)
 * Errors: EINVAL when the CQE is a receive or its QPN is not qpn; ERANGE
 * when wqe_index does not name an outstanding WQE (tail .. head - 1, with
 * a ds that fits). The ring is unchanged on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_complete_cqe(struct mlx4dv_sq_ring *sq, const struct mlx4_cqe *cqe,
		       uint64_t *wr_id)
{
	uint64_t id = 0;

	if (!mlx4dv_cqe_is_send(cqe) || mlx4dv_cqe_qpn(cqe) != sq->qpn)
		return EINVAL;
	if (!mlx4dv_sq_complete(sq, mlx4dv_cqe_wqe_index(cqe), &id))
		return ERANGE;
	if (wr_id)
		*wr_id = id;
	return 0;
}

/*
 * 1 when the CQE's QPN is the SQ's, compared in the byte order both carry
 * it in: the CQE word vlan_my_qpn is big-endian (QPN in its low 24 bits),
 * so its bytes 1..3 are the QPN's; doorbell_qpn is qpn << 8 big-endian,
 * bytes 0..2 the QPN's, byte 3 zero. Read as host words on a
 * little-endian CPU the first, shifted right by 8, is the second: no
 * byte swap, no mask. The portable form is the host-order compare of
 * mlx4dv_cqe_qpn() with qpn, which doorbell_qpn must agree with
 * (asserted under MLX4DV_DEBUG).
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_cqe_is_of_doorbell_qpn(const struct mlx4_cqe *cqe,
				const struct mlx4dv_sq_ring *sq)
{
	MLX4DV_ASSERT(sq->doorbell_qpn == mlx4dv_cpu_to_be32(sq->qpn << 8));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ((uint32_t)cqe->vlan_my_qpn >> 8) == (uint32_t)sq->doorbell_qpn;
#else
	return mlx4dv_cqe_qpn(cqe) == sq->qpn;
#endif
}

/*
 * mlx4dv_cq_poll_send - take the next completion of a CQ that carries
 * the send completions of one SQ: the lean form of mlx4dv_cq_next() +
 * mlx4dv_cqe_is_error() + mlx4dv_sq_complete_cqe() for the common case.
 *
 * wr_id:   out, may be NULL: the wr_id recorded for the completed WQE
 *          (0 when sq->wrid is NULL). Written only when 0 is returned.
 * Returns 0 when a good send CQE of sq->qpn was taken: cq->cons_index
 * advanced by one and sq->tail moved past the WQE it names (as
 * mlx4dv_sq_complete()). The consumer-index record is NOT written: call
 * mlx4dv_cq_update_ci() after one or more takes (before the CQ can fill).
 * Returns EAGAIN when software does not own the next CQE (CQ empty).
 * Returns another errno and consumes nothing, changes nothing, when the
 * next CQE is software-owned but not a good completion of this SQ:
 *  EIO      an error CQE (flushes included). Take it with
 *           mlx4dv_cq_next(), read mlx4dv_cqe_syndrome() and account it
 *           with mlx4dv_sq_complete_cqe().
 *  EINVAL   a receive CQE, a send CQE of another QPN (compared with
 *           sq->doorbell_qpn, which must be qpn << 8 big-endian, as
 *           mlx4dv_sq_ring_init() sets it), or opcode 0x1f (no CQE
 *           opcode).
 *  ERANGE   its wqe_index names no outstanding WQE (a stale or foreign
 *           CQE; see mlx4dv_sq_complete()).
 * Ordering: the owner test comes first, then mlx4dv_barrier_from_device(),
 * then the other CQE fields are read. The opcode and send bits share the
 * owner's byte and are taken from the same one-byte load (a byte is
 * written by the device in one piece).
 * (rdma-core cq.c get_sw_cqe, mlx4_parse_cqe; PRM CQE owner_sr_opcode.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cq_poll_send(struct mlx4dv_cq_ring *cq, struct mlx4dv_sq_ring *sq,
		    uint64_t *wr_id)
{
	uint32_t ci = cq->cons_index;
	size_t size = cq->cqe_size;
	const uint8_t *slot = cq->buf + (size_t)(ci & (cq->cqe_cnt - 1)) * size;
	/* The last byte, sign-extended: bit 31 (and 7..30) is the owner bit,
	 * bits 0..6 are the send bit and the opcode. */
	int32_t last = (int8_t)__atomic_load_n(slot + size - 1, __ATOMIC_RELAXED);
	const struct mlx4_cqe *cqe;
	uint32_t tail, start, kind;
	uint64_t id = 0;

	/* The owner test of mlx4dv_cq_peek() on the loaded byte. */
	if (((uint32_t)(last >> 7) ^ ci) & cq->cqe_cnt)
		return EAGAIN;
	mlx4dv_barrier_from_device();
	cqe = (const struct mlx4_cqe *)(slot + size - sizeof(struct mlx4_cqe));
	/* One range test for "a send CQE with an opcode below the error
	 * opcode": subtracting the send bit clears it in a send CQE and
	 * borrows into it in a receive, so after the mask a send is its
	 * opcode (an error 0x1e; 0x1f is not a CQE opcode) and a receive is
	 * 0x40 or more. The rare cases are told apart afterwards, from the
	 * CQE in memory, so that the loaded byte has no third use that
	 * would keep a copy of it in a register. */
	kind = ((uint32_t)last - MLX4_CQE_IS_SEND_MASK) &
	       (MLX4_CQE_IS_SEND_MASK | MLX4_CQE_OPCODE_MASK);
	if (__MLX4DV_UNLIKELY(kind >= MLX4_CQE_OPCODE_ERROR))
		return mlx4dv_cqe_opcode(cqe) == MLX4_CQE_OPCODE_ERROR ?
		       EIO : EINVAL;
	if (!__mlx4dv_cqe_is_of_doorbell_qpn(cqe, sq))
		return EINVAL;
	/* mlx4dv_sq_complete() with its one-WQEBB branch written out. start
	 * is the named WQEBB, tail + 0..65535. It is outstanding when
	 * start - head is negative as a signed 32-bit number: the same test
	 * as start - tail < head - tail, because head - tail <= wqe_cnt
	 * (far below 2^31) and start - tail < 2^16. */
	if (__MLX4DV_LIKELY(sq->single_wqebb & 1)) {
		tail = sq->tail;
		start = tail + (uint16_t)(mlx4dv_be16_to_cpu(cqe->wqe_index) -
					  (uint16_t)tail);
		if ((int32_t)(start - sq->head) >= 0)
			return ERANGE;
		if (sq->wrid)
			id = sq->wrid[start & (sq->wqe_cnt - 1)];
		sq->tail = start + 1;
	} else {
		__MLX4DV_RARE_PATH();
		if (!__mlx4dv_sq_complete_sized(sq, mlx4dv_cqe_wqe_index(cqe),
						&id, 0))
			return ERANGE;
	}
	cq->cons_index = ci + 1;
	if (wr_id)
		*wr_id = id;
	return 0;
}

/*
 * The software-owned CQE at cq->cons_index and the last byte it was
 * judged by (owner bit sign-extended over bits 7..31, send bit and opcode
 * in bits 0..6), or NULL when the device owns it. After a non-NULL
 * return mlx4dv_barrier_from_device() has been issued, so the other
 * fields may be read. The common head of the mlx4dv_cq_poll_* takes.
 */
static MLX4DV_ALWAYS_INLINE const struct mlx4_cqe *
__mlx4dv_cq_poll_head(const struct mlx4dv_cq_ring *cq, int32_t *last_out)
{
	const struct mlx4_cqe *cqe;
	uint32_t ci = cq->cons_index;
	size_t size = cq->cqe_size;
	const uint8_t *slot = cq->buf + (size_t)(ci & (cq->cqe_cnt - 1)) * size;
	int32_t last = (int8_t)__atomic_load_n(slot + size - 1, __ATOMIC_RELAXED);

	if (((uint32_t)(last >> 7) ^ ci) & cq->cqe_cnt)
		return NULL;
	mlx4dv_barrier_from_device();
	*last_out = last;
	cqe = (const struct mlx4_cqe *)(slot + size - sizeof(struct mlx4_cqe));
	__MLX4DV_ASSUME(cqe != NULL);
	return cqe;
}

/*
 * 0 when the last byte of a CQE (as __mlx4dv_cq_poll_head() gives it) is a
 * good receive completion: the send bit clear and a receive opcode
 * (RDMA_WRITE_IMM, SEND, SEND_IMM, SEND_INVAL: 0..3), one compare;
 * else the errno of the mlx4dv_cq_poll_recv*() takes.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_cq_recv_kind(int32_t last)
{
	uint32_t op = (uint32_t)last & (MLX4_CQE_IS_SEND_MASK | MLX4_CQE_OPCODE_MASK);

	if (__MLX4DV_LIKELY(op <= MLX4_RECV_OPCODE_SEND_INVAL))
		return 0;
	return op == MLX4_CQE_OPCODE_ERROR ? EIO : EINVAL;
}

/*
 * mlx4dv_cq_poll_recv - take the next completion of a CQ that carries the
 * receive completions of one RQ (the RQ of a QP, or a receive WQ of an
 * RSS QP): the receive twin of mlx4dv_cq_poll_send(), the lean form of
 * mlx4dv_cq_next() + mlx4dv_cqe_is_error() + mlx4dv_rq_complete() +
 * mlx4dv_cqe_byte_len() for the common case.
 *
 * wr_id:    out, may be NULL: the wr_id posted with the WQE (0 when
 *           rq->wrid is NULL).
 * byte_len: out, may be NULL: bytes received, host order (a UD receive
 *           counts the 40-byte GRH room too, as ibv_wc.byte_len does).
 * cqe:      out, may be NULL: the CQE taken, for the fields this call does
 *           not decode (mlx4dv_cqe_opcode(), mlx4dv_cqe_imm_data(),
 *           mlx4dv_cqe_wc_flags(), mlx4dv_cqe_src_qp(), ...); valid until
 *           the next mlx4dv_cq_update_ci().
 * The outputs are written only when 0 is returned.
 *
 * Returns 0 when a good receive CQE of rq->qpn was taken: cq->cons_index
 * and rq->tail advanced by one (RQ completions come in posting order).
 * The consumer-index record is NOT written: call mlx4dv_cq_update_ci()
 * after one or more takes. Returns EAGAIN when the CQ is empty. Returns
 * another errno and consumes nothing, changes nothing, when the next
 * CQE is software-owned but not a good receive of this RQ:
 *  EIO      an error CQE (flushes included): take it with
 *           mlx4dv_cq_next() and account it with mlx4dv_rq_complete()
 *           (or mlx4dv_sq_complete_cqe() for a send's);
 *  EINVAL   a send CQE, a CQE of another QPN, an opcode no receive has;
 *  ERANGE   no WQE of the RQ is outstanding (head == tail).
 * Ordering as mlx4dv_cq_poll_send(): owner test, then
 * mlx4dv_barrier_from_device(), then the other fields.
 * (rdma-core cq.c get_sw_cqe, mlx4_parse_cqe.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cq_poll_recv(struct mlx4dv_cq_ring *cq, struct mlx4dv_rq_ring *rq,
		    uint64_t *wr_id, uint32_t *byte_len,
		    const struct mlx4_cqe **cqe_out)
{
	int32_t last = 0;
	const struct mlx4_cqe *cqe = __mlx4dv_cq_poll_head(cq, &last);
	uint32_t tail;
	int err;

	if (!cqe)
		return EAGAIN;
	err = __mlx4dv_cq_recv_kind(last);
	if (__MLX4DV_UNLIKELY(err))
		return err;
	if (mlx4dv_cqe_qpn(cqe) != rq->qpn)
		return EINVAL;
	tail = rq->tail;
	if (__MLX4DV_UNLIKELY(tail == rq->head))
		return ERANGE;
	if (wr_id)
		*wr_id = rq->wrid ? rq->wrid[tail & (rq->wqe_cnt - 1)] : 0;
	if (byte_len)
		*byte_len = mlx4dv_be32_to_cpu(cqe->byte_cnt);
	if (cqe_out)
		*cqe_out = cqe;
	rq->tail = tail + 1;
	cq->cons_index++;
	return 0;
}

/*
 * mlx4dv_cq_poll_srq_recv - mlx4dv_cq_poll_recv() for a CQ whose receive
 * completions come from QPs that receive from one SRQ (XRC SRQs
 * included): the CQE's wqe_index names the SRQ WQE, whose wr_id is
 * returned and which goes back to the free list (mlx4dv_srq_free_wqe()).
 * The QPN is the receiving QP's and is not checked: the CQ must carry
 * only receives of QPs on this SRQ (and sends, which are refused).
 * Returns 0, EAGAIN, or EIO / EINVAL (a send CQE, an opcode no receive
 * has, a wqe_index that is the SRQ's tail) / ERANGE (wqe_index >=
 * wqe_cnt) with nothing consumed, as mlx4dv_cq_poll_recv(). Same outputs.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cq_poll_srq_recv(struct mlx4dv_cq_ring *cq, struct mlx4dv_srq_ring *srq,
			uint64_t *wr_id, uint32_t *byte_len,
			const struct mlx4_cqe **cqe_out)
{
	int32_t last = 0;
	const struct mlx4_cqe *cqe = __mlx4dv_cq_poll_head(cq, &last);
	uint32_t index;
	int err;

	if (!cqe)
		return EAGAIN;
	err = __mlx4dv_cq_recv_kind(last);
	if (__MLX4DV_UNLIKELY(err))
		return err;
	index = mlx4dv_cqe_wqe_index(cqe);
	err = mlx4dv_srq_free_wqe(srq, index);
	if (__MLX4DV_UNLIKELY(err))
		return err;
	if (wr_id)
		*wr_id = srq->wrid ? srq->wrid[index] : 0;
	if (byte_len)
		*byte_len = mlx4dv_be32_to_cpu(cqe->byte_cnt);
	if (cqe_out)
		*cqe_out = cqe;
	cq->cons_index++;
	return 0;
}

/*
 * One QP (or receive WQ, or XRC SRQ) whose completions a CQ carries, for
 * mlx4dv_cq_poll_wc().
 *
 * qpn:      the number the CQEs carry: QPN, WQ number, or for an XRC SRQ
 *           its SRQ number (XRC receive CQEs are matched by SRQ number,
 *           as libmlx4 does).
 * rx_flags: enum mlx4dv_cqe_rx_flags of the QP.
 * sq:       its send queue, or NULL.
 * rq:       its receive queue, or NULL.
 * srq:      the SRQ its receives use, or NULL (then rq is used).
 */
struct mlx4dv_poll_qp {
	uint32_t		qpn;
	uint32_t		rx_flags;
	struct mlx4dv_sq_ring	*sq;
	struct mlx4dv_rq_ring	*rq;
	struct mlx4dv_srq_ring	*srq;
};

/*
 * mlx4dv_cqe_complete_wc - apply one CQE to the rings of its QP and fill
 * *wc as libmlx4's ibv_poll_cq would (mlx4dv_cqe_to_wc() plus wr_id).
 * qps: nqps entries, searched for the CQE's QPN (for an XRC receive: its
 * SRQ number).
 * Errors: EINVAL when no entry matches, or the entry lacks the queue the
 * CQE completes on, or the ring refuses it; ERANGE when its index is out
 * of range (see the *_complete functions). Nothing changes on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_complete_wc(const struct mlx4_cqe *cqe,
		       const struct mlx4dv_poll_qp *qps, uint32_t nqps,
		       struct ibv_wc *wc)
{
	const struct mlx4dv_poll_qp *e = NULL;
	uint32_t key = mlx4dv_cqe_qpn(cqe);
	int send = mlx4dv_cqe_is_send(cqe);
	uint32_t i;
	int err;

	if (!send && (key & MLX4DV_CQE_XRC_QPN_BIT))
		key = mlx4dv_cqe_src_qp(cqe);
	for (i = 0; i < nqps; i++) {
		if (qps[i].qpn == key) {
			e = &qps[i];
			break;
		}
	}
	if (!e)
		return EINVAL;
	if (send)
		err = e->sq ? mlx4dv_sq_complete_cqe(e->sq, cqe, &wc->wr_id) : EINVAL;
	else if (e->srq)
		err = mlx4dv_srq_complete(e->srq, cqe, &wc->wr_id);
	else
		err = e->rq ? mlx4dv_rq_complete(e->rq, cqe, &wc->wr_id) : EINVAL;
	if (err)
		return err;
	mlx4dv_cqe_to_wc(cqe, e->rx_flags, wc);
	return 0;
}

/*
 * mlx4dv_cq_poll_wc - ibv_poll_cq() on a CQ handle: up to ne completions
 * into wc[0 .. ne-1], wr_id from the rings' wrid tables, ring tails
 * advanced, SRQ WQEs released, and the consumer-index record written once
 * behind mlx4dv_barrier_release_to_device().
 *
 * polled: out, the number of completions written to wc (0 unless 0 is
 *         returned).
 * Returns 0 when at least one completion was taken; EAGAIN when the CQ is
 * empty (or ne is 0); or the errno of mlx4dv_cqe_complete_wc() when the
 * FIRST pending CQE cannot be applied: that CQE is then consumed so that
 * polling goes on (mlx4dv_cq_peek() shows it beforehand). A bad CQE after
 * good ones ends the batch; the next call reports it. (libmlx4 drops the
 * whole batch there.)
 */
static inline int
mlx4dv_cq_poll_wc(struct mlx4dv_cq_ring *cq, const struct mlx4dv_poll_qp *qps,
		  uint32_t nqps, uint32_t ne, struct ibv_wc *wc,
		  uint32_t *polled)
{
	uint32_t n = 0;
	int err = 0;

	while (n < ne) {
		const struct mlx4_cqe *cqe = mlx4dv_cq_peek(cq);

		if (!cqe)
			break;
		err = mlx4dv_cqe_complete_wc(cqe, qps, nqps, &wc[n]);
		if (err) {
			if (n == 0)
				cq->cons_index++;
			break;
		}
		cq->cons_index++;
		n++;
	}
	if (n || err)
		mlx4dv_cq_update_ci(cq);
	*polled = n;
	if (n)
		return 0;
	return err ? err : EAGAIN;
}

/* ---- 5.8 Completion timestamps ---------------------------------------- */
/*
 * A CQ created with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP (ibv_create_cq_ex;
 * the kernel then sets IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) gets in
 * every CQE the low 48 bits of the HCA core clock at the time the device
 * wrote it, in place of sl_vid and rlid (so such a CQ reports no SLID and
 * no SL; libmlx4 refuses IBV_WC_EX_WITH_SLID/SL with it).
 * mlx4dv_cqe_timestamp() (5.3) reads those 48 bits as libmlx4's
 * ibv_wc_read_completion_ts() does. The functions below turn them into
 * time:
 *
 *  - the clock counts ticks at hca_core_clock kHz
 *    (ibv_query_device_ex() -> ibv_device_attr_ex.hca_core_clock; the
 *    kernel's mlx4_ib_query_device reports caps.hca_core_clock MHz times
 *    1000);
 *  - CQE stamps wrap at 2^48 ticks (completion_timestamp_mask
 *    0xffffffffffff, mlx4_ib_query_device), about 7.6 days at 427 MHz;
 *  - the full clock is 64 bits, read by ibv_query_rt_values_ex()
 *    (IBV_VALUES_MASK_RAW_CLOCK; libmlx4 returns the tick count in
 *    raw_clock.tv_nsec, tv_sec 0) from the clock page libmlx4 maps at
 *    offset 3 * page size of the device fd (rdma-core verbs.c
 *    mlx4_read_clock: big-endian high word, then low word, re-read while
 *    the high word moves).
 *
 * All values are host-order integers; nothing here reads the device. The
 * kernel's Ethernet driver decodes the same CQE bytes with one adjustment
 * libmlx4 does not make (mlx4_en en_clock.c mlx4_en_get_cqe_ts adds 1 to
 * bits 16..47 when bits 0..15 are 0); mlx4dv_cqe_timestamp() follows
 * libmlx4, so both APIs agree on every CQE.
 */

/* Bits of a CQE timestamp (completion_timestamp_mask); above INT_MAX, so a
 * macro. */
#define MLX4DV_CQE_TIMESTAMP_MASK	0xffffffffffffULL

/*
 * mlx4dv_ts_delta - ticks from CQE stamp `earlier` to CQE stamp `later`,
 * modulo 2^48: right whenever less than 2^48 ticks passed between them,
 * across a wrap of the 48-bit field too. Either argument may also be a
 * full clock reading (its bits above 47 are ignored).
 */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_ts_delta(uint64_t later, uint64_t earlier)
{
	return (later - earlier) & MLX4DV_CQE_TIMESTAMP_MASK;
}

/*
 * mlx4dv_ts_extend - the full 64-bit clock value of a 48-bit CQE stamp.
 *
 * clock_now is a clock reading (ibv_query_rt_values_ex()) taken after the
 * CQE was written and less than 2^48 ticks later (any time within a few
 * days); the result is the largest value <= clock_now whose low 48 bits
 * are cqe_ts, i.e. clock_now - mlx4dv_ts_delta(clock_now, cqe_ts).
 */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_ts_extend(uint64_t cqe_ts, uint64_t clock_now)
{
	return clock_now - mlx4dv_ts_delta(clock_now, cqe_ts);
}

/*
 * mlx4dv_ts_to_ns - ticks of a clock of hca_core_clock_khz kHz as
 * nanoseconds, rounded down: floor(ticks * 10^6 / khz), computed without
 * the overflow of the plain product, so exact for any ticks whose result
 * fits in 64 bits. Returns 0 when hca_core_clock_khz is 0 (the device
 * reports no clock). Example: 427 ticks at 427000 kHz are 1000 ns.
 */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_ts_to_ns(uint64_t ticks, uint64_t hca_core_clock_khz)
{
	if (!hca_core_clock_khz)
		return 0;
	return ticks / hca_core_clock_khz * 1000000u +
		ticks % hca_core_clock_khz * 1000000u / hca_core_clock_khz;
}

/*
 * mlx4dv_ns_to_ts - nanoseconds as ticks of a hca_core_clock_khz kHz
 * clock, rounded down: floor(ns * khz / 10^6), without overflow for any
 * result that fits in 64 bits and khz below 2^44 (every real clock). For
 * deadlines and budgets compared with mlx4dv_ts_delta().
 */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_ns_to_ts(uint64_t ns, uint64_t hca_core_clock_khz)
{
	return ns / 1000000u * hca_core_clock_khz +
		ns % 1000000u * hca_core_clock_khz / 1000000u;
}

/* ---- end of 5.8 -------------------------------------------------------- */

/* ======================================================================
 * Part 6. libmlx4dv: queue handles from ibverbs objects (-lmlx4dv).
 * ====================================================================== */
/*
 * The compiled unit turns ibverbs objects into the queue handles of Part 3.
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
 *    codes are returned (the function does not set errno).
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
#define MLX4DV_VERSION_MINOR	2
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
 * back to); both can be overridden with mlx4dv_set_blueflame_layout() or
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

/* Every handle of one QP. */
struct mlx4dv_qp_rings {
	struct mlx4dv_sq_ring	sq;
	struct mlx4dv_rq_ring	rq;
	struct mlx4dv_cq_ring	send_cq;
	struct mlx4dv_cq_ring	recv_cq;
	uint32_t		flags;	/* enum mlx4dv_qp_rings_flags */
};

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
 * mlx4dv_set_blueflame_layout - tell the unit the BlueFlame geometry of a
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
mlx4dv_set_blueflame_layout(struct ibv_context *context, uint32_t bf_reg_size,
			    uint32_t bf_regs_per_page);

/*
 * mlx4dv_ud_av_from_ah - the UD destination of an address handle, as
 * libmlx4 built it in ibv_create_ah(): the 32-byte address vector (PD
 * number and port in port_pd, LID, SL, rate, GRH), and on Ethernet ports
 * the resolved MAC and VLAN (0 on InfiniBand, as mlx4dv_ud_av_init()
 * leaves them). Pass it to the UD posts of Part 4; the PD
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
 * mlx4dv_pd_number - the PD number of pd (host order, 24 bits), the value
 * the UD address vector's port_pd carries (mlx4dv_ud_av_init()). Read
 * from libmlx4's own output: an address handle to a fixed destination on
 * port 1 (a LID on InfiniBand, the multicast GID ff0e::1 where a GRH is
 * required) is created, converted with mlx4dv_ud_av_from_ah() and
 * destroyed. A setup-time call.
 *
 * Errors: EINVAL (NULL), EPROTONOSUPPORT, the errno of ibv_query_port(),
 * ibv_create_ah() or mlx4dv_ud_av_from_ah(). *pdn is unchanged on error.
 */
int
mlx4dv_pd_number(struct ibv_pd *pd, uint32_t *pdn);

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_H_ */
