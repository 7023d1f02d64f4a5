# SPDX-License-Identifier: GPL-2.0
# `utrace events` against the kernel's proc connector (issue 33's oracle):
# a shell that forks, execs, starts threads and vforks, traced by
# `utrace events -- sh ...` while procconn listens to the connector. Both
# must name the same clones (thread ids), execs and thread exits with the
# same statuses: nothing missing, nothing twice. Debian's kernels have
# CONFIG_PROC_EVENTS; the 6.12 test kernel does not (skipped there).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
UT=/utrace/bin/utrace

# The tree is what the command forks: two children here.
procconn /tmp/t55.probe /bin/sh -c '/bin/true; /bin/true; :' 2>/tmp/t55.err
case $? in
0) ;;
4) skip "$(cat /tmp/t55.err)" ;;
*) fail "procconn sh: $(cat /tmp/t55.err)" ;;
esac
[ -s /tmp/t55.probe ] || skip "no proc events from the connector (CONFIG_PROC_EVENTS is off)"

load utrace_rs
load utrace_dev
trap 'unload_settled utrace_dev; unload_settled utrace_rs' EXIT

# The workload: processes that exec, a subshell that only forks, threads,
# vforks, and a process that exits with a status of its own.
# shellcheck disable=SC2016 # $i: the inner shell's
work='echo g | spawn thread 6 /bin/true; echo g | spawn fork 12 /bin/true
echo g | spawn vfork 4 /bin/true; for i in 1 2 3; do (exit $i); done
/bin/sh -c "exit 7"; true'
procconn /tmp/t55.oracle $UT events -- /bin/sh -c "$work" >/tmp/t55.events 2>/tmp/t55.err ||
	fail "procconn $UT events: exit $?: $(cat /tmp/t55.err)"
grep -q ' lost ' /tmp/t55.events && fail "utrace events lost records: $(grep ' lost ' /tmp/t55.events)"

# utrace events' text as procconn's lines: clone CHILD_TID, exec TID,
# exit TID STATUS (a signal's name as just "killed").
awk '$4 == "clone" { sub("child_tid=", "", $7); print "clone", $7 }
     $4 == "exec" { print "exec", $3 }
     $4 == "exit" { s = $5; if (s ~ /^killed=/) s = "killed"; print "exit", $3, s }' \
	/tmp/t55.events | sort >/tmp/t55.got
sort /tmp/t55.oracle >/tmp/t55.want
n=$(wc -l </tmp/t55.want)
echo "proc connector: $(grep -c '^clone' /tmp/t55.want) clones, $(grep -c '^exec' /tmp/t55.want) execs, $(grep -c '^exit' /tmp/t55.want) exits"
[ "$n" -ge 60 ] || fail "the proc connector saw only $n events of the workload: $(cat /tmp/t55.want)"
if ! cmp -s /tmp/t55.want /tmp/t55.got; then
	diff /tmp/t55.want /tmp/t55.got | sed 's/^/   /' | head -n 40
	fail "utrace events and the proc connector differ (< connector, > utrace)"
fi
echo "ok: utrace events = the proc connector: $n clone, exec and exit events of a fork/exec/thread/vfork workload, the same thread ids and statuses"
