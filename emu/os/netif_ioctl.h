/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#ifndef MLX4EMU_NETIF_IOCTL_H
#define MLX4EMU_NETIF_IOCTL_H

#include <stdbool.h>

/*
 * Answers an interface ioctl on a socket when it names one of the
 * device's interfaces: SIOCGIFFLAGS/SIOCSIFFLAGS, SIOCGIFMTU/SIOCSIFMTU,
 * SIOCGIFHWADDR, SIOCGIFINDEX, SIOCGIFNAME (by index), SIOCGIFTXQLEN and
 * SIOCETHTOOL (GSET, GLINK, GDRVINFO, GPAUSEPARAM, SPAUSEPARAM; any other
 * ethtool command fails with EOPNOTSUPP, as a driver without it does).
 * Returns false, touching nothing, for every other descriptor, request
 * and interface: the caller passes those to the kernel.  When it returns
 * true, *ret is the ioctl's result and errno is set as the kernel sets it
 * (EFAULT for unreadable or unwritable user memory, EINVAL for an MTU out
 * of range or pause autonegotiation).
 */
bool emu_netif_ioctl(int fd, unsigned long request, void *arg, int *ret);

#endif
