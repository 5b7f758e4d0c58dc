/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * echo_client [-p PORT | --port-file FILE] [-n COUNT] [-s SIZE] [--counters] HOST
 * Sends COUNT messages (default 1000) of SIZE bytes (default 4096) to the
 * echo_server on HOST over an RC QP, one at a time, and checks every
 * byte of every echo. With --port-file it reads the server's port from
 * FILE, waiting up to 30 s for the server to write it. Exit 0 when every
 * echo matched. --counters prints the software device's counters at the
 * end (<mlx4emu/mlx4emu_ctl.h>, looked up at run time: without the
 * software device it says so and the run goes on).
 */
#define _POSIX_C_SOURCE 200809L

#include "verbs_echo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* the header's path, as CMakeLists.txt found it (installed or named) */
#ifdef MLX4EMU_CTL_HEADER
#define MLX4EMU_CTL_WANT_LOADER
#include MLX4EMU_CTL_HEADER
#endif

#define TIMEOUT_MS 60000
#define PORT_FILE_WAIT_MS 30000

static unsigned read_port_file(const char *path)
{
	for (int waited = 0; waited < PORT_FILE_WAIT_MS; waited += 50) {
		FILE *f = fopen(path, "r");
		unsigned port = 0;

		if (f) {
			int ok = fscanf(f, "%u", &port) == 1;

			fclose(f);
			if (ok)
				return port;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	fprintf(stderr, "echo_client: no port in %s after %d s\n", path,
		PORT_FILE_WAIT_MS / 1000);
	return 0;
}

static int connect_server(const char *host, unsigned port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char service[16];
	int fd, err;

	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(host, service, &hints, &res);
	if (err) {
		fprintf(stderr, "echo_client: %s: %s\n", host, gai_strerror(err));
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen)) {
		fprintf(stderr, "echo_client: connect to %s port %u: %s\n", host, port,
			strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/* Message i: each byte a function of i and its offset, so that a message
 * echoed in the place of another, or shifted, does not match. */
static uint8_t pattern(uint32_t i, uint32_t off)
{
	return (uint8_t)(i * 131u + off * 7u + (off >> 8));
}

static int run(struct echo_conn *c, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		uint32_t len = 0;

		for (uint32_t off = 0; off < c->size; off++)
			c->buf[c->size + off] = pattern(i, off);
		if (echo_post_recv(c) || echo_post_send(c, c->size) ||
		    echo_wait(c, 1, 1, &len, TIMEOUT_MS))
			return -1;
		if (len != c->size) {
			fprintf(stderr, "echo_client: echo %u has %u bytes, not %u\n",
				i, len, c->size);
			return -1;
		}
		for (uint32_t off = 0; off < c->size; off++) {
			if (c->buf[off] != pattern(i, off)) {
				fprintf(stderr, "echo_client: echo %u differs at byte %u\n",
					i, off);
				return -1;
			}
		}
	}
	return 0;
}

static void print_counters(void)
{
#ifdef MLX4EMU_CTL_HEADER
	struct mlx4emu_ctl ctl;
	struct mlx4emu_counters n;

	if (mlx4emu_ctl_load(&ctl) == 0 && ctl.get_counters(&n) == 0) {
		printf("echo_client: device counters: %llu WQEs executed, %llu CQEs "
		       "(%llu errors), %llu completion events, %llu RNR NAKs\n",
		       (unsigned long long)n.wqes_executed,
		       (unsigned long long)n.cqes_written,
		       (unsigned long long)n.error_cqes,
		       (unsigned long long)n.comp_events,
		       (unsigned long long)n.rnr_naks);
		return;
	}
	printf("echo_client: no software device, no counters\n");
#else
	printf("echo_client: built without the control API header (mlx4emu_ctl.h), "
	       "no counters\n");
#endif
}

static int client(int fd, uint32_t count, uint32_t size)
{
	struct echo_hello hello;
	struct echo_wire_addr server;
	struct echo_conn c;
	char done;
	int rc = -1;

	if (echo_open(&c, size))
		return -1;
	memset(&hello, 0, sizeof(hello));
	hello.addr = c.self;
	hello.count = htonl(count);
	hello.size = htonl(size);
	if (echo_tcp_send_all(fd, &hello, sizeof(hello)) == 0 &&
	    echo_tcp_recv_all(fd, &server, sizeof(server), TIMEOUT_MS) == 0 &&
	    echo_connect(&c, &server) == 0 && run(&c, count) == 0 &&
	    echo_tcp_recv_all(fd, &done, 1, TIMEOUT_MS) == 0 &&
	    echo_tcp_send_all(fd, &done, 1) == 0) {
		printf("echo_client: %u messages of %u bytes echoed and checked\n",
		       count, size);
		rc = 0;
	}
	echo_close(&c);
	return rc;
}

int main(int argc, char **argv)
{
	const char *port_file = NULL, *host = NULL;
	unsigned long count = 1000, size = 4096;
	unsigned port = 0;
	int fd, rc, counters = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--counters"))
			counters = 1;
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			port = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--port-file") && i + 1 < argc)
			port_file = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			count = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			size = strtoul(argv[++i], NULL, 10);
		else if (argv[i][0] != '-' && !host)
			host = argv[i];
		else
			host = NULL, i = argc;
	}
	if (!host || (!port && !port_file) || count == 0 || count > UINT32_MAX ||
	    size == 0 || size > (1u << 20)) {
		fprintf(stderr, "usage: echo_client [-p PORT | --port-file FILE] "
			"[-n COUNT] [-s SIZE (1..1048576)] [--counters] HOST\n");
		return 2;
	}
	if (port_file && !(port = read_port_file(port_file)))
		return 1;
	fd = connect_server(host, port);
	if (fd < 0)
		return 1;
	rc = client(fd, (uint32_t)count, (uint32_t)size);
	close(fd);
	if (counters)
		print_counters();
	return rc ? 1 : 0;
}
