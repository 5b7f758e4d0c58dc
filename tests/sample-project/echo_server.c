/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * echo_server [-p PORT] [--port-file FILE]
 * Waits (60 s at most) for one client on TCP PORT (0, the default: one
 * the kernel picks, written to FILE once it listens), then echoes every
 * message of the run the client asks for over an RC QP.
 */
#define _POSIX_C_SOURCE 200809L

#include "verbs_echo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_SIZE (1u << 20)
#define TIMEOUT_MS 60000

/* FILE gets "PORT\n" in one rename, so a reader never sees half of it. */
static int write_port_file(const char *path, unsigned port)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0) {
		perror(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		perror(path);
		return -1;
	}
	return 0;
}

static int accept_client(unsigned port, const char *port_file)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	socklen_t len = sizeof(sa);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0), conn;
	struct pollfd pfd;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		perror("echo_server: listen");
		close(fd);
		return -1;
	}
	printf("echo_server: listening on TCP port %u\n", ntohs(sa.sin_port));
	fflush(stdout);
	if (port_file && write_port_file(port_file, ntohs(sa.sin_port))) {
		close(fd);
		return -1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, TIMEOUT_MS) != 1) {
		fprintf(stderr, "echo_server: no client within %d s\n", TIMEOUT_MS / 1000);
		close(fd);
		return -1;
	}
	conn = accept(fd, NULL, NULL);
	close(fd);
	return conn;
}

static int echo_run(struct echo_conn *c, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		uint32_t len = 0;

		if (echo_wait(c, 0, 1, &len, TIMEOUT_MS))
			return -1;
		if (i + 1 < count && echo_post_recv(c))
			return -1;
		memcpy(c->buf + c->size, c->buf, len);
		if (echo_post_send(c, len) || echo_wait(c, 1, 0, NULL, TIMEOUT_MS))
			return -1;
	}
	return 0;
}

static int serve(int fd)
{
	struct echo_hello hello;
	struct echo_conn c;
	uint32_t count, size;
	char done = 'd';
	int rc = -1;

	if (echo_tcp_recv_all(fd, &hello, sizeof(hello), TIMEOUT_MS))
		return -1;
	count = ntohl(hello.count);
	size = ntohl(hello.size);
	if (size == 0 || size > MAX_SIZE || count == 0) {
		fprintf(stderr, "echo_server: a run of %u messages of %u bytes refused\n",
			count, size);
		return -1;
	}
	if (echo_open(&c, size) == 0 && echo_post_recv(&c) == 0 &&
	    echo_connect(&c, &hello.addr) == 0 &&
	    echo_tcp_send_all(fd, &c.self, sizeof(c.self)) == 0 &&
	    echo_run(&c, count) == 0 &&
	    echo_tcp_send_all(fd, &done, 1) == 0) {
		printf("echo_server: %u messages of %u bytes echoed\n", count, size);
		rc = 0;
	}
	/* the client's closing byte: it has every echo, so our QP may go */
	if (rc == 0 && echo_tcp_recv_all(fd, &done, 1, TIMEOUT_MS))
		rc = -1;
	echo_close(&c);
	return rc;
}

int main(int argc, char **argv)
{
	const char *port_file = NULL;
	unsigned port = 0;
	int fd, rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			port = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--port-file") && i + 1 < argc) {
			port_file = argv[++i];
		} else {
			fprintf(stderr, "usage: echo_server [-p PORT] [--port-file FILE]\n");
			return 2;
		}
	}
	fd = accept_client(port, port_file);
	if (fd < 0)
		return 1;
	rc = serve(fd);
	close(fd);
	return rc ? 1 : 0;
}
