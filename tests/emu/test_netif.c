// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The PCI function and the Ethernet interfaces of the software device
 * (run with --ports=2 --link-layer=eth --pci-addr=0000:05:00.0
 * --ifname=emu0,emu1 --link-speed=10000 --cross-cable): the sysfs files
 * DPDK's PCI scan and net_mlx4 read, the interface ioctls, and the link
 * state they drive (port state, port events, frames across the cable).
 */
#include "emu_test.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <poll.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "test_exit.h"

#define PCI "0000:05:00.0"

static void read_file(const char *rel, char *out, size_t len)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", getenv("SYSFS_PATH"), rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
}

static void assert_file(const char *rel, const char *want)
{
	char got[1024];

	read_file(rel, got, sizeof(got));
	assert_string_equal(got, want);
}

static void test_pci_function(void **state)
{
	char path[512], target[512], text[1024];
	const char *devs = getenv("SYSFS_PCI_DEVICES");
	ssize_t n;

	(void)state;
	assert_non_null(devs);
	snprintf(path, sizeof(path), "%s/bus/pci/devices", getenv("SYSFS_PATH"));
	assert_string_equal(devs, path);
	assert_file("bus/pci/devices/" PCI "/vendor", "0x15b3\n");
	assert_file("bus/pci/devices/" PCI "/device", "0x1003\n");
	assert_file("bus/pci/devices/" PCI "/subsystem_vendor", "0x15b3\n");
	assert_file("bus/pci/devices/" PCI "/subsystem_device", "0x0006\n");
	assert_file("bus/pci/devices/" PCI "/class", "0x028000\n");
	assert_file("bus/pci/devices/" PCI "/numa_node", "0\n");
	/* six BAR lines first: BAR 0 and 2 memory, 64-bit */
	read_file("bus/pci/devices/" PCI "/resource", text, sizeof(text));
	assert_memory_equal(text, "0x0000383ffe000000 0x0000383ffe0fffff 0x0000000000140204\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000383ff8000000 0x0000383ff87fffff 0x000000000014220c\n", 171);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/" PCI "/driver", getenv("SYSFS_PATH"));
	n = readlink(path, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(strrchr(target, '/'), "/mlx4_core");
	/* net_mlx4 matches the verbs device through its uevent */
	read_file("class/infiniband/mlx4_0/device/uevent", text, sizeof(text));
	assert_non_null(strstr(text, "\nPCI_SLOT_NAME=" PCI "\n"));
	read_file("class/infiniband/mlx4_0/device/modalias", text, sizeof(text));
	assert_string_equal(text, "pci:v000015B3d00001003sv000015B3sd00000006bc02sc80i00\n");
}

static void test_net_files(void **state)
{
	(void)state;
	assert_file("class/infiniband/mlx4_0/device/net/emu0/dev_port", "0\n");
	assert_file("class/infiniband/mlx4_0/device/net/emu1/dev_port", "1\n");
	assert_file("class/infiniband/mlx4_0/device/net/emu1/dev_id", "0x1\n");
	assert_file("class/net/emu0/address", "00:02:c9:0e:4d:01\n");
	assert_file("class/net/emu1/address", "00:02:c9:0e:4d:02\n");
	assert_file("class/net/emu0/mtu", "1500\n");
	assert_file("class/net/emu0/operstate", "up\n");
	assert_file("class/net/emu0/speed", "10000\n");
	assert_file("class/net/emu0/ifindex", "19713\n");
}

static int ifreq_call(int sock, unsigned long req, const char *name, struct ifreq *r)
{
	snprintf(r->ifr_name, sizeof(r->ifr_name), "%s", name);
	return ioctl(sock, req, r);
}

static void test_ioctls(void **state)
{
	static const uint8_t mac1[6] = { 0x00, 0x02, 0xc9, 0x0e, 0x4d, 0x02 };
	int sock = socket(AF_INET, SOCK_DGRAM, 0);
	struct ethtool_cmd ecmd = { .cmd = ETHTOOL_GSET };
	struct ethtool_pauseparam pp = { .cmd = ETHTOOL_GPAUSEPARAM };
	struct ethtool_value link = { .cmd = ETHTOOL_GLINK };
	struct ifreq r;
	char name[IF_NAMESIZE];

	(void)state;
	assert_true(sock >= 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(ifreq_call(sock, SIOCGIFHWADDR, "emu1", &r), 0);
	assert_int_equal(r.ifr_hwaddr.sa_family, ARPHRD_ETHER);
	assert_memory_equal(r.ifr_hwaddr.sa_data, mac1, 6);
	assert_int_equal(ifreq_call(sock, SIOCGIFMTU, "emu0", &r), 0);
	assert_int_equal(r.ifr_mtu, 1500);
	assert_int_equal(ifreq_call(sock, SIOCGIFFLAGS, "emu0", &r), 0);
	assert_int_equal(r.ifr_flags & (IFF_UP | IFF_RUNNING), IFF_UP | IFF_RUNNING);
	assert_int_equal(ifreq_call(sock, SIOCGIFINDEX, "emu1", &r), 0);
	assert_int_equal(r.ifr_ifindex, 19714);
	assert_int_equal(if_nametoindex("emu1"), 19714);
	assert_non_null(if_indextoname(19713, name));
	assert_string_equal(name, "emu0");
	r.ifr_ifindex = 19714;
	assert_int_equal(ioctl(sock, SIOCGIFNAME, &r), 0);
	assert_string_equal(r.ifr_name, "emu1");
	/* MTU: mlx4_en's range, the sysfs file follows */
	r.ifr_mtu = 9000;
	assert_int_equal(ifreq_call(sock, SIOCSIFMTU, "emu0", &r), 0);
	assert_file("class/net/emu0/mtu", "9000\n");
	r.ifr_mtu = 9979;
	errno = 0;
	assert_int_equal(ifreq_call(sock, SIOCSIFMTU, "emu0", &r), -1);
	assert_int_equal(errno, EINVAL);
	r.ifr_mtu = 1500;
	assert_int_equal(ifreq_call(sock, SIOCSIFMTU, "emu0", &r), 0);
	/* ethtool */
	r.ifr_data = (void *)&ecmd;
	assert_int_equal(ifreq_call(sock, SIOCETHTOOL, "emu0", &r), 0);
	assert_int_equal(ethtool_cmd_speed(&ecmd), 10000);
	assert_int_equal(ecmd.duplex, DUPLEX_FULL);
	r.ifr_data = (void *)&link;
	assert_int_equal(ifreq_call(sock, SIOCETHTOOL, "emu0", &r), 0);
	assert_int_equal(link.data, 1);
	r.ifr_data = (void *)&pp;
	assert_int_equal(ifreq_call(sock, SIOCETHTOOL, "emu0", &r), 0);
	assert_true(pp.rx_pause && pp.tx_pause && !pp.autoneg);
	pp = (struct ethtool_pauseparam){ .cmd = ETHTOOL_SPAUSEPARAM, .rx_pause = 1 };
	assert_int_equal(ifreq_call(sock, SIOCETHTOOL, "emu0", &r), 0);
	pp = (struct ethtool_pauseparam){ .cmd = ETHTOOL_GPAUSEPARAM };
	assert_int_equal(ifreq_call(sock, SIOCETHTOOL, "emu0", &r), 0);
	assert_true(pp.rx_pause && !pp.tx_pause);
	pp = (struct ethtool_pauseparam){ .cmd = ETHTOOL_SPAUSEPARAM, .autoneg = 1 };
	errno = 0;
	assert_int_equal(ifreq_call(sock, SIOCETHTOOL, "emu0", &r), -1);
	assert_int_equal(errno, EINVAL);
	/* an ethtool command the driver does not have */
	link.cmd = ETHTOOL_GEEE;
	r.ifr_data = (void *)&link;
	errno = 0;
	assert_int_equal(ifreq_call(sock, SIOCETHTOOL, "emu0", &r), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	/* unreadable ethtool buffer */
	r.ifr_data = (void *)8;
	errno = 0;
	assert_int_equal(ifreq_call(sock, SIOCETHTOOL, "emu0", &r), -1);
	assert_int_equal(errno, EFAULT);
	close(sock);
}

/* Other interfaces and other descriptors go to the kernel untouched. */
static void test_passthrough(void **state)
{
	int sock = socket(AF_INET, SOCK_DGRAM, 0);
	int fd = open("/dev/null", O_RDONLY);
	struct ifreq r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(ifreq_call(sock, SIOCGIFINDEX, "lo", &r), 0);
	assert_int_equal(r.ifr_ifindex, (int)if_nametoindex("lo"));
	assert_int_equal(ifreq_call(sock, SIOCGIFFLAGS, "lo", &r), 0);
	assert_true(r.ifr_flags & IFF_LOOPBACK);
	errno = 0;
	assert_int_equal(ifreq_call(sock, SIOCGIFMTU, "mlx4emu-none", &r), -1);
	assert_int_equal(errno, ENODEV);
	/* not a socket: the kernel's ENOTTY */
	errno = 0;
	assert_int_equal(ifreq_call(fd, SIOCGIFMTU, "emu0", &r), -1);
	assert_int_equal(errno, ENOTTY);
	close(fd);
	close(sock);
}

static enum ibv_event_type next_event(struct ibv_context *ctx, int *port)
{
	struct ibv_async_event ev;
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(ibv_get_async_event(ctx, &ev), 0);
	*port = ev.element.port_num;
	ibv_ack_async_event(&ev);
	return ev.event_type;
}

static void set_up(int sock, const char *name, bool up)
{
	struct ifreq r;

	memset(&r, 0, sizeof(r));
	assert_int_equal(ifreq_call(sock, SIOCGIFFLAGS, name, &r), 0);
	r.ifr_flags = (short)(up ? r.ifr_flags | IFF_UP : r.ifr_flags & ~IFF_UP);
	assert_int_equal(ifreq_call(sock, SIOCSIFFLAGS, name, &r), 0);
}

/*
 * Bringing emu1 down takes both links down (the cable has no carrier),
 * raises PORT_ERR for both ports, and the ports report DOWN; up again
 * gives PORT_ACTIVE for both.
 */
static void test_link_down_up(void **state)
{
	struct emu_env e;
	struct ibv_port_attr pa;
	struct ifreq r;
	int sock = socket(AF_INET, SOCK_DGRAM, 0);
	int port, seen = 0;

	(void)state;
	emu_env_open(&e, 1);
	set_up(sock, "emu1", false);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(next_event(e.ctx, &port), IBV_EVENT_PORT_ERR);
		seen |= 1 << port;
	}
	assert_int_equal(seen, 6);
	assert_int_equal(ibv_query_port(e.ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_DOWN);
	assert_int_equal(ibv_query_port(e.ctx, 2, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_DOWN);
	assert_int_equal(pa.phys_state, 3);	/* Disabled */
	assert_file("class/net/emu0/operstate", "down\n");
	memset(&r, 0, sizeof(r));
	assert_int_equal(ifreq_call(sock, SIOCGIFFLAGS, "emu0", &r), 0);
	assert_int_equal(r.ifr_flags & (IFF_UP | IFF_RUNNING), IFF_UP);
	set_up(sock, "emu1", true);
	seen = 0;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(next_event(e.ctx, &port), IBV_EVENT_PORT_ACTIVE);
		seen |= 1 << port;
	}
	assert_int_equal(seen, 6);
	assert_int_equal(ibv_query_port(e.ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_file("class/net/emu0/operstate", "up\n");
	/* a no-op change raises nothing */
	set_up(sock, "emu1", true);
	{
		struct pollfd p = { .fd = e.ctx->async_fd, .events = POLLIN };

		assert_int_equal(poll(&p, 1, 50), 0);
	}
	close(sock);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pci_function),
		cmocka_unit_test(test_net_files),
		cmocka_unit_test(test_ioctls),
		cmocka_unit_test(test_passthrough),
		cmocka_unit_test(test_link_down_up),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
