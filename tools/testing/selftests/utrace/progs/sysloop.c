// SPDX-License-Identifier: GPL-2.0
/*
 * sysloop N: after a byte on stdin, call getppid() N times; print how many
 * succeeded and how many failed with which errno.
 */
#include <sys/syscall.h>
#include "progs.h"

int main(int argc, char **argv)
{
	long i, n, ok = 0, failed = 0, err = 0;

	if (argc != 2)
		return 2;
	n = atol(argv[1]);
	wait_go();
	for (i = 0; i < n; i++) {
		if (syscall(SYS_getppid) >= 0) {
			ok++;
		} else {
			failed++;
			err = errno;
		}
	}
	printf("ok=%ld failed=%ld errno=%ld\n", ok, failed, err);
	return 0;
}
