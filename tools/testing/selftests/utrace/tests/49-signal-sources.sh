# SPDX-License-Identifier: GPL-2.0
# SIGNAL_TERM and SIGNAL_IGN from the senders that do not go through
# send_signal_locked(): a POSIX timer's expiry (timer_create(), queued by
# send_sigqueue() / posixtimer_send_sigqueue()) and a child's death signal to
# its parent (do_notify_parent() calls __send_signal_locked()); and the
# PR_SET_PDEATHSIG signal (group_send_sig_info()). Each is reported once, for
# the class its disposition gives it, and the engine's signal action is what
# happens: a fatal signal ignored, held through a stop then delivered, an
# ignored one made a kill. (utrace-rs's kprobe on prepare_signal(), which all
# of them call with the siglock held, holds them before the kernel decides.)
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

# last SLOT EVENT: the detail of SLOT's last EVENT report (fields 5..).
last() { utlog | awk -v s="$1" -v e="$2" '$2 == s && $3 == e { $1 = $2 = $3 = $4 = ""; d = $0 } END { print d }' | sed 's/^ *//'; }
nreports() { utlog | awk -v s="$1" -v e="$2" '$2 == s && $3 == e' | wc -l; }
# nsignal SLOT: SLOT's reports of any signal event.
nsignal() { utlog | awk -v s="$1" '$2 == s && $3 ~ /^SIGNAL/' | wc -l; }
# start NAME MODE ARGS...: `sigmodel MODE ARGS... FIFO`, gated on the fifo
# /tmp/NAME.go, output in /tmp/NAME.out; sets PID and OUT. The fifo stays
# open here (fd 3), so that `step` never blocks, also when the task died.
start() {
	local name=$1
	shift
	OUT=/tmp/$name.out
	rm -f "/tmp/$name.go" "$OUT"
	mkfifo "/tmp/$name.go"
	exec 3<>"/tmp/$name.go"
	sigmodel "$@" "/tmp/$name.go" >"$OUT" &
	PID=$!
}
# step: let the task past its next wait on the fifo (one byte each).
step() { printf x >&3; }
# gone PID: PID has died (a zombie of ours until `wait`) or was reaped.
gone() { [ ! -e "/proc/$1" ] || [ "$(state_of "$1" 2>/dev/null)" = Z ]; }
all_signals=$((EV_SIGNAL | EV_SIGNAL_IGN | EV_SIGNAL_STOP | EV_SIGNAL_TERM | EV_SIGNAL_CORE))

# --- the signal kprobe is armed only while an engine has signal events, and
# before utrace_set_events() returns: a SIGUSR1 (SIGNAL_TERM, ignored) sent
# right after it, in the same call (events_kill), is held, not a kill. At the
# first signal engine, and again after the last one went and the kprobe was
# disarmed. An atomic caller cannot arm it (EWOULDBLOCK), but may add
# signal events while it is armed.
# kprobe_state: the signal kprobe's line in the kprobes list: armed,
# disabled, or none.
kprobe_state() {
	local line
	line=$(grep -E ' (prepare_signal|send_signal_locked)\+' /sys/kernel/debug/kprobes/list)
	case "$line" in
	"") echo none ;;
	*DISABLED*) echo disabled ;;
	*) echo armed ;;
	esac
}
# armed_in_time SLOT: the check on a fresh `sleep`, slots SLOT and SLOT+1.
armed_in_time() {
	local slot=$1 pid
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(kprobe_state)" = disabled ]'
	expect_eq "no signal engine: the kprobe is disarmed" "$(kprobe_state)" disabled
	sleep 1000 &
	pid=$!
	expect_ut "attach" 0 attach "$slot" "$pid" $A_CREATE
	expect_ut "ignore" 0 sigret "$slot" $SIGRET_IGN
	expect_ut "atomic caller, kprobe disarmed: refused" -11 events_atomic "$slot" $EV_SIGNAL_TERM
	expect_eq "refused: still disarmed" "$(kprobe_state)" disabled
	expect_ut "SIGNAL_TERM, then SIGUSR1 at once" 0 events_kill "$slot" $EV_SIGNAL_TERM 10
	expect_eq "armed when utrace_set_events() returned" "$(kprobe_state)" armed
	wait_until 10 "[ \$(nreports $slot SIGNAL_TERM) = 1 ] || gone $pid"
	wait_until 10 "[ \"\$(state_of $pid)\" = S ] || gone $pid"
	expect_eq "held and ignored: the task lives" "$(state_of "$pid")" S
	expect_eq "SIGUSR1 report" "$(last "$slot" SIGNAL_TERM | cut -d' ' -f1-2)" "sig=10 class=0x20"
	expect_ut "attach a second engine" 0 attach $((slot + 1)) "$pid" $A_CREATE
	expect_ut "atomic caller, kprobe armed: done" 0 events_atomic $((slot + 1)) $EV_SIGNAL_TERM
	r=$(utctl control "$slot" $ACT_DETACH)
	# (-EINPROGRESS: its callback may not have returned yet; detached.)
	[ "$r" = -115 ] || expect_eq "detach the first" "$r" 0
	expect_ut "the second's events dropped: none left" 0 events $((slot + 1)) 0
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(kprobe_state)" = disabled ]'
	expect_eq "the last signal engine gone: disarmed" "$(kprobe_state)" disabled
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
}
armed_in_time 8
armed_in_time 10
echo "ok: the signal kprobe armed by the first signal engine before its utrace_set_events() returned, twice"

# --- a POSIX timer's SIGUSR1 at its default: SIGNAL_TERM, ignored
start t49sa timer 10 dfl
expect_ut "attach" 0 attach 0 "$PID" $A_CREATE
expect_ut "SIGNAL_TERM" 0 events 0 $EV_SIGNAL_TERM
expect_ut "ignore" 0 sigret 0 $SIGRET_IGN
step
wait_until 10 "[ \$(nreports 0 SIGNAL_TERM) = 1 ] || gone $PID"
expect_eq "timer SIGUSR1 report" "$(last 0 SIGNAL_TERM | cut -d' ' -f1-3)" "sig=10 class=0x20 code=-2"
step
wait "$PID"
expect_eq "ignored: the task lived on" "$?:$(cat "$OUT")" "0:alive"
expect_eq "reported once" "$(nsignal 0)" 1
echo "ok: a timer's SIGUSR1 reported as TERM (si_code SI_TIMER) and ignored"

# --- held through a stop, reported again after RESUME, then delivered
start t49sb timer 10 dfl
expect_ut "attach" 0 attach 1 "$PID" $A_CREATE
expect_ut "SIGNAL_TERM" 0 events 1 $EV_SIGNAL_TERM
expect_ut "hold" 0 sigret 1 $SIGRET_HOLD
step
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = I ]'
expect_eq "held: one report" "$(nreports 1 SIGNAL_TERM)" 1
expect_ut "deliver from now on" 0 sigret 1 $SIGRET_DELIVER
expect_ut "resume" 0 control 1 $ACT_RESUME
wait "$PID"
expect_eq "then delivered: died of SIGUSR1" "$?" $((128 + 10))
expect_eq "reported again after RESUME" \
	"$(utlog | awk '$2 == 1 && $3 ~ /^SIGNAL/ { print $3, $5, $6, $7 }' | tr '\n' ' ')" \
	"SIGNAL_TERM sig=10 class=0x20 code=-2 SIGNAL_TERM sig=10 class=0x20 code=-2 "
echo "ok: a timer's SIGUSR1 held, reported again after RESUME, then killed the task"

# --- a timer's SIGUSR1 set to SIG_IGN: SIGNAL_IGN, made a kill
start t49sc timer 10 ign
expect_ut "attach" 0 attach 2 "$PID" $A_CREATE
expect_ut "SIGNAL_IGN" 0 events 2 $EV_SIGNAL_IGN
expect_ut "terminate" 0 sigret 2 $SIGRET_TERM
step
wait_until 10 "[ \$(nreports 2 SIGNAL_IGN) = 1 ] || gone $PID"
# (Lets it go on if it was not killed.)
step
wait "$PID"
# TERM kills with the signal itself when its default is to kill.
expect_eq "an ignored timer signal made TERM: died of SIGUSR1" "$?" $((128 + 10))
expect_eq "timer SIGUSR1 (SIG_IGN) report" "$(last 2 SIGNAL_IGN | cut -d' ' -f1-3)" "sig=10 class=0x10 code=-2"
expect_eq "reported once" "$(nsignal 2)" 1
echo "ok: a timer's ignored SIGUSR1 reported as IGN and turned into a kill"

# --- a periodic timer's SIGUSR1 at SIG_IGN, left ignored: every expiry is
# reported (each is queued and dequeued: 6.12 rearms the timer in
# dequeue_signal(), 7.x in posixtimer_deliver_signal(); without an engine 7.x
# parks it on its ignored list instead)
start t49sh timer 10 ign-periodic
expect_ut "attach" 0 attach 7 "$PID" $A_CREATE
expect_ut "SIGNAL_IGN" 0 events 7 $EV_SIGNAL_IGN
step
wait_until 20 "[ \$(nreports 7 SIGNAL_IGN) -ge 3 ] || gone $PID"
step
wait "$PID"
expect_eq "ignored: the task lived on" "$?:$(cat "$OUT")" "0:alive"
expect_eq "each report an IGN of SIGUSR1" \
	"$(utlog | awk '$2 == 7 { print $3, $5, $6, $7 }' | sort -u)" "SIGNAL_IGN sig=10 class=0x10 code=-2"
echo "ok: a periodic timer's ignored SIGUSR1 reported at each expiry ($(nreports 7 SIGNAL_IGN) reports)"

# --- a child's death signal SIGUSR1 to its parent: SIGNAL_TERM, ignored
start t49sd child 10 dfl
expect_ut "attach" 0 attach 3 "$PID" $A_CREATE
expect_ut "SIGNAL_TERM" 0 events 3 $EV_SIGNAL_TERM
expect_ut "ignore" 0 sigret 3 $SIGRET_IGN
step
wait_until 10 "[ \$(nreports 3 SIGNAL_TERM) = 1 ] || gone $PID"
expect_eq "death signal report" "$(last 3 SIGNAL_TERM | cut -d' ' -f1-3)" "sig=10 class=0x20 code=1"
step
wait "$PID"
expect_eq "ignored: the parent lived on and reaped its child" "$?:$(cat "$OUT")" "0:alive child=7"
expect_eq "reported once" "$(nsignal 3)" 1
echo "ok: a child's SIGUSR1 death signal reported to the parent as TERM (CLD_EXITED) and ignored"

# --- a child's SIGCHLD at its default (ignored): SIGNAL_IGN, made a kill
start t49se child 17 dfl
expect_ut "attach" 0 attach 4 "$PID" $A_CREATE
expect_ut "SIGNAL_IGN" 0 events 4 $EV_SIGNAL_IGN
expect_ut "terminate" 0 sigret 4 $SIGRET_TERM
step
wait_until 10 "[ \$(nreports 4 SIGNAL_IGN) = 1 ] || gone $PID"
step
wait "$PID"
expect_eq "SIGCHLD made TERM: the parent died of SIGTERM" "$?" $((128 + 15))
expect_eq "SIGCHLD report" "$(last 4 SIGNAL_IGN | cut -d' ' -f1-3)" "sig=17 class=0x10 code=1"
expect_eq "reported once" "$(nsignal 4)" 1
echo "ok: a child's SIGCHLD reported to the parent as IGN and turned into a kill"

# --- SIGCHLD set to SIG_IGN: do_notify_parent() sends nothing (the kernel
# reaps the child at once): nothing to report
start t49sf child 17 ign
expect_ut "attach" 0 attach 5 "$PID" $A_CREATE
expect_ut "all signals" 0 events 5 $all_signals
expect_ut "terminate" 0 sigret 5 $SIGRET_TERM
step
step
wait "$PID"
expect_eq "the parent lived on, its child reaped by the kernel" "$?:$(cat "$OUT")" "0:alive child=reaped"
expect_eq "not reported" "$(nsignal 5)" 0
echo "ok: SIGCHLD at SIG_IGN is not sent, nor reported"

# --- PR_SET_PDEATHSIG SIGUSR1 (the dying parent's group_send_sig_info()):
# SIGNAL_TERM, ignored
rm -f /tmp/t49sg.1 /tmp/t49sg.2 /tmp/t49sg.out
mkfifo /tmp/t49sg.1 /tmp/t49sg.2
exec 3<>/tmp/t49sg.1 4<>/tmp/t49sg.2
sigmodel pdeath 10 /tmp/t49sg.1 /tmp/t49sg.2 >/tmp/t49sg.out &
reaper=$!
wait_until 5 "grep -q pid= /tmp/t49sg.out"
PID=$(sed -n 's/^pid=//p' /tmp/t49sg.out)
expect_ut "attach" 0 attach 6 "$PID" $A_CREATE
expect_ut "SIGNAL_TERM" 0 events 6 $EV_SIGNAL_TERM
expect_ut "ignore" 0 sigret 6 $SIGRET_IGN
printf x >&3
wait_until 10 "[ \$(nreports 6 SIGNAL_TERM) = 1 ] || [ ! -e /proc/$PID ]"
expect_eq "PDEATHSIG report" "$(last 6 SIGNAL_TERM | cut -d' ' -f1-3)" "sig=10 class=0x20 code=0"
printf x >&4
wait "$reaper"
expect_eq "ignored: the orphan lived on" "$(grep '^c=' /tmp/t49sg.out)" "c=exit 0"
expect_eq "reported once" "$(nsignal 6)" 1
echo "ok: PR_SET_PDEATHSIG's SIGUSR1 reported as TERM and ignored"
exec 3>&- 4>&-
