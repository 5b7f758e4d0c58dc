// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RTM_NEWLINK and RTM_NEWADDR of a port's interface (os/rtnl_ifmsg.h).
 * The attributes are the ones `ip -j link` and `ip -j addr` print and
 * programs filter on; the kernel's statistics and queue attributes are
 * left out, as a kernel with fewer features leaves them out.
 */
#include "os/rtnl_ifmsg.h"

#include <net/if.h>	/* before the kernel's headers, which then leave its part out */
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "adapter/port.h"
#include "os/netif.h"
#include "wire/identity.h"

/* A message being written: the buffer, its room and the length so far. */
struct nlbuf {
	uint8_t *p;
	size_t cap, len;
	bool full;
};

static void *put(struct nlbuf *b, size_t n)
{
	void *at = b->p + b->len;

	if (b->full || b->cap - b->len < NLMSG_ALIGN(n)) {
		b->full = true;
		return NULL;
	}
	memset(at, 0, NLMSG_ALIGN(n));
	b->len += NLMSG_ALIGN(n);
	return at;
}

static void put_attr(struct nlbuf *b, uint16_t type, const void *data, size_t n)
{
	struct rtattr *a = put(b, RTA_LENGTH(n));

	if (!a)
		return;
	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(n);
	memcpy(RTA_DATA(a), data, n);
}

static void put_u32(struct nlbuf *b, uint16_t type, uint32_t v)
{
	put_attr(b, type, &v, sizeof(v));
}

static void put_u8(struct nlbuf *b, uint16_t type, uint8_t v)
{
	put_attr(b, type, &v, sizeof(v));
}

static void put_string(struct nlbuf *b, uint16_t type, const char *s)
{
	put_attr(b, type, s, strlen(s) + 1);
}

static struct nlmsghdr *begin(struct nlbuf *b, uint16_t type, const struct emu_rtnl_hdr *h)
{
	struct nlmsghdr *n = put(b, NLMSG_HDRLEN);

	if (n) {
		n->nlmsg_type = type;
		n->nlmsg_flags = h->flags;
		n->nlmsg_seq = h->seq;
		n->nlmsg_pid = h->pid;
	}
	return n;
}

static size_t end(struct nlbuf *b, struct nlmsghdr *n)
{
	if (b->full || !n)
		return 0;
	n->nlmsg_len = (uint32_t)b->len;
	return b->len;
}

size_t emu_rtnl_put_link(uint8_t *out, size_t cap, unsigned port, const struct emu_rtnl_hdr *h)
{
	struct nlbuf b = { .p = out, .cap = cap };
	struct nlmsghdr *n = begin(&b, RTM_NEWLINK, h);
	struct ifinfomsg *ifi = put(&b, sizeof(*ifi));
	unsigned flags = emu_netif_flags(port);
	bool running = (flags & IFF_RUNNING) != 0;
	uint8_t addr[EMU_NETIF_HWADDR_MAX], broadcast[EMU_NETIF_HWADDR_MAX];
	unsigned len = emu_netif_hwaddr(port, addr);

	if (ifi) {
		ifi->ifi_family = AF_UNSPEC;
		ifi->ifi_type = emu_netif_type(port);
		ifi->ifi_index = emu_netif_index(port);
		/* the kernel reports the carrier as IFF_LOWER_UP here only */
		ifi->ifi_flags = flags | (running ? IFF_LOWER_UP : 0);
	}
	emu_netif_broadcast(port, broadcast);
	put_string(&b, IFLA_IFNAME, emu_netif_name(port));
	put_u32(&b, IFLA_TXQLEN, emu_netif_txqlen(port));
	put_string(&b, IFLA_QDISC, "mq");
	put_u32(&b, IFLA_PROMISCUITY, 0);
	put_u32(&b, IFLA_GSO_MAX_SEGS, 65535);
	put_u32(&b, IFLA_GSO_MAX_SIZE, 65536);
	put_u8(&b, IFLA_OPERSTATE, running ? IF_OPER_UP : IF_OPER_DOWN);
	put_u8(&b, IFLA_LINKMODE, 0);
	put_u32(&b, IFLA_MTU, emu_netif_mtu(port));
	put_u32(&b, IFLA_MIN_MTU, emu_netif_min_mtu(port));
	put_u32(&b, IFLA_MAX_MTU, emu_netif_max_mtu(port));
	put_u32(&b, IFLA_GROUP, 0);
	put_u32(&b, IFLA_NUM_TX_QUEUES, 1);
	put_u32(&b, IFLA_NUM_RX_QUEUES, 1);
	put_u8(&b, IFLA_CARRIER, running);
	put_attr(&b, IFLA_ADDRESS, addr, len);
	put_attr(&b, IFLA_BROADCAST, broadcast, len);
	return end(&b, n);
}

size_t emu_rtnl_put_addr(uint8_t *out, size_t cap, unsigned port, const struct emu_rtnl_hdr *h)
{
	struct nlbuf b = { .p = out, .cap = cap };
	uint32_t ip = emu_port_addr(port), local = htonl(ip), bcast = htonl(ip | 0xffffu);
	struct nlmsghdr *n;
	struct ifaddrmsg *ifa;

	if (!ip)
		return 0;
	n = begin(&b, RTM_NEWADDR, h);
	ifa = put(&b, sizeof(*ifa));
	if (ifa) {
		ifa->ifa_family = AF_INET;
		ifa->ifa_prefixlen = 16;
		ifa->ifa_flags = IFA_F_PERMANENT;
		ifa->ifa_scope = RT_SCOPE_UNIVERSE;
		ifa->ifa_index = (uint32_t)emu_netif_index(port);
	}
	put_attr(&b, IFA_ADDRESS, &local, sizeof(local));
	put_attr(&b, IFA_LOCAL, &local, sizeof(local));
	put_attr(&b, IFA_BROADCAST, &bcast, sizeof(bcast));
	put_string(&b, IFA_LABEL, emu_netif_name(port));
	put_u32(&b, IFA_FLAGS, IFA_F_PERMANENT);
	return end(&b, n);
}

size_t emu_rtnl_put_done(uint8_t *out, size_t cap, const struct emu_rtnl_hdr *h)
{
	struct nlbuf b = { .p = out, .cap = cap };
	struct nlmsghdr *n = begin(&b, NLMSG_DONE, h);

	put(&b, sizeof(int));	/* error 0 */
	return end(&b, n);
}

size_t emu_rtnl_put_ack(uint8_t *out, size_t cap, const struct emu_rtnl_hdr *h, uint16_t type)
{
	struct nlbuf b = { .p = out, .cap = cap };
	struct nlmsghdr *n = begin(&b, NLMSG_ERROR, &(struct emu_rtnl_hdr){ h->seq, h->pid, 0 });
	struct nlmsgerr *e = put(&b, sizeof(*e));

	if (e) {
		e->msg.nlmsg_len = NLMSG_HDRLEN;
		e->msg.nlmsg_type = type;
		e->msg.nlmsg_seq = h->seq;
		e->msg.nlmsg_pid = h->pid;
	}
	return end(&b, n);
}
