//! An .icf file's targets mapped to Linux paths: `--target-map KEY=PATH` (the full name or
//! its short form, `C:`), else the positional TARGETs in the order the names first appear,
//! else a name that already is a Linux path. Each refusal names the file's targets.

use super::icf::Icf;
use super::icf_run::{target_key, target_names, ResolvedTarget};
use std::collections::BTreeMap;
use std::path::Path;
use thiserror::Error;

/// Why the file's targets cannot be mapped.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TargetMapError {
    /// A `--target-map` entry is not NAME=PATH.
    #[error("--target-map '{entry}': expected NAME=PATH (e.g. 'C:=/mnt/data')")]
    Malformed {
        /// The entry as given.
        entry: String,
    },
    /// More positional TARGETs than the file has targets.
    #[error("{given} TARGETs given, but {file} names {} target(s): {}", names.len(), listed(names))]
    TooMany {
        /// TARGETs given.
        given: usize,
        /// The .icf file.
        file: String,
        /// The file's target names.
        names: Vec<String>,
    },
    /// A `--target-map` key names no target of the file.
    #[error(
        "--target-map {key}: {file} has no such target; its targets: {}",
        listed(names)
    )]
    NoSuchTarget {
        /// The key as given.
        key: String,
        /// The .icf file.
        file: String,
        /// The file's target names.
        names: Vec<String>,
    },
    /// Targets that name Windows volumes or disks and were not mapped.
    #[error(
        "{file}: the target(s) {} name Windows volumes or disks; map each to a folder (gets \
         iobw.tst), file or block device with --target-map 'C:=/mnt/data' or give TARGETs in \
         this order. Targets in the file: {}",
        listed(missing),
        listed(names)
    )]
    Unmapped {
        /// The .icf file.
        file: String,
        /// The names left unmapped.
        missing: Vec<String>,
        /// The file's target names.
        names: Vec<String>,
    },
}

/// How each of the file's target names resolves (see the module docs); `maps` are the
/// `--target-map` entries, `positional` the TARGETs.
pub fn resolve_targets(
    icf: &Icf,
    file: &str,
    maps: &[String],
    positional: &[String],
) -> Result<BTreeMap<String, ResolvedTarget>, TargetMapError> {
    let mut map: Vec<(String, String)> = Vec::new();
    for entry in maps {
        let (key, path) = entry
            .rsplit_once('=')
            .filter(|(k, p)| !k.trim().is_empty() && !p.is_empty())
            .ok_or_else(|| TargetMapError::Malformed {
                entry: entry.clone(),
            })?;
        map.push((key.trim().to_string(), path.to_string()));
    }
    let names = target_names(icf);
    if positional.len() > names.len() {
        return Err(TargetMapError::TooMany {
            given: positional.len(),
            file: file.to_string(),
            names,
        });
    }
    let mut resolved = BTreeMap::new();
    let mut missing = Vec::new();
    for (index, name) in names.iter().enumerate() {
        let key = target_key(name);
        let path = map
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name) || k.eq_ignore_ascii_case(key))
            .map(|(_, p)| p.clone())
            .or_else(|| positional.get(index).cloned())
            .or_else(|| name.starts_with('/').then(|| name.clone()));
        match path {
            Some(path) => {
                let is_dir = Path::new(&path).is_dir();
                resolved.insert(name.clone(), ResolvedTarget { path, is_dir });
            }
            None => missing.push(name.clone()),
        }
    }
    for (key, _) in &map {
        if !names
            .iter()
            .any(|n| key.eq_ignore_ascii_case(n) || key.eq_ignore_ascii_case(target_key(n)))
        {
            return Err(TargetMapError::NoSuchTarget {
                key: key.clone(),
                file: file.to_string(),
                names,
            });
        }
    }
    if !missing.is_empty() {
        return Err(TargetMapError::Unmapped {
            file: file.to_string(),
            missing,
            names,
        });
    }
    Ok(resolved)
}

fn listed(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}
