//! `diskmeter emulate create|destroy|list|profiles|exec` (the ephemeral emulation behind
//! `diskmeter run|suite|sweep --emulate PROFILE` is the orchestrator's).

use crate::{Status, UsageError};
use anyhow::Context;
use clap::{ArgMatches, Args, Command, FromArgMatches, Subcommand};
use diskmeter_emulate::{CreateRequest, MAX_DISKS};
use diskmeter_plan::Catalog;
use diskmeter_views::emulate as views;

// `emulate`'s subcommands.
#[derive(Subcommand)]
enum EmulateCommand {
    /// Create an emulated disk and print its device
    Create(CreateArgs),
    /// Remove an emulated disk: cgroup, loop device, backing file
    Destroy { name: String },
    /// List the emulated disks
    List,
    /// Run a command inside an emulation's cgroup, so its IO to the emulated disks is throttled
    Exec {
        name: String,
        /// The command and its arguments, after --
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// List the profiles (the catalog's disk tiers)
    Profiles,
}

// `emulate create`'s options.
#[derive(Args)]
struct CreateArgs {
    /// Its name (default: the profile)
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// A catalog tier, e.g. azure-p30
    #[arg(long, value_name = "PROFILE")]
    profile: Option<String>,
    /// Size of the emulated disk
    #[arg(long, value_name = "SIZE", default_value = "1g")]
    size: String,
    /// Make N disks of these caps and size, each capped on its own (a VM's stripe); prints one
    /// device per line
    #[arg(long, value_name = "N", default_value = "1")]
    #[arg(value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DISKS)))]
    disks: u32,
    /// Folder of the backing file (not tmpfs: it needs direct IO)
    #[arg(long, value_name = "DIR", default_value = ".")]
    dir: String,
    /// IOPS cap, both directions
    #[arg(long, value_name = "N")]
    iops: Option<String>,
    /// Bandwidth cap, both directions (e.g. 200m = 200 MiB/s)
    #[arg(long, value_name = "N")]
    bw: Option<String>,
    /// Read IOPS cap
    #[arg(long, value_name = "N")]
    read_iops: Option<String>,
    /// Write IOPS cap
    #[arg(long, value_name = "N")]
    write_iops: Option<String>,
    /// Read bandwidth cap
    #[arg(long, value_name = "N")]
    read_bw: Option<String>,
    /// Write bandwidth cap
    #[arg(long, value_name = "N")]
    write_bw: Option<String>,
}

/// The `emulate` subcommand's definition.
pub fn command() -> Command {
    let emulate = Command::new("emulate")
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
        .subcommand_required(true);
    EmulateCommand::augment_subcommands(emulate)
}

/// Runs the `emulate` subcommand.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    match EmulateCommand::from_arg_matches(matches)? {
        EmulateCommand::Create(args) => create(&args)?,
        EmulateCommand::Destroy { name } => {
            diskmeter_emulate::find(&name).and_then(|e| diskmeter_emulate::destroy(&e))?;
        }
        EmulateCommand::List => print!("{}", views::emulations(&diskmeter_emulate::list())),
        EmulateCommand::Exec { name, command } => return exec(&name, &command),
        EmulateCommand::Profiles => print!("{}", views::profiles(&Catalog::builtin())),
    }
    Ok(Status::Success)
}

fn create(args: &CreateArgs) -> anyhow::Result<()> {
    let request = CreateRequest {
        name: args.name.as_deref(),
        profile: args.profile.as_deref(),
        size: &args.size,
        disks: args.disks,
        dir: &args.dir,
        caps: [
            ("iops", args.iops.as_deref()),
            ("bw", args.bw.as_deref()),
            ("read-iops", args.read_iops.as_deref()),
            ("write-iops", args.write_iops.as_deref()),
            ("read-bw", args.read_bw.as_deref()),
            ("write-bw", args.write_bw.as_deref()),
        ],
    };
    let spec = request
        .spec(&Catalog::builtin())
        .map_err(|e| UsageError(e.to_string()))?;
    let emulation = diskmeter_emulate::create(&spec).map_err(|error| {
        let hint = diskmeter_emulate::throttle_flags_hint(&error, &spec.caps);
        anyhow::anyhow!("{error}{hint}")
    })?;
    for disk in emulation.disks() {
        println!("{}", disk.device.display());
    }
    Ok(())
}

/// Moves this process into emulation `name`'s cgroup and replaces it with the command, so
/// the command (and every thread and child it starts) is throttled. Returns only on failure.
fn exec(name: &str, command: &[String]) -> anyhow::Result<Status> {
    let Some((program, args)) = command.split_first() else {
        return Err(UsageError("give the command to run after --".into()).into());
    };
    diskmeter_emulate::find(name).and_then(|e| diskmeter_emulate::enter(&e))?;
    let error =
        std::os::unix::process::CommandExt::exec(std::process::Command::new(program).args(args));
    Err(error).with_context(|| format!("cannot run {program}"))
}
