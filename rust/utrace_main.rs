// SPDX-License-Identifier: GPL-2.0

//! utrace-rs: utrace-style task-tracing engines as a loadable module.

use kernel::prelude::*;

module! {
    type: UtraceModule,
    name: "utrace_rs",
    author: "utrace-rs developers",
    description: "utrace-style task tracing engines (attach, events, control, barrier)",
    license: "GPL",
}

struct UtraceModule;

impl kernel::Module for UtraceModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("loaded\n");
        Ok(UtraceModule)
    }
}

impl Drop for UtraceModule {
    fn drop(&mut self) {
        pr_info!("unloaded\n");
    }
}
