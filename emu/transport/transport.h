/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The transport between adapters (IBTA Vol. 1 ch. 9 over RoCEv2): it
 * registers itself with the adapter (adapter/remote.h) for messages to
 * other adapters and with the engine as a source that reads the ports'
 * sockets, and turns packets into the adapter's responder calls.
 */
#ifndef MLX4EMU_TRANSPORT_H
#define MLX4EMU_TRANSPORT_H

/* Registers the transport; called once from the library constructor,
 * after the ports claimed their addresses.  0 or an errno. */
int emu_transport_init(void);

#endif
