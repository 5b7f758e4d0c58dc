// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Bounded peer I/O of the two-process wire tests (see peer_io.h). */
#define _GNU_SOURCE
#include "peer_io.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int peer_fail(const char *prog, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	return -1;
}

int peer_write(const char *prog, int fd, const void *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n ? 0 : peer_fail(prog, "write to the peer");
}

int peer_read(const char *prog, int fd, void *p, size_t n)
{
	return peer_read_within(prog, fd, p, n, PEER_WAIT_MS);
}

int peer_read_within(const char *prog, int fd, void *p, size_t n, int wait_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < n) {
		ssize_t r;

		if (poll(&pfd, 1, wait_ms) != 1) {
			fprintf(stderr, "%s: the peer is silent\n", prog);
			return -1;
		}
		r = read(fd, (uint8_t *)p + got, n - got);
		if (r <= 0)
			return peer_fail(prog, "read from the peer");
		got += (size_t)r;
	}
	return 0;
}

int peer_poll_one(const char *prog, struct ibv_cq *cq, struct ibv_wc *wc)
{
	uint64_t end = now_ms() + PEER_WAIT_MS;

	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return peer_fail(prog, "ibv_poll_cq");
		if (n == 1) {
			if (wc->status == IBV_WC_SUCCESS)
				return 0;
			fprintf(stderr, "%s: CQE status %s\n", prog, ibv_wc_status_str(wc->status));
			return -1;
		}
		if (now_ms() > end) {
			fprintf(stderr, "%s: no CQE within %d ms\n", prog, PEER_WAIT_MS);
			return -1;
		}
		usleep(50);
	}
}
