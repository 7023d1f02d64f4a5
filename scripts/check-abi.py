#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check every copy of the ABI numbers against include/utrace_rs.h.

The header is the one source of the C ABI's numbers: event bits and sets,
resume and signal actions and their flags, attach, ops, wait and task
flags, the API version. Code that cannot include it spells them again:

  rust/base/events.rs        the core's events, actions, signal actions,
                             attach flags
  rust/edges/abi.rs,         the API version, ops flags, wait flag
  objects/engine.rs,
  edges/control.rs
  rust/api/raw.rs            the safe API's C ABI constants
  rust/api/events.rs         the safe API's Events
  rust/api/tracer.rs         the wait flag
  tools/testing/selftests/utrace/lib.sh   EV_*, A_*, ACT_*, SIGNAL_*
  tools/testing/selftests/utrace/module/test_engine.c   event names by bit

include/uapi/utrace_rs.h is the one source of the sessions' ABI (the user
crate generates its constants from it, tools/utrace/utrace/uapi-gen.c); its
kernel-side copy is

  rust/api/uapi.rs           every constant named UTRACE_<NAME> there; and
                             each header name but the event bits and the
                             structs' SIZE_VER0 has a constant, so a new
                             record type, verdict or flag cannot be left out

and its UTRACE_EV_<X> bits must be the core's UTRACE_EVENT_<X>.

Every constant of those that is written as a number must equal the header's
of the same name (a number with no header name is an error too), and the
event lists must name every event of enum utrace_events.

  check-abi.py              check; print the mismatches, exit 1 if any
  check-abi.py --self-test  also prove the check fails: change one number
                            in each copy (in memory) and expect a mismatch
"""
import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HEADER = "include/utrace_rs.h"
UAPI = "include/uapi/utrace_rs.h"
UAPI_RS = "rust/api/uapi.rs"
# rust/api/uapi.rs's record field offsets and ioctl numbers: no header name.
UAPI_LOCAL = re.compile(r"NR_[A-Z]+|(LOST|ATTACHED|DETACHED|QUIESCE|CLONE|EXEC|EXIT|DEATH|"
                        r"SIGNAL|SYSCALL|JCTL|HANDOFF)_[A-Z_]+")
LIB = "tools/testing/selftests/utrace/lib.sh"
TEST_C = "tools/testing/selftests/utrace/module/test_engine.c"
# Single constants of the core and the API: (file, Rust name, header name).
SINGLE = [
    ("rust/edges/abi.rs", "API_VERSION", "UTRACE_RS_API_VERSION"),
    ("rust/objects/engine.rs", "OPS_UNPINNED", "UTRACE_OPS_UNPINNED"),
    ("rust/objects/engine.rs", "OPS_SYSCALL_SLEEPABLE", "UTRACE_OPS_SYSCALL_SLEEPABLE"),
    ("rust/edges/control.rs", "WAIT_KILLABLE", "UTRACE_WAIT_KILLABLE"),
    ("rust/api/tracer.rs", "WAIT_KILLABLE", "UTRACE_WAIT_KILLABLE"),
]
# Names in the copies that are not the ABI's (empty, or the kernel's own).
NOT_ABI = {"NONE", "NT_PRSTATUS", "NT_PRFPREG"}


def strip_c_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def evaluate(expr, names):
    """An integer expression of numbers, names in `names`, | << & + ( )."""
    expr = re.sub(r"\b(0x[0-9a-fA-F_]+|\d[\d_]*)(?:UL|ULL|U|L|u32|u64|i32)?\b",
                  lambda m: str(int(m.group(1).replace("_", ""), 0)), expr)

    def name(m):
        if m.group(0) not in names:
            raise KeyError(m.group(0))
        return str(names[m.group(0)])
    expr = re.sub(r"\b[A-Za-z_]\w*\b", name, expr)
    if not re.fullmatch(r"[\d\s|&+<>()]*", expr):
        raise ValueError(expr)
    return eval(expr, {"__builtins__": {}})  # digits and operators only


def has_literal(expr):
    return re.search(r"(?<![\w.])(?:0x[0-9a-fA-F_]+|\d[\d_]*)\b", expr) is not None


def parse_header(text):
    """name -> value, events: the enum's names in bit order."""
    text = strip_c_comments(text)
    names, events = {}, []
    for enum, body in re.findall(r"enum (\w+) \{(.*?)\};", text, re.S):
        value = -1
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            n, _, expr = item.partition("=")
            n = n.strip()
            value = evaluate(expr, names) if expr.strip() else value + 1
            names[n] = value
            if enum == "utrace_events" and n.startswith("_UTRACE_EVENT_"):
                events.append(n[len("_UTRACE_EVENT_"):])
    for n in events:
        names["UTRACE_EVENT_" + n] = 1 << names["_UTRACE_EVENT_" + n]
    text = text.replace("\\\n", " ")
    for n, expr in re.findall(r"^#define\s+(_?UTRACE\w*)[ \t]+(.+)$", text, re.M):
        expr = re.sub(r"\bUTRACE_EVENT\((\w+)\)", r"(1 << _UTRACE_EVENT_\1)", expr)
        try:
            names[n] = evaluate(expr, names)
        except (KeyError, ValueError, SyntaxError):
            pass  # not a number (a guard or a function-like macro)
    return names, events


def rust_consts(text):
    """Rust `const NAME: T = EXPR;` -> [(scope, name, expr)], scope the mod."""
    text = re.sub(r"//[^\n]*", "", text)
    out = []
    scopes = [(m.group(1), m.start(), text.index("\n}", m.end()))
              for m in re.finditer(r"^pub\(crate\) mod (\w+) \{", text, re.M)]
    for m in re.finditer(r"\bconst (\w+): [\w:]+ =\s*(.*?);", text, re.S):
        scope = next((s for s, a, b in scopes if a < m.start() < b), "")
        out.append((scope, m.group(1), " ".join(m.group(2).split())))
    return out


def rust_expr(expr):
    expr = re.sub(r"\bevent\((\w+)\)", r"(1 << \1)", expr)
    expr = re.sub(r"\bEvents\((.*?)\)", r"(\1)", expr)
    expr = re.sub(r"\.or\(", "| (", expr)
    return re.sub(r"\b(?:Self|super)::", "", expr)


def check_rust(path, text, header, mapping, want_events, errors, hpath=HEADER):
    """Every const of `text` that mapping() names in the header must equal it."""
    values, seen = {}, set()
    for scope, name, expr in rust_consts(text):
        hname = mapping(scope, name)
        if hname is None:
            continue
        try:
            value = evaluate(rust_expr(expr), values)
        except (KeyError, ValueError, SyntaxError):
            continue  # not an ABI constant (a type, a call, another crate's)
        values[name] = value
        if hname in header:
            seen.add(hname)
            if header[hname] != value:
                errors.append(f"{path}: {name} = {expr} is {value:#x}, {hpath} says {hname} = {header[hname]:#x}")
        elif has_literal(expr) and name not in NOT_ABI:
            errors.append(f"{path}: {name} = {expr}: {hpath} has no {hname}")
    for ev in want_events:
        if "UTRACE_EVENT_" + ev not in seen:
            errors.append(f"{path}: no constant for event {ev} of enum utrace_events")
    return len(seen)


def core_name(scope, name):
    if scope == "action":
        return "UTRACE_RESUME_MASK" if name == "MASK" else "UTRACE_" + name
    if scope == "signal":
        return "UTRACE_SIGNAL_" + name
    if scope == "attach":
        return "UTRACE_ATTACH_" + name
    if scope:
        return None
    return {"TASK_EVENTS": "UTRACE_TASK_EVENTS",
            "GLOBAL_EVENTS": "UTRACE_GLOBAL_EVENTS"}.get(name, "UTRACE_EVENT_" + name)


def check(files):
    """files: path -> text. Returns (errors, summary)."""
    header, events = parse_header(files[HEADER])
    errors = []
    if len(events) < 14 or "UTRACE_SIGNAL_HOLD" not in header:
        return [f"{HEADER}: cannot read enum utrace_events or UTRACE_SIGNAL_HOLD"], ""
    n = check_rust("rust/base/events.rs", files["rust/base/events.rs"], header, core_name, events, errors)
    n += check_rust("rust/api/raw.rs", files["rust/api/raw.rs"], header,
                    lambda s, name: name if name.startswith("UTRACE_") else None, [], errors)
    n += check_rust("rust/api/events.rs", files["rust/api/events.rs"], header,
                    lambda s, name: "UTRACE_EVENT_" + name, events, errors)
    for path, name, hname in SINGLE:
        found = [e for _, c, e in rust_consts(files[path]) if c == name]
        if len(found) != 1:
            errors.append(f"{path}: expected one const {name} ({hname}), found {len(found)}")
            continue
        value = evaluate(rust_expr(found[0]), {})
        n += 1
        if value != header[hname]:
            errors.append(f"{path}: {name} = {found[0]}, {HEADER} says {hname} = {header[hname]:#x}")
    prefixes = {"EV_": "UTRACE_EVENT_", "A_": "UTRACE_ATTACH_", "ACT_": "UTRACE_",
                "SIGNAL_": "UTRACE_SIGNAL_"}
    for m in re.finditer(r"\b(EV|A|ACT|SIGNAL)_([A-Z_]+)=(0x[0-9a-fA-F]+|\d+)\b", files[LIB]):
        hname = prefixes[m.group(1) + "_"] + m.group(2)
        n += 1
        if hname not in header:
            errors.append(f"{LIB}: {m.group(0)}: {HEADER} has no {hname}")
        elif int(m.group(3), 0) != header[hname]:
            errors.append(f"{LIB}: {m.group(0)}, {HEADER} says {hname} = {header[hname]:#x}")
    body = re.search(r"event_names\[\w*\] = \{(.*?)\};", files[TEST_C], re.S)
    named = re.findall(r"\[_UTRACE_EVENT_(\w+)\]\s*=\s*\"(\w+)\"", body.group(1)) if body else []
    if not body or len(named) != len(re.findall(r"\"", body.group(1))) // 2:
        errors.append(f"{TEST_C}: event_names[] must be [_UTRACE_EVENT_X] = \"X\" entries")
    for bit, text in named:
        n += 1
        if bit != text or bit not in events:
            errors.append(f"{TEST_C}: event_names[_UTRACE_EVENT_{bit}] = \"{text}\"")
    missing = set(events) - {b for b, _ in named}
    if missing:
        errors.append(f"{TEST_C}: event_names[] lacks {', '.join(sorted(missing))}")
    m = check_uapi(files, header, errors)
    return errors, (f"{n} constants in {len(files) - 3} files agree with {HEADER} ({len(header)} names), "
                    f"{m} of {UAPI_RS} and the event bits with {UAPI}")


def check_uapi(files, core, errors):
    """rust/api/uapi.rs against include/uapi/utrace_rs.h, both ways; the
    uapi event bits against the core's. Returns the constants checked."""
    uapi, _ = parse_header(files[UAPI])
    if "UTRACE_VERDICT_HOLD" not in uapi or "UTRACE_EV_SIGNAL" not in uapi:
        errors.append(f"{UAPI}: cannot read its enums and defines")
        return 0

    def name(scope, n):
        return None if UAPI_LOCAL.fullmatch(n) and "UTRACE_" + n not in uapi else "UTRACE_" + n
    n = check_rust(UAPI_RS, files[UAPI_RS], uapi, name, [], errors, UAPI)
    have = {"UTRACE_" + c for _, c, _ in rust_consts(files[UAPI_RS])}
    for hname in sorted(uapi):
        if hname.startswith("UTRACE_EV_"):
            twin = "UTRACE_EVENT_" + hname[len("UTRACE_EV_"):]
            if twin in core:
                n += 1
                if core[twin] != uapi[hname]:
                    errors.append(f"{UAPI}: {hname} = {uapi[hname]:#x}, {HEADER} says {twin} = {core[twin]:#x}")
        elif not hname.endswith("_SIZE_VER0") and hname not in have:
            errors.append(f"{UAPI_RS}: no constant for {hname} of {UAPI}")
    return n


def mutations(files):
    """One drifted copy per file: (path, text with one ABI number changed)."""
    single = {}
    for path, name, _ in SINGLE:
        single.setdefault(path, name)
    for path, text in files.items():
        if path in (HEADER, UAPI):
            continue
        if path == TEST_C:
            yield path, text.replace('[_UTRACE_EVENT_REAP] = "REAP"', '[_UTRACE_EVENT_REAP] = "CLONE"', 1)
            continue
        if path == LIB:
            pat = r"\b(?:EV|ACT|SIGNAL|A)_[A-Z_]+=(0x[0-9a-f]+|\d+)"
        elif path in single:
            pat = r"\bconst " + single[path] + r": \w+ = (?:1 << )?(0x[0-9a-f]+|\d+)"
        else:
            pat = r"\bconst [A-Z_]+: \w+ = (?:event\(|Events\(1 << )?(0x[0-9a-f]+|\d+)[);]"
        for m in re.finditer(pat, text):
            if path != LIB and re.search(r"const (NONE|NT_\w+):", m.group(0)):
                continue
            yield path, text[:m.start(1)] + str(int(m.group(1), 0) + 1) + text[m.end(1):]
            break


def main():
    paths = [HEADER, UAPI, UAPI_RS, "rust/base/events.rs", "rust/api/raw.rs", "rust/api/events.rs", LIB,
             TEST_C]
    paths += sorted({p for p, _, _ in SINGLE})
    files = {}
    for p in paths:
        with open(os.path.join(TOP, p)) as f:
            files[p] = f.read()
    errors, summary = check(files)
    for e in errors:
        print("check-abi: " + e)
    if errors:
        return 1
    if "--self-test" in sys.argv[1:]:
        tried = 0
        for path, text in mutations(files):
            tried += 1
            drifted, _ = check(dict(files, **{path: text}))
            if not any(e.startswith(path) for e in drifted):
                print(f"check-abi: self-test: a changed number in {path} went unnoticed")
                return 1
        if tried != len(files) - 2:
            print(f"check-abi: self-test: drifted {tried} of {len(files) - 2} copies")
            return 1
        summary += f"; a drifted number in each of the {tried} copies is caught"
    print("check-abi: " + summary)
    return 0


sys.exit(main())
