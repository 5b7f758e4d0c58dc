/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The adapter's PCI function in the fake sysfs tree, where DPDK's PCI bus
 * scan (SYSFS_PCI_DEVICES) and the mlx4 poll-mode driver look for it.
 */
#ifndef MLX4EMU_SYSFS_PCI_H
#define MLX4EMU_SYSFS_PCI_H

/* Directory of the PCI function, relative to the sysfs root. */
#define EMU_SYSFS_PCI_DIR_FMT "devices/pci%.4s:00/%s"

/*
 * Creates devices/pci<domain>:00/<address>/ with the configuration-space
 * identity, BARs, uevent and driver link, the bus/pci/devices and
 * bus/pci/drivers/mlx4_core links to it, and the `device` links of the
 * infiniband and uverbs class entries.  Must run before the class entries
 * get their files (they are written through the links).  0 or -1.
 */
int emu_sysfs_pci_create(void);

/* Absolute path of bus/pci/devices, the value for SYSFS_PCI_DEVICES. */
const char *emu_sysfs_pci_devices(void);

#endif
