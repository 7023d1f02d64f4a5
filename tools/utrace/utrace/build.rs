// SPDX-License-Identifier: GPL-2.0

//! Compiles and runs uapi-gen.c against include/uapi/utrace_rs.h: the
//! header's constants and struct layouts, as the C compiler sees them,
//! become `$OUT_DIR/uapi_gen.rs` (included by src/uapi.rs). Uses the C
//! compiler in `$CC` (default `cc`); no crate.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let uapi = dir.join("../../../include/uapi");
    let header = uapi.join("utrace_rs.h");
    let gen = dir.join("uapi-gen.c");
    println!("cargo::rerun-if-changed={}", header.display());
    println!("cargo::rerun-if-changed={}", gen.display());
    println!("cargo::rerun-if-env-changed=CC");

    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let exe = out.join("uapi-gen");
    let status = Command::new(&cc)
        .args(["-std=gnu11", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg("-I")
        .arg(&uapi)
        .arg(&gen)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
    assert!(
        status.success(),
        "{cc} failed on uapi-gen.c with {}",
        header.display()
    );
    let res = Command::new(&exe).output().expect("cannot run uapi-gen");
    assert!(
        res.status.success(),
        "uapi-gen: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    std::fs::write(out.join("uapi_gen.rs"), res.stdout).expect("cannot write uapi_gen.rs");
}
