/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * --pcap=FILE: every packet the adapter sends and receives, written with
 * libpcap as an Ethernet frame (MACs 02:c9:<address>, IPv4, UDP 4791, the
 * RoCEv2 packet with its ICRC; UDP 4789 and the VXLAN-encapsulated frame
 * for raw Ethernet), as a capture on the port would show it.
 */
#ifndef MLX4EMU_WIRE_CAPTURE_H
#define MLX4EMU_WIRE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Opens the capture file (0, or -1 with a message on stderr). */
/* The launcher's preflight: would the file be taken (it is created if
 * absent, an existing one is left as it is)?  0, or -1 with a message
 * naming the file and why not (no directory, a symbolic link, not a
 * regular file, another user's, hard-linked). */
int emu_capture_check(const char *path);
int emu_capture_open(const char *path);
/* true while a capture file is open. */
bool emu_capture_active(void);
/* Writes one packet (BTH ... ICRC) between the two addresses; nothing
 * when no capture is open. */
void emu_capture_packet(uint32_t src, uint32_t dst, const uint8_t *pkt, size_t len);
/* The same for any UDP payload from and to udp_port (VXLAN: 4789). */
void emu_capture_udp(uint32_t src, uint32_t dst, uint16_t udp_port, const uint8_t *pkt,
		     size_t len);
/* Flushes and closes the file. */
void emu_capture_close(void);

#endif
