// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "endpoint_info.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define WIRE_MAGIC	0x4d344456u	/* "M4DV" */
#define WIRE_VERSION	1u

static uint8_t *put_be(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	return p + bytes;
}

static const uint8_t *get_be(const uint8_t *p, uint64_t *v, unsigned bytes)
{
	*v = 0;
	for (unsigned i = 0; i < bytes; i++)
		*v = (*v << 8) | p[i];
	return p + bytes;
}

void ex_endpoint_info_pack(const struct ex_endpoint_info *info,
			   uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE])
{
	uint8_t *p = wire;

	memset(wire, 0, EX_ENDPOINT_INFO_WIRE_SIZE);
	p = put_be(p, WIRE_MAGIC, 4);
	p = put_be(p, WIRE_VERSION, 2);
	p = put_be(p, info->lid, 2);
	p = put_be(p, info->qpn, 4);
	p = put_be(p, info->psn, 4);
	memcpy(p, info->gid, 16);
	p += 16;
	memcpy(p, info->mac, 6);
	p += 6;
	p += 2;			/* keeps the 64-bit fields 8-byte aligned */
	p = put_be(p, info->qkey, 4);
	p = put_be(p, info->rkey, 4);
	p = put_be(p, info->addr, 8);
	put_be(p, info->length, 8);
}

int ex_endpoint_info_unpack(const uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE],
			    struct ex_endpoint_info *info)
{
	const uint8_t *p = wire;
	uint64_t magic, version, v;
	struct ex_endpoint_info out;

	memset(&out, 0, sizeof(out));
	p = get_be(p, &magic, 4);
	p = get_be(p, &version, 2);
	if (magic != WIRE_MAGIC || version != WIRE_VERSION)
		return EPROTO;
	p = get_be(p, &v, 2);
	out.lid = (uint16_t)v;
	p = get_be(p, &v, 4);
	out.qpn = (uint32_t)v;
	p = get_be(p, &v, 4);
	out.psn = (uint32_t)v;
	memcpy(out.gid, p, 16);
	p += 16;
	memcpy(out.mac, p, 6);
	p += 8;
	p = get_be(p, &v, 4);
	out.qkey = (uint32_t)v;
	p = get_be(p, &v, 4);
	out.rkey = (uint32_t)v;
	p = get_be(p, &out.addr, 8);
	get_be(p, &out.length, 8);
	if (out.qpn > 0xffffff || out.psn > 0xffffff)
		return EPROTO;
	*info = out;
	return 0;
}

int ex_endpoint_info_transfer(const struct ex_endpoint_info *info,
			      struct ex_endpoint_info *received)
{
	uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE];
	int ret;

	ex_endpoint_info_pack(info, wire);
	ret = ex_endpoint_info_unpack(wire, received);
	if (ret)
		fprintf(stderr, "endpoint description rejected: %s\n", strerror(ret));
	return ret ? -1 : 0;
}
