// SPDX-License-Identifier: GPL-2.0
/*
 * utctl WORD...: send one command to utrace_test.ko and print its result,
 * 0 or a negative errno (e.g. -115 for -EINPROGRESS).
 */
#include "progs.h"

int main(int argc, char **argv)
{
	char cmd[256] = "";
	int i;

	for (i = 1; i < argc; i++) {
		if (strlen(cmd) + strlen(argv[i]) + 2 > sizeof(cmd))
			return 2;
		if (i > 1)
			strcat(cmd, " ");
		strcat(cmd, argv[i]);
	}
	printf("%d\n", ctl(cmd));
	return 0;
}
