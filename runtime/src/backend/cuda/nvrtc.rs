//! NVRTC itself (cargo feature `cuda`): a translation unit to PTX or to a cubin, with NVRTC's
//! log kept on success too (its warnings), and NVRTC's version. Needs no driver and no device:
//! NVRTC is a host library, loaded at run time.

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use cudarc::nvrtc::{result, sys};

use crate::error::Error;

/// The name cudarc looks for first, with the CUDA version it was built against (`cuda-13000`).
pub const LIBRARY: &str = "libnvrtc.so.13";

/// What NVRTC produced from one translation unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvrtcOutput {
    /// PTX text, or the bytes of a cubin (see [`Output`]).
    pub image: Vec<u8>,
    /// NVRTC's log (warnings), trimmed; empty when it had nothing to say.
    pub log: String,
}

/// What to take from NVRTC after compiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// PTX text for the virtual architecture, JIT-compiled by the driver at load.
    Ptx,
    /// Machine code for the real architecture of `--gpu-architecture=sm_XY`.
    Cubin,
}

fn unavailable(reason: String) -> Error {
    Error::BackendUnavailable {
        backend: "cuda".into(),
        reason,
    }
}

/// Why NVRTC cannot be loaded, or `Ok` when it can.
pub fn probe() -> Result<(), Error> {
    // SAFETY: only tries to open the shared library by its candidate names; no symbol is called.
    let present = catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false);
    if present {
        Ok(())
    } else {
        Err(unavailable(format!(
            "no NVRTC library: looked for `{LIBRARY}` (and cudarc's other names for libnvrtc) on \
             the library search path; put the folder holding it on LD_LIBRARY_PATH (the same \
             folder must hold libnvrtc-builtins, which NVRTC loads by name)"
        )))
    }
}

/// Runs `f` (which calls into NVRTC) after checking that the library loads, turning a panic of
/// cudarc's loader into an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    probe()?;
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(unavailable("NVRTC: loading the library panicked".into())))
}

/// NVRTC's version, `(major, minor)`.
pub fn version() -> Result<(i32, i32), Error> {
    guarded(|| {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: `nvrtcVersion` writes two ints through valid pointers; the library is loaded.
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
            .result()
            .map_err(|e| unavailable(format!("nvrtcVersion failed: {e:?}")))?;
        Ok((major, minor))
    })
}

/// The architectures NVRTC compiles for (e.g. 75, 80, 90), `nvrtcGetSupportedArchs`.
pub fn supported_archs() -> Result<Vec<i32>, Error> {
    guarded(|| {
        let mut count = 0;
        // SAFETY: writes one int through a valid pointer; the library is loaded.
        unsafe { sys::nvrtcGetNumSupportedArchs(&mut count) }
            .result()
            .map_err(|e| unavailable(format!("nvrtcGetNumSupportedArchs failed: {e:?}")))?;
        let mut archs = vec![0; usize::try_from(count).unwrap_or(0)];
        if !archs.is_empty() {
            // SAFETY: `archs` holds the `count` ints NVRTC writes.
            unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }
                .result()
                .map_err(|e| unavailable(format!("nvrtcGetSupportedArchs failed: {e:?}")))?;
        }
        Ok(archs)
    })
}

/// The text of a NUL-terminated buffer NVRTC filled.
fn text_of(buffer: &[c_char]) -> String {
    let bytes: Vec<u8> = buffer
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).trim().to_string()
}

/// Owns an `nvrtcProgram` and the strings it may point into, destroying it on every path.
struct Program {
    handle: sys::nvrtcProgram,
    _source: CString,
    _name: CString,
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: `handle` came from `create_program` and is destroyed only here.
        let _ = unsafe { result::destroy_program(self.handle) };
    }
}

/// Compiles `source` (named `name` in messages) with `options`. A rejected source is an error
/// holding NVRTC's log; an accepted one comes back with its log, which holds the warnings.
pub fn compile(
    name: &str,
    source: &str,
    options: &[String],
    output: Output,
) -> Result<NvrtcOutput, Error> {
    let failed = |message: String| Error::Execution {
        program: name.to_string(),
        message,
    };
    let c_source =
        CString::new(source).map_err(|_| failed("the source holds a NUL byte".into()))?;
    let c_name = CString::new(format!("{name}.cu"))
        .map_err(|_| failed("the program name holds a NUL byte".into()))?;
    if let Some(bad) = options.iter().find(|o| o.contains('\0')) {
        return Err(failed(format!("the NVRTC option {bad:?} holds a NUL byte")));
    }
    guarded(|| {
        let handle = result::create_program(&c_source, Some(&c_name))
            .map_err(|e| failed(format!("nvrtcCreateProgram failed: {e:?}")))?;
        let program = Program {
            handle,
            _source: c_source,
            _name: c_name,
        };
        // SAFETY (this and the calls below): `program.handle` is a live program, destroyed
        // only when `program` drops; no option holds a NUL byte (checked above).
        let compiled = unsafe { result::compile_program(program.handle, options) };
        let log = unsafe { result::get_program_log(program.handle) }
            .map(|l| text_of(&l))
            .unwrap_or_default();
        if let Err(e) = compiled {
            let hint = if e.0 == sys::nvrtcResult::NVRTC_ERROR_BUILTIN_OPERATION_FAILURE {
                " (NVRTC could not load libnvrtc-builtins: its folder must be on LD_LIBRARY_PATH)"
            } else {
                ""
            };
            return Err(failed(format!(
                "NVRTC rejected the generated source ({e:?}{hint}) with options {}:\n{log}",
                options.join(" ")
            )));
        }
        let image = match output {
            Output::Ptx => {
                let ptx = unsafe { result::get_ptx(program.handle) }
                    .map_err(|e| failed(format!("nvrtcGetPTX failed: {e:?}")))?;
                text_of(&ptx).into_bytes()
            }
            Output::Cubin => {
                let mut size = 0usize;
                unsafe { sys::nvrtcGetCUBINSize(program.handle, &mut size) }
                    .result()
                    .map_err(|e| failed(format!("nvrtcGetCUBINSize failed: {e:?}")))?;
                if size == 0 {
                    return Err(failed(
                        "NVRTC made no cubin (the architecture must be a real one, sm_XY)".into(),
                    ));
                }
                let mut cubin = vec![0 as c_char; size];
                unsafe { sys::nvrtcGetCUBIN(program.handle, cubin.as_mut_ptr()) }
                    .result()
                    .map_err(|e| failed(format!("nvrtcGetCUBIN failed: {e:?}")))?;
                cubin.into_iter().map(|c| c as u8).collect()
            }
        };
        Ok(NvrtcOutput { image, log })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_stop_at_the_terminator_and_are_trimmed() {
        let buffer: Vec<c_char> = b"  warning #177\n\0garbage"
            .iter()
            .map(|&b| b as c_char)
            .collect();
        assert_eq!(text_of(&buffer), "warning #177");
        assert_eq!(text_of(&[0]), "");
    }
}
