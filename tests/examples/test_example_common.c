// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The example programs' shared code that needs no device: the endpoint
 * description's wire format (golden bytes worked out by hand from the
 * documented layout), nearest-rank percentiles, payload patterns, option
 * parsing and the two-process exchange (over loopback TCP).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <sys/socket.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "endpoint_info.h"
#include "exchange.h"
#include "latency.h"
#include "options.h"
#include "payload.h"
#include "test_exit.h"

static const struct ex_endpoint_info sample_info = {
	.qpn = 0x123456,
	.psn = 0xabcdef,
	.lid = 0x0102,
	.gid = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff, 0xfe, 0x0e, 0x4d, 0x01 },
	.mac = { 0x00, 0x02, 0xc9, 0x0e, 0x4d, 0x01 },
	.qkey = 0x11111111,
	.rkey = 0xdeadbeef,
	.addr = 0x00007f0011223344ull,
	.length = 0x10000,
};

static void wire_image_is_the_documented_layout(void **state)
{
	/* magic "M4DV", version 1, lid, qpn, psn, gid, mac, 2 pad, qkey, rkey,
	 * addr, length: all big-endian */
	static const uint8_t golden[EX_ENDPOINT_INFO_WIRE_SIZE] = {
		0x4d, 0x34, 0x44, 0x56, 0x00, 0x01, 0x01, 0x02,
		0x00, 0x12, 0x34, 0x56, 0x00, 0xab, 0xcd, 0xef,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x02, 0x02, 0xc9, 0xff, 0xfe, 0x0e, 0x4d, 0x01,
		0x00, 0x02, 0xc9, 0x0e, 0x4d, 0x01, 0x00, 0x00,
		0x11, 0x11, 0x11, 0x11, 0xde, 0xad, 0xbe, 0xef,
		0x00, 0x00, 0x7f, 0x00, 0x11, 0x22, 0x33, 0x44,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	};
	uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE];

	(void)state;
	memset(wire, 0xa5, sizeof(wire));
	ex_endpoint_info_pack(&sample_info, wire);
	assert_memory_equal(wire, golden, sizeof(golden));
}

static void wire_round_trip_keeps_every_field(void **state)
{
	uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE];
	struct ex_endpoint_info back;

	(void)state;
	memset(&back, 0x5a, sizeof(back));
	ex_endpoint_info_pack(&sample_info, wire);
	assert_int_equal(ex_endpoint_info_unpack(wire, &back), 0);
	assert_int_equal(back.qpn, sample_info.qpn);
	assert_int_equal(back.psn, sample_info.psn);
	assert_int_equal(back.lid, sample_info.lid);
	assert_memory_equal(back.gid, sample_info.gid, 16);
	assert_memory_equal(back.mac, sample_info.mac, 6);
	assert_int_equal(back.qkey, sample_info.qkey);
	assert_int_equal(back.rkey, sample_info.rkey);
	assert_int_equal(back.addr, sample_info.addr);
	assert_int_equal(back.length, sample_info.length);
}

static void wire_rejects_foreign_or_out_of_range(void **state)
{
	uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE];
	struct ex_endpoint_info back = sample_info;

	(void)state;
	ex_endpoint_info_pack(&sample_info, wire);
	wire[0] ^= 1;				/* magic */
	assert_int_equal(ex_endpoint_info_unpack(wire, &back), EPROTO);
	ex_endpoint_info_pack(&sample_info, wire);
	wire[5] = 2;				/* version */
	assert_int_equal(ex_endpoint_info_unpack(wire, &back), EPROTO);
	ex_endpoint_info_pack(&sample_info, wire);
	wire[8] = 0x01;				/* QPN above 24 bits */
	assert_int_equal(ex_endpoint_info_unpack(wire, &back), EPROTO);
	/* a rejected image leaves the output alone */
	assert_memory_equal(&back, &sample_info, sizeof(back));
}

static void percentiles_are_nearest_rank(void **state)
{
	struct ex_latency lat;

	(void)state;
	assert_int_equal(ex_latency_init(&lat, 100), 0);
	/* 100, 99, ..., 1: unsorted on purpose */
	for (uint64_t v = 100; v >= 1; v--)
		ex_latency_add(&lat, v);
	assert_int_equal(ex_latency_percentile(&lat, 50), 50);
	assert_int_equal(ex_latency_percentile(&lat, 90), 90);
	assert_int_equal(ex_latency_percentile(&lat, 99), 99);
	assert_int_equal(ex_latency_percentile(&lat, 100), 100);
	assert_int_equal(ex_latency_percentile(&lat, 0.5), 1);
	ex_latency_free(&lat);

	assert_int_equal(ex_latency_init(&lat, 3), 0);
	assert_int_equal(ex_latency_percentile(&lat, 50), 0);	/* empty */
	ex_latency_add(&lat, 7);
	ex_latency_add(&lat, 3);
	ex_latency_add(&lat, 5);
	ex_latency_add(&lat, 1);		/* beyond capacity: dropped */
	assert_int_equal(ex_latency_percentile(&lat, 50), 5);	/* rank 2 of 3 */
	assert_int_equal(ex_latency_percentile(&lat, 100), 7);
	ex_latency_free(&lat);
}

static void payload_check_catches_one_byte(void **state)
{
	uint8_t buf[333];

	(void)state;
	ex_payload_fill(buf, sizeof(buf), 42);
	assert_true(ex_payload_check(buf, sizeof(buf), 42, "test"));
	assert_false(ex_payload_check(buf, sizeof(buf), 43, "test"));
	buf[200] ^= 0x10;
	assert_false(ex_payload_check(buf, sizeof(buf), 42, "test"));
	buf[200] ^= 0x10;
	/* a pattern shifted by one byte is not the pattern */
	assert_false(ex_payload_check(buf + 1, sizeof(buf) - 1, 42, "test"));
}

static const struct ex_program test_program = {
	.name = "test",
	.summary = "test",
	.extras = EX_OPT_BATCH,
	.default_size = 64,
	.min_size = 8,
	.max_size = 4096,
	.default_iters = 10,
	.default_batch = 1,
};

static enum ex_parse_result parse(struct ex_options *opts, int argc, const char **argv)
{
	return ex_parse_options(&test_program, argc, (char **)argv, opts);
}

static void options_follow_pingpong_letters(void **state)
{
	const char *argv[] = { "test", "-d", "mlx4_1", "-i", "2", "-s", "100",
			       "-n", "7", "-g", "1", "--batch", "4", NULL };
	struct ex_options o;

	(void)state;
	assert_int_equal(parse(&o, 13, argv), EX_PARSE_RUN);
	assert_string_equal(o.ib_devname, "mlx4_1");
	assert_int_equal(o.ib_port, 2);
	assert_int_equal(o.size, 100);
	assert_int_equal(o.iters, 7);
	assert_int_equal(o.gid_index, 1);
	assert_int_equal(o.batch, 4);

	const char *defaults[] = { "test", NULL };

	assert_int_equal(parse(&o, 1, defaults), EX_PARSE_RUN);
	assert_null(o.ib_devname);
	assert_int_equal(o.ib_port, 1);
	assert_int_equal(o.gid_index, -1);
	assert_int_equal(o.size, 64);
	assert_int_equal(o.iters, 10);
}

static void options_reject_bad_input(void **state)
{
	const char *too_small[] = { "test", "-s", "7", NULL };
	const char *not_a_number[] = { "test", "-n", "12x", NULL };
	const char *not_offered[] = { "test", "--events", NULL };
	const char *stray[] = { "test", "extra", NULL };
	const char *missing[] = { "test", "-s", NULL };
	const char *help[] = { "test", "--help", NULL };
	struct ex_options o;

	(void)state;
	assert_int_equal(parse(&o, 3, too_small), EX_PARSE_ERROR);
	assert_int_equal(parse(&o, 3, not_a_number), EX_PARSE_ERROR);
	assert_int_equal(parse(&o, 2, not_offered), EX_PARSE_ERROR);
	assert_int_equal(parse(&o, 2, stray), EX_PARSE_ERROR);
	assert_int_equal(parse(&o, 2, missing), EX_PARSE_ERROR);
	assert_int_equal(parse(&o, 2, help), EX_PARSE_HELP);
}

static const struct ex_program peer_program = {
	.name = "peer",
	.summary = "peer",
	.extras = EX_OPT_PEER,
	.default_size = 64,
	.min_size = 8,
	.max_size = 4096,
	.default_iters = 10,
};

static enum ex_parse_result parse_peer(struct ex_options *opts, int argc, const char **argv)
{
	return ex_parse_options(&peer_program, argc, (char **)argv, opts);
}

/* ibv_*_pingpong's roles: -p alone is the server, HOST the client; the
 * plain command line keeps both endpoints in one process. */
static void options_name_the_two_process_roles(void **state)
{
	const char *one[] = { "peer", "-n", "3", NULL };
	const char *server[] = { "peer", "-p", "20001", NULL };
	const char *client[] = { "peer", "-p", "20001", "127.0.0.1", NULL };
	const char *client_default_port[] = { "peer", "localhost", NULL };
	const char *two_hosts[] = { "peer", "a", "b", NULL };
	const char *bad_port[] = { "peer", "-p", "65536", NULL };
	const char *not_offered[] = { "test", "-p", "1", NULL };
	struct ex_options o;

	(void)state;
	assert_int_equal(parse_peer(&o, 3, one), EX_PARSE_RUN);
	assert_false(o.two_process);
	assert_null(o.host);
	assert_int_equal(parse_peer(&o, 3, server), EX_PARSE_RUN);
	assert_true(o.two_process);
	assert_null(o.host);
	assert_int_equal(o.tcp_port, 20001);
	assert_int_equal(parse_peer(&o, 4, client), EX_PARSE_RUN);
	assert_true(o.two_process);
	assert_string_equal(o.host, "127.0.0.1");
	assert_int_equal(o.tcp_port, 20001);
	assert_int_equal(parse_peer(&o, 2, client_default_port), EX_PARSE_RUN);
	assert_string_equal(o.host, "localhost");
	assert_int_equal(o.tcp_port, EX_DEFAULT_TCP_PORT);
	assert_int_equal(parse_peer(&o, 3, two_hosts), EX_PARSE_ERROR);
	assert_int_equal(parse_peer(&o, 3, bad_port), EX_PARSE_ERROR);
	assert_int_equal(parse(&o, 3, not_offered), EX_PARSE_ERROR);
}

struct exchange_side {
	uint16_t port;
	const char *host;
	struct ex_endpoint_info mine[2], theirs[2];
	int ret;
};

static void *exchange_side_run(void *arg)
{
	struct exchange_side *s = arg;
	struct ex_exchange x;

	s->ret = ex_exchange_open(&x, s->host, s->port);
	if (!s->ret)
		s->ret = ex_exchange_info(&x, s->mine, s->theirs, 2) ||
			 ex_exchange_sync(&x, "test") ? -1 : 0;
	if (!s->ret)
		ex_exchange_close(&x);
	return NULL;
}

/* A TCP port that nothing listens on now: the kernel's pick of an
 * ephemeral one (a port drawn from the pid may be another test's, whose
 * server the client would then reach). */
static uint16_t free_tcp_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void exchange_swaps_descriptions_over_tcp(void **state)
{
	struct exchange_side server = { .port = free_tcp_port() };
	struct exchange_side client = { .port = server.port, .host = "127.0.0.1" };
	pthread_t t;

	(void)state;
	for (int i = 0; i < 2; i++) {
		server.mine[i] = (struct ex_endpoint_info){ .qpn = 0x48 + (uint32_t)i,
			.psn = 0x123456, .lid = 7, .rkey = 0x1234, .addr = 0x1000, .length = 64 };
		client.mine[i] = (struct ex_endpoint_info){ .qpn = 0x99 + (uint32_t)i,
			.psn = 0xabcdef, .lid = 9, .qkey = 0x11111111, .length = 128 };
		server.mine[i].gid[15] = (uint8_t)(1 + i);
		client.mine[i].gid[0] = 0xfe;
	}
	assert_int_equal(pthread_create(&t, NULL, exchange_side_run, &server), 0);
	exchange_side_run(&client);
	pthread_join(t, NULL);
	assert_int_equal(server.ret, 0);
	assert_int_equal(client.ret, 0);
	for (int i = 0; i < 2; i++) {
		assert_memory_equal(&server.theirs[i], &client.mine[i], sizeof(client.mine[i]));
		assert_memory_equal(&client.theirs[i], &server.mine[i], sizeof(server.mine[i]));
	}
}

/* What the code between stderr_capture() and stderr_captured() wrote to
 * stderr (its fd, which the other thread shares). */
struct stderr_capture {
	FILE *file;
	int saved;
	char text[1024];
};

static void stderr_capture(struct stderr_capture *c)
{
	c->file = tmpfile();
	assert_non_null(c->file);
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->file), STDERR_FILENO) >= 0);
}

static const char *stderr_captured(struct stderr_capture *c)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(c->saved, STDERR_FILENO) >= 0);
	close(c->saved);
	rewind(c->file);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->file);
	c->text[n] = '\0';
	fclose(c->file);
	fputs(c->text, stderr);
	return c->text;
}

struct late_server {
	uint16_t port;
	int ret;
};

/* Starts listening only after the client has been refused for longer
 * than EX_CONNECT_NOTICE_MS. */
static void *late_server_run(void *arg)
{
	struct late_server *s = arg;
	struct ex_exchange x;

	usleep((EX_CONNECT_NOTICE_MS + 500) * 1000);
	s->ret = ex_exchange_open(&x, NULL, s->port);
	if (!s->ret)
		ex_exchange_close(&x);
	return NULL;
}

static void exchange_client_says_what_it_waits_for(void **state)
{
	struct late_server server = { .port = free_tcp_port() };
	struct stderr_capture c;
	struct ex_exchange x;
	char want[128];
	pthread_t t;
	int ret;

	(void)state;
	snprintf(want, sizeof(want), "exchange: waiting for a server on 127.0.0.1 TCP port %u "
		 "(Connection refused); retrying for up to %d s\n", (unsigned)server.port,
		 EX_EXCHANGE_TIMEOUT_MS / 1000);
	stderr_capture(&c);
	assert_int_equal(pthread_create(&t, NULL, late_server_run, &server), 0);
	ret = ex_exchange_open(&x, "127.0.0.1", server.port);
	pthread_join(t, NULL);
	/* the server started later is still reached, and the notice came once */
	assert_string_equal(stderr_captured(&c), want);
	assert_int_equal(ret, 0);
	assert_int_equal(server.ret, 0);
	ex_exchange_close(&x);
}

/* The server swaps the descriptions and goes away before the barrier. */
static void *leaving_server_run(void *arg)
{
	struct exchange_side *s = arg;
	struct ex_exchange x;

	s->ret = ex_exchange_open(&x, NULL, s->port);
	if (!s->ret) {
		s->ret = ex_exchange_info(&x, s->mine, s->theirs, 2);
		ex_exchange_close(&x);
	}
	return NULL;
}

static void exchange_barrier_names_itself_and_the_cause(void **state)
{
	struct exchange_side server = { .port = free_tcp_port() };
	struct exchange_side client = { .port = server.port, .host = "127.0.0.1" };
	struct stderr_capture c;
	struct ex_exchange x;
	pthread_t t;
	int ret;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, leaving_server_run, &server), 0);
	assert_int_equal(ex_exchange_open(&x, client.host, client.port), 0);
	assert_int_equal(ex_exchange_info(&x, client.mine, client.theirs, 2), 0);
	pthread_join(t, NULL);
	assert_int_equal(server.ret, 0);
	stderr_capture(&c);
	ret = ex_exchange_sync(&x, "done");
	assert_string_equal(stderr_captured(&c),
			    "exchange: barrier \"done\" with the peer: connection closed by the peer\n");
	assert_int_equal(ret, -1);
	ex_exchange_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wire_image_is_the_documented_layout),
		cmocka_unit_test(wire_round_trip_keeps_every_field),
		cmocka_unit_test(wire_rejects_foreign_or_out_of_range),
		cmocka_unit_test(percentiles_are_nearest_rank),
		cmocka_unit_test(payload_check_catches_one_byte),
		cmocka_unit_test(options_follow_pingpong_letters),
		cmocka_unit_test(options_reject_bad_input),
		cmocka_unit_test(options_name_the_two_process_roles),
		cmocka_unit_test(exchange_swaps_descriptions_over_tcp),
		cmocka_unit_test(exchange_client_says_what_it_waits_for),
		cmocka_unit_test(exchange_barrier_names_itself_and_the_cause),
	};

	t_run_group_tests_name("example_common", tests, NULL, NULL);
	return t_exit();
}
