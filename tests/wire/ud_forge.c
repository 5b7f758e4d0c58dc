// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* UD datagrams of a local sender's making (see ud_forge.h). */
#include "ud_forge.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire/icrc.h"
#include "wire/identity.h"
#include "wire/roce.h"

int ud_forge_socket(uint16_t udp_port, uint32_t *src)
{
	for (uint32_t x = 1; x < 255; x++) {
		struct sockaddr_in me = { .sin_family = AF_INET,
					  .sin_port = htons(udp_port),
					  .sin_addr.s_addr = htonl(0x7f00fa00u | x) };
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		if (fd < 0)
			return -1;
		if (!bind(fd, (struct sockaddr *)&me, sizeof(me))) {
			*src = 0x7f00fa00u | x;
			return fd;
		}
		close(fd);
	}
	return -1;
}

/* Appends the ICRC of the n bytes at pkt (BTH first) sent src -> dst. */
static size_t seal(uint8_t *pkt, size_t n, uint32_t src, uint32_t dst)
{
	uint8_t ipudp[28];
	uint32_t crc;

	emu_ipv4_udp_header(ipudp, src, dst, EMU_ROCE_UDP_PORT, EMU_ROCE_UDP_PORT,
			    (uint16_t)(8 + n + 4));
	crc = emu_icrc_begin(ipudp, pkt);
	crc = emu_icrc_update(crc, pkt + EMU_BTH_BYTES, n - EMU_BTH_BYTES);
	emu_icrc_final(crc, pkt + n);
	return n + 4;
}

/* A BTH of the opcode to dest_qpn, P_Key 0xffff, MigReq set. */
static void bth(uint8_t *pkt, uint8_t opcode, uint32_t dest_qpn, uint32_t psn)
{
	memset(pkt, 0, EMU_BTH_BYTES);
	pkt[0] = opcode;
	pkt[1] = 0x40;			/* MigReq, pad 0, version 0 */
	pkt[2] = pkt[3] = 0xff;		/* P_Key 0xffff */
	emu_put_be32(pkt + 4, dest_qpn & 0xffffff);
	emu_put_be32(pkt + 8, psn & 0xffffff);
}

size_t ud_forge_send_only(uint8_t *pkt, const struct ud_forge_pkt *f)
{
	size_t n = EMU_BTH_BYTES + EMU_DETH_BYTES;

	bth(pkt, EMU_TR_UD | EMU_BOP_SEND_ONLY, f->dest_qpn, f->psn);
	emu_put_be32(pkt + 12, f->qkey);
	emu_put_be32(pkt + 16, f->src_qpn & 0xffffff);
	if (f->len)
		memcpy(pkt + n, f->payload, f->len);
	return seal(pkt, n + f->len, f->src, f->dst);
}

size_t ud_forge_credit(uint8_t *pkt, uint32_t src, uint32_t dst, const uint8_t *payload,
		       size_t len)
{
	bth(pkt, EMU_OP_DATAGRAM_CREDIT, 0, 0);
	memcpy(pkt + EMU_BTH_BYTES, payload, len);
	return seal(pkt, EMU_BTH_BYTES + len, src, dst);
}

int ud_forge_send(int fd, uint32_t dst, uint16_t udp_port, const uint8_t *pkt, size_t n)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(udp_port),
				  .sin_addr.s_addr = htonl(dst) };

	return sendto(fd, pkt, n, 0, (struct sockaddr *)&to, sizeof(to)) == (ssize_t)n ? 0 : -1;
}
