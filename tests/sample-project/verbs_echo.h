/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * verbs_echo: a reliable-connected (RC) echo over plain libibverbs, the
 * kind of program a project puts under test on the software ConnectX-3.
 * The server echoes every message the client sends; the two sides swap
 * their QP addresses over a TCP connection first and close with a byte
 * on it, so that neither destroys its QP while the peer still needs its
 * acknowledgements.
 */
#ifndef VERBS_ECHO_H
#define VERBS_ECHO_H

#include <infiniband/verbs.h>
#include <stdint.h>

/* What one side tells the other over TCP, in network byte order. */
struct echo_wire_addr {
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t gid[16];
};

/* The client's first words: its address and the run it asks for. */
struct echo_hello {
	struct echo_wire_addr addr;
	uint32_t count;		/* messages */
	uint32_t size;		/* bytes per message */
};

/* WQEs of each queue, and receive completions a wait may keep for the next */
#define ECHO_DEPTH 4

struct echo_conn {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;		/* [0, size): receive, [size, 2 size): send */
	uint32_t size;
	uint8_t port;
	int gid_index;		/* -1 on an InfiniBand port */
	struct echo_wire_addr self;
	/*
	 * Completions polled while waiting for the other kind, kept for the
	 * next wait: the CQ both queues share has a send and a receive
	 * completion in the order they happened, and the peer's next message
	 * may arrive before the acknowledgement of our last one.
	 */
	int early_sends;
	int early_recvs;
	uint32_t early_recv_len[ECHO_DEPTH];	/* oldest at early_recv_first */
	unsigned early_recv_first;
};

/* The first device, port 1; buffers of size bytes. 0 or -1 (message on stderr). */
int echo_open(struct echo_conn *c, uint32_t size);
/* RESET -> INIT -> RTR -> RTS against the peer's address. */
int echo_connect(struct echo_conn *c, const struct echo_wire_addr *peer);
int echo_post_recv(struct echo_conn *c);
int echo_post_send(struct echo_conn *c, uint32_t len);
/*
 * Waits, on completion events, for sends send completions and recvs
 * receive completions (in any order), at most timeout_ms; the last
 * receive's length in *recv_len. A completion of either kind beyond
 * those counts is kept and counts for a later wait. 0, or -1 on an error
 * completion or the timeout (message on stderr).
 */
int echo_wait(struct echo_conn *c, int sends, int recvs, uint32_t *recv_len,
	      int timeout_ms);
void echo_close(struct echo_conn *c);

/* TCP: the address exchange and the closing byte. */
int echo_tcp_send_all(int fd, const void *p, size_t n);
int echo_tcp_recv_all(int fd, void *p, size_t n, int timeout_ms);

#endif
