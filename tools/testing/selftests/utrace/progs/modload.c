// SPDX-License-Identifier: GPL-2.0
/*
 * modload FILE [PARAMS]: load a module with finit_module() and print 0 or
 * the negative errno (busybox insmod turns some errnos into other words).
 */
#include <sys/syscall.h>
#include "progs.h"

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2)
		return 2;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(argv[1]);
	if (syscall(SYS_finit_module, fd, argc > 2 ? argv[2] : "", 0)) {
		printf("%d\n", -errno);
		return 0;
	}
	printf("0\n");
	return 0;
}
