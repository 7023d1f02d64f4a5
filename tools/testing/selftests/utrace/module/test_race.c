// SPDX-License-Identifier: GPL-2.0
/*
 * utrace_test.ko, the attach race of 51-attach-reap-race: a kprobe frees the
 * target task inside utrace_attach_task().
 */
#include "utrace_test.h"

/*
 * attachrace: utrace_attach_task(CREATE) on a task that is killed, reaped
 * and freed (its sched_process_free run) after attach checked it was alive
 * and before it inserts the task's new state. The first slab allocation of
 * the attaching task after arming, the new state's (utrace-rs's own
 * kmem_cache), goes through a kprobe on kmem_cache_alloc() to race_detour(),
 * which does that in the attacher and then calls the allocator itself.
 * Without a check under the table lock, the state was inserted for a freed
 * task and never reaped (until unload). (It probed the Rust allocator's
 * helper while the state came from kmalloc: since the state has its own
 * cache, that caught the engine's allocation, after the insert.)
 */
typedef unsigned long (*race_fn_t)(unsigned long, unsigned long, unsigned long,
				   unsigned long, unsigned long, unsigned long);
static race_fn_t race_fn;
static struct task_struct *race_attacher;
static atomic_t race_armed = ATOMIC_INIT(0);
static struct pid *race_pid;
static bool race_hit, race_freed;

/* Up to six integer arguments, passed on unchanged (x86-64 calling convention). */
static unsigned long race_detour(unsigned long a, unsigned long b, unsigned long c,
				 unsigned long d, unsigned long e, unsigned long f)
{
	int i;
	bool hashed = true;

	race_hit = true;
	kill_pid(race_pid, SIGKILL, 1);
	for (i = 0; i < 10000 && hashed; i++) {
		rcu_read_lock();
		hashed = pid_task(race_pid, PIDTYPE_PID);
		rcu_read_unlock();
		if (hashed)
			msleep(1);
	}
	/* release_task() queued sched_process_free as an RCU callback: let it run. */
	synchronize_rcu();
	rcu_barrier();
	race_freed = !hashed;
	return race_fn(a, b, c, d, e, f);
}

static int race_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (!in_task() || current != READ_ONCE(race_attacher) || !atomic_xchg(&race_armed, 0))
		return 0;
	instruction_pointer_set(regs, (unsigned long)race_detour);
	return 1;	/* ip changed: no single-step */
}

static struct kprobe race_kp = { .pre_handler = race_pre };

int cmd_attachrace(int n, long pid)
{
	struct task_struct *task;
	struct utrace_engine *e;
	int ret;

	if (slots[n].engine)
		return -EBUSY;
	/* Exported, but not GPL-only: linked to, not __symbol_get(). */
	race_fn = (race_fn_t)(void *)kmem_cache_alloc_noprof;
	memset(&race_kp, 0, sizeof(race_kp));
	race_kp.symbol_name = "kmem_cache_alloc_noprof";
	race_kp.pre_handler = race_pre;
	ret = register_kprobe(&race_kp);
	if (ret)
		return ret;
	race_pid = find_get_pid(pid);
	task = get_pid_task(race_pid, PIDTYPE_PID);
	if (!task) {
		ret = -ESRCH;
		goto out;
	}
	race_hit = false;
	race_freed = false;
	WRITE_ONCE(race_attacher, current);
	atomic_set(&race_armed, 1);
	e = utrace_attach_task(task, UTRACE_ATTACH_CREATE, &ops_a, (void *)(long)n);
	atomic_set(&race_armed, 0);
	WRITE_ONCE(race_attacher, NULL);
	ret = IS_ERR(e) ? PTR_ERR(e) : 0;
	log_line("%d ATTACHRACE hit=%d freed=%d %d", n, race_hit, race_freed, ret);
	if (ret) {
		put_task_struct(task);
	} else {
		slots[n].engine = e;
		slots[n].task = task;
	}
out:
	unregister_kprobe(&race_kp);
	put_pid(race_pid);
	return ret;
}
