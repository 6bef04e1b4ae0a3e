//! The targets, one per kind of input diskmeter reads from its users, and the list a
//! campaign picks from.

use crate::seeds::SeedFile;
use crate::Target;
use std::path::PathBuf;
use std::sync::Arc;

pub mod capture;
pub mod diskspd;
pub mod iolog;
pub mod iometer;
pub mod jobfile;
pub mod plan;
pub mod units;

/// The names of the targets, in the order `all` runs them.
pub const NAMES: [&str; 7] = [
    "jobfile", "diskspd", "iometer", "plan", "iolog", "capture", "units",
];

/// Builds the target called `name`, its seeds read from the repository and `extra_seeds`
/// (folders of job files, such as fio's examples). `None` for an unknown name.
pub fn by_name(name: &str, extra_seeds: &[PathBuf]) -> Option<Arc<dyn Target>> {
    let mut job_dirs = vec![crate::seeds::repository_jobs()];
    job_dirs.extend(extra_seeds.iter().cloned());
    let job_files = || -> Vec<SeedFile> { crate::seeds::load(&job_dirs, &[".fio", ".inc"]) };
    Some(match name {
        "jobfile" => Arc::new(jobfile::JobFiles::new(job_files())),
        "diskspd" => Arc::new(diskspd::DiskSpd::new()),
        "iometer" => Arc::new(iometer::Iometer::new()),
        "plan" => Arc::new(plan::Planner::new(crate::seeds::load(
            &[crate::seeds::repository_catalogs()],
            &[".toml"],
        ))),
        "iolog" => Arc::new(iolog::Iologs::new()),
        "capture" => Arc::new(capture::Captures::new()),
        "units" => Arc::new(units::Units::new()),
        _ => return None,
    })
}
