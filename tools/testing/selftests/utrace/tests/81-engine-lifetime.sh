# SPDX-License-Identifier: GPL-2.0
# The lifetime of Rust engines (bugs found by acceptance runs, each failed
# before its fix):
# 1. an engine module unloaded by a task its own engine follows: release and
#    the engine value's Drop (removing a stream's device sleeps) ran from an
#    RCU callback in softirq, after the module's exit;
# 2. followed tasks that died stayed pinned (about 10 KB each) until rmmod;
# 3. a vfork child reporting its parent's CLONE named itself as the parent;
# 4. a forgotten Tracer left engines calling into the unloaded module;
# 5. a Tracer dropped from its own REAP callback waited for that callback.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
S=/dev/global_trace
load utrace_rs

no_splat() {
	! dmesg_since_mark | grep -E "$SPLAT_RE" || fail "$1: kernel splat (above)"
	echo "ok: $1: no splat"
}

# --- 1. rmmod from a followed task
for m in "global_trace" "crash_suspend"; do
	mark
	sh -c "insmod $MODDIR/$m.ko pid=\$\$ || exit 1; /bin/true; rmmod $m" ||
		fail "$m: load, run a child, unload from the followed shell"
	! loaded $m || fail "$m still loaded"
	no_splat "$m unloaded by a task it follows"
done
[ ! -e $S ] || fail "the stream outlived its module"

# --- 2. memory follows the live traced tasks, not the ones ever traced.
# KASAN keeps freed objects in its quarantine (counted as Slab), so the
# figure is only meaningful without it.
slab_kb() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }
if dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	echo "# memory figure skipped: KASAN's quarantine holds freed objects"
else
	n=1500
	sh -c "insmod $MODDIR/global_trace.ko pid=\$\$ records=16 || exit 1
		i=0; while [ \$i -lt 200 ]; do /bin/true; i=\$((i + 1)); done
		sleep 1; awk '/^Slab:/ { print \$2 }' /proc/meminfo >/tmp/t81.before
		i=0; while [ \$i -lt $n ]; do /bin/true; i=\$((i + 1)); done
		sleep 1; awk '/^Slab:/ { print \$2 }' /proc/meminfo >/tmp/t81.after
		rmmod global_trace" || fail "follow $n short-lived tasks"
	before=$(cat /tmp/t81.before) after=$(cat /tmp/t81.after)
	grow=$((after - before))
	echo "# Slab before $before kB, after $n followed tasks $after kB: $grow kB"
	[ "$grow" -lt $((n / 2)) ] ||
		fail "Slab grew by $grow kB over $n dead followed tasks (want < $((n / 2)) kB, under 0.5 kB each)"
	echo "ok: Slab grew by $grow kB over $n dead followed tasks"
fi

# --- 3. the vfork parent
load global_trace
spawn_now vfork 40 /bin/true
pid=$SPAWN_PID
wait $pid || fail "spawn vfork failed"
utrace-top -n $S >/tmp/t81.rec
unload global_trace
expect_eq "CLONE records of the spawner's vfork children" \
	"$(grep -c "CLONE pid=[0-9]* tgid=[0-9]* ppid=$pid .* parent=$pid\$" /tmp/t81.rec)" 40
expect_eq "CLONE records naming a child as its own parent" \
	"$(sed -n 's/.* CLONE pid=\([0-9]*\) .* parent=\1$/x/p' /tmp/t81.rec | wc -l)" 0

# --- 4. a forgotten Tracer: utrace-rs releases the engines at unload
load utrace_follow_rs leak=1
spawn_now fork 1 /bin/sleep 2
spid=$SPAWN_PID
wait_until 5 "pidof sleep >/dev/null"
mark
unload utrace_follow_rs
dmesg_has "forgetting the tracer with [0-9]+ engine" || fail "the module did not forget its tracer"
dmesg_has "module utrace_follow_rs left [0-9]+ engine\\(s\\) behind: detached and released them" ||
	fail "utrace-rs did not release the forgotten engines"
echo "   says: $(dmesg_since_mark | grep 'left [0-9]* engine' | sed 's/^\[[^]]*\] //')"
# The follower's task and every new task would call into the freed module.
wait $spid || fail "the followed child's spawner failed"
/bin/true
no_splat "events after a forgotten tracer's module unloaded"
mark
unload utrace_rs
! dmesg_has "still attached" || fail "utrace_rs found engines still attached at unload"
echo "ok: nothing left attached"

# --- 5. a Tracer dropped from its own REAP callback: refused, not waited for
load utrace_rs
mark
load utrace_follow_rs reapdrop=1
spawn_now fork 1 /bin/true
wait $SPAWN_PID || fail "spawn failed"
wait_until 10 "dmesg_has 'dropped the tracer from its REAP callback'"
dmesg_has "utrace_release_engines called from a callback of one of its engines: refused \\(-EDEADLK\\)" ||
	fail "dropping the tracer from REAP was not refused"
unload utrace_follow_rs
dmesg_has "module utrace_follow_rs left [0-9]+ engine\\(s\\) behind: detached and released them" ||
	fail "utrace-rs did not release the engines of the tracer dropped from REAP"
no_splat "a tracer dropped from its REAP callback"
unload utrace_rs
echo "ok: a tracer dropped from its REAP callback: refused with -EDEADLK, engines released at unload"
