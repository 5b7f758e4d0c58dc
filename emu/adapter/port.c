// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Port link state, MTU and the drops they cause; see port.h. */
#include "adapter/port.h"

#include <errno.h>
#include <stdatomic.h>

#include "adapter/adapter.h"
#include "adapter/events.h"

struct emu_port {
	bool admin_up;
	bool link_up;
	uint32_t mtu;
	atomic_uint_fast64_t oversize_drops;
	atomic_uint_fast64_t link_down_drops;
	atomic_uint_fast64_t no_wqe_drops;
	atomic_uint_fast64_t ud_no_wqe_drops;
};

static struct emu_port ports[2];

static struct emu_port *port_of(unsigned port)
{
	return &ports[(port - 1) & 1];
}

unsigned emu_port_peer(unsigned port)
{
	return emu_cfg.cross_cable ? 3 - port : port;
}

static void raise_port_event(unsigned port, bool up)
{
	for (uint32_t i = 0; i < emu_dev.ctx_end; i++) {
		if (emu_dev.ctx[i].used)
			emu_async_event(&emu_dev.ctx[i], port,
					up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR, NULL);
	}
}

/* A cabled port has carrier only while the other end is up as well. */
static void update_links(void)
{
	for (unsigned p = 1; p <= emu_cfg.ports; p++) {
		struct emu_port *s = port_of(p);
		bool up = s->admin_up && port_of(emu_port_peer(p))->admin_up;

		if (up == s->link_up)
			continue;
		s->link_up = up;
		EMU_TRACE("port %u link %s", p, up ? "up" : "down");
		raise_port_event(p, up);
	}
}

void emu_ports_init(void)
{
	for (unsigned p = 1; p <= 2; p++) {
		struct emu_port *s = port_of(p);

		s->admin_up = s->link_up = true;
		s->mtu = EMU_PORT_DEFAULT_MTU;
		atomic_store(&s->oversize_drops, 0);
		atomic_store(&s->link_down_drops, 0);
		atomic_store(&s->no_wqe_drops, 0);
		atomic_store(&s->ud_no_wqe_drops, 0);
	}
}

void emu_port_set_admin(unsigned port, bool up)
{
	port_of(port)->admin_up = up;
	update_links();
}

bool emu_port_admin_up(unsigned port)
{
	return port_of(port)->admin_up;
}

bool emu_port_link_up(unsigned port)
{
	return port_of(port)->link_up;
}

int emu_port_set_mtu(unsigned port, uint32_t mtu)
{
	if (mtu < EMU_PORT_MIN_MTU || mtu > EMU_PORT_MAX_MTU)
		return EINVAL;
	port_of(port)->mtu = mtu;
	return 0;
}

uint32_t emu_port_mtu(unsigned port)
{
	return port_of(port)->mtu;
}

/* Written by the engine alone, read from anywhere. */
static void count(atomic_uint_fast64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

void emu_port_count_oversize(unsigned port)
{
	count(&port_of(port)->oversize_drops);
}

uint64_t emu_port_oversize_drops(unsigned port)
{
	return atomic_load_explicit(&port_of(port)->oversize_drops,
				    memory_order_relaxed);
}

void emu_port_count_link_down(unsigned port)
{
	count(&port_of(port)->link_down_drops);
}

uint64_t emu_port_link_down_drops(unsigned port)
{
	return atomic_load_explicit(&port_of(port)->link_down_drops,
				    memory_order_relaxed);
}

void emu_port_count_no_wqe(unsigned port)
{
	count(&port_of(port)->no_wqe_drops);
}

uint64_t emu_port_no_wqe_drops(unsigned port)
{
	return atomic_load_explicit(&port_of(port)->no_wqe_drops, memory_order_relaxed);
}

void emu_port_count_ud_no_wqe(unsigned port)
{
	count(&port_of(port)->ud_no_wqe_drops);
}

uint64_t emu_port_ud_no_wqe_drops(unsigned port)
{
	return atomic_load_explicit(&port_of(port)->ud_no_wqe_drops, memory_order_relaxed);
}
