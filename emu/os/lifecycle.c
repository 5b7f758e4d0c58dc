// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The process's life with the device: the library constructor brings the
 * layers up in the order each needs the ones before it (the engine's
 * state, the configuration, the faults on the wire, the attribute
 * defaults, the adapter's addresses, the capture, the transport, the
 * connection manager, the sysfs tree, the doorbell trap, the wire segment,
 * the ports, the network interfaces, the environment libibverbs and DPDK
 * read); the destructor takes them down and has each layer print its exit
 * report.  A step that fails says so in one line on stderr; one the device
 * cannot do without leaves it disabled, and the program runs on without
 * it.  The entry points the library interposes are os/preload.c's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapter/adapter.h"
#include "adapter/lock.h"
#include "adapter/attributes.h"
#include "adapter/engine.h"
#include "adapter/port.h"
#include "base/config.h"
#include "base/trace.h"
#include "cm/ucma.h"
#include "os/fault.h"
#include "os/netif.h"
#include "os/sysfs.h"
#include "os/sysfs_pci.h"
#include "transport/transport.h"
#include "wire/capture.h"
#include "wire/faults.h"
#include "wire/identity.h"
#include "wire/link.h"
#include "wire/segment.h"
#include "wire/vxlan.h"

/* The process that built the tree: a forked child inherits the variable,
 * not the tree's ownership. */
static pid_t sysfs_owner;

/* The adapters of the segment find this one through its tree. */
static void publish_segment(void)
{
	const char *root = emu_sysfs_root();
	const char *slash = strrchr(root, '/');
	char text[256], base[4096];

	if (!slash || (size_t)(slash - root) >= sizeof(base))
		return;
	emu_segment_describe(text, sizeof(text));
	if (emu_sysfs_put(EMU_SEGMENT_FILE, text))
		fprintf(stderr, "mlx4emu: cannot publish the wire segment: %s\n",
			strerror(errno));
	memcpy(base, root, (size_t)(slash - root));
	base[slash - root] = '\0';
	emu_segment_init(base, slash + 1);
}

/* The constructor and destructor run inside the program's own calls
 * (start-up, exit, dlopen): errno is left as they found it. */
static void emu_start(void);

__attribute__((constructor)) static void emu_init(void)
{
	int saved = errno;

	emu_start();
	errno = saved;
}

/*
 * MLX4EMU_CHECK=1, mlx4emu-run's preflight: the configuration is parsed
 * and the ports' addresses claimed as for a device, then the process
 * exits before its main, 0 when the device would start, 1 (after the
 * messages) when not.  So the launcher refuses a program the device would
 * fail, by the rules of this parser and no copy of them.
 */
static bool check_only(void)
{
	const char *v = getenv("MLX4EMU_CHECK");

	return v && *v && strcmp(v, "0");
}

static void emu_start(void)
{
	bool check = check_only();

	emu_engine_init();
	if (emu_config_load()) {
		if (check)
			_exit(1);
		fprintf(stderr, "mlx4emu: bad configuration, device disabled\n");
		return;
	}
	emu_faults_init();
	emu_attributes_apply_defaults();
	if (emu_identity_claim()) {
		if (check)
			_exit(1);
		fprintf(stderr, "mlx4emu: no address for the adapter, device disabled\n");
		return;
	}
	if (check) {
		emu_identity_release();
		_exit(emu_cfg.pcap && emu_capture_check(emu_cfg.pcap) ? 1 : 0);
	}
	if (emu_cfg.pcap && emu_capture_open(emu_cfg.pcap)) {
		emu_identity_release();
		return;
	}
	if (emu_transport_init()) {
		fprintf(stderr, "mlx4emu: cannot register the transport, device disabled\n");
		emu_identity_release();
		return;
	}
	emu_cm_init();
	if (emu_sysfs_create()) {
		fprintf(stderr, "mlx4emu: cannot create the sysfs tree: %s\n",
			strerror(errno));
		return;
	}
	if (emu_fault_install())
		fprintf(stderr, "mlx4emu: cannot install the fault handler: %s\n",
			strerror(errno));
	sysfs_owner = getpid();
	publish_segment();
	emu_ports_init();
	if (emu_netif_create())
		fprintf(stderr, "mlx4emu: cannot create the network interfaces: %s\n",
			strerror(errno));
	setenv("SYSFS_PATH", emu_sysfs_root(), 1);
	/* DPDK's PCI bus scan (rte_pci_get_sysfs_path) */
	setenv("SYSFS_PCI_DEVICES", emu_sysfs_pci_devices(), 1);
	EMU_TRACE("device %s (0x%04x), %u port(s), sysfs at %s", EMU_IBDEV_NAME,
		  emu_cfg.device_id, emu_cfg.ports, emu_sysfs_root());
}

/*
 * The exit reports, so that no loss is silent: the faults the wire
 * applied, then every port's RoCEv2 packets, then every Ethernet port's
 * frames.  The adapter's counts of what found no receive WQE go into the
 * wire's lines, as the wire layer cannot ask the adapter above it.
 */
static void report_at_exit(void)
{
	emu_faults_report();
	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		emu_link_report(p, emu_port_ud_no_wqe_drops(p));
	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		emu_vxlan_report(p, emu_port_no_wqe_drops(p));
}

__attribute__((destructor)) static void emu_fini(void)
{
	/* a forked child must not remove its parent's tree */
	int saved = errno;

	if (sysfs_owner == getpid()) {
		/* the peers of this adapter's connections hear it go */
		emu_cm_shutdown();
		emu_sysfs_remove();
		/* frames the faults still hold were in flight: they arrive */
		emu_adapter_lock();
		emu_link_release_held(UINT64_MAX);
		emu_adapter_unlock();
	}
	emu_identity_release();
	emu_vxlan_close();
	emu_capture_close();
	if (sysfs_owner == getpid())
		report_at_exit();
	errno = saved;
}
