//! `diskmeter emulate create|destroy|list|profiles|exec` (the ephemeral emulation behind
//! `diskmeter run|suite|sweep --emulate PROFILE` is the orchestrator's).

use crate::{Status, UsageError};
use anyhow::Context;
use clap::{Arg, ArgMatches, Command};
use diskmeter_emulate::{EmulationSpec, GivenCaps};
use diskmeter_plan::Catalog;
use diskmeter_units::{format_bytes_binary, parse_size, KbBase};
use std::path::PathBuf;

/// The emulated disk's size when none is given.
const DEFAULT_SIZE: &str = "1g";

/// The `emulate` subcommand's definition.
pub fn command() -> Command {
    let caps = |command: Command| {
        [
            ("iops", "IOPS cap, both directions"),
            (
                "bw",
                "Bandwidth cap, both directions (e.g. 200m = 200 MiB/s)",
            ),
            ("read-iops", "Read IOPS cap"),
            ("write-iops", "Write IOPS cap"),
            ("read-bw", "Read bandwidth cap"),
            ("write-bw", "Write bandwidth cap"),
        ]
        .into_iter()
        .fold(command, |c, (name, help)| {
            c.arg(Arg::new(name).long(name).value_name("N").help(help))
        })
    };
    Command::new("emulate")
        .about("Emulate a cloud disk tier: a loop device under a cgroup IO throttle (root)")
        .long_about(
            "Emulates a throttled cloud disk on this machine: a loop device doing direct IO on a \
             backing file, under a cgroup (v1 blkio or v2 io.max) that caps its IOPS and \
             bandwidth, from a profile of the catalog (azure-p30 = 5,000 IOPS / 200 MiB/s, \
             azure-p10, do-volume, ...) or given caps. Processes in the cgroup see a throttled \
             volume; `diskmeter run|suite|sweep --emulate PROFILE` makes one for the run and puts \
             its workers in it, and `diskmeter emulate exec NAME -- COMMAND` runs any command \
             (diskmeter, fio) in an existing one's cgroup. `create --disks N` makes N disks, each \
             capped on its own (a VM's stripe); cgroup rules are per device, so a VM-level cap \
             across the disks is the in-engine throttle's: add --throttle-iops / --throttle-bw \
             to the run. Needs root; without it, --throttle-iops and --throttle-bw on run, \
             suite or sweep cap a run on any file instead.\n\n\
             Exit codes: 0 ok; 1 a system step failed; 2 usage error.",
        )
        .subcommand_required(true)
        .subcommand(caps(
            Command::new("create")
                .about("Create an emulated disk and print its device")
                .arg(Arg::new("name").long("name").value_name("NAME").help("Its name (default: the profile)"))
                .arg(Arg::new("profile").long("profile").value_name("PROFILE").help("A catalog tier, e.g. azure-p30"))
                .arg(Arg::new("size").long("size").value_name("SIZE").default_value(DEFAULT_SIZE).help("Size of the emulated disk"))
                .arg(
                    Arg::new("disks")
                        .long("disks")
                        .value_name("N")
                        .default_value("1")
                        .value_parser(clap::value_parser!(u32).range(1..=i64::from(diskmeter_emulate::MAX_DISKS)))
                        .help("Make N disks of these caps and size, each capped on its own (a VM's stripe); prints one device per line"),
                )
                .arg(Arg::new("dir").long("dir").value_name("DIR").default_value(".").help("Folder of the backing file (not tmpfs: it needs direct IO)")),
        ))
        .subcommand(
            Command::new("destroy")
                .about("Remove an emulated disk: cgroup, loop device, backing file")
                .arg(Arg::new("name").value_name("NAME").required(true)),
        )
        .subcommand(Command::new("list").about("List the emulated disks"))
        .subcommand(
            Command::new("exec")
                .about("Run a command inside an emulation's cgroup, so its IO to the emulated disks is throttled")
                .arg(Arg::new("name").value_name("NAME").required(true))
                .arg(
                    Arg::new("command")
                        .value_name("COMMAND")
                        .required(true)
                        .num_args(1..)
                        .trailing_var_arg(true)
                        .allow_hyphen_values(true)
                        .help("The command and its arguments, after --"),
                ),
        )
        .subcommand(Command::new("profiles").about("List the profiles (the catalog's disk tiers)"))
}

/// Runs the `emulate` subcommand.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    match matches.subcommand() {
        Some(("create", sub)) => create(sub),
        Some(("destroy", sub)) => {
            let name = sub.get_one::<String>("name").cloned().unwrap_or_default();
            diskmeter_emulate::find(&name).and_then(|e| diskmeter_emulate::destroy(&e))?;
            Ok(Status::Success)
        }
        Some(("list", _)) => {
            for e in diskmeter_emulate::list() {
                let disks = e.disks();
                let join = |path: fn(&diskmeter_emulate::EmulatedDisk) -> &std::path::Path| {
                    disks
                        .iter()
                        .map(|d| path(d).display().to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                println!(
                    "{}\t{}\t{}\t{} IOPS r / {} IOPS w, {} r / {} w{}\t{}",
                    e.spec.name,
                    join(|d| &d.device),
                    format_bytes_binary(e.spec.size_bytes),
                    cap(e.spec.caps.read_iops),
                    cap(e.spec.caps.write_iops),
                    rate(e.spec.caps.read_bytes_per_sec),
                    rate(e.spec.caps.write_bytes_per_sec),
                    if disks.len() > 1 { " per disk" } else { "" },
                    join(|d| &d.backing)
                );
            }
            Ok(Status::Success)
        }
        Some(("exec", sub)) => exec(sub),
        Some(("profiles", _)) => {
            for (id, name, iops, mibps) in diskmeter_emulate::profiles(&Catalog::builtin()) {
                println!(
                    "{id}\t{name}\t{} IOPS\t{} MiB/s",
                    iops.map_or("-".into(), |v| v.to_string()),
                    mibps.map_or("-".into(), |v| v.to_string())
                );
            }
            Ok(Status::Success)
        }
        _ => Err(UsageError("give create, destroy, list, exec or profiles".into()).into()),
    }
}

fn cap(value: Option<u64>) -> String {
    value.map_or("uncapped".to_string(), |v| v.to_string())
}

fn rate(value: Option<u64>) -> String {
    value.map_or("uncapped".to_string(), |v| {
        format!("{}/s", format_bytes_binary(v))
    })
}

fn create(matches: &ArgMatches) -> anyhow::Result<Status> {
    let spec = spec_of(matches).map_err(UsageError)?;
    let emulation = diskmeter_emulate::create(&spec).map_err(|error| {
        let hint = diskmeter_emulate::throttle_flags_hint(&error, &spec.caps);
        anyhow::anyhow!("{error}{hint}")
    })?;
    for disk in emulation.disks() {
        println!("{}", disk.device.display());
    }
    Ok(Status::Success)
}

/// Moves this process into emulation `name`'s cgroup and replaces it with the command, so
/// the command (and every thread and child it starts) is throttled. Returns only on failure.
fn exec(matches: &ArgMatches) -> anyhow::Result<Status> {
    let name = matches
        .get_one::<String>("name")
        .cloned()
        .unwrap_or_default();
    let command: Vec<&String> = matches
        .get_many::<String>("command")
        .map(|v| v.collect())
        .unwrap_or_default();
    let Some((program, args)) = command.split_first() else {
        return Err(UsageError("give the command to run after --".into()).into());
    };
    diskmeter_emulate::find(&name).and_then(|e| diskmeter_emulate::enter(&e))?;
    let error = std::os::unix::process::CommandExt::exec(
        std::process::Command::new(program.as_str()).args(args.iter().map(|a| a.as_str())),
    );
    Err(error).with_context(|| format!("cannot run {program}"))
}

fn spec_of(matches: &ArgMatches) -> Result<EmulationSpec, String> {
    let profile = matches.get_one::<String>("profile");
    let caps = match profile {
        Some(p) => {
            diskmeter_emulate::profile_caps(p, &Catalog::builtin())
                .map_err(|e| e.to_string())?
                .1
        }
        None => diskmeter_emulate::Caps::default(),
    };
    let number = |name: &str| -> Result<Option<u64>, String> {
        matches
            .get_one::<String>(name)
            .map(|v| parse_size(v, KbBase::Binary).map_err(|e| format!("--{name}: {e}")))
            .transpose()
    };
    let given = GivenCaps {
        iops: number("iops")?,
        bytes_per_sec: number("bw")?,
        read_iops: number("read-iops")?,
        write_iops: number("write-iops")?,
        read_bytes_per_sec: number("read-bw")?,
        write_bytes_per_sec: number("write-bw")?,
    };
    let caps = caps.overridden(&given);
    if caps == diskmeter_emulate::Caps::default() {
        return Err("give --profile or at least one cap (--iops, --bw, ...)".to_string());
    }
    let name = matches
        .get_one::<String>("name")
        .cloned()
        .or_else(|| profile.map(|p| p.to_ascii_lowercase()))
        .unwrap_or_else(|| "custom".to_string());
    let size = matches
        .get_one::<String>("size")
        .map_or(DEFAULT_SIZE, String::as_str);
    Ok(EmulationSpec {
        name,
        size_bytes: parse_size(size, KbBase::Binary).map_err(|e| format!("--size: {e}"))?,
        caps,
        dir: PathBuf::from(matches.get_one::<String>("dir").map_or(".", String::as_str)),
        owner_pid: None,
        disks: matches.get_one::<u32>("disks").copied().unwrap_or(1),
    })
}
