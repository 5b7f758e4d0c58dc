/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Device configuration, read once from MLX4EMU_* environment variables. */
#ifndef MLX4EMU_CONFIG_H
#define MLX4EMU_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

enum emu_link_layer { EMU_LL_IB = 1, EMU_LL_ETH = 2 };

#define EMU_DEFAULT_PKEY 0xffff
#define EMU_LID_MAP_MAX 64

struct emu_config {
	unsigned ports;			/* 1 or 2 */
	uint8_t link_layer[2];		/* enum emu_link_layer */
	uint8_t mac[2][6];
	bool mac_set[2];		/* MLX4EMU_MAC gave this port's MAC */
	uint32_t addr[2];		/* MLX4EMU_ADDR, host order; 0 = automatic */
	unsigned nlid_map;		/* MLX4EMU_LID_MAP entries */
	struct { uint16_t lid; uint32_t addr; } lid_map[EMU_LID_MAP_MAX];
	unsigned cqe_size;		/* 32 or 64 */
	unsigned bf_reg_size;		/* 0 disables BlueFlame */
	unsigned device_id;		/* 0x1003 ConnectX-3, 0x1007 Pro */
	unsigned max_qp, max_qp_wr, max_sge, max_inline, max_cqe, max_mr;
	unsigned max_srq_wr;
	unsigned rnr_cap_us;		/* upper bound of one RNR wait */
	bool debug;
	/* the PCI function and the network interfaces of Ethernet ports */
	char pci_addr[16];		/* "dddd:bb:dd.f", lower-case hex */
	char ifname[2][16];		/* per port, IFNAMSIZ with the NUL */
	unsigned link_speed;		/* Mb/s reported by ethtool */
	bool cross_cable;		/* port 1 cabled to port 2 */
	/* the ports' sockets admit only the peers of connected QPs (and UD
	 * while a UD QP is ready): wire/peer_filter.h */
	bool wire_filter;
	/* UD and UC between adapters paced by datagram credits
	 * (transport/datagram_credits.h) */
	bool datagram_credits;
	/* doorbells: true = trapped stores to the UAR and BlueFlame pages
	 * (exact), false = owner bits and BlueFlame buffers polled */
	bool doorbell_trap;
	const char *pcap;		/* MLX4EMU_PCAP: capture file, or NULL */
	/* faults on the wire, applied to frames sent to other adapters;
	 * shares in parts per million (1000000 = every frame) */
	uint32_t wire_drop_ppm;		/* MLX4EMU_WIRE_DROP */
	uint32_t wire_dup_ppm;		/* MLX4EMU_WIRE_DUP */
	uint32_t wire_reorder_ppm;	/* MLX4EMU_WIRE_REORDER=PCT[:USEC] */
	uint32_t wire_reorder_us;	/* longest wait for the next frame */
	uint32_t wire_delay_ppm;	/* MLX4EMU_WIRE_DELAY=USEC[:PCT] */
	uint32_t wire_delay_us;
	uint64_t wire_seed;		/* MLX4EMU_WIRE_SEED */
	/* MLX4EMU_WIRE_SEGMENT: the broadcast domain (VXLAN VNI) whose
	 * adapters get this one's floods; 0 = none, floods stay here */
	uint32_t wire_segment;
	/* fault injection (0 = off) */
	uint64_t fault_cqe_n;
	uint8_t fault_cqe_syndrome;
	uint32_t fault_cqe_qpn;
	uint64_t fault_err_n;
	uint32_t fault_err_qpn;
	uint64_t fault_overrun_n;
	uint32_t fault_overrun_cqn;
};

extern struct emu_config emu_cfg;

/* Parses the environment; returns 0 or -1 with a message on stderr. */
int emu_config_load(void);


#endif
