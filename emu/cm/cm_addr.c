// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The IP addresses of the adapter and of its peers.  Each port owns its
 * wire address: on an Ethernet port that of the port's interface (its
 * RoCE GID 1 is ::ffff:<address>), on an InfiniBand port that of its
 * IPoIB interface (ib0, ib1), the address its LID derives from.  A
 * destination is reachable when it is this adapter's, when a live
 * adapter on this host holds it (its RoCEv2 socket is bound there: a
 * bind of our own finds EADDRINUSE), when --lid-map names it, or when a
 * port of the wire segment has it, the directory and map the wire itself
 * uses.  Anything else has no route, as an address no neighbour answers
 * for has none.
 */
#include "cm/cm.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/config.h"
#include "base/libc.h"
#include "wire/identity.h"
#include "wire/segment.h"

unsigned cm_addr_owner(uint32_t ip)
{
	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		if (emu_port_addr(p) == ip)
			return p;
	return 0;
}

unsigned cm_addr_local_port(uint32_t ip)
{
	unsigned own = cm_addr_owner(ip);

	return own ? own : ip == CM_LOOPBACK_IP;
}

bool cm_addr_wild(uint32_t ip)
{
	return !ip || (ip == CM_LOOPBACK_IP && !cm_addr_owner(ip));
}

/* A port of a live adapter on this host listens on ip:4791. */
static bool held_on_host(uint32_t ip)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(EMU_ROCE_UDP_PORT),
		.sin_addr.s_addr = htonl(ip),
	};
	int s = emu_real_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool held;

	if (s < 0)
		return false;
	held = bind(s, (struct sockaddr *)&sa, sizeof(sa)) && errno == EADDRINUSE;
	emu_real_close(s);
	return held;
}

static bool in_lid_map(uint32_t ip)
{
	for (unsigned i = 0; i < emu_cfg.nlid_map; i++)
		if (emu_cfg.lid_map[i].addr == ip)
			return true;
	return false;
}

/* The link layer of the segment's port at ip: EMU_LL_*, 0 unknown, -1 none. */
static int segment_link_layer(uint32_t ip)
{
	const struct emu_peer *peers;
	unsigned n = emu_segment_peers(&peers);

	for (unsigned i = 0; i < n; i++)
		if (peers[i].addr == ip)
			return peers[i].link_layer;
	return -1;
}

/* An InfiniBand port reaches a peer by its LID: the address must be the
 * one that LID names from this port (wire/identity.h). */
static bool lid_reaches(unsigned port, uint32_t ip)
{
	uint32_t a;

	if (emu_cfg.link_layer[port - 1] != EMU_LL_IB)
		return true;
	return emu_lid_to_addr(port, (uint16_t)ip, &a) && a == ip;
}

int cm_addr_route(uint32_t ip, unsigned prefer_port, unsigned *port, uint32_t *peer)
{
	unsigned own = cm_addr_local_port(ip);
	int ll;

	if (own || !ip) {
		/* this adapter's: the port that owns it talks to itself */
		*port = own ? own : (prefer_port ? prefer_port : 1);
		*peer = emu_port_addr(*port);
		return 0;
	}
	ll = segment_link_layer(ip);
	if (ll < 0 && !in_lid_map(ip) && !held_on_host(ip))
		return EHOSTUNREACH;
	*port = 0;
	if (prefer_port && lid_reaches(prefer_port, ip))
		*port = prefer_port;
	for (unsigned p = 1; p <= emu_cfg.ports && !*port; p++)
		if ((ll <= 0 || emu_cfg.link_layer[p - 1] == ll) && lid_reaches(p, ip))
			*port = p;
	if (!*port)
		return EHOSTUNREACH;
	*peer = ip;
	return 0;
}

bool cm_addr_host_only(uint32_t ip)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(ip) };
	bool local;
	int s;

	/* 127/8 is where the adapters live (wire/identity.h): an address
	 * there that no adapter owns is nobody's */
	if (ip >> 24 == 127 || cm_addr_owner(ip))
		return false;
	s = emu_real_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return false;
	local = !bind(s, (struct sockaddr *)&sa, sizeof(sa));
	emu_real_close(s);
	return local;
}

bool cm_addr_vanished(uint32_t ip)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(EMU_ROCE_UDP_PORT),
		.sin_addr.s_addr = htonl(ip),
	};
	int s;
	bool free_now;

	if (cm_addr_owner(ip) || in_lid_map(ip))
		return false;
	s = emu_real_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return false;
	/* EADDRINUSE: still held; EADDRNOTAVAIL: not this host's address */
	free_now = !bind(s, (struct sockaddr *)&sa, sizeof(sa));
	emu_real_close(s);
	return free_now;
}

bool cm_addr_ipv4(const struct sockaddr *sa, uint32_t *ip, uint16_t *udp_port, bool *any)
{
	static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		*ip = ntohl(in->sin_addr.s_addr);
		*udp_port = ntohs(in->sin_port);
		*any = !*ip;
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		const uint8_t *b = in6->sin6_addr.s6_addr;

		*udp_port = ntohs(in6->sin6_port);
		if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr)) {
			*ip = 0;
			*any = true;
			return true;
		}
		if (!memcmp(b, v4_mapped, 12)) {
			*ip = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
			*any = !*ip;
			return true;
		}
	}
	return false;
}

void cm_addr_sockaddr(struct sockaddr_in6 *sa6, uint32_t ip, uint16_t udp_port)
{
	struct sockaddr_in *sa = (struct sockaddr_in *)sa6;

	memset(sa6, 0, sizeof(*sa6));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(udp_port);
	sa->sin_addr.s_addr = htonl(ip);
}
