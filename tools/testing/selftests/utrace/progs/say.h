/* SPDX-License-Identifier: GPL-2.0 */
/*
 * say(): printf into a buffer (log_buf, log_len) that the program writes
 * out in one piece at its end, so that what it reports does not go through
 * the syscalls it traces. For the programs that use it (one include each).
 */
#ifndef _UTRACE_SAY_H
#define _UTRACE_SAY_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static char log_buf[8192];
static size_t log_len;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_len += vsnprintf(log_buf + log_len, sizeof(log_buf) - log_len, fmt, ap);
	va_end(ap);
	if (log_len >= sizeof(log_buf))
		exit(3);
}

#endif
