//! The emulated cloud disk a session can run on (`--emulate PROFILE`): made when the session
//! opens, the process moved into its cgroup so every IO is throttled, and removed when the
//! session ends — normally, after an error, or after Ctrl-C (the guard's drop).

use crate::error::OrchestrateError;
use diskmeter_emulate::{EmulationSpec, EphemeralEmulation};
use diskmeter_plan::Catalog;
use std::path::{Path, PathBuf};

/// An emulated disk to make for the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmulateRequest {
    /// A profile of the catalog (`azure-p30`, `do-volume`, ...).
    pub profile: String,
    /// The disk's size.
    pub size_bytes: u64,
}

/// The session's emulated disk; dropping it removes the disk and its cgroup.
pub(crate) struct EmulatedDisk {
    guard: EphemeralEmulation,
}

impl EmulatedDisk {
    /// Makes the disk of `request` and moves this process into its cgroup.
    pub(crate) fn create(request: &EmulateRequest) -> Result<EmulatedDisk, OrchestrateError> {
        let fail = |message: String, usage: bool| OrchestrateError::Emulation {
            profile: request.profile.clone(),
            message,
            usage,
        };
        let (_, caps) = diskmeter_emulate::profile_caps(&request.profile, &Catalog::builtin())
            .map_err(|e| fail(e.to_string(), true))?;
        let spec = EmulationSpec {
            name: format!("run-{}", std::process::id()),
            size_bytes: request.size_bytes,
            caps,
            dir: PathBuf::from("."),
            owner_pid: Some(std::process::id()),
            disks: 1,
        };
        let emulation = diskmeter_emulate::create(&spec).map_err(|e| {
            let hint = diskmeter_emulate::throttle_flags_hint(&e, &caps);
            fail(format!("{e}{hint}"), false)
        })?;
        let guard = EphemeralEmulation(emulation);
        diskmeter_emulate::enter(&guard.0).map_err(|e| fail(e.to_string(), false))?;
        Ok(EmulatedDisk { guard })
    }

    /// The throttled block device.
    pub(crate) fn device(&self) -> &Path {
        &self.guard.0.device
    }
}

impl crate::Session {
    /// Aims `jobs` at the session's emulated disk, if it has one: each job's files become the
    /// disk, or with `redirect_iologs` a job that replays an iolog is redirected onto it
    /// (`replay_redirect`: the log names the traced device).
    pub fn aim_at_emulated_device(
        &self,
        jobs: &mut [diskmeter_workload::JobSpec],
        redirect_iologs: bool,
    ) {
        let Some(device) = self.emulated_device() else {
            return;
        };
        for job in jobs {
            if redirect_iologs && job.iolog.read_iolog.is_some() {
                job.iolog.replay_redirect = Some(device.to_path_buf());
            } else {
                job.filenames = vec![device.to_path_buf()];
            }
        }
    }
}
