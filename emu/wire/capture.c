// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Packet capture in the pcap format, written by libpcap.  libpcap is
 * loaded with dlopen() only when a capture is asked for: linking it would
 * load it (and its D-Bus, systemd and crypto dependencies) into every
 * program the device is preloaded into.
 */
#include "wire/capture.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/libc.h"
#include "wire/icrc.h"
#include "wire/identity.h"
#include "wire/roce.h"

static struct {
	pcap_t *(*open_dead)(int, int);
	pcap_dumper_t *(*dump_fopen)(pcap_t *, FILE *);
	void (*dump)(u_char *, const struct pcap_pkthdr *, const u_char *);
	int (*dump_flush)(pcap_dumper_t *);
	void (*dump_close)(pcap_dumper_t *);
	void (*close)(pcap_t *);
	char *(*geterr)(pcap_t *);
} pc;

static pcap_t *dead;
static pcap_dumper_t *dumper;
/* packets come from the engine thread; close may come from the destructor */
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

static int load_libpcap(void)
{
	static const char *const names[] = { "libpcap.so.0.8", "libpcap.so.1", "libpcap.so" };
	void *h = NULL;

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "mlx4emu: --pcap needs libpcap: %s\n", dlerror());
		return -1;
	}
	*(void **)&pc.open_dead = dlsym(h, "pcap_open_dead");
	*(void **)&pc.dump_fopen = dlsym(h, "pcap_dump_fopen");
	*(void **)&pc.dump = dlsym(h, "pcap_dump");
	*(void **)&pc.dump_flush = dlsym(h, "pcap_dump_flush");
	*(void **)&pc.dump_close = dlsym(h, "pcap_dump_close");
	*(void **)&pc.close = dlsym(h, "pcap_close");
	*(void **)&pc.geterr = dlsym(h, "pcap_geterr");
	if (!pc.open_dead || !pc.dump_fopen || !pc.dump || !pc.dump_flush ||
	    !pc.dump_close || !pc.close || !pc.geterr) {
		fprintf(stderr, "mlx4emu: --pcap: libpcap lacks the dump functions\n");
		return -1;
	}
	return 0;
}

/*
 * A capture holds every payload the program moved, and the program may
 * run as root: the file must be the user's alone.  An existing file is
 * taken only when it is a regular file of the effective user with one
 * link, never through a symbolic link (O_NOFOLLOW), and never truncated
 * before that is known; then it is emptied and narrowed to 0600, as
 * tcpdump's -w would give it under a umask of 077.  A file another user
 * created (or a hard link to one of ours) would hand them the capture
 * or let them make us overwrite a file of theirs choosing.
 * Returns the descriptor, or -1 after a message naming the file.
 */
static int open_private(const char *path)
{
	int fd = emu_real_open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	const char *why = NULL;
	struct stat st;

	if (fd < 0) {
		fprintf(stderr, "mlx4emu: --pcap=%s: %s\n", path,
			errno == ELOOP ? "a symbolic link, refused" : strerror(errno));
		return -1;
	}
	if (emu_real_fstat(fd, &st))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file, refused";
	else if (st.st_uid != geteuid())
		why = "owned by another user, refused (remove it or name another file)";
	else if (st.st_nlink != 1)
		why = "has other hard links, refused";
	if (why) {
		fprintf(stderr, "mlx4emu: --pcap=%s: %s\n", path, why);
		emu_real_close(fd);
		return -1;
	}
	return fd;
}

int emu_capture_check(const char *path)
{
	int fd = open_private(path);

	if (fd < 0)
		return -1;
	emu_real_close(fd);
	return 0;
}

static pcap_dumper_t *dump_private(const char *path)
{
	int fd = open_private(path);
	pcap_dumper_t *d;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (ftruncate(fd, 0) || fchmod(fd, 0600) || fcntl(fd, F_SETFL, 0)) {
		fprintf(stderr, "mlx4emu: --pcap=%s: %s\n", path, strerror(errno));
		emu_real_close(fd);
		return NULL;
	}
	f = fdopen(fd, "wb");
	if (!f) {
		fprintf(stderr, "mlx4emu: --pcap=%s: %s\n", path, strerror(errno));
		emu_real_close(fd);
		return NULL;
	}
	d = pc.dump_fopen(dead, f);
	if (!d) {
		fprintf(stderr, "mlx4emu: --pcap=%s: %s\n", path, pc.geterr(dead));
		fclose(f);
	}
	return d;
}

int emu_capture_open(const char *path)
{
	if (load_libpcap())
		return -1;
	dead = pc.open_dead(DLT_EN10MB, 65535);
	if (!dead) {
		fprintf(stderr, "mlx4emu: pcap_open_dead failed\n");
		return -1;
	}
	dumper = dump_private(path);
	if (!dumper) {
		pc.close(dead);
		dead = NULL;
		return -1;
	}
	return 0;
}

bool emu_capture_active(void)
{
	return dumper != NULL;
}

static void mac_of(uint32_t addr, uint8_t *mac)
{
	mac[0] = 0x02;
	mac[1] = 0xc9;
	emu_put_be32(mac + 2, addr);
}

void emu_capture_packet(uint32_t src, uint32_t dst, const uint8_t *pkt, size_t len)
{
	emu_capture_udp(src, dst, EMU_ROCE_UDP_PORT, pkt, len);
}

void emu_capture_udp(uint32_t src, uint32_t dst, uint16_t udp_port, const uint8_t *pkt,
		     size_t len)
{
	static uint8_t frame[14 + 28 + 16384];	/* under capture_lock */
	struct pcap_pkthdr h;

	if (!dumper || len > sizeof(frame) - 42)
		return;
	pthread_mutex_lock(&capture_lock);
	mac_of(dst, frame);
	mac_of(src, frame + 6);
	frame[12] = 0x08;	/* IPv4 */
	frame[13] = 0x00;
	emu_ipv4_udp_header(frame + 14, src, dst, udp_port, udp_port, (uint16_t)(8 + len));
	memcpy(frame + 42, pkt, len);
	gettimeofday(&h.ts, NULL);
	h.caplen = h.len = (bpf_u_int32)(42 + len);
	if (dumper)
		pc.dump((u_char *)dumper, &h, frame);
	/* a killed process keeps what it captured */
	if (dumper)
		pc.dump_flush(dumper);
	pthread_mutex_unlock(&capture_lock);
}

void emu_capture_close(void)
{
	pthread_mutex_lock(&capture_lock);
	if (dumper) {
		pc.dump_close(dumper);
		dumper = NULL;
	}
	if (dead) {
		pc.close(dead);
		dead = NULL;
	}
	pthread_mutex_unlock(&capture_lock);
}
