//! `diskmeter catalog list|show`: the disk tiers and VM sizes the planner knows, with the
//! source and date of every figure.

use crate::plan::CatalogArgs;
use crate::{Status, UsageError};
use clap::{ArgMatches, Command, FromArgMatches, Subcommand};
use diskmeter_views::catalog as text;

// `catalog`'s subcommands.
#[derive(Subcommand)]
enum CatalogCommand {
    /// Every disk tier and VM size
    List(CatalogArgs),
    /// One disk tier or VM size, every field with its source
    Show {
        /// Disk tier or VM size, e.g. P30 or Standard_DS14
        #[arg(value_name = "id")]
        id: String,
        #[command(flatten)]
        args: CatalogArgs,
    },
}

/// The `catalog` subcommand's definition.
pub fn command() -> Command {
    CatalogCommand::augment_subcommands(
        Command::new("catalog")
            .about("List or show the published disk tiers and VM sizes the planner uses")
            .long_about(
                "The planner's catalog (current: what the clouds sell today; --builtin-catalog \
                 guides: the guides' 2019 figures): disk types (caps, formulas, latency class, \
                 bursting, prices) and VM sizes (uncached, burst and cache caps, cores, data disks, \
                 price), each figure with its document and date; '-' where no source gives one. \
                 --catalog FILE adds or overrides entries (same id or alias: replaced whole).",
            )
            .subcommand_required(true),
    )
}

/// Runs `diskmeter catalog`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    match CatalogCommand::from_arg_matches(matches)? {
        CatalogCommand::List(args) => {
            let catalog = args.load()?;
            args.emit(None, &catalog, text::catalog_list(&catalog))?;
        }
        CatalogCommand::Show { id, args } => {
            let catalog = args.load()?;
            let entry = catalog.entry(&id).map_err(|e| UsageError(e.to_string()))?;
            args.emit(None, &entry, text::entry(&catalog, entry))?;
        }
    }
    Ok(Status::Success)
}
