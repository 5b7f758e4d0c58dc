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
 * GNU C marks a declaration that uses a language extension so that
 * -Wpedantic stays quiet. Used for the anonymous structs and the trailing
 * header array rdma-core's layouts have always had.
 */
#if defined(__GNUC__)
#define MLX4DV_EXTENSION __extension__
#else
#define MLX4DV_EXTENSION
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
	MLX4DV_EXTENSION union {
		MLX4DV_EXTENSION struct {
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
int mlx4dv_init_obj(struct mlx4dv_obj *obj, uint64_t obj_type);

/* Owner bit (0x80 or 0) of a CQE; compare with the lap parity of the index. */
static MLX4DV_ALWAYS_INLINE
uint8_t mlx4dv_get_cqe_owner(struct mlx4_cqe *cqe)
{
	return cqe->owner_sr_opcode & MLX4_CQE_OWNER_MASK;
}

/* Set the owner bit (val & 0x80) of a CQE, keeping is-send and opcode. */
static MLX4DV_ALWAYS_INLINE
void mlx4dv_set_cqe_owner(struct mlx4_cqe *cqe, uint8_t val)
{
	cqe->owner_sr_opcode = (uint8_t)((val & MLX4_CQE_OWNER_MASK) |
		(cqe->owner_sr_opcode & ~MLX4_CQE_OWNER_MASK));
}

/* CQE opcode (low 5 bits): MLX4_OPCODE_* for sends, MLX4_RECV_OPCODE_* for
 * receives, MLX4_CQE_OPCODE_ERROR or MLX4_CQE_OPCODE_RESIZE. */
static MLX4DV_ALWAYS_INLINE
uint8_t mlx4dv_get_cqe_opcode(struct mlx4_cqe *cqe)
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
 * The following constants exceed INT_MAX, which ISO C does not allow for
 * an enumerator; they are macros here with the same names, values and
 * type (a 4-byte unsigned int, as GCC types rdma-core's enumerators).
 */
#define MLX4_WQE_BIND_TYPE_2		(1U << 31)
enum {
	MLX4_WQE_BIND_ZERO_BASED	= (1<<30),
};

#define MLX4_INLINE_SEG			(1U << 31)
enum {
	MLX4_INLINE_ALIGN	= 64,
};

enum {
	MLX4_INVALID_LKEY	= 0x100,
};

enum {
	MLX4_WQE_MW_REMOTE_READ   = 1 << 29,
	MLX4_WQE_MW_REMOTE_WRITE  = 1 << 30,
};
#define MLX4_WQE_MW_ATOMIC		(1U << 31)

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
	MLX4DV_EXTENSION union {
		MLX4DV_EXTENSION struct {
			uint8_t			reserved[3];
			uint8_t			fence_size;
		};
		__be32		bf_qpn;
	};
	MLX4DV_EXTENSION union {
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
	MLX4DV_EXTENSION __be32	header[0];
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
struct ibv_qp *mlx4dv_create_qp(struct ibv_context *context,
				struct ibv_qp_init_attr_ex *attr,
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
static MLX4DV_ALWAYS_INLINE __be16 mlx4dv_cpu_to_be16(uint16_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be16)__builtin_bswap16(v);
#else
	return (__be16)v;
#endif
}

static MLX4DV_ALWAYS_INLINE __be32 mlx4dv_cpu_to_be32(uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be32)__builtin_bswap32(v);
#else
	return (__be32)v;
#endif
}

static MLX4DV_ALWAYS_INLINE __be64 mlx4dv_cpu_to_be64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be64)__builtin_bswap64(v);
#else
	return (__be64)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint16_t mlx4dv_be16_to_cpu(__be16 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16((uint16_t)v);
#else
	return (uint16_t)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint32_t mlx4dv_be32_to_cpu(__be32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32((uint32_t)v);
#else
	return (uint32_t)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint64_t mlx4dv_be64_to_cpu(__be64 v)
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
static MLX4DV_ALWAYS_INLINE
void mlx4dv_set_ctrl_seg(struct mlx4_wqe_ctrl_seg *seg, uint32_t owner_opcode,
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
static MLX4DV_ALWAYS_INLINE
void mlx4dv_set_dgram_seg(struct mlx4_wqe_datagram_seg *seg, uint32_t port_pd,
			  uint8_t g_slid, uint16_t dlid, uint8_t gid_index,
			  uint8_t stat_rate, uint8_t hop_limit, uint32_t
			  sl_tclass_flowlabel, uint8_t *dgid, uint32_t dqpn,
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
static MLX4DV_ALWAYS_INLINE
void mlx4dv_set_data_seg(struct mlx4_wqe_data_seg *seg,
			 uint32_t length, uint32_t lkey,
			 uintptr_t address)
{
	seg->byte_count = mlx4dv_cpu_to_be32(length);
	seg->lkey       = mlx4dv_cpu_to_be32(lkey);
	seg->addr       = mlx4dv_cpu_to_be64(address);
}

/* Query mlx4-specific device attributes. Exported by libmlx4
 * (providers/mlx4/verbs.c). Returns 0 or an errno value. */
int mlx4dv_query_device(struct ibv_context *ctx_in,
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
int mlx4dv_set_context_attr(struct ibv_context *context,
			    enum mlx4dv_set_ctx_attr_type attr_type,
			    void *attr);

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
 * The instruction per architecture is the one rdma-core uses in
 * util/udma_barrier.h and util/mmio.h (rdma-core 44.0), except the x86-64
 * load barrier: x86-TSO never reorders loads with older loads on
 * write-back memory (Intel SDM vol. 3, 8.2.2), so a compiler barrier is
 * enough there, as in DPDK's rte_io_rmb().
 */
#if defined(__x86_64__)
#define MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("sfence" ::: "memory")
#elif defined(__aarch64__)
#define MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("dmb oshst" ::: "memory")
#define MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("dmb oshld" ::: "memory")
#define MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("dsb st" ::: "memory")
#elif defined(__PPC64__)
#define MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#define MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("lwsync" ::: "memory")
#define MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("sync" ::: "memory")
#else
#error "mlx4dv.h: no device barriers defined for this architecture (x86-64, aarch64 and ppc64le are supported)"
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
static MLX4DV_ALWAYS_INLINE void mlx4dv_barrier_to_device(void)
{
	MLX4DV_BARRIER_TO_DEVICE();
}

/*
 * mlx4dv_barrier_from_device - no later load is performed before the
 * earlier ones.
 *
 * Protects: the CQE owner-bit test before reading the rest of the CQE.
 */
static MLX4DV_ALWAYS_INLINE void mlx4dv_barrier_from_device(void)
{
	MLX4DV_BARRIER_FROM_DEVICE();
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
static MLX4DV_ALWAYS_INLINE void mlx4dv_wc_flush(void)
{
	MLX4DV_BARRIER_WC_FLUSH();
}

/*
 * mlx4dv_mmio_write32_be - one 32-bit store of an already big-endian value
 * to a device register (reg: 4-byte aligned, in the UAR page). Used for the
 * send doorbell: UAR + MLX4_SEND_DOORBELL <- doorbell_qpn. The caller
 * issues mlx4dv_barrier_to_device() first.
 */
static MLX4DV_ALWAYS_INLINE void mlx4dv_mmio_write32_be(void *reg, __be32 val)
{
	*(volatile __be32 *)reg = val;
}

/*
 * mlx4dv_mmio_write64_be - one 64-bit store of an already big-endian value
 * to a device register (reg: 8-byte aligned). Used for the CQ arm doorbell
 * at UAR + MLX4_CQ_DOORBELL, which the device must see as one write. The
 * caller issues mlx4dv_barrier_to_device() first.
 */
static MLX4DV_ALWAYS_INLINE void mlx4dv_mmio_write64_be(void *reg, __be64 val)
{
	*(volatile __be64 *)reg = val;
}

/*
 * mlx4dv_wc_copy64 - copy one 64-byte block to write-combining device
 * memory as eight ordered 64-bit stores (dst and src 8-byte aligned; dst
 * 64-byte aligned for the device to see one burst).
 *
 * Not memcpy(): a string copy (rep movs) may write out of order or in
 * pieces the BlueFlame buffer does not accept (rdma-core util/mmio.h).
 * The caller flushes with mlx4dv_wc_flush() after the last block.
 */
static MLX4DV_ALWAYS_INLINE void mlx4dv_wc_copy64(void *dst, const void *src)
{
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
}

/* ======================================================================
 * Part 3. Queue handles.
 * ====================================================================== */
/*
 * A queue handle is a plain struct holding everything the inline data path
 * needs: the ring geometry, free-running counters, and the addresses of the
 * doorbell record and registers. libmlx4dv fills them from ibverbs objects
 * (mlx4dv_sq_ring_init() and friends, see <infiniband/mlx4dv.h> Part 6 and
 * mlx4dv(7)); a program can also fill one by hand from mlx4dv_init_obj()'s
 * output. The data path never calls into a library.
 *
 * Counters are free-running 32-bit values; a slot index is
 * (count & (wqe_cnt - 1)) and the room left is a subtraction, which stays
 * right across the 32-bit wrap. A handle is not thread-safe: one thread
 * drives a queue at a time.
 */

/* Flags of struct mlx4dv_sq_ring.flags. */
enum mlx4dv_sq_ring_flags {
	/* bf_reg is mapped: mlx4dv_sq_post_bf() may be used. */
	MLX4DV_SQ_RING_BLUEFLAME	= 1 << 0,
	/* BlueFlame was requested but is unavailable (no register, or the
	 * mapping failed); plain doorbells are used. */
	MLX4DV_SQ_RING_BLUEFLAME_FALLBACK	= 1 << 1,
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
 * max_inline:   inline bytes one WQE of one stride holds for this QP type.
 * max_gather:   data segments one WQE of one stride holds for this QP type.
 * qpn:          QP number, host order.
 * doorbell_qpn: qpn << 8, big-endian: the value for the send doorbell.
 * doorbell:     UAR + MLX4_SEND_DOORBELL (device memory).
 * bf_reg:       BlueFlame register base, or NULL.
 * bf_buf_size:  bytes of one BlueFlame buffer (half of bf_reg_size).
 * bf_offset:    0 or bf_buf_size: the half to use next.
 * qp_type:      enum ibv_qp_type of the QP.
 * flags:        enum mlx4dv_sq_ring_flags.
 * wrid:         optional, wqe_cnt entries indexed by the first WQEBB of a
 *               WQE, for wr_id bookkeeping; NULL when unused.
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
};

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
/*@@SEND@@*/

/* ======================================================================
 * Part 5. Completion and receive path.
 * ====================================================================== */
/*@@COMPLETION@@*/

/* ======================================================================
 * Part 6. libmlx4dv: queue handles from ibverbs objects (-lmlx4dv).
 * ====================================================================== */
/*@@UNIT@@*/

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_H_ */
