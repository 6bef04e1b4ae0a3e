//! `diskmeter serve`: the local dashboard over the history (the `dashboard` feature). Here
//! only the listening line and the warnings are printed; the address is decided by
//! `diskmeter_dashboard::listen_address` and the server is `diskmeter_dashboard::serve`.

use crate::args::db_arg;
use crate::Status;
use clap::{ArgMatches, Args, Command};

/// The `serve` subcommand.
pub fn command() -> Command {
    ServeArgs::augment_args(Command::new("serve").arg(db_arg()))
        .about("Serve a local, read-only dashboard over the results history")
        .long_about(
            "Serves a dashboard over the results history at http://127.0.0.1:8040/: the run \
             list with filters (kind, suite, target, host, dates), each run's page (runs, \
             suites, sweeps, captures) with its charts, comparisons of two runs, and the runs \
             in progress, drawn live as their points are measured. It only reads the \
             database. The first line printed is `diskmeter serve: listening on \
             http://ADDR:PORT/`. Ctrl-C stops it (exit 0).\n\n\
             It listens on 127.0.0.1 only: the dashboard has no authentication. --listen \
             ADDR:PORT serves another address (0.0.0.0:8040 for every interface), with a \
             warning.",
        )
}

// The options of `serve` after `--db` (not a doc comment: clap's derive would make it the
// about).
#[derive(Args)]
#[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
struct ServeArgs {
    /// Listen on 127.0.0.1:N (default 8040; 0 picks a free port); also takes a loopback
    /// HOST:PORT
    #[arg(long, value_name = "N")]
    port: Option<String>,
    /// Listen on any address, such as 0.0.0.0:8040 (no authentication: prints a warning
    /// unless loopback)
    #[arg(long, value_name = "ADDR:PORT", conflicts_with = "port")]
    listen: Option<String>,
}

/// Runs `diskmeter serve`.
#[cfg(feature = "dashboard")]
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    use anyhow::Context;
    use diskmeter_orchestrator::HistoryChoice;
    use std::io::Write;

    let args = <ServeArgs as clap::FromArgMatches>::from_arg_matches(matches)?;
    let listen = diskmeter_dashboard::listen_address(args.port.as_deref(), args.listen.as_deref())
        .map_err(|e| crate::UsageError(e.to_string()))?;
    let choice = matches
        .get_one::<std::path::PathBuf>("db")
        .map_or(HistoryChoice::Default, |p| HistoryChoice::At(p.clone()));
    let Some(db) = choice.path()? else {
        anyhow::bail!("no history given");
    };
    if !listen.ip().is_loopback() {
        eprintln!(
            "diskmeter serve: warning: listening on {listen}, not only on this host: the \
             dashboard has no authentication and shows this host's results to anyone who can \
             reach it"
        );
    }
    if !db.exists() {
        eprintln!(
            "diskmeter serve: no history at {} yet: runs appear as they are saved",
            db.display()
        );
    }
    let config = diskmeter_dashboard::ServeConfig {
        db: db.clone(),
        listen,
    };
    diskmeter_dashboard::serve(&config, |bound| {
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "diskmeter serve: listening on http://{bound}/");
        let _ = stdout.flush();
    })
    .with_context(|| format!("diskmeter serve --db {}", db.display()))?;
    Ok(Status::Success)
}

/// Runs `diskmeter serve`: not in a build without the dashboard.
#[cfg(not(feature = "dashboard"))]
pub fn main(_matches: &ArgMatches) -> anyhow::Result<Status> {
    anyhow::bail!("this diskmeter was built without the dashboard (the `dashboard` feature)")
}
