// SPDX-License-Identifier: GPL-2.0
/* runas UID PROG [ARGS...]: run PROG as UID (and group UID), no privileges. */
#include <grp.h>
#include "progs.h"

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3)
		return 2;
	uid = atoi(argv[1]);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		die("drop privileges");
	execv(argv[2], argv + 2);
	die(argv[2]);
}
