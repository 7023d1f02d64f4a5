/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/utrace helpers shared by the session benchmark programs. */
#ifndef _UTRACE_SESS_H
#define _UTRACE_SESS_H

#include <sys/ioctl.h>
#include <utrace_rs.h>
#include "progs.h"

/* A new session that reads compact records, its buffer @bytes. */
static inline int sess_open_compact(__u64 bytes)
{
	struct utrace_config cfg = { .size = sizeof(cfg), .flags = UTRACE_CONFIG_F_COMPACT,
				     .buffer_bytes = bytes };
	int fd = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die(UTRACE_DEV_PATH);
	if (ioctl(fd, UTRACE_IOC_CONFIG, &cfg))
		die("config");
	return fd;
}

#endif
