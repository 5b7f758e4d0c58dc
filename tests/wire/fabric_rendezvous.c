// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The out-of-band star of a fabric test (see fabric_rendezvous.h). */
#define _GNU_SOURCE
#include "fabric_rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
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

/* What a host says first: its number, its process, whether it is one
 * started again (network order). */
struct hello {
	uint32_t host, pid, rejoin;
};

/* Reads a connection's hello and gives it its place: at the start any
 * host not yet connected, later (rejoin) only one whose place is free. */
static int hub_take(struct fab_star *s, int fd, bool rejoin)
{
	struct hello h;
	uint32_t who;

	if (read_all(fd, &h, sizeof(h), FAB_WAIT_MS)) {
		close(fd);
		return -1;
	}
	who = ntohl(h.host);
	if (who == 0 || who >= s->hosts || s->fd[who] >= 0 || (ntohl(h.rejoin) != 0) != rejoin) {
		fprintf(stderr, "%s: a connection announced host %u twice, out of range or "
			"%sas started again\n", prog, who, rejoin ? "not " : "");
		close(fd);
		return -1;
	}
	s->fd[who] = fd;
	s->pid[who] = (pid_t)ntohl(h.pid);
	return 0;
}

static int hub_accept(struct fab_star *s, int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	uint64_t end = now_ms() + FAB_WAIT_MS;

	for (unsigned n = 1; n < s->hosts; n++) {
		int fd;

		if (poll(&pfd, 1, (int)(end > now_ms() ? end - now_ms() : 0)) != 1) {
			fprintf(stderr, "%s: %u of %u hosts connected in %d ms\n", prog, n - 1,
				s->hosts - 1, FAB_WAIT_MS);
			return -1;
		}
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			return peer_fail(prog, "accept a host");
		if (hub_take(s, fd, false))
			return -1;
	}
	return 0;
}

static int hub_listen(struct fab_star *s, const struct sockaddr_in *sa, bool restarts)
{
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc, pair[2];

	if (lfd < 0)
		return peer_fail(prog, "socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) || listen(lfd, FAB_MAX_HOSTS)) {
		close(lfd);
		return peer_fail(prog, "listen on the hub's address");
	}
	rc = hub_accept(s, lfd);
	if (rc || !restarts) {
		close(lfd);
		return rc;
	}
	s->lfd = lfd;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair))
		return peer_fail(prog, "socketpair");
	s->fd[0] = pair[0];
	s->up = pair[1];
	return 0;
}

static int host_connect(struct fab_star *s, const struct sockaddr_in *sa, bool rejoin)
{
	uint64_t end = now_ms() + FAB_WAIT_MS;
	struct hello me = { .host = htonl(s->host), .pid = htonl((uint32_t)getpid()),
			    .rejoin = htonl(rejoin) };

	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return peer_fail(prog, "socket");
		if (!connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
			s->fd[0] = s->up = fd;
			return write_all(fd, &me, sizeof(me));
		}
		close(fd);
		if ((errno != ECONNREFUSED && errno != ENETUNREACH) || now_ms() > end)
			return peer_fail(prog, "connect to the hub");
		usleep(50000);
	}
}

int fab_star_open(struct fab_star *s, unsigned host, unsigned hosts, const char *hub_addr,
		  uint16_t port, unsigned flags)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };

	s->host = host;
	s->hosts = hosts;
	s->wait_ms = FAB_WAIT_MS;
	s->up = s->lfd = -1;
	for (unsigned h = 0; h < FAB_MAX_HOSTS; h++)
		s->fd[h] = -1;
	if (hosts < 2 || hosts > FAB_MAX_HOSTS || host >= hosts ||
	    inet_pton(AF_INET, hub_addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "%s: host %u of %u, hub %s: out of range\n", prog, host, hosts,
			hub_addr);
		return -1;
	}
	return host ? host_connect(s, &sa, flags & FAB_STAR_REJOIN)
		    : hub_listen(s, &sa, flags & FAB_STAR_RESTARTS);
}

void fab_star_close(struct fab_star *s)
{
	for (unsigned h = 0; h < FAB_MAX_HOSTS; h++)
		fab_star_drop(s, h);
	if (s->host == 0 && s->up >= 0)
		close(s->up);
	if (s->lfd >= 0)
		close(s->lfd);
	s->up = s->lfd = -1;
}

void fab_star_drop(struct fab_star *s, unsigned h)
{
	if (s->fd[h] >= 0) {
		close(s->fd[h]);
		s->fd[h] = -1;
	}
}

int fab_allgather(struct fab_star *s, const void *mine, size_t len, void *all)
{
	uint8_t *a = all;

	memcpy(a + s->host * len, mine, len);
	for (unsigned h = 1; h < s->hosts && !s->host; h++)
		if (s->fd[h] < 0) {
			fprintf(stderr, "%s: host %u is not in the fabric (killed, not back)\n",
				prog, h);
			return -1;
		}
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

/* ---- messages while the traffic flows ---- */

static int send_msg(int fd, const struct fab_msg *m, const void *payload)
{
	struct fab_msg w = { htonl(m->type), htonl(m->host), htonl(m->arg), htonl(m->len) };

	return write_all(fd, &w, sizeof(w)) || (m->len && write_all(fd, payload, m->len)) ? -1
											: 0;
}

/* A message whose first byte is there: the rest follows at once (it was
 * written whole). */
static int read_msg(int fd, struct fab_msg *m, void *payload, size_t cap)
{
	if (read_all(fd, m, sizeof(*m), FAB_WAIT_MS))
		return -1;
	*m = (struct fab_msg){ ntohl(m->type), ntohl(m->host), ntohl(m->arg), ntohl(m->len) };
	if (m->len > cap) {
		fprintf(stderr, "%s: a message of %u bytes, at most %zu expected\n", prog, m->len,
			cap);
		return -1;
	}
	return m->len ? read_all(fd, payload, m->len, FAB_WAIT_MS) : 0;
}

int fab_tell_hub(struct fab_star *s, uint32_t type, uint32_t arg, const void *payload,
		 uint32_t len)
{
	struct fab_msg m = { .type = type, .host = s->host, .arg = arg, .len = len };

	return send_msg(s->up, &m, payload);
}

int fab_tell_host(struct fab_star *s, unsigned h, const struct fab_msg *m, const void *payload)
{
	return send_msg(s->fd[h], m, payload);
}

int fab_hear_hub(struct fab_star *s, struct fab_msg *m, void *payload, size_t cap,
		 unsigned wait_ms)
{
	struct pollfd pfd = { .fd = s->up, .events = POLLIN };
	int n = poll(&pfd, 1, (int)wait_ms);

	if (n < 0)
		return peer_fail(prog, "poll the hub's connection");
	if (n == 0)
		return 0;
	return read_msg(s->up, m, payload, cap) ? -1 : 1;
}

static int hub_rejoin(struct fab_star *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return peer_fail(prog, "accept a host started again");
	return hub_take(s, fd, true);
}

int fab_hear_hosts(struct fab_star *s, unsigned *from, struct fab_msg *m, void *payload,
		   size_t cap)
{
	struct pollfd pfd[FAB_MAX_HOSTS + 1];
	unsigned who[FAB_MAX_HOSTS], n = 0;

	for (unsigned h = 0; h < s->hosts; h++)
		if (s->fd[h] >= 0) {
			pfd[n] = (struct pollfd){ .fd = s->fd[h], .events = POLLIN };
			who[n++] = h;
		}
	pfd[n] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
	if (poll(pfd, n + 1, 0) < 0)
		return peer_fail(prog, "poll the hosts' connections");
	if (pfd[n].revents & POLLIN && hub_rejoin(s))
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (pfd[i].revents) {
			*from = who[i];
			if (read_msg(pfd[i].fd, m, payload, cap)) {
				fprintf(stderr, "%s: host %u left the fabric or spoke out of turn\n",
					prog, who[i]);
				return -1;
			}
			return 1;
		}
	return 0;
}
