// SPDX-License-Identifier: GPL-2.0

//! Module parameters (6.12's `module!` has none).

use core::ffi::c_void;
use core::ptr;
use kernel::bindings;

/// An `int` module parameter, declared with [`module_param_int!`] (6.12's
/// `module!` has no parameters).
pub(crate) struct IntParam(core::cell::UnsafeCell<i32>);

// SAFETY: The kernel writes the value while loading the module, before
// `init`; the parameter is read-only (0444) afterwards.
unsafe impl Sync for IntParam {}

impl IntParam {
    pub(crate) const fn new(default: i32) -> Self {
        IntParam(core::cell::UnsafeCell::new(default))
    }

    pub(crate) const fn as_ptr(&self) -> *mut c_void {
        self.0.get().cast()
    }

    pub(crate) fn get(&self) -> i32 {
        // SAFETY: No writer after load (see `Sync`).
        unsafe { ptr::read_volatile(self.0.get()) }
    }
}

/// A `struct kernel_param` placed in the `__param` section.
pub(crate) struct ParamEntry(pub(crate) bindings::kernel_param);

// SAFETY: Read-only; its pointers are to statics.
unsafe impl Sync for ParamEntry {}

/// `s` as a byte array for the `.modinfo` section.
pub(crate) const fn modinfo_bytes<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < N && i < bytes.len() {
        out[i] = bytes[i];
        i += 1;
    }
    out
}

/// The `struct kernel_param` in `__param` and the `parm=`/`parmtype=`
/// `.modinfo` strings of a module parameter named `$name`, of type `$type`,
/// set by the kernel's `$ops` (a `param_ops_*`) through `$field: $arg` (the
/// member of the `kernel_param` union that points to the value): what
/// [`module_param_int!`] and [`module_param_str!`] share. Expands to items
/// for a `const _: () = { ... };` block.
#[allow(unused_macros)]
macro_rules! module_param_entry {
    ($name:literal, $desc:literal, $type:literal, $ops:ident, $field:ident: $arg:expr) => {
        // See `raw.rs`: only the address of `struct module` is used.
        #[allow(improper_ctypes)]
        extern "C" {
            static __this_module: kernel::types::Opaque<kernel::bindings::module>;
        }
        #[link_section = "__param"]
        #[used(compiler)]
        static PARAM: $crate::utrace::ParamEntry =
            $crate::utrace::ParamEntry(kernel::bindings::kernel_param {
                name: concat!($name, "\0").as_ptr(),
                // SAFETY: Only addresses of kernel objects are taken.
                mod_: unsafe { __this_module.get() },
                // SAFETY: As above.
                ops: unsafe { &kernel::bindings::$ops },
                perm: 0o444,
                level: -1,
                flags: 0,
                __bindgen_anon_1: kernel::bindings::kernel_param__bindgen_ty_1 { $field: $arg },
            });
        const PARM: &str = concat!("parm=", $name, ":", $desc, "\0");
        #[link_section = ".modinfo"]
        #[used(compiler)]
        static PARM_INFO: [u8; PARM.len()] = $crate::utrace::modinfo_bytes(PARM);
        const TYPE: &str = concat!("parmtype=", $name, ":", $type, "\0");
        #[link_section = ".modinfo"]
        #[used(compiler)]
        static TYPE_INFO: [u8; TYPE.len()] = $crate::utrace::modinfo_bytes(TYPE);
    };
}
#[allow(unused_imports)]
pub(crate) use module_param_entry;

/// Declares an `int` module parameter: `module_param_int!(PID, "pid", -1,
/// "what it is")` makes `PID.get()` the value given to `insmod` (or -1),
/// shown by `modinfo` with its description. A value that is not an integer
/// makes `insmod` fail with `-EINVAL`, as for C modules.
#[allow(unused_macros)]
macro_rules! module_param_int {
    ($var:ident, $name:literal, $default:expr, $desc:literal) => {
        static $var: $crate::utrace::IntParam = $crate::utrace::IntParam::new($default);
        const _: () = {
            $crate::utrace::module_param_entry!(
                $name,
                $desc,
                "int",
                param_ops_int,
                arg: $var.as_ptr()
            );
        };
    };
}
#[allow(unused_imports)]
pub(crate) use module_param_int;

/// A string module parameter of at most `N - 1` bytes, declared with
/// [`module_param_str!`]: the kernel copies the value into this buffer
/// (`param_ops_string`) while loading the module.
pub(crate) struct StrParam<const N: usize>(core::cell::UnsafeCell<[u8; N]>);

// SAFETY: The kernel writes the value while loading the module, before
// `init`; the parameter is read-only (0444) afterwards.
unsafe impl<const N: usize> Sync for StrParam<N> {}

impl<const N: usize> StrParam<N> {
    /// An empty value (the default).
    pub(crate) const fn new() -> Self {
        StrParam(core::cell::UnsafeCell::new([0; N]))
    }

    pub(crate) const fn as_ptr(&self) -> *mut u8 {
        self.0.get().cast()
    }

    /// The value given to `insmod` (empty if none), up to its NUL.
    pub(crate) fn get(&self) -> &[u8] {
        // SAFETY: No writer after load (see `Sync`).
        let all = unsafe { &*self.0.get() };
        let len = all.iter().position(|&b| b == 0).unwrap_or(N);
        &all[..len]
    }
}

/// The `struct kparam_string` a string parameter's `kernel_param` points to.
pub(crate) struct KparamString(pub(crate) bindings::kparam_string);

// SAFETY: Read-only; its pointer is to a static.
unsafe impl Sync for KparamString {}

/// Declares a string module parameter: `module_param_str!(INJECT, "inject",
/// 64, "what it is")` makes `INJECT.get()` the bytes given to `insmod` (empty
/// if none). A value of 64 bytes or more makes `insmod` fail with `-ENOSPC`
/// (the kernel's `param_set_copystring()`, which logs why).
#[allow(unused_macros)]
macro_rules! module_param_str {
    ($var:ident, $name:literal, $size:literal, $desc:literal) => {
        static $var: $crate::utrace::StrParam<$size> = $crate::utrace::StrParam::new();
        const _: () = {
            static KPS: $crate::utrace::KparamString =
                $crate::utrace::KparamString(kernel::bindings::kparam_string {
                    maxlen: $size,
                    string: $var.as_ptr().cast(),
                });
            $crate::utrace::module_param_entry!(
                $name,
                $desc,
                "string",
                param_ops_string,
                str_: &KPS.0
            );
        };
    };
}
#[allow(unused_imports)]
pub(crate) use module_param_str;
