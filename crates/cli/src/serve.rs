//! `diskmeter serve`: the local dashboard over the history (the `dashboard` feature). Here
//! only the address is decided and the listening line printed; the server is
//! `diskmeter_dashboard::serve`.

use crate::args::db_arg;
use crate::{Status, UsageError};
use clap::{Arg, ArgMatches, Command};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The port `diskmeter serve` listens on when not told.
const DEFAULT_PORT: u16 = 8040;

/// The `serve` subcommand.
pub fn command() -> Command {
    Command::new("serve")
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
        .arg(db_arg())
        .arg(
            Arg::new("port")
                .long("port")
                .value_name("N")
                .help("Listen on 127.0.0.1:N (default 8040; 0 picks a free port); also takes a loopback HOST:PORT"),
        )
        .arg(
            Arg::new("listen")
                .long("listen")
                .value_name("ADDR:PORT")
                .conflicts_with("port")
                .help("Listen on any address, such as 0.0.0.0:8040 (no authentication: prints a warning unless loopback)"),
        )
}

/// Runs `diskmeter serve`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let listen = listen_address(
        matches.get_one::<String>("port").map(String::as_str),
        matches.get_one::<String>("listen").map(String::as_str),
    )?;
    serve(matches, listen)
}

#[cfg(feature = "dashboard")]
fn serve(matches: &ArgMatches, listen: SocketAddr) -> anyhow::Result<Status> {
    use anyhow::Context;
    use diskmeter_orchestrator::HistoryChoice;
    use std::io::Write;

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

#[cfg(not(feature = "dashboard"))]
fn serve(_matches: &ArgMatches, _listen: SocketAddr) -> anyhow::Result<Status> {
    anyhow::bail!("this diskmeter was built without the dashboard (the `dashboard` feature)")
}

/// Where to listen: `--listen` as given, else `--port` on 127.0.0.1 (a HOST:PORT there must
/// be a loopback address), else 127.0.0.1:8040.
fn listen_address(port: Option<&str>, listen: Option<&str>) -> Result<SocketAddr, UsageError> {
    let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
    if let Some(text) = listen {
        return parse_address(text).ok_or_else(|| {
            UsageError(format!(
                "--listen {text}: give an address and port, such as 0.0.0.0:{DEFAULT_PORT} or [::1]:{DEFAULT_PORT}"
            ))
        });
    }
    let Some(text) = port else {
        return Ok(SocketAddr::new(loopback, DEFAULT_PORT));
    };
    if let Ok(port) = text.trim().parse::<u16>() {
        return Ok(SocketAddr::new(loopback, port));
    }
    let address = parse_address(text).ok_or_else(|| {
        UsageError(format!(
            "--port {text}: give a port number (0 picks a free one) or 127.0.0.1:PORT"
        ))
    })?;
    if !address.ip().is_loopback() {
        return Err(UsageError(format!(
            "--port {text}: {} is not a loopback address; the dashboard has no \
             authentication, so another address takes --listen {text}",
            address.ip()
        )));
    }
    Ok(address)
}

/// `ADDR:PORT`, `[V6]:PORT` or `localhost:PORT`.
fn parse_address(text: &str) -> Option<SocketAddr> {
    let text = text.trim();
    if let Ok(address) = text.parse::<SocketAddr>() {
        return Some(address);
    }
    let port = text.strip_prefix("localhost:")?.parse::<u16>().ok()?;
    Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_loopback_on_8040_and_a_port_stays_on_loopback() {
        assert_eq!(
            listen_address(None, None).unwrap().to_string(),
            "127.0.0.1:8040"
        );
        assert_eq!(
            listen_address(Some("0"), None).unwrap().to_string(),
            "127.0.0.1:0"
        );
        for loopback in ["127.0.0.1:9000", "localhost:9000", "[::1]:9000"] {
            assert!(listen_address(Some(loopback), None)
                .unwrap()
                .ip()
                .is_loopback());
        }
    }

    #[test]
    fn a_non_loopback_port_is_refused_naming_listen() {
        for text in ["1.2.3.4:0", "0.0.0.0:8040", "[::]:8040"] {
            let error = listen_address(Some(text), None).unwrap_err().to_string();
            assert!(error.contains("--listen"), "{error}");
        }
        assert!(listen_address(Some("nonsense"), None).is_err());
    }

    #[test]
    fn listen_takes_any_address() {
        let address = listen_address(None, Some("0.0.0.0:8041")).unwrap();
        assert_eq!(address.to_string(), "0.0.0.0:8041");
        assert!(listen_address(None, Some("8041")).is_err());
    }
}
