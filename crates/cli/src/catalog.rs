//! `diskmeter catalog list|show`: the disk tiers and VM sizes the planner knows, with the
//! source and date of every figure.

use crate::plan::{catalog_arg, emit, format_arg, load_catalog};
use crate::{Status, UsageError};
use clap::{Arg, ArgMatches, Command};
use diskmeter_plan::text;

/// The `catalog` subcommand's definition.
pub fn command() -> Command {
    Command::new("catalog")
        .about("List or show the published disk tiers and VM sizes the planner uses")
        .long_about(
            "The planner's catalog: disk tiers (IOPS and MiB/s caps, size, price) and VM sizes \
             (uncached and host-cache caps, cores, data disks, price), each with its source and \
             date. Figures no source gives are shown as '-'. --catalog FILE adds or overrides \
             entries (an entry with the same id or alias replaces the built-in one whole).",
        )
        .subcommand_required(true)
        .subcommand(
            Command::new("list")
                .about("Every disk tier and VM size")
                .arg(catalog_arg())
                .arg(format_arg()),
        )
        .subcommand(
            Command::new("show")
                .about("One disk tier or VM size, every field with its source")
                .arg(
                    Arg::new("id")
                        .required(true)
                        .help("Disk tier or VM size, e.g. P30 or Standard_DS14"),
                )
                .arg(catalog_arg())
                .arg(format_arg()),
        )
}

/// Runs `diskmeter catalog`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let Some((name, sub)) = matches.subcommand() else {
        return Err(UsageError("give list or show".into()).into());
    };
    let catalog = load_catalog(sub)?;
    match name {
        "list" => emit(sub, &catalog, text::catalog_list(&catalog))?,
        "show" => {
            let id = sub
                .get_one::<String>("id")
                .map(String::as_str)
                .unwrap_or("");
            if let Ok(disk) = catalog.disk(id) {
                emit(sub, disk, text::disk_entry(disk))?;
            } else if let Ok(vm) = catalog.vm(id) {
                emit(sub, vm, text::vm_entry(vm))?;
            } else {
                let mut known: Vec<&str> = catalog.disks.iter().map(|d| d.id.as_str()).collect();
                known.extend(catalog.vms.iter().map(|v| v.id.as_str()));
                return Err(UsageError(format!(
                    "'{id}' is neither a disk tier nor a VM size in the catalog; it has {}",
                    known.join(", ")
                ))
                .into());
            }
        }
        _ => return Err(UsageError("give list or show".into()).into()),
    }
    Ok(Status::Success)
}
