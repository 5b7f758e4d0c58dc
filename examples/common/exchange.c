// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _GNU_SOURCE
#include "exchange.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "latency.h"

#define CONNECT_RETRY_MS 100
#define EXCHANGE_TIMEOUT_S (EX_EXCHANGE_TIMEOUT_MS / 1000)

static int fail(const char *what, const char *detail)
{
	fprintf(stderr, "exchange: %s: %s\n", what, detail);
	return -1;
}

/* Waits until fd is ready for `events`, at most EX_EXCHANGE_TIMEOUT_MS. */
static int wait_fd(int fd, short events, const char *what)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do
		r = poll(&p, 1, EX_EXCHANGE_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return fail(what, strerror(errno));
	if (r == 0) {
		fprintf(stderr, "exchange: %s: no answer in %d s\n", what, EXCHANGE_TIMEOUT_S);
		return -1;
	}
	return 0;
}

static int lookup(const char *host, uint16_t port, struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = host ? 0 : AI_PASSIVE,
	};
	char service[8];
	int r;

	snprintf(service, sizeof(service), "%u", (unsigned)port);
	r = getaddrinfo(host, service, &hints, res);
	if (r)
		return fail(host ? host : "listening address", gai_strerror(r));
	return 0;
}

/* A listening socket on the first address that binds (IPv6 first takes
 * IPv4 too where the system maps it). */
static int listen_on(uint16_t port)
{
	struct addrinfo *res, *a;
	int fd = -1, one = 1;

	if (lookup(NULL, port, &res))
		return -1;
	for (a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) || listen(fd, 1)) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		fail("cannot listen on the TCP port", strerror(errno));
	return fd;
}

static int accept_one(uint16_t port)
{
	int lfd = listen_on(port), fd;

	if (lfd < 0)
		return -1;
	printf("waiting for a client on TCP port %u\n", (unsigned)port);
	fflush(stdout);
	if (wait_fd(lfd, POLLIN, "waiting for a client")) {
		close(lfd);
		return -1;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		fail("accept", strerror(errno));
	close(lfd);
	return fd;
}

/* Tries every address of host once; the connected socket, or -1 with
 * errno from the last attempt. */
static int connect_once(const struct addrinfo *res)
{
	int err = EADDRNOTAVAIL;

	for (const struct addrinfo *a = res; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);

		if (fd < 0) {
			err = errno;
			continue;
		}
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			return fd;
		err = errno;
		close(fd);
	}
	errno = err;
	return -1;
}

static int connect_to(const char *host, uint16_t port)
{
	uint64_t start = ex_now_ns();
	uint64_t notice = start + EX_CONNECT_NOTICE_MS * 1000000ull;
	uint64_t end = start + EX_EXCHANGE_TIMEOUT_MS * 1000000ull;
	struct addrinfo *res;
	bool told = false;
	int fd;

	if (lookup(host, port, &res))
		return -1;
	/* The server may not listen yet: retry, but say early what for, or a
	 * client started without its server would look hung. */
	while ((fd = connect_once(res)) < 0 && ex_now_ns() < end) {
		if (!told && ex_now_ns() >= notice) {
			fprintf(stderr, "exchange: waiting for a server on %s TCP port %u (%s); "
				"retrying for up to %d s\n", host, (unsigned)port, strerror(errno),
				EXCHANGE_TIMEOUT_S);
			told = true;
		}
		usleep(CONNECT_RETRY_MS * 1000);
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "exchange: %s TCP port %u: nobody accepted the connection in %d s\n",
			host, (unsigned)port, EXCHANGE_TIMEOUT_S);
	return fd;
}

int ex_exchange_open(struct ex_exchange *x, const char *host, uint16_t port)
{
	x->server = host == NULL;
	x->fd = x->server ? accept_one(port) : connect_to(host, port);
	return x->fd < 0 ? -1 : 0;
}

/* what: the step, for the messages ("barrier \"done\" with the peer"). */
static int write_all(int fd, const uint8_t *p, size_t len, const char *what)
{
	while (len) {
		ssize_t r = send(fd, p, len, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return fail(what, strerror(errno));
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int read_all(int fd, uint8_t *p, size_t len, const char *what)
{
	while (len) {
		ssize_t r;

		if (wait_fd(fd, POLLIN, what))
			return -1;
		r = recv(fd, p, len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(what, strerror(errno));
		if (r == 0)
			return fail(what, "connection closed by the peer");
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int send_infos(struct ex_exchange *x, const struct ex_endpoint_info *local,
		      size_t n)
{
	uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE];

	for (size_t i = 0; i < n; i++) {
		ex_endpoint_info_pack(&local[i], wire);
		if (write_all(x->fd, wire, sizeof(wire), "sending the endpoint descriptions"))
			return -1;
	}
	return 0;
}

static int receive_infos(struct ex_exchange *x, struct ex_endpoint_info *remote,
			 size_t n)
{
	uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE];

	for (size_t i = 0; i < n; i++) {
		int r;

		if (read_all(x->fd, wire, sizeof(wire), "receiving the peer's endpoint descriptions"))
			return -1;
		r = ex_endpoint_info_unpack(wire, &remote[i]);
		if (r)
			return fail("the peer's endpoint description", strerror(r));
	}
	return 0;
}

int ex_exchange_info(struct ex_exchange *x, const struct ex_endpoint_info *local,
		     struct ex_endpoint_info *remote, size_t n)
{
	if (x->server)
		return receive_infos(x, remote, n) || send_infos(x, local, n) ? -1 : 0;
	return send_infos(x, local, n) || receive_infos(x, remote, n) ? -1 : 0;
}

int ex_exchange_sync(struct ex_exchange *x, const char *name)
{
	uint8_t mine = 's', theirs;
	char what[96];

	snprintf(what, sizeof(what), "barrier \"%s\" with the peer", name);
	return write_all(x->fd, &mine, 1, what) || read_all(x->fd, &theirs, 1, what) ? -1 : 0;
}

void ex_exchange_close(struct ex_exchange *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
}

static void print_address(const char *which, const struct ex_endpoint_info *i)
{
	char gid[64];

	snprintf(gid, sizeof(gid), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
		 "%02x%02x:%02x%02x", i->gid[0], i->gid[1], i->gid[2], i->gid[3], i->gid[4],
		 i->gid[5], i->gid[6], i->gid[7], i->gid[8], i->gid[9], i->gid[10], i->gid[11],
		 i->gid[12], i->gid[13], i->gid[14], i->gid[15]);
	printf("  %s address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", which,
	       (unsigned)i->lid, (unsigned)i->qpn, (unsigned)i->psn, gid);
}

int ex_exchange_connect(struct ex_exchange *x, const struct ex_options *opts,
			struct ex_endpoint *const *eps, size_t n)
{
	struct ex_endpoint_info local[EX_EXCHANGE_MAX_ENDPOINTS];
	struct ex_endpoint_info remote[EX_EXCHANGE_MAX_ENDPOINTS];
	int ret;

	if (n > EX_EXCHANGE_MAX_ENDPOINTS)
		return fail("ex_exchange_connect", "too many endpoints");
	for (size_t i = 0; i < n; i++)
		ex_endpoint_local_info(eps[i], &local[i]);
	if (ex_exchange_open(x, opts->host, opts->tcp_port))
		return -1;
	ret = ex_exchange_info(x, local, remote, n);
	for (size_t i = 0; !ret && i < n; i++) {
		print_address("local", &local[i]);
		print_address("remote", &remote[i]);
		ret = ex_endpoint_connect(eps[i], &remote[i]);
	}
	if (!ret)
		ret = ex_exchange_sync(x, "connected");
	if (ret)
		ex_exchange_close(x);
	return ret;
}
