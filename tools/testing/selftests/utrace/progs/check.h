/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session programs' checks (utsess, utdecide, uthand, utregs): CHECK()
 * prints "FAIL: ..." for a condition that does not hold and counts it in
 * `fails`, which the program's exit status reports; errname() names an
 * errno.
 */
#ifndef UTRACE_CHECK_H
#define UTRACE_CHECK_H

#include <errno.h>
#include <stdio.h>

static int fails;
#define CHECK(cond, ...)                                                 \
	do {                                                             \
		if (!(cond)) {                                           \
			printf("FAIL: " __VA_ARGS__);                    \
			printf("\n");                                    \
			fails++;                                         \
		}                                                        \
	} while (0)

/* The errno's name as the tests print and expect it ("0" for none). */
static inline const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EIO: return "EIO";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ENOTTY: return "ENOTTY";
	case E2BIG: return "E2BIG";
	case EMFILE: return "EMFILE";
	case EDEADLK: return "EDEADLK";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ESTALE: return "ESTALE";
	case EALREADY: return "EALREADY";
	case EINPROGRESS: return "EINPROGRESS";
	default: return "E?";
	}
}

#endif
