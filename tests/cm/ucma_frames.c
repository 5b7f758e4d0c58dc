// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Bad command frames on /dev/infiniband/rdma_cm, written as librdmacm
 * writes them (rdma/rdma_user_cm.h), get the errno the kernel's ucma
 * gives, never a crash; and the channel's descriptor works with poll,
 * epoll and O_NONBLOCK.  Run under mlx4emu-run with --addr=ADDR, the
 * adapter's own address given as argv[1].  Prints one line per check and
 * "PASS" at the end; exits 1 at the first mismatch.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

struct frame {
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t body[512];
};

static int fails;

static void expect(const char *what, long got, int err, long want, int want_err)
{
	bool ok = got == want && (want >= 0 || err == want_err);

	printf("%s %s: returned %ld errno %d (%s)\n", ok ? "ok  " : "FAIL", what, got,
	       got < 0 ? err : 0, got < 0 ? strerror(err) : "-");
	if (!ok) {
		printf("     expected %ld errno %d (%s)\n", want, want_err, strerror(want_err));
		fails++;
	}
}

/* errno read once the call returned (argument order is unspecified) */
#define EXPECT(what, call, want, want_err) \
	do { \
		long n_ = (long)(call); \
		int e_ = errno; \
		expect(what, n_, e_, want, want_err); \
	} while (0)

/* An IPv4 address of one of the host's own interfaces outside 127/8
 * (dotted into out), or false when it has none. */
static bool host_interface_address(char out[INET_ADDRSTRLEN])
{
	struct ifaddrs *all, *i;
	bool found = false;

	if (getifaddrs(&all))
		return false;
	for (i = all; i && !found; i = i->ifa_next) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)i->ifa_addr;

		if (in && in->sin_family == AF_INET && ntohl(in->sin_addr.s_addr) >> 24 != 127)
			found = inet_ntop(AF_INET, &in->sin_addr, out, INET_ADDRSTRLEN) != NULL;
	}
	freeifaddrs(all);
	return found;
}

static long cmd(int fd, uint32_t op, const void *body, uint16_t in, uint16_t out, size_t len)
{
	struct frame f;

	memset(&f, 0, sizeof(f));
	f.hdr.cmd = op;
	f.hdr.in = in;
	f.hdr.out = out;
	memcpy(f.body, body, in < sizeof(f.body) ? in : sizeof(f.body));
	return write(fd, &f, len ? len : sizeof(f.hdr) + in);
}

static uint32_t create_id(int fd)
{
	struct rdma_ucm_create_id c = { .uid = 1, .ps = RDMA_PS_TCP };
	struct rdma_ucm_create_id_resp r = { 0 };
	long n;

	c.response = (uintptr_t)&r;
	n = cmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(r), 0);
	expect("CREATE_ID", n, errno, (long)(sizeof(struct rdma_ucm_cmd_hdr) + sizeof(c)), 0);
	return r.id;
}

static void sin_of(struct sockaddr_in6 *sa6, const char *ip, uint16_t port)
{
	struct sockaddr_in *sa = (struct sockaddr_in *)sa6;

	memset(sa6, 0, sizeof(*sa6));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	inet_pton(AF_INET, ip, &sa->sin_addr);
}

int main(int argc, char **argv)
{
	const long hdr = sizeof(struct rdma_ucm_cmd_hdr);
	struct rdma_ucm_create_id c = { .uid = 1, .ps = RDMA_PS_TCP };
	struct rdma_ucm_create_id_resp r;
	struct rdma_ucm_destroy_id_resp dr = { 0 };
	struct rdma_ucm_destroy_id d = { 0 };
	struct rdma_ucm_bind_ip b = { 0 };
	struct rdma_ucm_bind bb = { 0 };
	struct rdma_ucm_connect conn = { 0 };
	struct rdma_ucm_get_event ge = { 0 };
	struct rdma_ucm_event_resp ev;
	struct rdma_ucm_resolve_ip res = { 0 };
	struct epoll_event ee = { .events = EPOLLIN }, got;
	struct pollfd pfd;
	uint32_t id, other;
	int fd, fd2, ep;
	char byte;

	if (argc < 2) {
		fprintf(stderr, "usage: ucma_frames OWN_ADDRESS\n");
		return 2;
	}
	fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC);
	fd2 = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC);
	if (fd < 0 || fd2 < 0) {
		perror("open /dev/infiniband/rdma_cm");
		return 1;
	}
	EXPECT("frame shorter than its header", write(fd, &c, 4), -1, EINVAL);
	c.response = (uintptr_t)&r;
	EXPECT("'in' past the end of the write",
	       cmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(r), hdr + 8), -1,
	       EINVAL);
	EXPECT("unknown command 99", cmd(fd, 99, &c, sizeof(c), 0, 0), -1, EINVAL);
	EXPECT("GET_OPTION (none in the kernel)", cmd(fd, RDMA_USER_CM_CMD_GET_OPTION, &c, 24, 0, 0),
	       -1, ENOSYS);
	EXPECT("CREATE_ID shorter than its structure",
	       cmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, 8, sizeof(r), 0), -1, EINVAL);
	EXPECT("CREATE_ID with 2 response bytes",
	       cmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 2, 0), -1, ENOSPC);
	c.response = 16;	/* never mapped */
	EXPECT("CREATE_ID response at an unmapped address",
	       cmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(r), 0), -1, EFAULT);
	{
		/* through a variable: the compiler need not see the bad address */
		volatile uintptr_t unmapped = 16;

		EXPECT("frame at an unmapped address", write(fd, (const void *)unmapped, 64),
		       -1, EFAULT);
	}
	c.response = (uintptr_t)&r;
	c.ps = 0x4242;
	EXPECT("CREATE_ID of an unknown port space",
	       cmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(r), 0), -1, EINVAL);
	id = create_id(fd);
	other = create_id(fd2);

	d.id = 60000;
	d.response = (uintptr_t)&r;
	EXPECT("DESTROY_ID of no id", cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4, 0),
	       -1, ENOENT);
	d.id = other;
	EXPECT("DESTROY_ID of another file's id",
	       cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4, 0), -1, EINVAL);

	b.id = id;
	sin_of(&b.addr, "127.254.254.254", 7000);
	EXPECT("BIND_IP to an address the adapter does not own",
	       cmd(fd, RDMA_USER_CM_CMD_BIND_IP, &b, sizeof(b), 0, 0), -1, EADDRNOTAVAIL);
	{
		char host[INET_ADDRSTRLEN];

		/* a netdev without an RDMA device: the kernel finds none */
		if (host_interface_address(host)) {
			sin_of(&b.addr, host, 7000);
			printf("the host's interface address %s:\n", host);
			EXPECT("BIND_IP to a host interface with no RDMA device",
			       cmd(fd, RDMA_USER_CM_CMD_BIND_IP, &b, sizeof(b), 0, 0), -1, ENODEV);
		} else {
			printf("no host interface outside 127/8: the ENODEV case not run\n");
		}
	}
	{
		uint32_t a = create_id(fd), b2 = create_id(fd);

		b.id = a;
		sin_of(&b.addr, argv[1], 7001);
		EXPECT("BIND_IP to the adapter's own address",
		       cmd(fd, RDMA_USER_CM_CMD_BIND_IP, &b, sizeof(b), 0, 0), hdr + (long)sizeof(b), 0);
		b.id = b2;
		EXPECT("BIND_IP to a port another id holds",
		       cmd(fd, RDMA_USER_CM_CMD_BIND_IP, &b, sizeof(b), 0, 0), -1, EADDRINUSE);
		d.response = (uintptr_t)&r;
		d.id = a;
		cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4, 0);
		EXPECT("BIND_IP to that port once the other id is gone",
		       cmd(fd, RDMA_USER_CM_CMD_BIND_IP, &b, sizeof(b), 0, 0), hdr + (long)sizeof(b), 0);
		d.id = b2;
		cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4, 0);
		/* the kernel's CMA takes a loopback source for the wildcard
		 * (cma_any_addr): bound, no device, and its port is every
		 * address's */
		b.id = a = create_id(fd);
		sin_of(&b.addr, "127.0.0.1", 7002);
		EXPECT("BIND_IP to 127.0.0.1", cmd(fd, RDMA_USER_CM_CMD_BIND_IP, &b, sizeof(b), 0, 0),
		       hdr + (long)sizeof(b), 0);
		{
			struct rdma_ucm_query q = { .id = a };
			struct rdma_ucm_query_route_resp qr;

			memset(&qr, 0xa5, sizeof(qr));
			q.response = (uintptr_t)&qr;
			EXPECT("QUERY_ROUTE of an id bound to 127.0.0.1",
			       cmd(fd, RDMA_USER_CM_CMD_QUERY_ROUTE, &q, sizeof(q), sizeof(qr), 0),
			       hdr + (long)sizeof(q), 0);
			EXPECT("... names no device (node GUID 0, port 0)",
			       (qr.node_guid == 0 && qr.port_num == 0), 1, 0);
		}
		b.id = b2 = create_id(fd);
		sin_of(&b.addr, argv[1], 7002);
		EXPECT("BIND_IP to the adapter's address on 127.0.0.1's port",
		       cmd(fd, RDMA_USER_CM_CMD_BIND_IP, &b, sizeof(b), 0, 0), -1, EADDRNOTAVAIL);
		d.id = a;
		cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4, 0);
		d.id = b2;
		cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4, 0);
	}
	bb.id = id;
	bb.addr_size = 48;
	bb.addr.ss_family = AF_IB;
	EXPECT("BIND of an AF_IB address", cmd(fd, RDMA_USER_CM_CMD_BIND, &bb, sizeof(bb), 0, 0),
	       -1, EAFNOSUPPORT);
	conn.id = id;
	conn.conn_param.valid = 1;
	EXPECT("CONNECT before the route is resolved",
	       cmd(fd, RDMA_USER_CM_CMD_CONNECT, &conn, sizeof(conn), 0, 0), -1, EINVAL);
	EXPECT("read() of the channel", read(fd, &byte, 1), -1, EINVAL);

	/* the channel's fd: O_NONBLOCK, poll, epoll */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ge.response = (uintptr_t)&ev;
	EXPECT("GET_EVENT on an empty non-blocking channel",
	       cmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &ge, sizeof(ge), sizeof(ev), 0), -1, EAGAIN);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	EXPECT("poll() of an empty channel", poll(&pfd, 1, 0), 0, 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee);
	res.id = id;
	sin_of(&res.dst_addr, argv[1], 7000);
	EXPECT("RESOLVE_IP to this adapter's own address",
	       cmd(fd, RDMA_USER_CM_CMD_RESOLVE_IP, &res, sizeof(res), 0, 0),
	       hdr + (long)sizeof(res), 0);
	EXPECT("poll() once the event is queued", poll(&pfd, 1, 5000), 1, 0);
	EXPECT("epoll_wait() once the event is queued", epoll_wait(ep, &got, 1, 5000), 1, 0);
	memset(&ev, 0xa5, sizeof(ev));
	EXPECT("GET_EVENT", cmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &ge, sizeof(ge), sizeof(ev), 0),
	       hdr + (long)sizeof(ge), 0);
	EXPECT("the event is ADDR_RESOLVED (0) of the id", ev.event == 0 && ev.id == id && ev.uid == 1,
	       1, 0);
	EXPECT("poll() after the event was taken", poll(&pfd, 1, 0), 0, 0);
	EXPECT("GET_EVENT with 8 response bytes",
	       cmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &ge, sizeof(ge), 8, 0), -1, ENOSPC);

	d.id = id;
	d.response = (uintptr_t)&dr;
	EXPECT("DESTROY_ID", cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4, 0),
	       hdr + (long)sizeof(d), 0);
	EXPECT("events reported", dr.events_reported, 1, 0);
	close(ep);
	close(fd);
	close(fd2);
	if (fails) {
		printf("FAIL: %d checks\n", fails);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
