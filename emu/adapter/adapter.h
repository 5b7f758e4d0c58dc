/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Internal state of the software ConnectX-3: one device per process, its
 * objects (PDs, memory keys, CQs, QPs, SRQs, WQs, indirection tables) and
 * the engine that executes work queues.  Everything here is guarded by
 * emu_dev.lock except the counters (atomics) and the pause flag.
 */
#ifndef MLX4EMU_ADAPTER_H
#define MLX4EMU_ADAPTER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "adapter/attributes.h"
#include "adapter/evq.h"
#include "adapter/flow.h"
#include "base/config.h"
#include "base/trace.h"

#define EMU_MAX_FLOW 1024
#define EMU_MAX_CHANNELS 4096 /* completion channels of the adapter */
#define EMU_MAX_WQN_RANGE 4096
#define EMU_FIRST_QPN 0x48 /* QPNs below are reserved (special QPs) */
#define EMU_FIRST_KEY_INDEX 2 /* index 1 key 0 is the invalid lkey 0x100 */
/* BlueFlame registers in the BlueFlame page: 4096 bytes of 512-byte
 * registers, the log_max_bf_regs_per_page = 3 of ConnectX-3 firmware. */
#define EMU_BF_REGS_PER_PAGE 8
#define EMU_BF_HALVES (2 * EMU_BF_REGS_PER_PAGE)
#define EMU_BF_HALF_BYTES 256	/* bf_reg_size 512, two buffers per register */

/* A BlueFlame post being assembled from trapped stores (doorbell.c);
 * written only by the thread that writes that buffer. */
struct emu_bf_asm {
	bool assembling;	/* a store at offset 0 began a post */
	uint64_t covered;	/* 4-byte granules written */
	uint8_t buf[EMU_BF_HALF_BYTES];
};

/* A complete BlueFlame post, published under a sequence count (odd while
 * being written). */
struct emu_bf_post {
	atomic_uint seq;
	uint32_t size;
	uint8_t wqe[EMU_BF_HALF_BYTES];
};

/* ibv_qp_type values as carried by the create commands. */
enum emu_qp_type {
	EMU_QPT_RC = 2,
	EMU_QPT_UC = 3,
	EMU_QPT_UD = 4,
	EMU_QPT_RAW = 8,
	EMU_QPT_XRC_INI = 9,	/* IBV_QPT_XRC_SEND: send only */
	EMU_QPT_XRC_TGT = 10,	/* IBV_QPT_XRC_RECV: no rings, receives on XRC SRQs */
};

struct emu_xrcd;
struct emu_xrcd_handle;

/* ibv_qp_state values. */
enum emu_qp_state {
	EMU_QPS_RESET,
	EMU_QPS_INIT,
	EMU_QPS_RTR,
	EMU_QPS_RTS,
	EMU_QPS_SQD,
	EMU_QPS_SQE,
	EMU_QPS_ERR,
};

struct emu_ctx {
	bool used;
	int cmd_fd;
	struct emu_evq async_q;	/* async events; async_q.rd is the async fd */
	uint8_t *uar;		/* 0x14 send doorbell, 0x20 CQ arm doorbell */
	uint8_t *bf_page;
	int page_fd;		/* memfd holding the UAR and BlueFlame pages */
	void *pages;		/* the engine's own mapping of both */
	size_t pages_len;
	uint64_t last_cq_db;
	/* first 16 bytes last seen in each half of each BlueFlame register */
	uint8_t bf_last[2 * EMU_BF_REGS_PER_PAGE][16];
	/* doorbells: trapped (doorbell.c) unless db_poll, set when the pages
	 * were written without a trap (a raw mmap, an unknown instruction) */
	atomic_bool db_poll;
	uint8_t uar_shadow[64];	/* partial stores to UAR registers */
	struct emu_bf_asm bf_asm[EMU_BF_HALVES];
	struct emu_bf_post bf_post[EMU_BF_HALVES];
	uint32_t bf_post_taken[EMU_BF_HALVES];	/* engine: seq last executed */
	uint16_t wqn_range;	/* 1 + slot of the open WQN range, 0 = none */
};

struct emu_channel {
	bool used;
	struct emu_evq q;	/* q.rd is the channel fd */
};

enum emu_key_kind { EMU_KEY_FREE, EMU_KEY_MR, EMU_KEY_MW1, EMU_KEY_MW2 };

struct emu_key {
	uint8_t kind;
	bool valid;		/* MR registered, or MW bound */
	uint32_t key;		/* index << 8 | tag */
	uint32_t pdn;
	uint32_t access;	/* IBV_ACCESS_* */
	uint64_t iova;
	uint64_t length;
	uint8_t *host;		/* host address of iova */
	struct emu_ctx *ctx;
	uint32_t bind_qpn;	/* type 2 window: QP it is bound to */
};

struct emu_pd {
	bool used;
	struct emu_ctx *ctx;
};

struct emu_cq {
	bool used;
	struct emu_ctx *ctx;
	uint32_t cqn;
	uint64_t user_handle;
	uint8_t *buf;
	uint32_t cnt;		/* entries, power of two */
	uint32_t cqe_size;	/* 32 or 64 */
	volatile uint32_t *ci_db;	/* consumer index record, big-endian */
	volatile uint32_t *arm_db;	/* arm record, big-endian */
	uint32_t pi;		/* producer index (CQEs written) */
	uint32_t ci_cache;	/* last consumer index read from ci_db */
	int channel;		/* index into emu_dev.channels or -1 */
	uint32_t last_arm_rec;
	int armed;		/* 0 no, 1 solicited only, 2 any */
	bool in_error;		/* overrun happened, or its memory was unmapped */
	bool timestamp;		/* CQEs carry the completion time */
	uint32_t comp_events, async_events;	/* events the program read */
	uint64_t cqes_total;
	uint64_t overrun_after;	/* fault: overrun when cqes_total reaches it */
};

struct emu_srq {
	bool used;
	struct emu_ctx *ctx;
	uint32_t srqn;
	uint64_t user_handle;
	uint32_t pdn;
	uint8_t *buf;
	uint32_t cnt;		/* WQEs, power of two */
	uint32_t shift;
	uint32_t max_gs;
	volatile uint32_t *db;	/* post counter, big-endian 16 bits */
	uint16_t consumed;
	uint16_t posted_cache;	/* last post counter read from db */
	uint16_t next;		/* index of the next WQE the device takes */
	uint32_t limit;
	uint32_t async_events;
	bool lost;		/* its ring or record was unmapped */
	/* XRC SRQ: its domain, the handle it was made through, its CQ */
	struct emu_xrcd *xrcd;
	struct emu_xrcd_handle *xrcd_via;
	struct emu_cq *cq;
};

struct emu_ind_tbl {
	bool used;
	struct emu_ctx *ctx;
	uint32_t log_size;
	uint32_t wqn[1 << 12];
};

/* Consecutive WQ numbers aligned to their count (qpn.h). */
struct emu_wqn_range {
	bool used;
	bool dirty;		/* one of its WQs was destroyed */
	struct emu_ctx *ctx;
	uint32_t base, size;
	uint32_t refcount;	/* WQs alive; base + refcount is the next */
};

struct emu_conn;

struct emu_path {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint16_t dlid;
	uint8_t sgid_index, hop_limit, traffic_class, sl, src_path_bits;
	uint8_t static_rate, is_global, port_num;
};

/* The send queue: its ring as libmlx4 laid it out, the device's index
 * into it and the state of the WQE at that index. */
struct emu_qp_sq {
	uint32_t off, cnt, shift, spare;
	uint32_t pc;		/* WQEBB counter of the next WQE to execute */
	/* RNR retry state of the WQE at pc */
	uint32_t rnr_tries;
	uint64_t rnr_due_ns;
	bool sig_all;
	bool db_held;		/* a doorbell arrived while not in RTS */
	/* capabilities reported at create */
	uint32_t max_wr, max_sge, max_inline;
};

/* The receive queue (none on an SRQ): its ring, doorbell record and the
 * device's index. */
struct emu_qp_rq {
	uint32_t off, cnt, shift, max_gs;
	volatile uint32_t *db;
	uint16_t ci;		/* receive WQEs consumed */
	uint16_t head_cache;	/* last head read from the doorbell record */
	/* capabilities reported at create */
	uint32_t max_wr, max_sge;
};

/* What modify sets: the attributes and the primary path. */
struct emu_qp_attr {
	uint32_t qkey, rq_psn, sq_psn, dest_qpn, access;
	uint16_t pkey_index;
	uint8_t port, mtu, timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic, path_mig_state, en_sqd;
	struct emu_path path;
};

/* An RSS QP's spread of received packets over WQs. */
struct emu_qp_rss {
	struct emu_ind_tbl *ind;
	uint64_t hash_fields;
	uint8_t key[40];
};

/* An XRC target QP: its domain, how many handles it has (xrc.c), and the
 * XRC SRQ the request being executed names (emu_xrc_bind). */
struct emu_qp_xrc {
	struct emu_xrcd *xrcd;
	uint32_t handles;
	struct emu_srq *srq;
};

/* A BlueFlame post waiting for its ring slot to be readable. */
struct emu_qp_bf {
	uint8_t copy[512];
	bool pending;
	uint32_t counter;
};

/* Fault injection, statistics and what the debug reports said. */
struct emu_qp_debug {
	uint64_t wqes_done;
	uint64_t fault_cqe_at;	/* 1-based WQE number, 0 = none */
	uint8_t fault_syndrome;
	uint64_t fault_err_after;
	/* exactness: sq.pc + 1 of the held WQE last reported */
	uint32_t held_reported;
	/* a valid WQE seen with no doorbell: where and since when */
	uint32_t nodb_pc;
	uint64_t nodb_since_ns;
	bool nodb_reported;
};

struct emu_qp {
	bool used;
	bool is_wq;		/* receive work queue (ibv_wq) */
	bool is_rss;		/* RSS QP: receive spreads over WQs */
	struct emu_ctx *ctx;
	uint32_t qpn;
	uint64_t user_handle;
	uint8_t type;
	uint8_t state;
	uint32_t pdn;
	struct emu_cq *scq, *rcq;
	struct emu_srq *srq;
	uint8_t *buf;		/* both rings, at sq.off and rq.off */
	bool block_mcast_lb;	/* IBV_QP_CREATE_BLOCK_SELF_MCAST_LB */
	uint32_t async_events;
	/* the program unmapped this QP's rings (the device no longer
	 * touches them) */
	bool lost;
	/* flow steering rules steering to this QP */
	uint32_t nflows;
	uint16_t wqn_range;	/* WQ: 1 + slot of its WQN range */
	struct emu_qp_sq sq;
	struct emu_qp_rq rq;
	struct emu_qp_attr attr;
	struct emu_qp_rss rss;
	struct emu_qp_xrc xrc;
	struct emu_qp_bf bf;
	struct emu_qp_debug debug;
	/* RC/UC state of a QP whose path leads to another adapter (owned
	 * by the transport; NULL otherwise) */
	struct emu_conn *conn;
	/* what the port's receive filter admits for this QP (owned by the
	 * transport, transport/admission.c): its path's adapter (0: none),
	 * on port admitted_port; a UD QP ready to receive */
	uint32_t admitted_peer;
	uint8_t admitted_port;
	bool admitted_ud;
};

struct emu_counters_raw {
	atomic_uint_fast64_t wqes, cqes, error_cqes, comp_events, async_events;
	atomic_uint_fast64_t strict_errors, bf_wqes, rnr_naks, packets, passes;
	atomic_uint_fast64_t idle_runnable, idle_asleep;
};

struct emu_fault_cfg {
	uint32_t qpn;		/* 0 = next QP created */
	uint64_t count;
	uint8_t syndrome;
};

struct emu_dev {
	pthread_mutex_t lock;
	atomic_bool started;
	pthread_t thread;
	atomic_bool stop;
	atomic_bool paused;
	atomic_uint_fast64_t kick;	/* bumped to wake the engine */
	atomic_bool sleeping;	/* the engine waits in poll(): kicks write wake_fd */
	int wake_fd;		/* eventfd */
	atomic_uint_fast64_t pass_seq;

	struct emu_ctx ctx[EMU_MAX_CTX];
	struct emu_channel channels[EMU_MAX_CHANNELS];
	struct emu_pd pd[EMU_MAX_PD];
	struct emu_key *keys;	/* indexed by key >> 8 */
	uint32_t nkeys;
	uint32_t key_hint;
	struct emu_cq cq[EMU_MAX_CQ];
	struct emu_srq srq[EMU_MAX_SRQ];
	struct emu_ind_tbl *ind[EMU_MAX_IND_TBL];
	struct emu_flow flow[EMU_MAX_FLOW];
	struct emu_qp **qp_tab;	/* indexed by QPN, qp_tab_size entries */
	uint32_t qp_tab_size;
	/* one past the highest index ever handed out of each table: the
	 * scans over a kind's objects stop there */
	uint32_t qp_end, cq_end, srq_end, key_end, ctx_end;
	uint32_t uars_used;	/* contexts past GET_CONTEXT */
	uint32_t qpn_hint;
	uint8_t *qpn_held;	/* per QPN: reserved by a WQN range */
	struct emu_wqn_range wqn_range[EMU_MAX_WQN_RANGE];
	struct emu_qp **active;	/* QPs and WQs the engine scans */
	uint32_t nactive;
	struct emu_cq **active_cq;
	uint32_t nactive_cq;
	bool active_dirty;	/* a QP changed what the engine polls */

	struct emu_counters_raw ctr;
	struct emu_fault_cfg fault_cqe, fault_err;
	uint64_t fault_overrun;	/* 0 none; else overrun at this CQE count */
	uint32_t fault_overrun_cqn;
};

extern struct emu_dev emu_dev;

/*
 * Counters are written by one thread at a time (under emu_dev.lock, or the
 * engine thread alone) and read from anywhere: a relaxed load and store
 * keep the hot path free of locked instructions.
 */
#define EMU_CTR_INC(field) \
	atomic_store_explicit(&emu_dev.ctr.field, \
		atomic_load_explicit(&emu_dev.ctr.field, memory_order_relaxed) + 1, \
		memory_order_relaxed)

#endif
