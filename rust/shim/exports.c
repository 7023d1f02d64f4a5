// SPDX-License-Identifier: GPL-2.0
/*
 * The C ABI of utrace_rs.ko (include/utrace_rs.h). The functions are written
 * in Rust (abi.rs); Kbuild cannot export Rust symbols of an out-of-tree
 * module on 6.12, so this file does.
 */
#include <linux/export.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <utrace_rs.h>

/*
 * The Rust mirrors of the ABI structs (rust/objects/engine.rs, rust/objects/task.rs and
 * rust/api/raw.rs) assert the same numbers: a change on one side fails the
 * build of the other.
 */
static_assert(offsetof(struct utrace_engine_ops, report_clone) == 8);
static_assert(offsetof(struct utrace_engine_ops, release) == 48);
static_assert(offsetof(struct utrace_engine_ops, report_syscall_exit) == 80);
static_assert(offsetof(struct utrace_engine_ops, report_jctl) == 88);
static_assert(offsetof(struct utrace_engine_ops, flags) == 96);
static_assert(sizeof(struct utrace_engine_ops) == 104);
static_assert(offsetof(struct utrace_engine, data) == 8);
static_assert(offsetof(struct utrace_task_info, exit_code) == 12);
static_assert(sizeof(struct utrace_task_info) == 32);
static_assert(sizeof(struct utrace_examiner) == 16);
static_assert(sizeof(struct utrace_task_ids) == 32);
static_assert(UTRACE_RS_API_VERSION == 3);

EXPORT_SYMBOL_GPL(utrace_api_version);
EXPORT_SYMBOL_GPL(utrace_attach_task);
EXPORT_SYMBOL_GPL(utrace_attach_pid);
EXPORT_SYMBOL_GPL(utrace_engine_get);
EXPORT_SYMBOL_GPL(utrace_engine_put);
EXPORT_SYMBOL_GPL(utrace_set_events);
EXPORT_SYMBOL_GPL(utrace_control);
EXPORT_SYMBOL_GPL(utrace_barrier);
EXPORT_SYMBOL_GPL(utrace_wait_stopped);
EXPORT_SYMBOL_GPL(utrace_release_engines);
EXPORT_SYMBOL_GPL(utrace_handoff);
EXPORT_SYMBOL_GPL(utrace_task_info);
EXPORT_SYMBOL_GPL(utrace_lost_events);
EXPORT_SYMBOL_GPL(utrace_stream_create);
EXPORT_SYMBOL_GPL(utrace_stream_emit);
EXPORT_SYMBOL_GPL(utrace_stream_dropped);
EXPORT_SYMBOL_GPL(utrace_stream_destroy);
EXPORT_SYMBOL_GPL(utrace_prepare_examine);
EXPORT_SYMBOL_GPL(utrace_finish_examine);
EXPORT_SYMBOL_GPL(utrace_regset_get);
EXPORT_SYMBOL_GPL(utrace_regset_set);
EXPORT_SYMBOL_GPL(utrace_access_vm);
