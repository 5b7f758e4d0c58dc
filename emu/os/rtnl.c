// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * NETLINK_ROUTE sockets of the program (os/rtnl.h).  Each request the
 * program sends is read on its way to the kernel; one that asks for the
 * links or the addresses leaves a "want" behind, keyed by its sequence
 * number.  The kernel's answer is the carrier: in the datagram that ends a
 * wanted dump (NLMSG_DONE, or NLMSG_ERROR when the kernel refused an
 * interface index that is one of the ports') the ports' messages go
 * before a clean NLMSG_DONE; the kernel's NLMSG_ERROR to a request for a
 * port's link by index or name is replaced by that link.  A receive with
 * MSG_PEEK sees the datagram as the next receive will return it, so a
 * program that sizes its buffer with MSG_PEEK | MSG_TRUNC (iproute2) gets
 * the right size.
 */
#include "os/rtnl.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "base/fdtab.h"
#include "base/libc.h"
#include "os/netif.h"
#include "os/rtnl_ifmsg.h"

#define EXPORT __attribute__((visibility("default")))

#define MAX_SOCKS 16
#define MAX_WANTS 8

enum want_kind { WANT_LINK_DUMP, WANT_ADDR_DUMP, WANT_LINK };

struct want {
	uint32_t seq;
	uint8_t kind;
	/* WANT_LINK: the port asked for; a dump: the port its interface
	 * filter names, or 0 for every port (filter_index 0) */
	uint8_t port;
	int filter_index;
	bool no_entries;	/* a dump that only needs a clean end */
	bool ack;
	uint16_t type;
};

struct rtnl_sock {
	int fd1;	/* the descriptor + 1; 0: a free slot */
	unsigned n;
	struct want want[MAX_WANTS];
};

static struct rtnl_sock socks[MAX_SOCKS];
static pthread_mutex_t socks_lock = PTHREAD_MUTEX_INITIALIZER;

static bool has_netif(void)
{
	return emu_netif_exists(1) || emu_netif_exists(2);
}

void emu_rtnl_opened(int fd)
{
	if (has_netif())
		emu_fd_set_rtnl(fd, true);
}

static struct rtnl_sock *sock_of(int fd, bool create)
{
	struct rtnl_sock *free_slot = NULL;

	for (unsigned i = 0; i < MAX_SOCKS; i++) {
		if (socks[i].fd1 == fd + 1)
			return &socks[i];
		if (!socks[i].fd1 && !free_slot)
			free_slot = &socks[i];
	}
	if (!create || !free_slot)
		return NULL;
	free_slot->fd1 = fd + 1;
	free_slot->n = 0;
	return free_slot;
}

void emu_rtnl_closed(int fd)
{
	struct rtnl_sock *s;

	pthread_mutex_lock(&socks_lock);
	s = sock_of(fd, false);
	if (s)
		s->fd1 = 0;
	pthread_mutex_unlock(&socks_lock);
}

/* ---- the requests ---- */

/* The port an RTM_GETLINK names by index, IFLA_IFNAME or IFLA_ALT_IFNAME,
 * or 0. */
static unsigned link_request_port(const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct rtattr *a;
	int len;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return 0;
	if (ifi->ifi_index)
		return emu_netif_port_by_index(ifi->ifi_index);
	len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		const char *name = RTA_DATA(a);
		size_t n = RTA_PAYLOAD(a);

		if ((a->rta_type == IFLA_IFNAME || a->rta_type == IFLA_ALT_IFNAME) && n &&
		    !name[n - 1])
			return emu_netif_port_by_name(name);
	}
	return 0;
}

/* What the answer to request h needs from us; false for nothing. */
static bool want_of(const struct nlmsghdr *h, struct want *w)
{
	bool dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;

	*w = (struct want){ .seq = h->nlmsg_seq, .ack = (h->nlmsg_flags & NLM_F_ACK) != 0,
			    .type = h->nlmsg_type };
	if (h->nlmsg_type == RTM_GETLINK && !dump) {
		w->kind = WANT_LINK;
		w->port = (uint8_t)link_request_port(h);
		return w->port != 0;
	}
	if (h->nlmsg_type == RTM_GETLINK && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct rtgenmsg))) {
		uint8_t family = ((const struct rtgenmsg *)NLMSG_DATA(h))->rtgen_family;

		/* AF_INET has no dump of its own: the kernel gives every link */
		w->kind = WANT_LINK_DUMP;
		return dump && (family == AF_UNSPEC || family == AF_PACKET || family == AF_INET);
	}
	if (h->nlmsg_type == RTM_GETADDR && dump &&
	    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct rtgenmsg))) {
		const struct ifaddrmsg *ifa = NLMSG_DATA(h);
		bool full = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifa));

		w->kind = WANT_ADDR_DUMP;
		w->filter_index = full ? (int)ifa->ifa_index : 0;
		w->port = (uint8_t)(w->filter_index ? emu_netif_port_by_index(w->filter_index) : 0);
		/* the ports have IPv4 addresses only: an IPv6 dump of one is empty,
		 * not the kernel's "no such device" */
		w->no_entries = ifa->ifa_family != AF_UNSPEC && ifa->ifa_family != AF_INET;
		if (w->no_entries && !w->port)
			return false;
		return !w->filter_index || w->port;
	}
	return false;
}

static void note_requests(int fd, const uint8_t *buf, size_t len)
{
	const struct nlmsghdr *h;
	int left = len > INT32_MAX ? INT32_MAX : (int)len;
	struct rtnl_sock *s = NULL;
	struct want w;

	pthread_mutex_lock(&socks_lock);
	for (h = (const void *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (!want_of(h, &w))
			continue;
		if (!s)
			s = sock_of(fd, true);
		if (!s)
			break;
		/* the oldest want gives way: its answer is long past */
		if (s->n == MAX_WANTS)
			memmove(&s->want[0], &s->want[1], --s->n * sizeof(s->want[0]));
		s->want[s->n++] = w;
	}
	pthread_mutex_unlock(&socks_lock);
}

static void note_request_iov(int fd, const struct iovec *iov, size_t iovlen)
{
	uint8_t small[4096], *buf = small;
	size_t len = 0, at = 0;

	for (size_t i = 0; i < iovlen; i++)
		len += iov[i].iov_len;
	if (!len || (len > sizeof(small) && !(buf = malloc(len))))
		return;
	for (size_t i = 0; i < iovlen; i++) {
		if (iov[i].iov_len)
			memcpy(buf + at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	note_requests(fd, buf, len);
	if (buf != small)
		free(buf);
}

/* ---- the answers ---- */

/* The want of sequence number seq, or NULL. */
static struct want *find_want(struct rtnl_sock *s, uint32_t seq)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->want[i].seq == seq)
			return &s->want[i];
	return NULL;
}

static void drop_want(struct rtnl_sock *s, struct want *w)
{
	unsigned i = (unsigned)(w - s->want);

	memmove(&s->want[i], &s->want[i + 1], (--s->n - i) * sizeof(s->want[0]));
}

static bool ends_dump(const struct nlmsghdr *h)
{
	return h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR;
}

/* The ports' messages a want adds, at out; their length. */
static size_t put_answer(uint8_t *out, size_t cap, const struct want *w, uint32_t pid)
{
	struct emu_rtnl_hdr multi = { w->seq, pid, NLM_F_MULTI }, single = { w->seq, pid, 0 };
	size_t len = 0;

	if (w->kind == WANT_LINK) {
		len = emu_rtnl_put_link(out, cap, w->port, &single);
		if (w->ack)
			len += emu_rtnl_put_ack(out + len, cap - len, &single, w->type);
		return len;
	}
	for (unsigned p = 1; p <= 2 && !w->no_entries; p++) {
		if (!emu_netif_exists(p) || (w->port && w->port != p))
			continue;
		if (w->kind == WANT_LINK_DUMP)
			len += emu_rtnl_put_link(out + len, cap - len, p, &multi);
		else
			len += emu_rtnl_put_addr(out + len, cap - len, p, &multi);
	}
	return len + emu_rtnl_put_done(out + len, cap - len, &multi);
}

/*
 * The datagram `in` as the program receives it, at out (room for the
 * ports' messages of every want of s: in_len plus 2 * EMU_RTNL_IFMSG_MAX
 * each); its length.  The wants it answers are dropped when `consume`.
 */
static size_t rewrite(struct rtnl_sock *s, const uint8_t *in, size_t in_len, uint8_t *out,
		      size_t cap, bool consume)
{
	const struct nlmsghdr *h;
	int left = (int)in_len;
	size_t len = 0;

	for (h = (const void *)in; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		struct want *w = find_want(s, h->nlmsg_seq);
		size_t n = NLMSG_ALIGN(h->nlmsg_len) <= (size_t)left ? NLMSG_ALIGN(h->nlmsg_len) :
									h->nlmsg_len;

		if (w && w->kind != WANT_LINK && !ends_dump(h))
			w = NULL;	/* an entry of the kernel's own, in a wanted dump */
		if (!w) {
			memcpy(out + len, h, n);
			len += n;
			continue;
		}
		len += put_answer(out + len, cap - len, w, h->nlmsg_pid);
		if (consume)
			drop_want(s, w);
	}
	/* what NLMSG_OK would not walk (a cut message) goes as it came */
	if (left > 0) {
		memcpy(out + len, (const uint8_t *)h, (size_t)left);
		len += (size_t)left;
	}
	return len;
}

/* ---- the interposed calls ---- */

/* Room for the ports' messages that the wants of one socket can add. */
#define ANSWER_ROOM (MAX_WANTS * (2 * EMU_RTNL_IFMSG_MAX + 64))

static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);

#define RESOLVE(fn, name) do { if (!(fn)) *(void **)&(fn) = emu_next_symbol(name); } while (0)

static bool has_wants(int fd)
{
	struct rtnl_sock *s;
	bool any;

	pthread_mutex_lock(&socks_lock);
	s = sock_of(fd, false);
	any = s && s->n;
	pthread_mutex_unlock(&socks_lock);
	return any;
}

static size_t scatter(const uint8_t *p, size_t len, const struct iovec *iov, size_t iovlen)
{
	size_t done = 0;

	for (size_t i = 0; i < iovlen && done < len; i++) {
		size_t n = iov[i].iov_len < len - done ? iov[i].iov_len : len - done;

		/* a size probe (MSG_PEEK | MSG_TRUNC) may pass an empty, NULL entry */
		if (n)
			memcpy(iov[i].iov_base, p + done, n);
		done += n;
	}
	return done;
}

/* The next datagram, peeked whole into a buffer of its size (*in, to be
 * freed); its length, or -1 with errno. */
static ssize_t peek_datagram(int fd, int flags, uint8_t **in, struct sockaddr_nl *from,
			     socklen_t *from_len)
{
	uint8_t probe;
	struct iovec iov = { &probe, 1 };
	struct msghdr m = { .msg_name = from, .msg_namelen = sizeof(*from), .msg_iov = &iov,
			    .msg_iovlen = 1 };
	ssize_t n = real_recvmsg(fd, &m, MSG_PEEK | MSG_TRUNC | (flags & MSG_DONTWAIT));

	if (n < 0)
		return -1;
	*in = malloc((size_t)n + 1);
	if (!*in) {
		errno = ENOBUFS;
		return -1;
	}
	iov = (struct iovec){ *in, (size_t)n };
	m.msg_namelen = sizeof(*from);
	n = real_recvmsg(fd, &m, MSG_PEEK | MSG_DONTWAIT);
	*from_len = m.msg_namelen;
	if (n < 0)
		free(*in);
	return n;
}

static ssize_t rtnl_recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct sockaddr_nl from;
	socklen_t from_len = 0;
	uint8_t *in, *out, probe;
	struct iovec one = { &probe, 1 };
	struct msghdr discard = { .msg_iov = &one, .msg_iovlen = 1 };
	ssize_t n = peek_datagram(fd, flags, &in, &from, &from_len);
	bool consume = !(flags & MSG_PEEK);
	struct rtnl_sock *s;
	size_t out_len, copied;

	if (n < 0)
		return -1;
	out = malloc((size_t)n + ANSWER_ROOM);
	if (!out) {
		free(in);
		errno = ENOBUFS;
		return -1;
	}
	pthread_mutex_lock(&socks_lock);
	s = sock_of(fd, false);
	out_len = s ? rewrite(s, in, (size_t)n, out, (size_t)n + ANSWER_ROOM, consume) : 0;
	pthread_mutex_unlock(&socks_lock);
	if (!s)
		memcpy(out, in, (size_t)(out_len = (size_t)n));
	if (consume)
		real_recvmsg(fd, &discard, MSG_TRUNC | MSG_DONTWAIT);
	copied = scatter(out, out_len, msg->msg_iov, msg->msg_iovlen);
	if (msg->msg_name) {
		memcpy(msg->msg_name, &from, msg->msg_namelen < from_len ? msg->msg_namelen : from_len);
		msg->msg_namelen = from_len;
	}
	msg->msg_controllen = 0;
	msg->msg_flags = copied < out_len ? MSG_TRUNC : 0;
	free(in);
	free(out);
	return (ssize_t)((flags & MSG_TRUNC) ? out_len : copied);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	RESOLVE(real_recvmsg, "recvmsg");
	if (!emu_fd_rtnl(fd) || !has_wants(fd))
		return real_recvmsg(fd, msg, flags);
	return rtnl_recvmsg(fd, msg, flags);
}

/* (the C library declares the address as a transparent union, which a
 * definition must match) */
EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, __SOCKADDR_ARG addr_arg,
			socklen_t *addr_len)
{
	struct sockaddr *addr = addr_arg.__sockaddr__;
	struct iovec iov = { buf, len };
	struct msghdr m = { .msg_name = addr, .msg_namelen = addr && addr_len ? *addr_len : 0,
			    .msg_iov = &iov, .msg_iovlen = 1 };
	static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t n;

	RESOLVE(real_recvfrom, "recvfrom");
	RESOLVE(real_recvmsg, "recvmsg");
	if (!emu_fd_rtnl(fd) || !has_wants(fd))
		return real_recvfrom(fd, buf, len, flags, addr, addr_len);
	n = rtnl_recvmsg(fd, &m, flags);
	if (n >= 0 && addr && addr_len)
		*addr_len = m.msg_namelen;
	return n;
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

/* What _FORTIFY_SOURCE builds call for recv and recvfrom into a buffer of
 * known size: the same, after the C library's own check. */
void __chk_fail(void) __attribute__((noreturn));
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
		       struct sockaddr *addr, socklen_t *addr_len);

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	if (len > buflen)
		__chk_fail();
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
			      struct sockaddr *addr, socklen_t *addr_len)
{
	if (len > buflen)
		__chk_fail();
	return recvfrom(fd, buf, len, flags, addr, addr_len);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	RESOLVE(real_sendmsg, "sendmsg");
	if (emu_fd_rtnl(fd) && msg)
		note_request_iov(fd, msg->msg_iov, msg->msg_iovlen);
	return real_sendmsg(fd, msg, flags);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      __CONST_SOCKADDR_ARG addr_arg, socklen_t addr_len)
{
	const struct sockaddr *addr = addr_arg.__sockaddr__;

	RESOLVE(real_sendto, "sendto");
	if (emu_fd_rtnl(fd) && buf)
		note_requests(fd, buf, len);
	return real_sendto(fd, buf, len, flags, addr, addr_len);
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}
