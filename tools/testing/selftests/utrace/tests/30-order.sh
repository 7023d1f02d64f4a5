# SPDX-License-Identifier: GPL-2.0
# Engines are called in attach order; an engine attached while an event is
# being reported (here: by an earlier engine's callback) does not get that
# event, but gets the next one.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

rm -f /tmp/t30.go2
mkfifo /tmp/t30.go2
pid=$(gated_sh t30 'exec sh -c "read y < /tmp/t30.go2; exec /bin/true"')
for s in 3 1 2; do
	expect_ut "attach slot $s" 0 attach $s "$pid" $A_CREATE
	expect_ut "events slot $s" 0 events $s $((EV_EXEC | EV_DEATH))
done
# Slot 3's first EXEC callback attaches slot 4 (EXEC|DEATH) to the task.
expect_ut "attach_on" 0 attach_on 3 3 4 $((EV_EXEC | EV_DEATH))
go t30
wait_until 10 "utlog | grep -q ATTACHED_IN_CALLBACK"
wait_until 10 "utlog | grep -q '^[0-9]* 2 EXEC'"
order=$(utlog | awk '$3 == "EXEC" { printf "%s ", $2 }')
expect_eq "first exec: callers in attach order, not slot 4" "$order" "3 1 2 "
echo go > /tmp/t30.go2
wait_until 10 "utlog | grep -q '^[0-9]* 4 DEATH'"
order=$(utlog | awk '$3 == "EXEC" { printf "%s ", $2 }')
expect_eq "second exec: slot 4 too, last" "$order" "3 1 2 3 1 2 4 "
order=$(utlog | awk '$3 == "DEATH" { printf "%s ", $2 }')
expect_eq "death order" "$order" "3 1 2 4 "
