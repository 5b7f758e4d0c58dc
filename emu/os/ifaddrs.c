// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * getifaddrs() as a host with this adapter shows it: the C library's list
 * of the kernel's interfaces, then one IPv4 entry per port carrying the
 * port's address, which librdmacm programs bind to (libfabric's verbs
 * provider finds its devices this way: each address it can
 * rdma_bind_addr() names one).  An Ethernet port's entry is its mlx4_en
 * interface, an InfiniBand port's its IPoIB interface, ib0 for the first
 * InfiniBand port, ib1 for the second (os/netif.h: name, flags).  The
 * netmask is 255.255.0.0: the /16 in which an InfiniBand port's LIDs name
 * addresses (wire/identity.h).
 * freeifaddrs() gives the C library back its own part.
 */
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/libc.h"
#include "os/netif.h"
#include "wire/identity.h"

#define EXPORT __attribute__((visibility("default")))

/* One entry of ours with the storage its pointers point into. */
struct port_ifaddr {
	struct ifaddrs ifa;
	char name[IF_NAMESIZE];
	struct sockaddr_in addr, mask, bcast;
};

/* The entries of one getifaddrs() call: a port's each, and the C
 * library's list they were appended to. */
struct port_ifaddrs {
	struct port_ifaddr port[2];
	struct ifaddrs *libc_head;
};

/* The blocks handed out and not yet freed: freeifaddrs() tells its own
 * entries from the C library's by address, never by reading them. */
#define MAX_LISTS 64
static struct port_ifaddrs *lists[MAX_LISTS];
static pthread_mutex_t lists_lock = PTHREAD_MUTEX_INITIALIZER;

static bool remember(struct port_ifaddrs *b)
{
	bool ok = false;

	pthread_mutex_lock(&lists_lock);
	for (int i = 0; i < MAX_LISTS && !ok; i++)
		if (!lists[i])
			lists[i] = b, ok = true;
	pthread_mutex_unlock(&lists_lock);
	return ok;
}

/* The block an entry belongs to (taken off the table), or NULL. */
static struct port_ifaddrs *forget(const struct ifaddrs *ifa)
{
	struct port_ifaddrs *b = NULL;

	pthread_mutex_lock(&lists_lock);
	for (int i = 0; i < MAX_LISTS && !b; i++) {
		const char *lo = (const char *)lists[i];

		if (lo && (const char *)ifa >= lo && (const char *)ifa < lo + sizeof(*lists[i])) {
			b = lists[i];
			lists[i] = NULL;
		}
	}
	pthread_mutex_unlock(&lists_lock);
	return b;
}

static bool ours(const struct ifaddrs *ifa)
{
	bool found = false;

	pthread_mutex_lock(&lists_lock);
	for (int i = 0; i < MAX_LISTS && !found; i++) {
		const char *lo = (const char *)lists[i];

		found = lo && (const char *)ifa >= lo && (const char *)ifa < lo + sizeof(*lists[i]);
	}
	pthread_mutex_unlock(&lists_lock);
	return found;
}

static struct sockaddr_in sin_of(uint32_t ip)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	s.sin_addr.s_addr = htonl(ip);
	return s;
}

static void port_entry(struct port_ifaddr *e, unsigned port)
{
	uint32_t ip = emu_port_addr(port);

	strncpy(e->name, emu_netif_name(port), IF_NAMESIZE - 1);
	e->ifa.ifa_flags = emu_netif_flags(port);
	e->addr = sin_of(ip);
	e->mask = sin_of(0xffff0000u);
	e->bcast = sin_of(ip | 0xffffu);
	e->ifa.ifa_name = e->name;
	e->ifa.ifa_addr = (struct sockaddr *)&e->addr;
	e->ifa.ifa_netmask = (struct sockaddr *)&e->mask;
	e->ifa.ifa_broadaddr = (struct sockaddr *)&e->bcast;
}

EXPORT int getifaddrs(struct ifaddrs **out)
{
	static __typeof__(&getifaddrs) next;
	struct ifaddrs *libc_head = NULL, **tail;
	struct port_ifaddrs *b;
	unsigned n = 0;

	if (!next)
		*(void **)&next = emu_next_symbol("getifaddrs");
	if (next(&libc_head))
		return -1;
	*out = libc_head;
	if (!emu_cfg.ports || !emu_port_addr(1) || !(b = calloc(1, sizeof(*b))))
		return 0;
	if (!remember(b)) {
		free(b);
		return 0;
	}
	b->libc_head = libc_head;
	for (unsigned p = 1; p <= emu_cfg.ports && p <= 2; p++) {
		port_entry(&b->port[n], p);
		if (n)
			b->port[n - 1].ifa.ifa_next = &b->port[n].ifa;
		n++;
	}
	/* after the kernel's interfaces, as a program expects lo first */
	for (tail = out; *tail; tail = &(*tail)->ifa_next)
		;
	*tail = &b->port[0].ifa;
	return 0;
}

EXPORT void freeifaddrs(struct ifaddrs *list)
{
	static __typeof__(&freeifaddrs) next;
	struct ifaddrs **link = &list;
	struct port_ifaddrs *b;

	if (!next)
		*(void **)&next = emu_next_symbol("freeifaddrs");
	while (*link && !ours(*link))
		link = &(*link)->ifa_next;
	if (!*link || !(b = forget(*link))) {
		next(list);
		return;
	}
	/* cut our entries off the C library's list, then free both */
	*link = NULL;
	if (b->libc_head)
		next(b->libc_head);
	free(b);
}
