/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _UTRACE_RS_H
#define _UTRACE_RS_H

#define UTRACE_RS_API_VERSION 1

unsigned int utrace_api_version(void);

#endif /* _UTRACE_RS_H */
