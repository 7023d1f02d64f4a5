// SPDX-License-Identifier: GPL-2.0

//! utrace_minimal: the smallest engine module, to copy. A global engine
//! gets the EXEC event of every user task and logs it; the module counts
//! them and says how many at unload. See Documentation/utrace-rs/api.rst.

use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
use kernel::prelude::*;
use kernel::str::CStr;

#[path = "../../rust/api/utrace.rs"]
mod utrace;

use utrace::{Action, Context, Escaped, Events, TaskInfo, Tracer};

utrace::module_author! {
    type: Minimal,
    name: "utrace_minimal",
    author: "utrace-rs developers",
    description: "utrace-rs sample: the smallest engine, logs every exec",
    license: "GPL",
}

/// The engine: what its callbacks share.
struct Execs {
    seen: AtomicU64,
}

impl utrace::Engine for Execs {
    fn exec(&self, cx: &Context<'_, Self>, filename: Option<&CStr>, _old_pid: i32) -> Action {
        let info = TaskInfo::of(cx.task());
        let file = filename.map_or(&b"?"[..], utrace::cstr_bytes);
        pr_info!("exec: pid {} ran {}\n", info.pid, Escaped(file));
        self.seen.fetch_add(1, Relaxed);
        Action::Resume
    }
}

struct Minimal {
    tracer: Tracer<Execs>,
}

impl kernel::Module for Minimal {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let tracer = Tracer::new(Execs {
            seen: AtomicU64::new(0),
        })?;
        tracer.attach_global_nofollow(Events::EXEC)?;
        Ok(Minimal { tracer })
    }
}

impl Drop for Minimal {
    fn drop(&mut self) {
        // Detaches the engine and waits for its callbacks: none runs after.
        self.tracer.detach_all();
        let seen = self.tracer.engine().seen.load(Relaxed);
        pr_info!("unloaded after {} exec(s)\n", seen);
    }
}
