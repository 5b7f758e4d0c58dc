// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The PCI function of the software ConnectX-3, laid out as Linux lays out
 * a function bound to mlx4_core:
 *
 *   devices/pci<dom>:00/<addr>/      vendor device subsystem_* class
 *                                    numa_node resource uevent modalias
 *                                    driver -> bus/pci/drivers/mlx4_core
 *   bus/pci/devices/<addr>           -> the function
 *   bus/pci/drivers/mlx4_core/<addr> -> the function
 *   class/infiniband/mlx4_0/device   -> the function
 *   class/infiniband_verbs/uverbs0/device -> the function
 *
 * DPDK's bus scan reads the identity, numa_node, the six BAR lines of
 * `resource` and the driver link's name; net_mlx4 matches the verbs
 * device to the function through device/uevent's PCI_SLOT_NAME.
 */
#include "os/sysfs_pci.h"

#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "os/sysfs.h"

/* Identity of an MCX354A-class adapter (the modalias libmlx4 matches). */
#define PCI_VENDOR_MELLANOX 0x15b3
#define PCI_SUBSYSTEM_DEVICE 0x0006
#define PCI_CLASS_NETWORK_OTHER 0x028000

/* BARs: 0 = 1 MiB of configuration registers (64-bit, non-prefetchable),
 * 2 = 8 MiB of UAR pages (64-bit, prefetchable); Linux's resource flags. */
#define IORESOURCE_MEM_64BIT 0x00140204ull
#define IORESOURCE_MEM_64BIT_PREFETCH 0x0014220cull
#define PCI_NUM_RESOURCES 13

static char pci_devices[512];

static int put(const char *dir, const char *name, const char *content)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	return emu_sysfs_put(rel, content);
}

static int put_hex(const char *dir, const char *name, unsigned width, unsigned v)
{
	char text[16];

	snprintf(text, sizeof(text), "0x%0*x", (int)width, v);
	return put(dir, name, text);
}

static int put_resource(const char *dir)
{
	/* addresses a BIOS would hand out above 4 GiB; what matters is the
	 * format and that BARs 0 and 2 are memory */
	static const unsigned long long start[PCI_NUM_RESOURCES] = {
		[0] = 0x383ffe000000ull, [2] = 0x383ff8000000ull,
	};
	static const unsigned long long size[PCI_NUM_RESOURCES] = {
		[0] = 1ull << 20, [2] = 8ull << 20,
	};
	static const unsigned long long flags[PCI_NUM_RESOURCES] = {
		[0] = IORESOURCE_MEM_64BIT, [2] = IORESOURCE_MEM_64BIT_PREFETCH,
	};
	char text[PCI_NUM_RESOURCES * 64];
	size_t n = 0;

	for (unsigned i = 0; i < PCI_NUM_RESOURCES; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "0x%016llx 0x%016llx 0x%016llx%s", start[i],
				      size[i] ? start[i] + size[i] - 1 : 0, flags[i],
				      i + 1 < PCI_NUM_RESOURCES ? "\n" : "");
	return put(dir, "resource", text);
}

static int put_identity(const char *dir)
{
	char text[512], alias[128];
	int err = 0;

	err |= put_hex(dir, "vendor", 4, PCI_VENDOR_MELLANOX);
	err |= put_hex(dir, "device", 4, emu_cfg.device_id);
	err |= put_hex(dir, "subsystem_vendor", 4, PCI_VENDOR_MELLANOX);
	err |= put_hex(dir, "subsystem_device", 4, PCI_SUBSYSTEM_DEVICE);
	err |= put_hex(dir, "class", 6, PCI_CLASS_NETWORK_OTHER);
	err |= put(dir, "revision", "0x00");
	err |= put(dir, "numa_node", "0");
	err |= put(dir, "enable", "1");
	err |= put(dir, "sriov_numvfs", "0");
	snprintf(alias, sizeof(alias), "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X",
		 PCI_VENDOR_MELLANOX, emu_cfg.device_id, PCI_VENDOR_MELLANOX,
		 PCI_SUBSYSTEM_DEVICE, PCI_CLASS_NETWORK_OTHER >> 16,
		 (PCI_CLASS_NETWORK_OTHER >> 8) & 0xff, PCI_CLASS_NETWORK_OTHER & 0xff);
	err |= put(dir, "modalias", alias);
	snprintf(text, sizeof(text),
		 "DRIVER=mlx4_core\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\n"
		 "PCI_SUBSYS_ID=%04X:%04X\nPCI_SLOT_NAME=%s\nMODALIAS=%s",
		 PCI_CLASS_NETWORK_OTHER, PCI_VENDOR_MELLANOX, emu_cfg.device_id,
		 PCI_VENDOR_MELLANOX, PCI_SUBSYSTEM_DEVICE, emu_cfg.pci_addr, alias);
	err |= put(dir, "uevent", text);
	return err;
}

int emu_sysfs_pci_create(void)
{
	const char *addr = emu_cfg.pci_addr;
	char dir[128], rel[256], target[256];
	int err = 0;

	snprintf(dir, sizeof(dir), EMU_SYSFS_PCI_DIR_FMT, addr, addr);
	err |= put_identity(dir);
	err |= put_resource(dir);
	err |= put("bus/pci/drivers/mlx4_core", "bind", "");
	snprintf(rel, sizeof(rel), "%s/driver", dir);
	err |= emu_sysfs_link(rel, "../../../bus/pci/drivers/mlx4_core");
	snprintf(rel, sizeof(rel), "bus/pci/drivers/mlx4_core/%s", addr);
	snprintf(target, sizeof(target), "../../../../%s", dir);
	err |= emu_sysfs_link(rel, target);
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", addr);
	snprintf(target, sizeof(target), "../../../%s", dir);
	err |= emu_sysfs_link(rel, target);
	err |= emu_sysfs_link("class/infiniband/" EMU_IBDEV_NAME "/device", target);
	err |= emu_sysfs_link("class/infiniband_verbs/uverbs0/device", target);
	snprintf(pci_devices, sizeof(pci_devices), "%s/bus/pci/devices",
		 emu_sysfs_root());
	return err ? -1 : 0;
}

const char *emu_sysfs_pci_devices(void)
{
	return pci_devices;
}
