// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ifaddrs_list ADDR NAME: getifaddrs() under the launcher lists the
 * adapter's port as the interface NAME (ib0 for an InfiniBand port, the
 * mlx4_en name for an Ethernet one) with IPv4 address ADDR, up, netmask
 * 255.255.0.0, after the kernel's own interfaces; freeifaddrs() takes the
 * list back (run 1000 times: ASan builds see a double free or a leak).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int found = 0, kernel = 0;

	if (argc < 3)
		return 2;
	for (int round = 0; round < 1000; round++) {
		struct ifaddrs *list, *i;

		if (getifaddrs(&list)) {
			perror("getifaddrs");
			return 1;
		}
		for (i = list; i && round == 0; i = i->ifa_next) {
			const struct sockaddr_in *a = (const void *)i->ifa_addr;
			const struct sockaddr_in *m = (const void *)i->ifa_netmask;
			char ip[INET_ADDRSTRLEN] = "";

			if (!a || a->sin_family != AF_INET)
				continue;
			inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
			printf("%s %s flags 0x%x\n", i->ifa_name, ip, i->ifa_flags);
			if (!strcmp(i->ifa_name, "lo"))
				kernel = 1;
			if (!strcmp(i->ifa_name, argv[2]) && !strcmp(ip, argv[1]) &&
			    (i->ifa_flags & IFF_UP) && m && m->sin_addr.s_addr == htonl(0xffff0000u))
				found = 1;
		}
		freeifaddrs(list);
	}
	if (!found || !kernel) {
		printf("FAIL: %s %s %s\n", argv[2], argv[1], found ? "(lo missing)" : "not listed");
		return 1;
	}
	printf("PASS\n");
	return 0;
}
