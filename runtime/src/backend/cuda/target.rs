//! What the launcher asks NVRTC for, given NVRTC's version, the driver's and the device: a
//! pure decision, so it is tested without a device.
//!
//! A driver JIT-compiles PTX only of an ISA version it knows, which is at most the one of its
//! own CUDA version: PTX from an NVRTC newer than the driver fails to load. A cubin (machine
//! code for one architecture) loads on any driver of the same CUDA major version or newer
//! (CUDA's minor version compatibility). So:
//! * the device's architecture among NVRTC's and a driver of NVRTC's major version or newer:
//!   a cubin for `sm_XY` (no JIT when the module loads, whatever the minor versions);
//! * a device newer than every architecture NVRTC knows: PTX for the newest one NVRTC knows
//!   (`compute_XY`, which the driver JIT-compiles for the device), if the driver takes that
//!   NVRTC's PTX;
//! * otherwise an error naming both versions (or the architectures).

/// A CUDA version as the driver reports it (`cuDriverGetVersion`): `1000 major + 10 minor`.
pub fn version_number(major: i32, minor: i32) -> i32 {
    1000 * major + 10 * minor
}

/// `major.minor` of a version number.
pub fn version_text(version: i32) -> String {
    format!("{}.{}", version / 1000, (version % 1000) / 10)
}

/// What NVRTC produces for the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeTarget {
    /// Machine code for `arch` (`sm_XY`, `--gpu-architecture=sm_XY`, NVRTC's cubin).
    Cubin {
        /// The architecture, `sm_XY`.
        arch: String,
    },
    /// PTX for `arch` (`compute_XY`), JIT-compiled by the driver.
    Ptx {
        /// The architecture, `compute_XY`.
        arch: String,
    },
}

impl CodeTarget {
    /// The value of `--gpu-architecture`.
    pub fn arch(&self) -> &str {
        match self {
            CodeTarget::Cubin { arch } | CodeTarget::Ptx { arch } => arch,
        }
    }
    /// A word for cache keys and messages.
    pub fn kind(&self) -> &'static str {
        match self {
            CodeTarget::Cubin { .. } => "cubin",
            CodeTarget::Ptx { .. } => "ptx",
        }
    }
}

/// The versions and the device the decision depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain<'a> {
    /// `nvrtcVersion`, as a version number (see [`version_number`]).
    pub nvrtc: i32,
    /// `cuDriverGetVersion`.
    pub driver: i32,
    /// The device's compute capability, e.g. `(9, 0)`.
    pub compute_capability: (i32, i32),
    /// The architectures NVRTC compiles for (`nvrtcGetSupportedArchs`, e.g. 75, 80, 90, …).
    pub nvrtc_archs: &'a [i32],
}

/// What NVRTC must produce for the device, or why no NVRTC output can run on it.
pub fn code_target(t: &Toolchain<'_>) -> Result<CodeTarget, String> {
    let (major, minor) = t.compute_capability;
    let device = 10 * major + minor;
    let (nvrtc, driver) = (version_text(t.nvrtc), version_text(t.driver));
    let newer_major = t.nvrtc / 1000 > t.driver / 1000;
    if newer_major {
        return Err(format!(
            "NVRTC {nvrtc} is newer than the CUDA driver ({driver}) can take: the driver loads \
             neither its PTX nor its cubins; install a driver for CUDA {nvrtc} or newer, or an \
             NVRTC of CUDA {} (LD_LIBRARY_PATH picks the library)",
            t.driver / 1000
        ));
    }
    if t.nvrtc_archs.contains(&device) {
        return Ok(CodeTarget::Cubin {
            arch: format!("sm_{device}"),
        });
    }
    match t.nvrtc_archs.iter().copied().max() {
        Some(newest) if newest < device => {
            if t.nvrtc > t.driver {
                Err(format!(
                    "NVRTC {nvrtc} does not know the device's architecture sm_{device}, and its \
                     PTX (for compute_{newest}) is newer than the CUDA driver ({driver}) can \
                     take; install a driver for CUDA {nvrtc} or newer"
                ))
            } else {
                Ok(CodeTarget::Ptx {
                    arch: format!("compute_{newest}"),
                })
            }
        }
        _ => Err(format!(
            "NVRTC {nvrtc} cannot compile for the device's architecture sm_{device} (it \
             compiles for {})",
            t.nvrtc_archs
                .iter()
                .map(|a| format!("sm_{a}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUDA13_ARCHS: &[i32] = &[75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121];

    fn target(nvrtc: i32, driver: i32, cc: (i32, i32)) -> Result<CodeTarget, String> {
        code_target(&Toolchain {
            nvrtc,
            driver,
            compute_capability: cc,
            nvrtc_archs: CUDA13_ARCHS,
        })
    }

    #[test]
    fn a_known_device_gets_a_cubin_from_any_driver_of_nvrtc_major_version_or_newer() {
        let cubin = Ok(CodeTarget::Cubin {
            arch: "sm_90".into(),
        });
        assert_eq!(target(13000, 13000, (9, 0)), cubin);
        // NVRTC 13.1 on a 13.0 driver: its PTX would not load, its cubin does.
        assert_eq!(target(13010, 13000, (9, 0)), cubin);
        assert_eq!(target(13000, 14020, (9, 0)), cubin);
        assert_eq!(
            target(13000, 13000, (8, 6)),
            Ok(CodeTarget::Cubin {
                arch: "sm_86".into()
            })
        );
    }

    #[test]
    fn an_nvrtc_of_a_newer_major_version_than_the_driver_is_an_error_naming_both() {
        let err = target(13000, 12080, (9, 0)).expect_err("13.0 on a 12.8 driver");
        assert!(
            err.contains("NVRTC 13.0") && err.contains("(12.8)"),
            "{err}"
        );
    }

    #[test]
    fn a_device_newer_than_nvrtc_knows_gets_ptx_the_driver_can_jit() {
        assert_eq!(
            target(13000, 13020, (13, 0)),
            Ok(CodeTarget::Ptx {
                arch: "compute_121".into()
            })
        );
        let err = target(13010, 13000, (13, 0)).expect_err("PTX too new for the driver");
        assert!(
            err.contains("NVRTC 13.1") && err.contains("(13.0)"),
            "{err}"
        );
    }

    #[test]
    fn a_device_older_than_nvrtc_supports_is_an_error_naming_the_architectures() {
        let err = target(13000, 13000, (7, 0)).expect_err("sm_70 left CUDA 13");
        assert!(err.contains("sm_70") && err.contains("sm_75"), "{err}");
    }

    #[test]
    fn versions_read_as_the_driver_writes_them() {
        assert_eq!(version_number(13, 0), 13000);
        assert_eq!(version_number(12, 8), 12080);
        assert_eq!(version_text(12080), "12.8");
        assert_eq!(version_text(13010), "13.1");
    }
}
