// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cm_timewait -s ADDR -p PORT    server
 * cm_timewait -c ADDR -p PORT    client
 *
 * One RC connection through an rdma_cm event channel, which the client
 * ends with rdma_disconnect.  Each side keeps its id after DISCONNECTED
 * and must then get RDMA_CM_EVENT_TIMEWAIT_EXIT: no sooner than 0.25 s
 * after DISCONNECTED (the kernel's CM waits out the path's packet
 * lifetime plus one, 4.096 us x 2^17 = 0.54 s here, before it lets the
 * QPN go: ib_cm cm_enter_timewait) and within 5 s, then no other event
 * for 1 s.  Prints each event and the time wait it measured.  Exit 0,
 * or 1 after a line starting "FAIL:".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>

#define TIMEWAIT_MIN_MS 250
#define TIMEWAIT_MAX_MS 5000
#define QUIET_MS 1000

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The next event within ms, acknowledged; its type and, in *id, its id.
 * -1 when none came. */
static int next_event(struct rdma_event_channel *ch, int ms, struct rdma_cm_id **id)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *e;
	int type;

	if (poll(&p, 1, ms) != 1)
		return -1;
	if (rdma_get_cm_event(ch, &e))
		fail("rdma_get_cm_event: %s", strerror(errno));
	type = e->event;
	printf("%s, error %d\n", rdma_event_str(e->event), e->status);
	if (id)
		*id = e->id;
	rdma_ack_cm_event(e);
	return type;
}

static struct rdma_cm_id *expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_id *id = NULL;
	int got = next_event(ch, TIMEWAIT_MAX_MS * 2, &id);

	if (got != (int)want)
		fail("expected %s", rdma_event_str(want));
	return id;
}

static void make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a = { .qp_type = IBV_QPT_RC,
				      .cap = { .max_send_wr = 1, .max_recv_wr = 1,
					       .max_send_sge = 1, .max_recv_sge = 1 } };

	if (rdma_create_qp(id, NULL, &a))
		fail("rdma_create_qp: %s", strerror(errno));
}

/* After DISCONNECTED: TIMEWAIT_EXIT in its window, then quiet. */
static void wait_out(struct rdma_event_channel *ch, double disconnected_ms)
{
	double waited;

	expect(ch, RDMA_CM_EVENT_TIMEWAIT_EXIT);
	waited = now_ms() - disconnected_ms;
	printf("time wait %.0f ms\n", waited);
	if (waited < TIMEWAIT_MIN_MS)
		fail("TIMEWAIT_EXIT before the time wait was over");
	if (next_event(ch, QUIET_MS, NULL) != -1)
		fail("an event after TIMEWAIT_EXIT");
}

static struct sockaddr_in addr_of(const char *host, const char *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };

	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		fail("not an IPv4 address: %s", host);
	return a;
}

static void serve(struct rdma_event_channel *ch, struct rdma_cm_id *listener,
		  struct sockaddr_in *a)
{
	struct rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1 };
	struct rdma_cm_id *id;

	if (rdma_bind_addr(listener, (struct sockaddr *)a) || rdma_listen(listener, 1))
		fail("bind and listen: %s", strerror(errno));
	id = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	make_qp(id);
	if (rdma_accept(id, &p))
		fail("rdma_accept: %s", strerror(errno));
	expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	expect(ch, RDMA_CM_EVENT_DISCONNECTED);
	wait_out(ch, now_ms());
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

static void connect_to(struct rdma_event_channel *ch, struct rdma_cm_id *id, struct sockaddr_in *a)
{
	struct rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1,
				     .retry_count = 7 };

	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)a, 2000))
		fail("rdma_resolve_addr: %s", strerror(errno));
	expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_resolve_route(id, 2000))
		fail("rdma_resolve_route: %s", strerror(errno));
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	make_qp(id);
	if (rdma_connect(id, &p))
		fail("rdma_connect: %s", strerror(errno));
	expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	if (rdma_disconnect(id))
		fail("rdma_disconnect: %s", strerror(errno));
	expect(ch, RDMA_CM_EVENT_DISCONNECTED);
	wait_out(ch, now_ms());
	rdma_destroy_qp(id);
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct sockaddr_in a;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 5 || (strcmp(argv[1], "-s") && strcmp(argv[1], "-c")) ||
	    strcmp(argv[3], "-p")) {
		fprintf(stderr, "usage: cm_timewait -s|-c ADDR -p PORT\n");
		return 2;
	}
	a = addr_of(argv[2], argv[4]);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		fail("event channel and id: %s", strerror(errno));
	if (!strcmp(argv[1], "-s"))
		serve(ch, id, &a);
	else
		connect_to(ch, id, &a);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	printf("PASS: TIMEWAIT_EXIT after DISCONNECTED, once\n");
	return 0;
}
