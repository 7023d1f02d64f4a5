/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session programs' checks (utsess, utdecide, uthand, utregs): CHECK()
 * prints "FAIL: ..." for a condition that does not hold and counts it in
 * `fails`, which the program's exit status reports.
 */
#ifndef UTRACE_CHECK_H
#define UTRACE_CHECK_H

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

#endif
