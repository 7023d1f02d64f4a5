# SPDX-License-Identifier: GPL-2.0
# A stream takes records from any context but a hard interrupt, as
# utrace_stream_emit() documents: a timer (softirq) emitting while process
# context emits to the same stream gives no lockdep report (the host's log
# check fails the run on one) and no lost record.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine
expect_ut "emit from process context and 200 times from a timer" 0 streamsoftirq 200
echo "ok: records from softirq and process context"
