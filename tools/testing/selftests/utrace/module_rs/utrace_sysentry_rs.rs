// SPDX-License-Identifier: GPL-2.0

//! A Rust engine for the selftests of stopping before a syscall, the
//! sleepable syscall entry and examining a task, through the safe API.
//!
//! `insmod utrace_sysentry_rs.ko pid=N ctl=M open=O [i386=1]`:
//! - N (`sysentry write FILE`) is stopped before its first write(); with
//!   `i386=1`, N (`sys32 write FILE`) before its first i386 write()
//!   (`int $0x80`, number 4, arguments in ebx, ecx, edx);
//! - when M execs, its EXEC callback examines N through an `EngineRef`:
//!   checks the registers are as at entry (`orig_ax` write, `ax` -ENOSYS),
//!   sets the count to 5, writes "HELLO" over the buffer (read back) and
//!   xmm1's low half to 0x3333333333333333, then resumes N; it also checks
//!   its own new image's registers through `Context::examine`;
//! - O (`sysentry open PATH...`) is traced by a sleepable tracer: each
//!   openat() entry reads its path from user memory and the registers of
//!   `current` (`orig_ax` openat).
//!
//! Checks are logged as `check <name> ok` or `check <name> FAILED`; the
//! counts at unload.

use core::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering::Relaxed};
use kernel::bindings;
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::{new_mutex, Mutex};

#[path = "../../../../../rust/api/utrace.rs"]
mod utrace;

use utrace::{
    Action, Context, Control, EngineRef, Events, SleepingSyscall, SyscallArch, SyscallContext,
    SyscallEntry, SyscallRegs, Tracer,
};

utrace::module_author! {
    type: SysentryModule,
    name: "utrace_sysentry_rs",
    author: "utrace-rs developers",
    description: "utrace-rs selftest engine: stop before a syscall, examine, sleepable entry",
    license: "GPL",
}

utrace::module_param_int!(PID, "pid", 0, "stop this task before its first write()");
utrace::module_param_int!(
    CTL,
    "ctl",
    0,
    "this task's exec examines and resumes the stopped one"
);
utrace::module_param_int!(
    OPEN,
    "open",
    0,
    "read this task's openat() paths where it may sleep"
);
utrace::module_param_int!(
    I386,
    "i386",
    0,
    "1: stop pid= before its first i386 write() (int $0x80)"
);

const SYS_WRITE: i64 = 1;
const SYS32_WRITE: i64 = 4;
const SYS_OPENAT: i64 = 257;
const ENOSYS: u64 = 38;
const XMM1: u64 = 0x3333_3333_3333_3333;

fn check(name: &str, ok: bool) {
    if ok {
        pr_info!("check {} ok\n", name);
    } else {
        pr_err!("check {} FAILED\n", name);
    }
}

/// Stops `pid` before its first write(); `ctl`'s exec changes and resumes it.
struct Stopper {
    ctl: i32,
    /// The write() to stop: its ABI and number.
    arch: SyscallArch,
    nr: i64,
    entries: AtomicU32,
    resumed: AtomicU32,
    exits: AtomicU32,
    first_exit: AtomicI64,
    stopped_once: AtomicBool,
    /// Keeps the stop it asked for until the controller resumes it.
    holding: AtomicBool,
    target: Pin<KBox<Mutex<Option<EngineRef<Stopper>>>>>,
}

impl Stopper {
    /// What the controller does to the stopped task (retrying while it is
    /// on its way into the stop).
    fn change_target(&self) {
        let guard = self.target.lock();
        let Some(target) = guard.as_ref() else {
            check("target attached", false);
            return;
        };
        let mut ret = Err(EAGAIN);
        for _ in 0..500 {
            ret = target.examine(|x| -> Result {
                let mut regs = x.regs()?;
                check(
                    "stopped as at entry",
                    regs.orig_ax == self.nr as u64 && regs.ax == ENOSYS.wrapping_neg(),
                );
                let arch = x.syscall_arch();
                check("the syscall's ABI", arch == self.arch);
                check("count was 12", regs.arg(arch, 2) == Some(12));
                regs.set_arg(arch, 2, 5)?;
                x.set_regs(&regs)?;
                check("count reads back 5", x.regs()?.arg(arch, 2) == Some(5));
                let buf = regs.arg(arch, 1).ok_or(EINVAL)?;
                check("buffer written", x.write_memory(buf, b"HELLO")? == 5);
                let mut back = [0u8; 5];
                x.read_memory(buf, &mut back)?;
                check("buffer reads back", &back == b"HELLO");
                let mut fp = x.fp_regs()?;
                check(
                    "xmm1 as loaded",
                    fp.xmm_low(1) == Some(0x1111_1111_1111_1111),
                );
                fp.set_xmm_low(1, XMM1)?;
                x.set_fp_regs(&fp)?;
                check("xmm1 reads back", x.fp_regs()?.xmm_low(1) == Some(XMM1));
                Ok(())
            });
            if ret != Err(EAGAIN) {
                break;
            }
            // SAFETY: Process context (an EXEC callback), no lock held but
            // the target's mutex, which nothing in the stop path takes.
            unsafe { bindings::msleep(10) };
        }
        check("examined", matches!(ret, Ok(Ok(()))));
        self.holding.store(false, Relaxed);
        check("resumed", target.control(Control::Resume).is_ok());
    }
}

impl utrace::Engine for Stopper {
    fn quiesce(&self, _cx: &Context<'_, Self>, _event: Events) -> Action {
        if self.holding.load(Relaxed) {
            Action::Stop
        } else {
            Action::Resume
        }
    }

    fn exec(&self, cx: &Context<'_, Self>, _filename: Option<&CStr>, _old_pid: i32) -> Action {
        if utrace::TaskInfo::of(cx.task()).pid != self.ctl {
            return Action::Resume;
        }
        let own = cx.examine(|x| x.regs().map(|r| r.ip != 0 && r.sp != 0));
        check(
            "exec: the new image's registers",
            matches!(own, Ok(Ok(true))),
        );
        self.change_target();
        Action::Resume
    }
}

impl utrace::SyscallEngine for Stopper {
    fn syscall_entry(&self, cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> SyscallEntry {
        if regs.arch() != self.arch || regs.nr() != self.nr {
            return SyscallEntry::Run;
        }
        if cx.resumed() {
            self.resumed.fetch_add(1, Relaxed);
            return SyscallEntry::Run;
        }
        self.entries.fetch_add(1, Relaxed);
        if self.stopped_once.swap(true, Relaxed) {
            return SyscallEntry::Run;
        }
        self.holding.store(true, Relaxed);
        SyscallEntry::Stop
    }

    fn syscall_exit(&self, _cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> Action {
        if regs.arch() == self.arch && regs.nr() == self.nr && self.exits.fetch_add(1, Relaxed) == 0
        {
            self.first_exit.store(regs.return_value(), Relaxed);
        }
        Action::Resume
    }
}

/// Reads `open`'s openat() paths where it may sleep.
struct PathReader {
    entries: AtomicU32,
    exits: AtomicU32,
    regs_ok: AtomicU32,
    last: Pin<KBox<Mutex<[u8; 64]>>>,
}

impl utrace::Engine for PathReader {}

impl utrace::SyscallEngine for PathReader {
    fn syscall_entry_sleepable(
        &self,
        cx: &SleepingSyscall<'_, Self>,
        regs: &mut SyscallRegs<'_>,
    ) -> SyscallEntry {
        if regs.arch() != SyscallArch::X86_64 || regs.nr() != SYS_OPENAT {
            return SyscallEntry::Run;
        }
        self.entries.fetch_add(1, Relaxed);
        let mut buf = [0u8; 64];
        let path = regs
            .arg(1)
            .map_or(Err(EINVAL), |addr| cx.read_user_str(addr, &mut buf[..63]));
        if let Ok((len, complete)) = path {
            check("path read whole", complete);
            let mut last = self.last.lock();
            *last = [0; 64];
            last[..len].copy_from_slice(&buf[..len]);
        }
        // The registers of `current`, from where it may sleep.
        if cx.examine(|x| x.regs().map(|r| r.orig_ax)) == Ok(Ok(SYS_OPENAT as u64)) {
            self.regs_ok.fetch_add(1, Relaxed);
        }
        SyscallEntry::Run
    }

    fn syscall_exit(&self, _cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> Action {
        if regs.arch() == SyscallArch::X86_64 && regs.nr() == SYS_OPENAT {
            self.exits.fetch_add(1, Relaxed);
        }
        Action::Resume
    }
}

struct SysentryModule {
    stopper: Tracer<Stopper>,
    reader: Tracer<PathReader>,
}

impl kernel::Module for SysentryModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let (arch, nr) = match I386.get() {
            0 => (SyscallArch::X86_64, SYS_WRITE),
            _ => (SyscallArch::I386, SYS32_WRITE),
        };
        let stopper = Tracer::with_syscalls(Stopper {
            ctl: CTL.get(),
            arch,
            nr,
            entries: AtomicU32::new(0),
            resumed: AtomicU32::new(0),
            exits: AtomicU32::new(0),
            first_exit: AtomicI64::new(0),
            stopped_once: AtomicBool::new(false),
            holding: AtomicBool::new(false),
            target: KBox::pin_init(new_mutex!(None), GFP_KERNEL)?,
        })?;
        let reader = Tracer::with_sleepable_syscalls(PathReader {
            entries: AtomicU32::new(0),
            exits: AtomicU32::new(0),
            regs_ok: AtomicU32::new(0),
            last: KBox::pin_init(new_mutex!([0; 64]), GFP_KERNEL)?,
        })?;
        if PID.get() > 0 {
            let events = Events::SYSCALL | Events::QUIESCE;
            let engine = stopper.attach_pid(PID.get(), events)?;
            *stopper.engine().target.lock() = Some(engine);
        }
        if CTL.get() > 0 {
            stopper.attach_pid(CTL.get(), Events::EXEC)?;
        }
        if OPEN.get() > 0 {
            reader.attach_pid(OPEN.get(), Events::SYSCALL)?;
        }
        Ok(SysentryModule { stopper, reader })
    }
}

impl Drop for SysentryModule {
    fn drop(&mut self) {
        let s = self.stopper.engine();
        let r = self.reader.engine();
        let last = *r.last.lock();
        let len = last.iter().position(|&b| b == 0).unwrap_or(last.len());
        pr_info!(
            "entries={} resumed={} exits={} first_exit={} open_entries={} open_exits={} regs_ok={} path={}\n",
            s.entries.load(Relaxed),
            s.resumed.load(Relaxed),
            s.exits.load(Relaxed),
            s.first_exit.load(Relaxed),
            r.entries.load(Relaxed),
            r.exits.load(Relaxed),
            r.regs_ok.load(Relaxed),
            utrace::Escaped(&last[..len])
        );
    }
}
