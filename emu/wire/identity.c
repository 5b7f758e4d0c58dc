// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Claiming the ports' addresses and deriving the adapter's identifiers
 * from them (the scheme is in identity.h).  Binding ADDR:4791 is what
 * makes an address this adapter's: the kernel refuses a second bind with
 * EADDRINUSE, so concurrent processes never end up with the same one.
 */
#include "wire/identity.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/config.h"
#include "base/libc.h"

/* Messages come from the library constructor, where strerror() (which
 * takes the locale lock) is not safe under every runtime: the plain
 * English text needs no lock. */

/* Automatic addresses tried before giving up (each try is one bind()). */
#define AUTO_PROBES 4096

struct port_id {
	uint32_t addr;
	int fd;
};

static struct port_id ports[2] = { { 0, -1 }, { 0, -1 } };

static bool port_ok(unsigned port)
{
	return port >= 1 && port <= emu_cfg.ports;
}

static bool port_is_eth(unsigned port)
{
	return emu_cfg.link_layer[port - 1] == EMU_LL_ETH;
}

uint32_t emu_wire_udp_drops_grown(const struct cmsghdr *c, uint32_t *seen)
{
	uint32_t dropped, grown;

	if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_RXQ_OVFL)
		return 0;
	memcpy(&dropped, CMSG_DATA(c), sizeof(dropped));
	grown = dropped - *seen;
	*seen = dropped;
	return grown;
}

int emu_wire_udp_bind(uint32_t addr, uint16_t udp_port, unsigned opts)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(udp_port),
		.sin_addr.s_addr = htonl(addr),
	};
	int fd = emu_real_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int on = 1, buf = 4 << 20;
	int err;

	if (fd < 0)
		return -1;
	/* bursts of a window of full-MTU packets must not overflow */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (opts & EMU_UDP_COUNT_DROPS)
		setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on));
	/* a run of one peer's datagrams may come up as one (the reader cuts
	 * it apart); a kernel without UDP_GRO hands them over one by one */
	if (opts & EMU_UDP_GRO)
		setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0)
		return fd;
	err = errno;
	emu_real_close(fd);
	errno = err;
	return -1;
}

static void addr_text(uint32_t addr, char *out, size_t len)
{
	struct in_addr a = { .s_addr = htonl(addr) };

	inet_ntop(AF_INET, &a, out, (socklen_t)len);
}

/* The first free 127.0.H.L from a start that differs between processes. */
static int claim_auto(struct port_id *p)
{
	const uint32_t span = EMU_AUTO_LID_LAST - EMU_AUTO_LID_FIRST + 1;
	uint32_t start = ((uint32_t)getpid() * 2654435761u) % span;

	for (uint32_t i = 0; i < AUTO_PROBES; i++) {
		uint32_t lid = EMU_AUTO_LID_FIRST + (start + i) % span;
		uint32_t addr = 0x7f000000u | lid;

		p->fd = emu_wire_udp_bind(addr, EMU_ROCE_UDP_PORT, EMU_UDP_COUNT_DROPS | EMU_UDP_GRO);
		if (p->fd >= 0) {
			p->addr = addr;
			return 0;
		}
		if (errno != EADDRINUSE) {
			fprintf(stderr, "mlx4emu: cannot bind a UDP socket to 127.0.%u.%u:%u: %s\n",
				lid >> 8, lid & 0xff, EMU_ROCE_UDP_PORT, strerrordesc_np(errno));
			return -1;
		}
	}
	fprintf(stderr, "mlx4emu: no free loopback address for the port in %u tries\n",
		AUTO_PROBES);
	return -1;
}

static int claim_given(struct port_id *p, uint32_t addr, bool ib)
{
	char text[INET_ADDRSTRLEN];

	addr_text(addr, text, sizeof(text));
	if (ib && ((addr & 0xffff) == 0 || (addr & 0xffff) > 0xbfff)) {
		fprintf(stderr, "mlx4emu: MLX4EMU_ADDR %s: the low 16 bits are the LID of an "
			"InfiniBand port and must be in [1, 0xbfff]\n", text);
		return -1;
	}
	p->fd = emu_wire_udp_bind(addr, EMU_ROCE_UDP_PORT, EMU_UDP_COUNT_DROPS | EMU_UDP_GRO);
	if (p->fd < 0) {
		fprintf(stderr, "mlx4emu: cannot bind a UDP socket to %s:%u: %s\n", text,
			EMU_ROCE_UDP_PORT, strerrordesc_np(errno));
		return -1;
	}
	p->addr = addr;
	return 0;
}

int emu_identity_claim(void)
{
	for (unsigned port = 1; port <= emu_cfg.ports; port++) {
		struct port_id *p = &ports[port - 1];
		uint32_t want = emu_cfg.addr[port - 1];
		int err = want ? claim_given(p, want, !port_is_eth(port)) : claim_auto(p);

		if (err) {
			emu_identity_release();
			return -1;
		}
	}
	return 0;
}

void emu_identity_release(void)
{
	for (unsigned i = 0; i < 2; i++) {
		if (ports[i].fd >= 0)
			emu_real_close(ports[i].fd);
		ports[i].fd = -1;
	}
}

uint32_t emu_port_addr(unsigned port)
{
	return port_ok(port) ? ports[port - 1].addr : 0;
}

int emu_port_socket(unsigned port)
{
	return port_ok(port) ? ports[port - 1].fd : -1;
}

uint16_t emu_port_lid(unsigned port)
{
	if (!port_ok(port) || port_is_eth(port))
		return 0;
	return (uint16_t)(ports[port - 1].addr & 0xffff);
}

void emu_port_mac(unsigned port, uint8_t mac[6])
{
	uint32_t a;

	if (!port_ok(port))
		port = 1;
	if (emu_cfg.mac_set[port - 1]) {
		memcpy(mac, emu_cfg.mac[port - 1], 6);
		return;
	}
	a = ports[port - 1].addr;
	mac[0] = 0x02;	/* locally administered, unicast */
	mac[1] = 0xc9;
	mac[2] = (uint8_t)(a >> 24);
	mac[3] = (uint8_t)(a >> 16);
	mac[4] = (uint8_t)(a >> 8);
	mac[5] = (uint8_t)a;
}

static uint64_t guid(uint8_t kind, uint32_t addr)
{
	return 0x0002c90000000000ull | (uint64_t)kind << 32 | addr;
}

uint64_t emu_node_guid(void)
{
	return guid(0x00, ports[0].addr);
}

uint64_t emu_sys_image_guid(void)
{
	return guid(0x03, ports[0].addr);
}

static uint64_t emu_port_guid(unsigned port)
{
	if (!port_ok(port))
		return 0;
	return guid((uint8_t)port, ports[port - 1].addr);
}

/* Number of valid entries of the port's GID table (1 on IB, 2 on Ethernet). */
static unsigned emu_port_gid_count(unsigned port)
{
	return port_ok(port) && port_is_eth(port) ? 2 : 1;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

bool emu_port_gid_entry(unsigned port, unsigned index, uint8_t gid[16],
			bool *roce_v2)
{
	uint8_t mac[6];
	uint32_t a;

	memset(gid, 0, 16);
	*roce_v2 = false;
	if (!port_ok(port) || index >= emu_port_gid_count(port))
		return false;
	a = ports[port - 1].addr;
	if (index == 1) {
		/* RoCE v2: the IPv4-mapped address */
		gid[10] = gid[11] = 0xff;
		gid[12] = (uint8_t)(a >> 24);
		gid[13] = (uint8_t)(a >> 16);
		gid[14] = (uint8_t)(a >> 8);
		gid[15] = (uint8_t)a;
		*roce_v2 = true;
		return true;
	}
	gid[0] = 0xfe;
	gid[1] = 0x80;
	if (!port_is_eth(port)) {
		put_be64(gid + 8, emu_port_guid(port));
		return true;
	}
	/* modified EUI-64 of the MAC: libmlx4 takes the MAC of a UD address
	 * handle back out of such a GID (mlx4_resolve_grh_to_l2) */
	emu_port_mac(port, mac);
	gid[8] = mac[0] ^ 0x02;
	gid[9] = mac[1];
	gid[10] = mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = mac[3];
	gid[14] = mac[4];
	gid[15] = mac[5];
	return true;
}

bool emu_addr_is_self(uint32_t addr)
{
	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		if (ports[p - 1].addr == addr)
			return true;
	return false;
}

bool emu_lid_to_addr(unsigned port, uint16_t lid, uint32_t *addr)
{
	if (!lid || lid >= 0xc000)
		return false;
	for (unsigned i = 0; i < emu_cfg.nlid_map; i++) {
		if (emu_cfg.lid_map[i].lid == lid) {
			*addr = emu_cfg.lid_map[i].addr;
			return true;
		}
	}
	if (!port_ok(port))
		port = 1;
	*addr = (ports[port - 1].addr & 0xffff0000u) | lid;
	return true;
}

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool emu_gid_to_addr(const uint8_t gid[16], uint32_t *addr)
{
	static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (!memcmp(gid, v4_mapped, 12)) {
		*addr = be32_at(gid + 12);
		return *addr != 0;
	}
	if (gid[0] != 0xfe || gid[1] != 0x80)
		return false;
	/* EUI-64 of 02:c9:a:b:c:d: 00 c9 a ff fe b c d */
	if (gid[8] == 0x00 && gid[9] == 0xc9 && gid[11] == 0xff && gid[12] == 0xfe) {
		*addr = (uint32_t)gid[10] << 24 | (uint32_t)gid[13] << 16 |
			(uint32_t)gid[14] << 8 | gid[15];
		return true;
	}
	/* port GUID 0002:c90P:<address> */
	if (gid[8] == 0x00 && gid[9] == 0x02 && gid[10] == 0xc9 &&
	    (gid[11] == 1 || gid[11] == 2)) {
		*addr = be32_at(gid + 12);
		return true;
	}
	return false;
}
