# SPDX-License-Identifier: GPL-2.0
#
# The kernel splat pattern: one extended regular expression, one alternative
# a line (lines starting with '#' and empty lines are left out; the rest are
# joined with '|'). The one source for the host, which scans each boot's
# console (scripts/lib/boot.sh), and the guest, which scans the kernel log
# while each test runs (lib.sh, from /utrace/selftests/splat.re). Every line
# must stay silent on a clean boot of each kernel `make check*` boots: that is
# why lockdep appears as its reports' own words, not the bare word (the boot
# banner says "RCU lockdep checking is enabled").
#
# Warnings, oopses, BUGs and panics.
WARNING:
BUG:
Oops
general protection
Call Trace:
Kernel panic
# lockdep.
INFO: possible
possible recursive locking
inconsistent lock state
circular locking
lockdep:
lockdep is turned off
locking correctness validator
# The sanitizers and debug checkers of the debug kernel.
KASAN
UBSAN
ODEBUG
kmemleak: [0-9]+ new suspected
unreferenced object
# Sleeping in atomic context, RCU stalls, hung tasks.
sleeping function called from invalid context
rcu_.*stall
blocked for more than
# 7.x: work of a module queued on a deprecated workqueue (system_wq; printed
# once a boot, "%ps" of the work function names its module).
\] enqueued on deprecated workqueue
