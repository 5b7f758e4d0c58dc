// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * s390x: without the MIO instructions (always so under qemu-user, which
 * implements neither those nor the system call) the header writes device
 * registers through the s390_pci_mmio_write system call. In the
 * device-free tests host memory plays the device, so this file plays the
 * kernel's part: the call copies the bytes to the address given, as the
 * kernel does into the PCI BAR (arch/s390/pci/pci_mmio.c). Every test
 * binary of an s390x build links it with -Wl,--wrap=syscall
 * (tests/CMakeLists.txt); other system calls go to glibc.
 */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>

long __real_syscall(long number, ...);
long __wrap_syscall(long number, ...);

long __wrap_syscall(long number, ...)
{
	long a[6];
	va_list ap;
	int i;

	va_start(ap, number);
	for (i = 0; i < 3; i++)
		a[i] = va_arg(ap, long);
	if (number == __NR_s390_pci_mmio_write) {
		va_end(ap);
		memcpy((void *)a[0], (const void *)a[1], (size_t)a[2]);
		return 0;
	}
	if (number == __NR_s390_pci_mmio_read) {
		va_end(ap);
		memcpy((void *)a[1], (const void *)a[0], (size_t)a[2]);
		return 0;
	}
	for (; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return __real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
