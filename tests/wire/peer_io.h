/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the two-process wire tests (eth_pair, ud_mcast) share: bounded
 * reads and writes on the TCP connection to the peer and a bounded wait
 * for one CQE.  Each prints what failed, prefixed with `prog`, and returns
 * -1; 0 on success.
 */
#ifndef MLX4DV_TEST_WIRE_PEER_IO_H
#define MLX4DV_TEST_WIRE_PEER_IO_H

#include <stddef.h>
#include <infiniband/verbs.h>

/* How long any one wait lasts at most (ms). */
#define PEER_WAIT_MS 10000

int peer_fail(const char *prog, const char *what);
int peer_write(const char *prog, int fd, const void *p, size_t n);
/* n bytes, each read within PEER_WAIT_MS */
int peer_read(const char *prog, int fd, void *p, size_t n);
/* The same, each read within wait_ms: for a peer that works a while
 * between two messages. */
int peer_read_within(const char *prog, int fd, void *p, size_t n, int wait_ms);
/* One successful CQE from cq within PEER_WAIT_MS. */
int peer_poll_one(const char *prog, struct ibv_cq *cq, struct ibv_wc *wc);

#endif
