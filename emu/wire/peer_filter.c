// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The port's socket filter, rebuilt from its peer set whenever an
 * address enters or leaves it (wire/peer_filter.h).  The program sees the
 * datagram from its UDP header on (offset 0: source port; offset 8: the
 * BTH's opcode) and the IPv4 header at SKF_NET_OFF:
 *
 *   ldh  [0]                 UDP source port
 *   jeq  #4791, 1, 0 ; ja drop
 *   ld   [net + 12]          IPv4 source address
 *   jeq  #peer0, 0, 1 ; ret #ADMIT      one pair per peer
 *   ...
 *   ldb  [8] ; and #0xe0     the transport bits
 *   jeq  #0x60, 0, k         UD: while a UD QP is ready, ret #ADMIT
 *                            (and the datagram credits, 0xc0: the
 *                            requests to its receiver, the updates to
 *                            its sender); else only to QP1 (the GSI,
 *                            always there: the connection manager's
 *                            MADs):
 *   ld   [12] ; and #0xffffff ; jeq #1, 0, 1 ; ret #ADMIT
 *   drop: ret #0
 */
#include "wire/peer_filter.h"

#include <errno.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/config.h"
#include "base/trace.h"
#include "wire/identity.h"
#include "wire/roce.h"

/* a return value at least the datagram's length: all of it is kept */
#define ADMIT 0xffffffffu
#define UDP_HEADER_BYTES 8

struct peer_ref {
	uint32_t addr;
	uint32_t qps;
};

struct port_peers {
	struct peer_ref *peers;
	uint32_t n, cap;
	uint32_t ud_qps;
	bool on;		/* a filter is attached */
};

static struct port_peers port_peers[2];

static struct sock_filter insn(uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	return (struct sock_filter){ .code = code, .jt = jt, .jf = jf, .k = k };
}

/* The program for the port's peer set into prog (room for
 * 2 * n + 12 instructions); returns its length. */
static unsigned build(const struct port_peers *pp, struct sock_filter *prog)
{
	unsigned i = 0;
	/* the jne to drop skips what comes after it up to the last insn */
	unsigned body = 1 + 2 * pp->n + (pp->ud_qps ? 5 : 7);

	prog[i++] = insn(BPF_LD | BPF_H | BPF_ABS, 0, 0, 0);
	/* a conditional jump reaches 255 instructions at most, so the port
	 * test skips an unconditional jump to drop */
	prog[i++] = insn(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, EMU_ROCE_UDP_PORT);
	prog[i++] = insn(BPF_JMP | BPF_JA, 0, 0, body);
	prog[i++] = insn(BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)(SKF_NET_OFF + 12));
	for (uint32_t p = 0; p < pp->n; p++) {
		prog[i++] = insn(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, pp->peers[p].addr);
		prog[i++] = insn(BPF_RET | BPF_K, 0, 0, ADMIT);
	}
	prog[i++] = insn(BPF_LD | BPF_B | BPF_ABS, 0, 0, UDP_HEADER_BYTES);
	prog[i++] = insn(BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xe0);
	if (pp->ud_qps) {
		prog[i++] = insn(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, EMU_TR_UD);
		prog[i++] = insn(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, EMU_TR_VENDOR);
	} else {
		/* DestQP, the low 24 bits of BTH bytes 4..7 */
		prog[i++] = insn(BPF_JMP | BPF_JEQ | BPF_K, 0, 4, EMU_TR_UD);
		prog[i++] = insn(BPF_LD | BPF_W | BPF_ABS, 0, 0, UDP_HEADER_BYTES + 4);
		prog[i++] = insn(BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xffffff);
		prog[i++] = insn(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 1);
	}
	prog[i++] = insn(BPF_RET | BPF_K, 0, 0, ADMIT);
	prog[i++] = insn(BPF_RET | BPF_K, 0, 0, 0);
	return i;
}

static void detach(unsigned port, struct port_peers *pp)
{
	int fd = emu_port_socket(port), on = 0;

	if (pp->on && fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &on, sizeof(on));
	pp->on = false;
}

/* Attaches the program for the current set (the kernel swaps it in
 * atomically: no datagram sees a half-built one). */
static int apply(unsigned port)
{
	struct port_peers *pp = &port_peers[port - 1];
	int fd = emu_port_socket(port);
	struct sock_filter *prog;
	struct sock_fprog fp;
	int err = 0;

	if (fd < 0)
		return EBADF;
	if (!emu_cfg.wire_filter)
		return 0;
	if (pp->n > EMU_PEER_FILTER_MAX) {
		if (pp->on)
			EMU_TRACE("wire: port %u has %u peers: receive filter removed", port,
				  pp->n);
		detach(port, pp);
		return 0;
	}
	prog = malloc((2 * (size_t)pp->n + 12) * sizeof(*prog));
	if (!prog)
		return ENOMEM;
	fp.len = (unsigned short)build(pp, prog);
	fp.filter = prog;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) == 0)
		pp->on = true;
	else
		err = errno;
	free(prog);
	if (err)
		EMU_TRACE("wire: port %u receive filter not attached: %s", port, strerror(err));
	return err;
}

int emu_peer_filter_init(unsigned port)
{
	return apply(port);
}

static struct peer_ref *find(struct port_peers *pp, uint32_t addr)
{
	for (uint32_t i = 0; i < pp->n; i++)
		if (pp->peers[i].addr == addr)
			return &pp->peers[i];
	return NULL;
}

void emu_peer_filter_add(unsigned port, uint32_t addr)
{
	struct port_peers *pp = &port_peers[port - 1];
	struct peer_ref *r = find(pp, addr);

	if (r) {
		r->qps++;
		return;
	}
	if (pp->n == pp->cap) {
		uint32_t cap = pp->cap ? 2 * pp->cap : 8;
		struct peer_ref *p = realloc(pp->peers, cap * sizeof(*p));

		if (!p) {
			/* without room to remember it the filter cannot admit
			 * it: admit everyone (the engine still checks) */
			EMU_TRACE("wire: port %u receive filter removed: out of memory", port);
			detach(port, pp);
			return;
		}
		pp->peers = p;
		pp->cap = cap;
	}
	pp->peers[pp->n++] = (struct peer_ref){ addr, 1 };
	apply(port);
}

void emu_peer_filter_remove(unsigned port, uint32_t addr)
{
	struct port_peers *pp = &port_peers[port - 1];
	struct peer_ref *r = find(pp, addr);

	if (!r || --r->qps)
		return;
	*r = pp->peers[--pp->n];
	apply(port);
}

void emu_peer_filter_ud(unsigned port, bool more)
{
	struct port_peers *pp = &port_peers[port - 1];
	uint32_t before = pp->ud_qps;

	if (more)
		pp->ud_qps++;
	else if (pp->ud_qps)
		pp->ud_qps--;
	if (!before != !pp->ud_qps)
		apply(port);
}
