// SPDX-License-Identifier: GPL-2.0
/*
 * The C ABI of utrace_rs.ko (include/utrace_rs.h). The functions are written
 * in Rust (abi.rs); Kbuild cannot export Rust symbols of an out-of-tree
 * module on 6.12, so this file does.
 */
#include <linux/export.h>
#include <linux/module.h>
#include <utrace_rs.h>

EXPORT_SYMBOL_GPL(utrace_api_version);
EXPORT_SYMBOL_GPL(utrace_attach_task);
EXPORT_SYMBOL_GPL(utrace_attach_pid);
EXPORT_SYMBOL_GPL(utrace_engine_get);
EXPORT_SYMBOL_GPL(utrace_engine_put);
EXPORT_SYMBOL_GPL(utrace_set_events);
EXPORT_SYMBOL_GPL(utrace_control);
EXPORT_SYMBOL_GPL(utrace_barrier);
EXPORT_SYMBOL_GPL(utrace_handoff);
EXPORT_SYMBOL_GPL(utrace_task_info);
EXPORT_SYMBOL_GPL(utrace_lost_events);
EXPORT_SYMBOL_GPL(utrace_stream_create);
EXPORT_SYMBOL_GPL(utrace_stream_emit);
EXPORT_SYMBOL_GPL(utrace_stream_dropped);
EXPORT_SYMBOL_GPL(utrace_stream_destroy);
