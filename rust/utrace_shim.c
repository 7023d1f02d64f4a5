// SPDX-License-Identifier: GPL-2.0
/*
 * The C half of utrace_rs.ko: only what Rust on 6.12 cannot reach.
 */
#include <linux/module.h>
#include <utrace_rs.h>

unsigned int utrace_api_version(void)
{
	return UTRACE_RS_API_VERSION;
}
EXPORT_SYMBOL_GPL(utrace_api_version);
