/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/barrier.h> - barriers and device writes (doorbell, BlueFlame).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_BARRIER_H_
#define _MLX4DV_BARRIER_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/barrier.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Barriers and device writes.
 * ====================================================================== */
/*
 * Why these exist: a WQE, a doorbell record or a CQE is ordinary host
 * memory shared with the device by DMA, while the doorbell and BlueFlame
 * registers are device memory (the UAR page, uncached; the BlueFlame page,
 * write-combining). Each function below names the ordering it provides;
 * the data-path functions of this header call them where the sequence
 * requires, so users of the one-call posts and the poll loop need none of
 * them. Users who build WQEs by hand follow the same rules.
 *
 * The instruction for each architecture is the one rdma-core gives in
 * util/udma_barrier.h (udma_to_device_barrier, udma_from_device_barrier,
 * mmio_flush_writes), with three documented differences:
 *  - x86 (64- and 32-bit) load barrier: x86-TSO never reorders loads with
 *    older loads on write-back memory (Intel SDM vol. 3, 8.2.2), so a
 *    compiler barrier is enough, as in DPDK's rte_io_rmb(); rdma-core
 *    issues lfence (x86-64) or a locked add (i386).
 *  - aarch64: dmb oshst / dmb oshld, which rdma-core uses from 55.0 on
 *    (44.0 had dsb st / dsb ld): Armv8 is other-multi-copy atomic, so a
 *    DMB orders accesses for a device in the outer shareable domain, as
 *    the kernel's dma_wmb()/dma_rmb() do.
 *  - mips: "sync" (rdma-core 44.0 spells it "sync 0", the same encoding,
 *    which MIPS IV assemblers refuse; later rdma-core writes "sync").
 * The release barrier has no rdma-core counterpart (see
 * mlx4dv_barrier_release_to_device()); it is the full barrier of each
 * architecture, or a compiler barrier where the architecture never lets a
 * store pass an older load (x86, s390x, 32-bit SPARC TSO).
 *
 * rdma-core defines no DMA barrier for the other architectures (32-bit
 * ARM, alpha, hppa, m68k, sh4...) and builds no libmlx4 there (its
 * HAVE_COHERENT_DMA test). There, as with rdma-core's header, the layouts
 * and builders of rdma-core's part compile; a program that uses a function of the
 * data path fails to build, naming
 * __mlx4dv_no_device_barriers_for_this_architecture.
 */
#if defined(__x86_64__) || defined(__i386__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("" ::: "memory")
#if defined(__x86_64__)
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("sfence" ::: "memory")
#else
/* sfence needs SSE, which i386 does not assume; a locked instruction
 * drains the write-combining buffers on every x86. */
#define __MLX4DV_BARRIER_WC_FLUSH() \
	__asm__ __volatile__("lock; addl $0,0(%%esp)" ::: "memory", "cc")
#endif
#elif defined(__aarch64__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("dmb oshst" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("dmb oshld" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("dsb st" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("dmb osh" ::: "memory")
#elif defined(__PPC64__) || defined(__PPC__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#if defined(__PPC64__)
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("lwsync" ::: "memory")
#else
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#endif
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("sync" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("sync" ::: "memory")
#elif defined(__s390x__)
/* s390x orders host memory for the device by itself; PCI stores are
 * instructions of their own, flushed by pciwb (mlx4dv_wc_flush below). */
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__mlx4dv_s390_pciwb()
#elif defined(__riscv)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("fence ow,ow" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("fence ir,ir" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("fence ow,ow" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("fence iorw,ow" ::: "memory")
#elif defined(__mips__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("sync" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("sync" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("sync" ::: "memory")
#elif defined(__loongarch__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("dbar 0" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("dbar 0" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("dbar 0" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("dbar 0" ::: "memory")
#elif defined(__sparc_v9__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("membar #StoreStore" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("membar #LoadLoad" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("membar #StoreStore" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE() \
	__asm__ __volatile__("membar #LoadStore | #StoreStore" ::: "memory")
#elif defined(__sparc__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("" ::: "memory")
#elif defined(__ia64__)
#define __MLX4DV_BARRIER_TO_DEVICE()	__asm__ __volatile__("mf" ::: "memory")
#define __MLX4DV_BARRIER_FROM_DEVICE()	__asm__ __volatile__("mf" ::: "memory")
#define __MLX4DV_BARRIER_WC_FLUSH()	__asm__ __volatile__("fwb" ::: "memory")
#define __MLX4DV_BARRIER_RELEASE()	__asm__ __volatile__("mf" ::: "memory")
#else
#define __MLX4DV_NO_DEVICE_BARRIERS 1
#endif

#if defined(__MLX4DV_NO_DEVICE_BARRIERS)
/* Never defined anywhere: a call that survives compilation is an error
 * at compile time (GCC, clang 14+) or else at link time. */
#if defined(__has_attribute)
#if __has_attribute(__error__)
__attribute__((__error__("mlx4dv.h: rdma-core defines no device barriers for "
			 "this architecture, so the data path is unavailable")))
#endif
#endif
void
__mlx4dv_no_device_barriers_for_this_architecture(void);
#define __MLX4DV_BARRIER_TO_DEVICE()	__mlx4dv_no_device_barriers_for_this_architecture()
#define __MLX4DV_BARRIER_FROM_DEVICE()	__mlx4dv_no_device_barriers_for_this_architecture()
#define __MLX4DV_BARRIER_WC_FLUSH()	__mlx4dv_no_device_barriers_for_this_architecture()
#define __MLX4DV_BARRIER_RELEASE()	__mlx4dv_no_device_barriers_for_this_architecture()
#endif

#if defined(__s390x__)
/*
 * s390x reaches PCI memory only through PCI load/store instructions: the
 * unprivileged MIO ones (pcistgi, pcistbi, pciwb; z15 and later, when the
 * kernel sets HWCAP_S390_PCI_MIO) or else the s390_pci_mmio_write system
 * call, exactly as rdma-core's util/mmio.h and util/s390_mmio_insn.h do.
 * Plain stores to the UAR or BlueFlame mapping do not reach the device.
 */
#include <sys/auxv.h>
#include <sys/syscall.h>
#ifndef __cplusplus
/* glibc declares syscall() only with _DEFAULT_SOURCE, which a strict C11
 * program lacks; the redeclaration is compatible with glibc's. (C++
 * compilers define _GNU_SOURCE, so <unistd.h> declares it there.) */
long syscall(long number, ...);
#else
#include <unistd.h>
#endif

#define __MLX4DV_S390_HWCAP_PCI_MIO	(1UL << 21)	/* HWCAP_S390_PCI_MIO */

/* 1 when the MIO instructions may be used; read once per translation
 * unit (a benign race: every thread computes the same value). */
static inline int
__mlx4dv_s390_mio(void)
{
	static int mio = -1;
	int v = __atomic_load_n(&mio, __ATOMIC_RELAXED);

	if (v < 0) {
		v = !!(getauxval(AT_HWCAP) & __MLX4DV_S390_HWCAP_PCI_MIO);
		__atomic_store_n(&mio, v, __ATOMIC_RELAXED);
	}
	return v;
}

/* pcistgi: store len (1, 2, 4 or 8) low-order bytes of val to ioaddr. The
 * address/length operand is an even/odd register pair. */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_s390_pcistgi(void *ioaddr, uint64_t val, uint64_t len)
{
	__MLX4DV_EXTENSION unsigned __int128 addr_len =
		(__MLX4DV_EXTENSION (unsigned __int128)(uintptr_t)ioaddr << 64) | len;

	__asm__ __volatile__(".insn rre,0xb9d40000,%[val],%[addr_len]"
			     : [addr_len] "+&d" (addr_len)
			     : [val] "d" (val)
			     : "cc", "memory");
}

/* pcistbi: one block store of len bytes (8-byte aligned, within 4 KiB). */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_s390_pcistbi(void *ioaddr, const void *src, uint64_t len)
{
	__asm__ __volatile__(".insn rsy,0xeb00000000d4,%[len],%[ioaddr],%[src]"
			     : [len] "+d" (len)
			     : [ioaddr] "d" (ioaddr),
			       [src] "Q" (*(const uint8_t *)src)
			     : "cc", "memory");
}

/* Without MIO: the kernel performs the PCI store (arch/s390/pci/pci_mmio.c). */
static inline void
__mlx4dv_s390_mmio_write(void *ioaddr, const void *src, size_t len)
{
	syscall(__NR_s390_pci_mmio_write, ioaddr, src, len);
}

static MLX4DV_ALWAYS_INLINE void
__mlx4dv_s390_pciwb(void)
{
	if (__mlx4dv_s390_mio())
		__asm__ __volatile__(".insn rre,0xb9d50000,0,0" ::: "memory");
	else
		__asm__ __volatile__("" ::: "memory");
}
#endif

/*
 * mlx4dv_barrier_to_device - make every earlier store to host memory
 * visible to the device before any later store.
 *
 * Protects: WQE body before the WQE's owner/opcode word; data segment
 * lkey/addr before its byte_count; inline data before its header; RQ/SRQ
 * WQEs before the doorbell record; the last WQE before the send doorbell;
 * CQE consumption before the consumer-index record; the arm record before
 * the arm doorbell.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_barrier_to_device(void)
{
	__MLX4DV_BARRIER_TO_DEVICE();
}

/*
 * mlx4dv_barrier_from_device - no later load is performed before the
 * earlier ones.
 *
 * Protects: the CQE owner-bit test before reading the rest of the CQE.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_barrier_from_device(void)
{
	__MLX4DV_BARRIER_FROM_DEVICE();
}

/*
 * mlx4dv_barrier_release_to_device - every earlier load AND store to host
 * memory is complete before any later store the device can see.
 *
 * Protects: reading the CQEs before the consumer-index record hands their
 * slots back to the device, which may overwrite them at once. A store
 * barrier alone (dmb oshst on aarch64, as rdma-core's cq.c uses) does not
 * order the loads; x86-TSO never moves a store before an older load, so
 * there it is a compiler barrier (Intel SDM vol. 3, 8.2.2); aarch64 uses a
 * full dmb osh; ppc64 sync.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_barrier_release_to_device(void)
{
	__MLX4DV_BARRIER_RELEASE();
}

/*
 * mlx4dv_wc_flush - drain the write-combining buffers: every earlier store
 * to write-combining memory (the BlueFlame page) reaches the device before
 * any later store. Also orders earlier normal stores before later
 * write-combining ones.
 *
 * Protects: the end of a BlueFlame copy before the next BlueFlame use or
 * the toggle of the BlueFlame offset; the WQE in host memory before the
 * BlueFlame copy of it.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wc_flush(void)
{
	__MLX4DV_BARRIER_WC_FLUSH();
}

/*
 * mlx4dv_mmio_write32_be - one 32-bit store of an already big-endian value
 * to a device register (reg: 4-byte aligned, in the UAR page). Used for the
 * send doorbell: UAR + MLX4_SEND_DOORBELL <- doorbell_qpn. The caller
 * issues mlx4dv_barrier_to_device() first. On s390x a PCI store
 * instruction or system call (see above); elsewhere a volatile store.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_mmio_write32_be(void *reg, __be32 val)
{
#if defined(__s390x__)
	if (__mlx4dv_s390_mio())
		__mlx4dv_s390_pcistgi(reg, (uint32_t)val, sizeof(val));
	else
		__mlx4dv_s390_mmio_write(reg, &val, sizeof(val));
#else
	*(volatile __be32 *)reg = val;
#endif
}

/*
 * mlx4dv_mmio_write64_be - one 64-bit store of an already big-endian value
 * to a device register (reg: 8-byte aligned). Used for the CQ arm doorbell
 * at UAR + MLX4_CQ_DOORBELL, which the device must see as one write. The
 * caller issues mlx4dv_barrier_to_device() first. On 32-bit architectures
 * an 8-byte atomic store (x87 or SSE on i386), never two 32-bit ones
 * (rdma-core util/mmio.c uses SSE there, or two stores under a global lock).
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_mmio_write64_be(void *reg, __be64 val)
{
#if defined(__s390x__)
	if (__mlx4dv_s390_mio())
		__mlx4dv_s390_pcistgi(reg, (uint64_t)val, sizeof(val));
	else
		__mlx4dv_s390_mmio_write(reg, &val, sizeof(val));
#elif UINTPTR_MAX == 0xffffffffu
	__atomic_store_n((volatile uint64_t *)reg, (uint64_t)val, __ATOMIC_RELAXED);
#else
	*(volatile __be64 *)reg = val;
#endif
}

/*
 * mlx4dv_wc_copy64 - copy one 64-byte block to write-combining device
 * memory in ascending address order (dst and src 8-byte aligned; dst
 * 64-byte aligned for the device to see one burst): eight 64-bit stores
 * (pairs of 32-bit ones on 32-bit architectures), or on s390x one PCI
 * block store.
 *
 * Not memcpy(): a string copy (rep movs) may write out of order or in
 * pieces the BlueFlame buffer does not accept (rdma-core util/mmio.h).
 * The caller flushes with mlx4dv_wc_flush() after the last block.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wc_copy64(void *dst, const void *src)
{
#if defined(__s390x__)
	/* a 64-byte aligned block never crosses pcistbi's 4 KiB boundary */
	if (__mlx4dv_s390_mio())
		__mlx4dv_s390_pcistbi(dst, src, 64);
	else
		__mlx4dv_s390_mmio_write(dst, src, 64);
#else
	volatile uint64_t *d = (volatile uint64_t *)dst;
	const unsigned char *s = (const unsigned char *)src;
	uint64_t w[8];

	/* memcpy keeps the load free of aliasing assumptions; it compiles to
	 * plain loads, and the stores below stay eight ordered volatile ones. */
	memcpy(w, s, sizeof(w));
	d[0] = w[0];
	d[1] = w[1];
	d[2] = w[2];
	d[3] = w[3];
	d[4] = w[4];
	d[5] = w[5];
	d[6] = w[6];
	d[7] = w[7];
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_BARRIER_H_ */
