/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * utrace-rs sessions: the user-space ABI of /dev/utrace.
 *
 * open("/dev/utrace") makes a session. Everything else is ioctl() on that
 * fd (engines attached, controlled, detached; decisions answered) and
 * read()/poll() of event records. See Documentation/utrace-rs/sessions.rst.
 *
 * Rules that keep this ABI stable:
 *  - Every ioctl argument starts with __u32 size, the caller's
 *    sizeof(struct): the kernel accepts any size from the first published
 *    one (..._SIZE_VER0) up; bytes it does not know must be zero (E2BIG
 *    otherwise, as openat2 and clone3 do). New fields are only appended.
 *  - Every flags field: unknown bits are refused with EINVAL. reserved
 *    fields must be zero (EINVAL).
 *  - Every record starts with struct utrace_rec_header; its size field is
 *    the record's whole size (a multiple of 8). Readers step by it and skip
 *    record types they do not know.
 *  - No implicit padding anywhere (every __u64 at an offset that is a
 *    multiple of 8, every struct a multiple of 8 long): the layouts are the
 *    same for 32-bit (i386) and 64-bit callers.
 *  - UTRACE_UAPI_VERSION grows when something is added; nothing published
 *    is ever changed or removed.
 */
#ifndef _UAPI_UTRACE_RS_H
#define _UAPI_UTRACE_RS_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define UTRACE_UAPI_VERSION 4

/* The device. */
#define UTRACE_DEV_PATH "/dev/utrace"

/* ioctl type byte (Documentation/userspace-api/ioctl/ioctl-number.rst: free). */
#define UTRACE_IOC_MAGIC 0xBA

/*
 * Event bits of an engine's mask: the values of UTRACE_EVENT() of the
 * kernel API (include/utrace_rs.h), so that one mask means the same in both.
 */
#define UTRACE_EV_QUIESCE	(1ULL << 0)
#define UTRACE_EV_REAP		(1ULL << 1)
#define UTRACE_EV_CLONE		(1ULL << 2)
#define UTRACE_EV_EXEC		(1ULL << 3)
#define UTRACE_EV_EXIT		(1ULL << 4)
#define UTRACE_EV_DEATH		(1ULL << 5)
#define UTRACE_EV_SYSCALL_ENTRY	(1ULL << 6)
#define UTRACE_EV_SYSCALL_EXIT	(1ULL << 7)
#define UTRACE_EV_SIGNAL	(1ULL << 8)	/* will run a handler */
#define UTRACE_EV_SIGNAL_IGN	(1ULL << 9)	/* will be ignored */
#define UTRACE_EV_SIGNAL_STOP	(1ULL << 10)	/* will stop the process */
#define UTRACE_EV_SIGNAL_TERM	(1ULL << 11)	/* will kill */
#define UTRACE_EV_SIGNAL_CORE	(1ULL << 12)	/* will kill with a core dump */
#define UTRACE_EV_JCTL		(1ULL << 13)	/* job control stop/continue */
#define UTRACE_EV_SIGNAL_ALL						\
	(UTRACE_EV_SIGNAL | UTRACE_EV_SIGNAL_IGN | UTRACE_EV_SIGNAL_STOP |	\
	 UTRACE_EV_SIGNAL_TERM | UTRACE_EV_SIGNAL_CORE)
#define UTRACE_EV_SYSCALL (UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_SYSCALL_EXIT)

/* ---------------------------------------------------------------------
 * Records: what read() returns. read() copies whole records only (EINVAL
 * if the buffer cannot hold one); it blocks unless O_NONBLOCK (EAGAIN).
 * poll() reports EPOLLIN when a record is ready.
 */
enum utrace_rec_type {
	UTRACE_REC_LOST		= 1,	/* records were dropped (lossy mode) */
	UTRACE_REC_ATTACHED	= 2,	/* the engine attached to a (new) thread */
	UTRACE_REC_DETACHED	= 3,	/* the engine left the thread (and why) */
	UTRACE_REC_QUIESCE	= 4,	/* the thread stopped for the engine */
	UTRACE_REC_CLONE	= 5,
	UTRACE_REC_EXEC		= 6,
	UTRACE_REC_EXIT		= 7,
	UTRACE_REC_DEATH	= 8,
	UTRACE_REC_SIGNAL	= 9,
	UTRACE_REC_SYSCALL_ENTRY = 10,
	UTRACE_REC_SYSCALL_EXIT	= 11,
	UTRACE_REC_JCTL		= 12,
	UTRACE_REC_HANDOFF	= 13,	/* the engine left this session for another */
};

/* utrace_rec_header.flags */
/*
 * The thread waits for a UTRACE_IOC_DECIDE carrying this record's seq
 * (SYSCALL_ENTRY or SIGNAL of an engine attached with a DECIDE flag).
 */
#define UTRACE_REC_F_DECIDE	(1U << 0)
/* The thread is stopped for this engine (QUIESCE, or a stop that holds). */
#define UTRACE_REC_F_STOPPED	(1U << 1)
/* A string of the payload was cut to fit. */
#define UTRACE_REC_F_TRUNCATED	(1U << 2)
/* The thread is not visible in the reader's pid namespace (pid/tid 0). */
#define UTRACE_REC_F_NO_PID	(1U << 3)
/*
 * ATTACHED: the engine came from another session (UTRACE_IOC_HANDOFF); the
 * thread's records in this session start after this one.
 */
#define UTRACE_REC_F_HANDOFF	(1U << 4)
/*
 * SYSCALL_ENTRY, SYSCALL_EXIT: the payload is struct utrace_rec_syscall_cap,
 * with the user memory UTRACE_IOC_CAPTURE asked for.
 */
#define UTRACE_REC_F_CAPTURE	(1U << 5)
/*
 * QUIESCE with UTRACE_REC_F_STOPPED: the stop after a UTRACE_CTL_SINGLESTEP,
 * the thread having run one instruction (a syscall instruction: the whole
 * syscall).
 */
#define UTRACE_REC_F_STEP	(1U << 6)

struct utrace_rec_header {
	__u16 type;		/* enum utrace_rec_type */
	__u16 size;		/* whole record, header included; multiple of 8 */
	__u32 flags;		/* UTRACE_REC_F_* */
	__u64 engine_id;	/* the session's engine (UTRACE_IOC_ATTACH) */
	__u64 seq;		/* per session, from 1, no gaps (LOST counts the gap) */
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__s32 pid;		/* process (tgid), in the reader's pid namespace */
	__s32 tid;		/* thread, in the reader's pid namespace */
};

/* UTRACE_REC_LOST: records dropped since the last LOST (lossy mode). */
struct utrace_rec_lost {
	__u64 count;
	__u64 first_seq;	/* seq the first dropped record would have had */
};

/* UTRACE_REC_ATTACHED: the engine now watches header.tid. */
struct utrace_rec_attached {
	__s32 parent_tid;	/* the thread whose CLONE added it, 0 if none */
	__u32 reserved;
};

/* utrace_rec_detached.reason */
enum utrace_detach_reason {
	UTRACE_DETACH_REQUESTED	= 1,	/* UTRACE_IOC_DETACH */
	UTRACE_DETACH_REAPED	= 2,	/* the thread is gone */
	UTRACE_DETACH_PRIVILEGED = 3,	/* exec made it privileged (setuid...) */
	UTRACE_DETACH_LIMIT	= 4,	/* a limit of the session (see the docs) */
	UTRACE_DETACH_ERROR	= 5,	/* could not stay attached */
};

struct utrace_rec_detached {
	__u32 reason;		/* enum utrace_detach_reason */
	__u32 reserved;
};

/* UTRACE_REC_QUIESCE: the thread reached a stop or a report point. */
struct utrace_rec_quiesce {
	__u64 event;		/* UTRACE_EV_* it stops before, 0: a safe point */
};

/* UTRACE_REC_CLONE */
struct utrace_rec_clone {
	__u64 clone_flags;
	__s32 child_pid;	/* reader's pid namespace, 0 if not visible */
	__s32 child_tid;
	__u64 child_engine_id;	/* followed: the engine on the child, else 0 */
};

/* UTRACE_REC_EXEC */
#define UTRACE_REC_PATH_MAX 192
struct utrace_rec_exec {
	__s32 old_tid;		/* a non-leader thread that exec'd had this tid */
	__u32 filename_len;	/* strlen of filename as stored (NUL follows) */
	char filename[UTRACE_REC_PATH_MAX];	/* cut: UTRACE_REC_F_TRUNCATED */
};

/* UTRACE_REC_EXIT: the thread is exiting. */
struct utrace_rec_exit {
	__s64 code;		/* wait() status format */
};

/* UTRACE_REC_DEATH: the thread is dead. */
struct utrace_rec_death {
	__s32 exit_code;	/* wait() status format */
	__u32 group_dead;	/* 1: the last thread of the process */
};

/* utrace_rec_signal.disposition: what delivery would do. */
enum utrace_sig_class {
	UTRACE_SIGCLASS_HANDLER	= 1,
	UTRACE_SIGCLASS_IGN	= 2,
	UTRACE_SIGCLASS_STOP	= 3,
	UTRACE_SIGCLASS_TERM	= 4,
	UTRACE_SIGCLASS_CORE	= 5,
};

/* UTRACE_REC_SIGNAL. siginfo: the kernel's siginfo_t as user space sees it. */
#define UTRACE_SIGINFO_SIZE 128
struct utrace_rec_signal {
	__s32 signo;
	__u32 disposition;	/* enum utrace_sig_class */
	__u8 siginfo[UTRACE_SIGINFO_SIZE];
};

/* utrace_rec_syscall.abi */
enum utrace_syscall_abi {
	UTRACE_ABI_X86_64	= 1,
	UTRACE_ABI_I386		= 2,	/* int $0x80 or a 32-bit task */
	UTRACE_ABI_X32		= 3,
};

/* UTRACE_REC_SYSCALL_ENTRY, UTRACE_REC_SYSCALL_EXIT. */
struct utrace_rec_syscall {
	__s32 nr;		/* the number the kernel runs (-1: none) */
	__u32 abi;		/* enum utrace_syscall_abi */
	__u64 args[6];		/* as the ABI passes them (below) */
	__s64 ret;		/* exit: the return value; entry: 0 */
};

/*
 * utrace_rec_syscall.args: at entry, the arguments the syscall is called
 * with; at exit (version 4; 0 before), the argument registers as the call
 * left them: the same, but for a call that replaces its registers (execve,
 * rt_sigreturn) or an entry decision that changed them.
 */

/*
 * One capture of a syscall record (UTRACE_REC_F_CAPTURE): user memory at an
 * argument, read when the record was written (entry: before the syscall
 * ran; exit: after), without faulting pages in.
 */
struct utrace_rec_capture {
	__u8 arg;		/* the argument that held the address */
	__u8 kind;		/* enum utrace_capture_kind; 0: slot unused */
	__u8 flags;		/* UTRACE_CAP_F_* */
	__u8 reserved;
	__u16 len;		/* bytes read (a string: without its NUL) */
	__u16 offset;		/* of those bytes in utrace_rec_syscall_cap.data */
};
/*
 * utrace_rec_capture.flags. A string with none of them filled its item's
 * max (its first max bytes, as asked); a buffer's len is what was asked
 * (up to max) unless FAULT or CUT.
 */
#define UTRACE_CAP_F_END	(1U << 0)	/* a string's NUL was read: it is whole */
#define UTRACE_CAP_F_FAULT	(1U << 1)	/* memory not present after len bytes */
#define UTRACE_CAP_F_CUT	(1U << 2)	/* no room for more in the record */

#define UTRACE_REC_CAPTURES	2
#define UTRACE_REC_CAPTURE_DATA	136
struct utrace_rec_syscall_cap {
	struct utrace_rec_syscall call;
	struct utrace_rec_capture cap[UTRACE_REC_CAPTURES];
	__u8 data[UTRACE_REC_CAPTURE_DATA];
};

/* UTRACE_REC_JCTL */
struct utrace_rec_jctl {
	__u32 stop;		/* 1: stopping, 0: continued */
	__s32 signo;		/* the stop signal, or SIGCONT */
	__u32 notify;		/* 1: the thread that notifies the parent */
	__u32 reserved;
};

/*
 * UTRACE_REC_HANDOFF: the engine continues in another session. One per
 * thread (header.tid), after that thread's last record in this session.
 */
struct utrace_rec_handoff {
	__u64 to_engine_id;	/* its id there */
};

/*
 * Every record is UTRACE_REC_SIZE bytes (header.size says so; later versions
 * may write longer records: step by header.size), unless the session asked
 * for compact records (UTRACE_CONFIG_F_COMPACT, version 3): then each
 * record is as long as its header and its type's payload struct, a syscall
 * record with captures up to the end of its captured bytes, an exec record
 * up to its filename's NUL, rounded up to a multiple of 8 (at most
 * UTRACE_REC_SIZE); bytes past a struct's end read as 0.
 */
#define UTRACE_REC_SIZE 256

struct utrace_record {
	struct utrace_rec_header h;
	union {
		struct utrace_rec_lost lost;
		struct utrace_rec_attached attached;
		struct utrace_rec_detached detached;
		struct utrace_rec_quiesce quiesce;
		struct utrace_rec_clone clone;
		struct utrace_rec_exec exec;
		struct utrace_rec_exit exit;
		struct utrace_rec_death death;
		struct utrace_rec_signal signal;
		struct utrace_rec_syscall syscall;
		struct utrace_rec_syscall_cap syscall_cap;
		struct utrace_rec_jctl jctl;
		struct utrace_rec_handoff handoff;
		__u8 pad[UTRACE_REC_SIZE - 40];
	};
};

/* ---------------------------------------------------------------------
 * ioctls. Every argument starts with __u32 size (= sizeof the struct).
 */

/* UTRACE_IOC_INFO: what this kernel speaks (out only but size). */
struct utrace_info {
	__u32 size;
	__u32 version;		/* out: UTRACE_UAPI_VERSION of the module */
	__u32 record_size;	/* out: UTRACE_REC_SIZE */
	__u32 reserved0;
	__u64 events;		/* out: the UTRACE_EV_* a per-task attach takes */
	__u64 attach_flags;	/* out: the UTRACE_ATTACH_F_* it knows */
	__u64 buffer_bytes;	/* out: this session's buffer */
	__u64 buffer_max;	/* out: the largest buffer a session may have */
};
#define UTRACE_INFO_SIZE_VER0 48

/*
 * UTRACE_IOC_CONFIG: sizes the session's buffer; only before the first
 * attach (EBUSY after). Default 64 KiB; rounded up to whole records;
 * capped by the module's limits (EINVAL below one page, ENOSPC over the
 * per-user budget). The buffer holds buffer_bytes / UTRACE_REC_SIZE
 * records, compact or not.
 */
/* read() returns compact records (see UTRACE_REC_SIZE); version 3 */
#define UTRACE_CONFIG_F_COMPACT	(1U << 0)
struct utrace_config {
	__u32 size;
	__u32 flags;		/* UTRACE_CONFIG_F_* */
	__u64 buffer_bytes;
	__u64 reserved[2];
};
#define UTRACE_CONFIG_SIZE_VER0 32

/* utrace_attach.flags */
#define UTRACE_ATTACH_F_PIDFD	(1U << 0)  /* target is pidfd, not pid */
#define UTRACE_ATTACH_F_THREAD	(1U << 1)  /* this thread only, not its process */
#define UTRACE_ATTACH_F_FOLLOW	(1U << 2)  /* and new children, from their first instruction */
#define UTRACE_ATTACH_F_LOSSLESS (1U << 3) /* the thread waits (killably) for room */
#define UTRACE_ATTACH_F_DECIDE_SYSCALL (1U << 4) /* SYSCALL_ENTRY waits for a decision */
#define UTRACE_ATTACH_F_DECIDE_SIGNAL (1U << 5)  /* SIGNAL waits for a decision */
#define UTRACE_ATTACH_F_GLOBAL	(1U << 6)  /* every task (CAP_SYS_ADMIN in init_user_ns) */

/*
 * UTRACE_IOC_ATTACH: a new engine of this session on a thread, on every
 * thread of a process (those to come included) or on every task. The
 * caller must be allowed to ptrace the target (see sessions.rst).
 */
struct utrace_attach {
	__u32 size;
	__u32 flags;		/* UTRACE_ATTACH_F_* */
	__s32 pid;		/* pid or tid in the caller's pid namespace */
	__s32 pidfd;		/* with UTRACE_ATTACH_F_PIDFD */
	__u64 events;		/* UTRACE_EV_* */
	__u64 engine_id;	/* out: the new engine's id (never 0) */
	__u64 reserved[2];
};
#define UTRACE_ATTACH_SIZE_VER0 48

/* UTRACE_IOC_DETACH */
struct utrace_detach {
	__u32 size;
	__u32 flags;		/* none yet: 0 */
	__u64 engine_id;
	__u64 reserved;
};
#define UTRACE_DETACH_SIZE_VER0 24

/* utrace_control.action */
enum utrace_ctl_action {
	UTRACE_CTL_STOP		= 1,	/* stop at the next safe point */
	UTRACE_CTL_RESUME	= 2,	/* drop this engine's stop */
	UTRACE_CTL_INTERRUPT	= 3,	/* resume and report soon, interrupting a blocked syscall */
	UTRACE_CTL_SINGLESTEP	= 4,	/* one thread the session holds stopped: one instruction, stop again */
	UTRACE_CTL_SET_EVENTS	= 5,	/* replace the engine's mask by events */
};

/*
 * UTRACE_IOC_CONTROL: acts on the threads of one engine (tid 0: all of
 * them; else that thread only). STOP returns 0 once requested; the stop is
 * reached when a QUIESCE record with UTRACE_REC_F_STOPPED comes.
 */
struct utrace_control {
	__u32 size;
	__u32 action;		/* enum utrace_ctl_action */
	__u64 engine_id;
	__s32 tid;		/* 0: every thread of the engine */
	__u32 flags;		/* none yet: 0 */
	__u64 events;		/* UTRACE_CTL_SET_EVENTS */
	__u64 reserved;
};
#define UTRACE_CONTROL_SIZE_VER0 40

/* utrace_decide.verdict */
enum utrace_verdict {
	UTRACE_VERDICT_RUN	= 1,	/* SYSCALL_ENTRY: run it (with args, if F_ARGS) */
	UTRACE_VERDICT_ABORT	= 2,	/* SYSCALL_ENTRY: do not run it, return -value */
	UTRACE_VERDICT_DELIVER	= 3,	/* SIGNAL: as the disposition says */
	UTRACE_VERDICT_IGNORE	= 4,	/* SIGNAL: drop it */
	UTRACE_VERDICT_HOLD	= 5,	/* SIGNAL: not yet: it stays pending, the thread
					 * stopped; the seq takes a later answer */
	UTRACE_VERDICT_STOP	= 6,	/* either: RUN (DELIVER) once UTRACE_CTL_RESUME
					 * ends the stop it keeps */
	UTRACE_VERDICT_SUSPEND	= 7,	/* SIGNAL: the process stops (a group stop:
					 * ps T, gdb -p attaches), the signal kept
					 * until SIGCONT or the engine's detach
					 * delivers it */
};
#define UTRACE_DECIDE_F_ARGS	(1U << 0)	/* args replace the syscall's */
#define UTRACE_DECIDE_F_SIGINFO	(1U << 1)	/* siginfo replaces the signal's */

/*
 * UTRACE_IOC_DECIDE: the answer to the record with UTRACE_REC_F_DECIDE and
 * this seq. ESTALE if that record is not waiting (answered already, or its
 * thread was killed or detached).
 */
struct utrace_decide {
	__u32 size;
	__u32 verdict;		/* enum utrace_verdict */
	__u64 engine_id;
	__u64 seq;
	__u32 flags;		/* UTRACE_DECIDE_F_* */
	__s32 value;		/* ABORT: the errno (positive) */
	__u64 args[6];
	__u8 siginfo[UTRACE_SIGINFO_SIZE];
	__u64 reserved;
};
#define UTRACE_DECIDE_SIZE_VER0 216

/*
 * UTRACE_IOC_GETREGS / UTRACE_IOC_SETREGS: a regset (NT_PRSTATUS,
 * NT_PRFPREG, NT_X86_XSTATE ... as PTRACE_GETREGSET) of a thread held
 * stopped by the engine. len in: the buffer, out: the bytes of the regset.
 */
struct utrace_regs {
	__u32 size;
	__u32 note_type;	/* NT_* */
	__u64 engine_id;
	__s32 tid;
	__u32 flags;		/* none yet: 0 */
	__u64 buf;		/* user pointer */
	__u64 len;
	__u64 reserved;
};
#define UTRACE_REGS_SIZE_VER0 48

/*
 * UTRACE_IOC_HANDOFF: moves an engine of this session to the session open
 * on to_fd (e.g. received over a unix socket): every event of its threads
 * is read from exactly one of the two. UTRACE_HANDOFF_F_TREE: also the
 * engines of the followed descendants.
 */
#define UTRACE_HANDOFF_F_TREE	(1U << 0)
struct utrace_handoff {
	__u32 size;
	__u32 flags;
	__u64 engine_id;
	__s32 to_fd;
	__u32 reserved0;
	__u64 to_engine_id;	/* out */
	__u64 reserved;
};
#define UTRACE_HANDOFF_SIZE_VER0 40

/*
 * UTRACE_IOC_CAPTURE: which user memory the session's syscall records carry
 * (struct utrace_rec_syscall_cap), so that a reader decodes paths and
 * buffers as they were at the call without stopping the thread. Replaces
 * the session's list; count 0 clears it. At most UTRACE_REC_CAPTURES items
 * per syscall (entry and exit together); EINVAL for anything else that does
 * not fit the rules below, E2BIG over UTRACE_CAPTURE_ITEMS_MAX items.
 */
enum utrace_capture_kind {
	UTRACE_CAPTURE_STR	= 1,	/* a NUL-terminated string, up to max bytes */
	UTRACE_CAPTURE_MEM	= 2,	/* max bytes */
	UTRACE_CAPTURE_MEM_ARG	= 3,	/* argument len_arg bytes, up to max */
	UTRACE_CAPTURE_MEM_RET	= 4,	/* exit: the return value's bytes, up to max */
};
/* utrace_capture_item.flags */
#define UTRACE_CAPTURE_AT_EXIT	(1U << 0)	/* read at SYSCALL_EXIT, not entry */
#define UTRACE_CAPTURE_NR_MAX	512		/* nr is below it */

struct utrace_capture_item {
	__u16 nr;		/* syscall number */
	__u8 abi;		/* UTRACE_ABI_X86_64 or UTRACE_ABI_I386 */
	__u8 arg;		/* the argument with the address: 0 to 5 */
	__u8 kind;		/* enum utrace_capture_kind */
	__u8 len_arg;		/* UTRACE_CAPTURE_MEM_ARG: 0 to 5; else 0 */
	__u8 flags;		/* UTRACE_CAPTURE_AT_EXIT */
	__u8 reserved0;
	__u16 max;		/* 1 to UTRACE_REC_CAPTURE_DATA */
	__u16 reserved1;
	__u32 reserved2;
};

/* utrace_capture.flags */
/*
 * A SYSCALL_ENTRY whose capture is not whole (UTRACE_CAP_F_FAULT or
 * UTRACE_CAP_F_CUT) waits for a decision (UTRACE_REC_F_DECIDE): the reader
 * reads the memory itself while the thread waits, then answers RUN.
 */
#define UTRACE_CAPTURE_F_DECIDE	(1U << 0)
#define UTRACE_CAPTURE_ITEMS_MAX 1024
struct utrace_capture {
	__u32 size;
	__u32 flags;		/* UTRACE_CAPTURE_F_* */
	__u32 count;		/* items */
	__u32 reserved0;
	__u64 items;		/* user pointer to count struct utrace_capture_item */
	__u64 reserved;
};
#define UTRACE_CAPTURE_SIZE_VER0 32

/*
 * UTRACE_IOC_SYSCALLS (version 4): which syscalls the session writes
 * SYSCALL_ENTRY and SYSCALL_EXIT records of (strace's -e trace=, in the
 * kernel). Bit n % 64 of word n / 64 of entry[] or exit[] set: records of
 * that syscall at entry or exit are written, where n is the number of an
 * x86-64 syscall, UTRACE_CAPTURE_NR_MAX plus the number of an i386 one. A
 * syscall the bitmaps cannot name (x32, a number from
 * UTRACE_CAPTURE_NR_MAX on, -1) is always recorded: so is the exit of
 * rt_sigreturn and of a call an entry decision aborted, whose number
 * there is -1. A call left out gets no record, no capture and no decision
 * (it runs), but a thread the session holds still stops there.
 * UTRACE_SYSCALLS_F_ALL drops the bitmaps: every syscall is recorded, as
 * before the first call.
 */
#define UTRACE_SYSCALLS_WORDS	(2 * UTRACE_CAPTURE_NR_MAX / 64)
#define UTRACE_SYSCALLS_F_ALL	(1U << 0)
struct utrace_syscalls {
	__u32 size;
	__u32 flags;		/* UTRACE_SYSCALLS_F_* */
	__u64 reserved;
	__u64 entry[UTRACE_SYSCALLS_WORDS];
	__u64 exit[UTRACE_SYSCALLS_WORDS];
};
#define UTRACE_SYSCALLS_SIZE_VER0 272

#define UTRACE_IOC_INFO		_IOWR(UTRACE_IOC_MAGIC, 0x00, struct utrace_info)
#define UTRACE_IOC_CONFIG	_IOW(UTRACE_IOC_MAGIC, 0x01, struct utrace_config)
#define UTRACE_IOC_ATTACH	_IOWR(UTRACE_IOC_MAGIC, 0x02, struct utrace_attach)
#define UTRACE_IOC_DETACH	_IOW(UTRACE_IOC_MAGIC, 0x03, struct utrace_detach)
#define UTRACE_IOC_CONTROL	_IOW(UTRACE_IOC_MAGIC, 0x04, struct utrace_control)
#define UTRACE_IOC_DECIDE	_IOW(UTRACE_IOC_MAGIC, 0x05, struct utrace_decide)
#define UTRACE_IOC_GETREGS	_IOWR(UTRACE_IOC_MAGIC, 0x06, struct utrace_regs)
#define UTRACE_IOC_SETREGS	_IOW(UTRACE_IOC_MAGIC, 0x07, struct utrace_regs)
#define UTRACE_IOC_HANDOFF	_IOWR(UTRACE_IOC_MAGIC, 0x08, struct utrace_handoff)
#define UTRACE_IOC_CAPTURE	_IOW(UTRACE_IOC_MAGIC, 0x09, struct utrace_capture)
#define UTRACE_IOC_SYSCALLS	_IOW(UTRACE_IOC_MAGIC, 0x0a, struct utrace_syscalls)

/*
 * The ioctl number encodes sizeof(struct) of version 1; the kernel matches
 * the number with the size bits masked (_IOC_NR and _IOC_TYPE), so a caller
 * built against a later header, whose structs are longer, still matches.
 * The size field is what counts.
 */

#ifndef __KERNEL__
#define UTRACE_UAPI_ASSERT(x) _Static_assert(x, #x)
#else
#define UTRACE_UAPI_ASSERT(x) static_assert(x)
#endif
UTRACE_UAPI_ASSERT(sizeof(struct utrace_rec_header) == 40);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_record) == UTRACE_REC_SIZE);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_rec_exec) == 200);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_rec_signal) == 136);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_rec_syscall) == 64);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_rec_capture) == 8);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_rec_syscall_cap) == UTRACE_REC_SIZE - 40);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_capture_item) == 16);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_capture) == UTRACE_CAPTURE_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_info) == UTRACE_INFO_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_config) == UTRACE_CONFIG_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_attach) == UTRACE_ATTACH_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_detach) == UTRACE_DETACH_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_control) == UTRACE_CONTROL_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_decide) == UTRACE_DECIDE_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_regs) == UTRACE_REGS_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_handoff) == UTRACE_HANDOFF_SIZE_VER0);
UTRACE_UAPI_ASSERT(sizeof(struct utrace_syscalls) == UTRACE_SYSCALLS_SIZE_VER0);
#undef UTRACE_UAPI_ASSERT

#endif /* _UAPI_UTRACE_RS_H */
