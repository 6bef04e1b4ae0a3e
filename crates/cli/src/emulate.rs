//! `diskmeter emulate create|destroy|list|profiles|exec` (the ephemeral emulation behind
//! `diskmeter run|suite|sweep --emulate PROFILE` is the orchestrator's).

use crate::{Status, UsageError};
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches, Subcommand};
use diskmeter_emulate::{CreateRequest, BURST_FLAGS, MAX_DISKS};
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

// `emulate create`'s options; the caps and the burst come from the emulation crate's tables
// (`CAP_FLAGS`, `BURST_FLAGS`), added in `command`.
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
    /// Keep the emulation (and its burst controller) in the foreground until Ctrl-C or
    /// SIGTERM, then remove it
    #[arg(long)]
    foreground: bool,
}

/// The `emulate` subcommand's definition.
pub fn command() -> Command {
    let emulate = Command::new("emulate")
        .about("Emulate a cloud disk tier: a loop device under a cgroup IO throttle (root)")
        .long_about(views::ABOUT)
        .subcommand_required(true);
    let flags = diskmeter_emulate::CAP_FLAGS.into_iter().chain(BURST_FLAGS);
    EmulateCommand::augment_subcommands(emulate).mut_subcommand("create", |create| {
        flags.fold(create, |c, (flag, value, help)| {
            c.arg(Arg::new(flag).long(flag).value_name(value).help(help))
        })
    })
}

/// Runs the `emulate` subcommand.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    match EmulateCommand::from_arg_matches(matches)? {
        EmulateCommand::Create(args) => {
            create(&args, matches.subcommand().map_or(matches, |(_, m)| m))?
        }
        EmulateCommand::Destroy { name } => {
            diskmeter_emulate::find(&name).and_then(|e| diskmeter_emulate::destroy(&e))?;
        }
        EmulateCommand::List => print!("{}", views::emulations(&diskmeter_emulate::list())),
        EmulateCommand::Exec { name, command } => {
            let (program, args) = command.split_first().unwrap_or((&name, &[]));
            return Err(diskmeter_emulate::exec(&name, program, args).into());
        }
        EmulateCommand::Profiles => print!("{}", views::profiles(&Catalog::builtin())),
    }
    Ok(Status::Success)
}

fn create(args: &CreateArgs, matches: &ArgMatches) -> anyhow::Result<()> {
    let given = |flag| {
        matches
            .try_get_one::<String>(flag)
            .ok()
            .flatten()
            .map(String::as_str)
    };
    let request = CreateRequest {
        name: args.name.as_deref(),
        profile: args.profile.as_deref(),
        size: &args.size,
        disks: args.disks,
        dir: &args.dir,
        caps: diskmeter_emulate::CAP_FLAGS.map(|(flag, _, _)| (flag, given(flag))),
        burst: BURST_FLAGS.map(|(flag, _, _)| given(flag)),
    };
    let mut spec = request
        .spec(&Catalog::builtin())
        .map_err(|e| UsageError(e.to_string()))?;
    // Held in the foreground, it is this process's: a kill -9 leaves it to the next sweep.
    spec.owner_pid = args.foreground.then(std::process::id);
    let emulation = diskmeter_emulate::create(&spec).map_err(|error| {
        let hint = diskmeter_emulate::throttle_flags_hint(&error, &spec);
        anyhow::anyhow!("{error}{hint}")
    })?;
    print!("{}", views::devices(&emulation));
    match args.foreground {
        true => Ok(diskmeter_orchestrator::HeldEmulation::hold(emulation)?.wait()?),
        false => Ok(()),
    }
}
