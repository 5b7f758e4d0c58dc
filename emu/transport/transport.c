// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The transport's registrations and its engine source: each pass reads
 * the packets waiting on every port, dispatches them by transport, then
 * sends what the pass queued.
 */
#include "transport/transport.h"

#include "adapter/engine.h"
#include "base/config.h"
#include "transport/ud.h"
#include "wire/faults.h"
#include "wire/identity.h"

#define RX_BATCH 64

static const struct emu_remote_ops ops = {
	.ud_send = emu_ud_send_remote,
};

static void dispatch(const struct emu_rx *rx)
{
	struct emu_bth bth;
	int ext;

	emu_bth_get(rx->pkt, &bth);
	ext = emu_roce_ext_len(bth.opcode);
	if (ext < 0 || rx->len < (size_t)(EMU_BTH_BYTES + ext) ||
	    bth.pkey != EMU_DEFAULT_PKEY)
		return;
	if ((bth.opcode & 0xe0) == EMU_TR_UD)
		emu_ud_receive(rx, &bth);
}

static int port_poll(void *arg, uint64_t now_ns)
{
	unsigned port = (unsigned)(uintptr_t)arg;
	struct emu_rx rx[RX_BATCH];
	int n, work = 0;

	(void)now_ns;
	do {
		n = emu_link_recv(port, rx, RX_BATCH);
		for (int i = 0; i < n; i++)
			dispatch(&rx[i]);
		work += n;
	} while (n == RX_BATCH && work < 4 * RX_BATCH);
	work += emu_link_flush();
	return work;
}

/* Frames the faults on the wire hold (delay, reorder): released by their
 * deadline, so an idle engine sleeps until the next one is due. */
static int held_poll(void *arg, uint64_t now_ns)
{
	(void)arg;
	return emu_link_release_held(now_ns);
}

static uint64_t held_deadline(void *arg)
{
	(void)arg;
	return emu_link_next_held();
}

static int held_source_add(void)
{
	static char held_tag;	/* names the source (emu_engine_remove_source) */
	const struct emu_engine_source src = {
		.fd = -1,
		.poll = held_poll,
		.deadline = held_deadline,
		.arg = &held_tag,
	};

	return emu_engine_add_source(&src);
}

int emu_transport_init(void)
{
	int err = 0;

	emu_remote_register(&ops);
	pthread_mutex_lock(&emu_dev.lock);
	for (unsigned p = 1; p <= emu_cfg.ports && !err; p++) {
		struct emu_engine_source src = {
			.fd = emu_port_socket(p),
			.poll = port_poll,
			.arg = (void *)(uintptr_t)p,
		};

		err = emu_engine_add_source(&src);
	}
	if (!err && emu_faults_on)
		err = held_source_add();
	pthread_mutex_unlock(&emu_dev.lock);
	return err;
}
