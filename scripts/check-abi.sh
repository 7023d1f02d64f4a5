#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The ABI numbers have one source of truth, include/utrace_rs.h. The Rust
# mirrors assert struct layouts at compile time; this checks the numbers the
# guest test library (tools/testing/selftests/utrace/lib.sh) and the Rust
# core (rust/events.rs) spell out again: event bits, attach flags, resume
# actions and signal actions. Prints the mismatches; exits non-zero if there
# are any.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
hdr=$top/include/utrace_rs.h
lib=$top/tools/testing/selftests/utrace/lib.sh
events_rs=$top/rust/events.rs
bad=0

# The event enum's names in order: bit N is the Nth name.
mapfile -t names < <(sed -n '/^enum utrace_events {/,/^};/p' "$hdr" |
	sed -n 's/^[[:space:]]*_UTRACE_EVENT_\([A-Z_]*\),.*/\1/p')
[ "${#names[@]}" -ge 14 ] || { echo "check-abi: cannot read enum utrace_events"; exit 1; }
declare -A header=()
for i in "${!names[@]}"; do
	header[EV_${names[$i]}]=$((1 << i))
done
# Attach flags.
while read -r name value; do
	header[A_${name#UTRACE_ATTACH_}]=$((value))
done < <(sed -n 's/^#define \(UTRACE_ATTACH_[A-Z_]*\)[[:space:]]*\(0x[0-9a-f]*\).*/\1 \2/p' "$hdr")
# Resume actions, in enum order.
mapfile -t acts < <(sed -n '/^enum utrace_resume_action {/,/^};/p' "$hdr" |
	sed -n 's/^[[:space:]]*UTRACE_\([A-Z]*\),.*/\1/p')
for i in "${!acts[@]}"; do
	header[ACT_${acts[$i]}]=$i
done
# Signal actions (enum utrace_signal_action) and the flags or'd into them.
while read -r name value; do
	header[SIGNAL_${name#UTRACE_SIGNAL_}]=$((value))
done < <(sed -n '/^enum utrace_signal_action {/,/^};/p' "$hdr" |
	sed -n 's/^[[:space:]]*\(UTRACE_SIGNAL_[A-Z]*\)[[:space:]]*=[[:space:]]*\(0x[0-9a-f]*\).*/\1 \2/p'
	sed -n 's/^#define \(UTRACE_SIGNAL_[A-Z]*\)[[:space:]]*\(0x[0-9a-f]*\).*/\1 \2/p' "$hdr")
if [ -z "${header[SIGNAL_TERM]+x}" ] || [ -z "${header[SIGNAL_HOLD]+x}" ]; then
	echo "check-abi: cannot read enum utrace_signal_action and UTRACE_SIGNAL_HOLD"
	exit 1
fi

# lib.sh: NAME=value pairs on its constant lines; every one of these
# prefixes must be a name of the header.
n=0
while read -r pair; do
	name=${pair%%=*} value=${pair#*=}
	n=$((n + 1))
	if [ -z "${header[$name]+x}" ]; then
		echo "check-abi: lib.sh $name=$value, include/utrace_rs.h has no such name"
		bad=1
	elif [ $((value)) != "${header[$name]}" ]; then
		echo "check-abi: lib.sh $name=$value, include/utrace_rs.h says ${header[$name]}"
		bad=1
	fi
done < <(grep -oE '\b(EV|A|ACT|SIGNAL)_[A-Z_]+=[0-9a-fx]+' "$lib")

# rust/events.rs: `NAME: Events = event(N)` and the action/attach consts.
while read -r name bit; do
	want=${header[EV_$name]:-}
	if [ -z "$want" ] || [ $((1 << bit)) != "$want" ]; then
		echo "check-abi: rust/events.rs $name = event($bit), include/utrace_rs.h says ${want:-nothing}"
		bad=1
	fi
done < <(sed -n 's/^pub(crate) const \([A-Z_]*\): Events = event(\([0-9]*\));/\1 \2/p' "$events_rs")
while read -r kind name value; do
	key=$kind$name
	want=${header[$key]:-}
	if [ -z "$want" ] || [ $((value)) != "$want" ]; then
		echo "check-abi: rust/events.rs $name = $value, include/utrace_rs.h says ${want:-nothing}"
		bad=1
	fi
done < <(sed -n '/^pub(crate) mod action {/,/^}/p' "$events_rs" |
	sed -n 's/^ *pub(crate) const \(STOP\|INTERRUPT\|REPORT\|SINGLESTEP\|BLOCKSTEP\|RESUME\|DETACH\): u32 = \([0-9]*\);/ACT_ \1 \2/p'
	sed -n '/^pub(crate) mod signal {/,/^}/p' "$events_rs" |
	sed -n 's/^ *pub(crate) const \([A-Z]*\): u32 = \(0x[0-9a-f]*\);/SIGNAL_ \1 \2/p'
	sed -n '/^pub(crate) mod attach {/,/^}/p' "$events_rs" |
	sed -n 's/^ *pub(crate) const \(MATCH_OPS\|MATCH_DATA\|CREATE\|EXCLUSIVE\|GLOBAL\|NOFOLLOW\): i32 = \(0x[0-9a-f]*\);/A_ \1 \2/p')
[ "$bad" = 0 ] && echo "check-abi: lib.sh ($n constants) and rust/events.rs agree with include/utrace_rs.h (${#header[@]} names)"
exit "$bad"
