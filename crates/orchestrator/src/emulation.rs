//! The emulated cloud disk a session can run on (`--emulate PROFILE`): made when the session
//! opens, the process moved into its cgroup so every IO is throttled, and removed when the
//! session ends — normally, after an error, or after Ctrl-C (the guard's drop). A bursting
//! disk (a bursting profile, or `--emulate-burst-*`) has its burst controller running as a
//! thread of this process for as long, stopped before the disk is removed. Also the
//! emulation `emulate create --foreground` holds until Ctrl-C or SIGTERM ([`HeldEmulation`]).

use crate::error::OrchestrateError;
use diskmeter_emulate::{BurstController, Emulation, EmulationSpec, EphemeralEmulation};
use diskmeter_plan::Catalog;
use std::path::{Path, PathBuf};

/// An emulated disk to make for the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmulateRequest {
    /// A profile of the catalog (`azure-p30`, `do-volume`, ...).
    pub profile: String,
    /// The disk's size.
    pub size_bytes: u64,
    /// `--emulate-burst-iops`, `--emulate-burst-bw`, `--emulate-burst-time` as typed, over
    /// the profile's credit bucket.
    pub burst: [Option<String>; 3],
}

/// The session's emulated disk; dropping it stops its burst controller, then removes the
/// disk and its cgroup (fields drop in order).
pub(crate) struct EmulatedDisk {
    _controller: Option<BurstController>,
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
        let catalog = Catalog::builtin();
        let usage = |e: diskmeter_emulate::EmulateError| fail(e.to_string(), true);
        let (_, caps) =
            diskmeter_emulate::profile_caps(&request.profile, &catalog).map_err(usage)?;
        let profile_burst =
            diskmeter_emulate::profile_burst(&request.profile, &catalog).map_err(usage)?;
        let given = [0, 1, 2].map(|i| request.burst[i].as_deref());
        let burst =
            diskmeter_emulate::burst_for(profile_burst, &caps, given, "emulate-").map_err(usage)?;
        let spec = EmulationSpec {
            name: format!("run-{}", std::process::id()),
            size_bytes: request.size_bytes,
            caps,
            dir: PathBuf::from("."),
            owner_pid: Some(std::process::id()),
            disks: 1,
            burst,
        };
        let emulation = diskmeter_emulate::create(&spec).map_err(|e| {
            let hint = diskmeter_emulate::throttle_flags_hint(&e, &spec);
            fail(format!("{e}{hint}"), false)
        })?;
        let guard = EphemeralEmulation(emulation);
        diskmeter_emulate::enter(&guard.0).map_err(|e| fail(e.to_string(), false))?;
        let controller =
            BurstController::start(&guard.0).map_err(|e| fail(e.to_string(), false))?;
        Ok(EmulatedDisk {
            _controller: controller,
            guard,
        })
    }

    /// What a run on the disk is told about it: its profile's bucket, when it bursts
    /// ("emulated disk: 500 IOPS per direction, bursts to 3,500 IOPS for 12 s ...").
    pub(crate) fn note(&self) -> Option<String> {
        let spec = &self.guard.0.spec;
        let burst = spec.burst?.describe(&spec.caps);
        Some(format!(
            "emulated disk {}: its caps are the baseline; {burst}, the bucket full at the start \
             and played by a controller every 100 ms",
            self.guard.0.device.display()
        ))
    }

    /// The throttled block device.
    pub(crate) fn device(&self) -> &Path {
        &self.guard.0.device
    }
}

/// An emulation held in the foreground (`emulate create --foreground`): its burst controller
/// runs until [`HeldEmulation::wait`] sees Ctrl-C or SIGTERM; dropping it stops the
/// controller and removes the emulation.
pub struct HeldEmulation {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    _controller: Option<BurstController>,
    _guard: EphemeralEmulation,
}

impl HeldEmulation {
    /// Takes charge of `emulation` (removed when this is dropped, whatever happens next) and
    /// starts its burst controller, if it bursts.
    pub fn hold(emulation: Emulation) -> Result<HeldEmulation, OrchestrateError> {
        let guard = EphemeralEmulation(emulation);
        let fail = |e: diskmeter_emulate::EmulateError| OrchestrateError::Emulation {
            profile: guard.0.spec.name.clone(),
            message: e.to_string(),
            usage: false,
        };
        // The handlers first, so a Ctrl-C from here on is a clean stop.
        let stop = crate::signals::stop_flag().map_err(OrchestrateError::Signals)?;
        let controller = BurstController::start(&guard.0).map_err(fail)?;
        Ok(HeldEmulation {
            stop,
            _controller: controller,
            _guard: guard,
        })
    }

    /// Blocks until Ctrl-C or SIGTERM, then removes the emulation.
    pub fn wait(self) -> Result<(), OrchestrateError> {
        while !self.stop.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Ok(())
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
