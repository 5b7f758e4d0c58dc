/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Device-side view of the mlx4 work queue formats (all fields big-endian):
 * the offsets the engine reads, and the gather/scatter helpers.
 * Layouts: rdma-core providers/mlx4/mlx4dv.h and the ConnectX PRM.
 */
#ifndef MLX4EMU_WQE_H
#define MLX4EMU_WQE_H

#include <endian.h>
#include <string.h>

#include "adapter/adapter.h"

/* send opcodes (control segment word 0, bits 0..4) */
enum {
	EMU_OP_NOP = 0x00,
	EMU_OP_RDMA_WRITE = 0x08,
	EMU_OP_RDMA_WRITE_IMM = 0x09,
	EMU_OP_SEND = 0x0a,
	EMU_OP_SEND_IMM = 0x0b,
	EMU_OP_SEND_INVAL = 0x01,
	EMU_OP_LSO = 0x0e,
	EMU_OP_RDMA_READ = 0x10,
	EMU_OP_ATOMIC_CS = 0x11,
	EMU_OP_ATOMIC_FA = 0x12,
	EMU_OP_MASKED_ATOMIC_CS = 0x14,
	EMU_OP_MASKED_ATOMIC_FA = 0x15,
	EMU_OP_BIND_MW = 0x18,
	EMU_OP_LOCAL_INVAL = 0x1b,
};

/* receive CQE opcodes */
enum {
	EMU_RECV_RDMA_WRITE_IMM = 0x00,
	EMU_RECV_SEND = 0x01,
	EMU_RECV_SEND_IMM = 0x02,
	EMU_RECV_SEND_INVAL = 0x03,
};

/* CQE syndromes */
enum {
	EMU_SYN_LOCAL_LENGTH = 0x01,
	EMU_SYN_LOCAL_QP_OP = 0x02,
	EMU_SYN_LOCAL_PROT = 0x04,
	EMU_SYN_WR_FLUSH = 0x05,
	EMU_SYN_MW_BIND = 0x06,
	EMU_SYN_REMOTE_INVAL_REQ = 0x12,
	EMU_SYN_REMOTE_ACCESS = 0x13,
	EMU_SYN_REMOTE_OP = 0x14,
	EMU_SYN_RETRY_EXC = 0x15,
	EMU_SYN_RNR_RETRY_EXC = 0x16,
};

/* vendor syndromes of the strict checks (LOCAL_QP_OP_ERR) */
enum {
	EMU_VSYN_BAD_OPCODE = 0x01,
	EMU_VSYN_BAD_DS = 0x02,
	EMU_VSYN_INLINE_CROSSES_64B = 0x03,
	EMU_VSYN_BEYOND_HEADROOM = 0x04,
	EMU_VSYN_DS_ZERO = 0x05,
	EMU_VSYN_FAULT = 0xfe,
};

/* control segment srcrb_flags bits */
enum {
	EMU_CTRL_SOLICIT = 1 << 1,
	EMU_CTRL_CQ_UPDATE = 3 << 2,
	EMU_CTRL_IP_CSUM = 1 << 4,
	EMU_CTRL_TCP_UDP_CSUM = 1 << 5,
};

#define EMU_INLINE_SEG 0x80000000u
#define EMU_INVALID_LKEY 0x100u
#define EMU_GRH_BYTES 40
#define EMU_MAX_CHUNKS 256

static inline uint32_t ld_be32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static inline uint16_t ld_be16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

static inline uint64_t ld_be64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/* A message as a list of host byte ranges; p == NULL skips len bytes. */
struct emu_chunk {
	const uint8_t *p;
	uint32_t len;
};

struct emu_gather {
	uint32_t n;
	uint64_t total;
	/* the chunks are the WQE's inline data (in the device's copy of the
	 * WQE, gone once it executed), not registered memory */
	bool inline_data;
	struct emu_chunk c[EMU_MAX_CHUNKS];
};

static inline int emu_gather_add(struct emu_gather *g, const uint8_t *p,
				  uint32_t len)
{
	if (!len)
		return 0;
	if (g->n >= EMU_MAX_CHUNKS)
		return -1;
	g->c[g->n].p = p;
	g->c[g->n].len = len;
	g->n++;
	g->total += len;
	return 0;
}

/* A receive WQE taken from an RQ, SRQ or WQ. */
struct emu_rwqe {
	struct emu_qp *qp;	/* the QP (or WQ) the CQE names */
	struct emu_cq *cq;
	uint32_t pdn;
	uint16_t wqe_index;
	uint32_t nsge;
	const uint8_t *sge;	/* data segments in the ring */
	uint32_t xrc_srqn;	/* an XRC SRQ's number (the CQE names it), else 0 */
};

/* Takes the next posted receive WQE (an XRC target's: of the SRQ bound by
 * emu_xrc_bind); 0 when none is posted. */
int emu_rq_take(struct emu_qp *qp, struct emu_rwqe *w);

/*
 * Scatters `g` into the receive WQE's data segments.  Returns 0 or the
 * syndrome (LOCAL_LENGTH when it does not fit, LOCAL_PROT for a bad lkey,
 * a foreign PD or an MR without local write).
 */
int emu_scatter(const struct emu_rwqe *w, const struct emu_gather *g);

/*
 * Copies `g` to a list of data segments (16 bytes each, as in a send WQE
 * of an RDMA READ or atomic); the same checks as emu_scatter.
 */
int emu_scatter_segs(uint32_t pdn, const uint8_t *segs, uint32_t nsegs,
		     const struct emu_gather *g, uint64_t *capacity);

/*
 * While a send WQE executes, the receive WQE it takes at its peer can be
 * given back should the WQE fault on unmapped memory (emu_dev.lock held):
 * arm before executing, undo after a fault.
 */
void emu_rq_undo_arm(void);
void emu_rq_undo_last(void);

/* engine-side entry points (sq.c, eth.c) */
/* The QP's rings are gone: error state, IBV_EVENT_QP_FATAL, not served. */
void emu_qp_lost(struct emu_qp *qp);
int emu_qp_process(struct emu_qp *qp, int budget, uint64_t *now_ns, int *pending);
void emu_qp_set_error(struct emu_qp *qp);
void emu_ctx_poll_bf(struct emu_ctx *ctx);

struct emu_send;
/* Transmits an Ethernet frame of a raw packet QP (or a whole LSO burst),
 * inserting a VLAN tag when vlan = TPID << 16 | TCI is not 0. */
int emu_eth_send(struct emu_qp *qp, const struct emu_gather *g, uint32_t srcrb,
		 const uint8_t *lso_hdr, uint32_t lso_hdr_len, uint32_t mss,
		 uint32_t vlan);

/* A frame that came from another adapter over the wire to `port`: the
 * port's MTU, link and flow rules apply as to a frame of its own. */
void emu_eth_receive(unsigned port, const uint8_t *frame, uint32_t len);

/* IPoIB messages (4-byte encapsulation header, then IP) on UD QPs. */
void emu_ipoib_fill_checksums(uint8_t *msg, uint32_t len, bool ip, bool l4);
uint32_t emu_ipoib_rx_status(const uint8_t *msg, uint32_t len);

#endif
