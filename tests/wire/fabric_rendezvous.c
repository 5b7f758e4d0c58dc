// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The out-of-band star of a fabric test (see fabric_rendezvous.h). */
#define _GNU_SOURCE
#include "fabric_rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "peer_io.h"

static const char prog[] = "fabric";

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* peer_read waits PEER_WAIT_MS per read; a fabric step may wait longer
 * (the slowest of 16 adapters on a loaded machine). */
static int read_all(int fd, void *p, size_t n, unsigned wait_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t end = now_ms() + wait_ms;
	size_t got = 0;

	while (got < n) {
		ssize_t r;

		if (now_ms() > end || poll(&pfd, 1, 1000) < 0) {
			fprintf(stderr, "%s: a host is silent for %u ms\n", prog, wait_ms);
			return -1;
		}
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = read(fd, (uint8_t *)p + got, n - got);
		if (r <= 0)
			return peer_fail(prog, "read from a host");
		got += (size_t)r;
	}
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = write(fd, (const uint8_t *)p + done, n - done);

		if (r <= 0)
			return peer_fail(prog, "write to a host");
		done += (size_t)r;
	}
	return 0;
}

static int hub_accept(struct fab_star *s, int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	uint64_t end = now_ms() + FAB_WAIT_MS;

	for (unsigned n = 1; n < s->hosts; n++) {
		uint32_t who;
		int fd;

		if (poll(&pfd, 1, (int)(end > now_ms() ? end - now_ms() : 0)) != 1) {
			fprintf(stderr, "%s: %u of %u hosts connected in %d ms\n", prog, n - 1,
				s->hosts - 1, FAB_WAIT_MS);
			return -1;
		}
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			return peer_fail(prog, "accept a host");
		if (read_all(fd, &who, sizeof(who), FAB_WAIT_MS)) {
			close(fd);
			return -1;
		}
		who = ntohl(who);
		if (who == 0 || who >= s->hosts || s->fd[who] >= 0) {
			fprintf(stderr, "%s: a connection announced host %u twice or out of range\n",
				prog, who);
			close(fd);
			return -1;
		}
		s->fd[who] = fd;
	}
	return 0;
}

static int hub_listen(struct fab_star *s, const struct sockaddr_in *sa)
{
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (lfd < 0)
		return peer_fail(prog, "socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) || listen(lfd, FAB_MAX_HOSTS)) {
		close(lfd);
		return peer_fail(prog, "listen on the hub's address");
	}
	rc = hub_accept(s, lfd);
	close(lfd);
	return rc;
}

static int host_connect(struct fab_star *s, const struct sockaddr_in *sa)
{
	uint64_t end = now_ms() + FAB_WAIT_MS;
	uint32_t me = htonl(s->host);

	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return peer_fail(prog, "socket");
		if (!connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
			s->fd[0] = fd;
			return write_all(fd, &me, sizeof(me));
		}
		close(fd);
		if ((errno != ECONNREFUSED && errno != ENETUNREACH) || now_ms() > end)
			return peer_fail(prog, "connect to the hub");
		usleep(50000);
	}
}

int fab_star_open(struct fab_star *s, unsigned host, unsigned hosts, const char *hub_addr,
		  uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };

	s->host = host;
	s->hosts = hosts;
	s->wait_ms = FAB_WAIT_MS;
	for (unsigned h = 0; h < FAB_MAX_HOSTS; h++)
		s->fd[h] = -1;
	if (hosts < 2 || hosts > FAB_MAX_HOSTS || host >= hosts ||
	    inet_pton(AF_INET, hub_addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "%s: host %u of %u, hub %s: out of range\n", prog, host, hosts,
			hub_addr);
		return -1;
	}
	return host ? host_connect(s, &sa) : hub_listen(s, &sa);
}

void fab_star_close(struct fab_star *s)
{
	for (unsigned h = 0; h < FAB_MAX_HOSTS; h++)
		if (s->fd[h] >= 0) {
			close(s->fd[h]);
			s->fd[h] = -1;
		}
}

int fab_allgather(struct fab_star *s, const void *mine, size_t len, void *all)
{
	uint8_t *a = all;

	memcpy(a + s->host * len, mine, len);
	if (s->host)
		return write_all(s->fd[0], mine, len) ||
		       read_all(s->fd[0], a, len * s->hosts, s->wait_ms) ? -1 : 0;
	for (unsigned h = 1; h < s->hosts; h++)
		if (read_all(s->fd[h], a + h * len, len, s->wait_ms))
			return -1;
	for (unsigned h = 1; h < s->hosts; h++)
		if (write_all(s->fd[h], a, len * s->hosts))
			return -1;
	return 0;
}

int fab_barrier(struct fab_star *s, const char *name)
{
	uint8_t tag = (uint8_t)strlen(name), got[FAB_MAX_HOSTS];

	if (fab_allgather(s, &tag, 1, got)) {
		fprintf(stderr, "%s: barrier '%s' not reached by every host\n", prog, name);
		return -1;
	}
	for (unsigned h = 0; h < s->hosts; h++)
		if (got[h] != tag) {
			fprintf(stderr, "%s: host %u is at another barrier than '%s'\n", prog, h,
				name);
			return -1;
		}
	return 0;
}
