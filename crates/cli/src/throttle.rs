//! `--throttle-iops` and `--throttle-bw` (and their per-direction forms): the in-engine
//! throttle every command that runs IO offers, defined once here and read back into the
//! runner's [`ThrottleLimits`].

use clap::{Arg, ArgMatches, Command};
use diskmeter_orchestrator::ThrottleLimits;

/// The flags, as (id, is a bandwidth, help).
const FLAGS: [(&str, bool, &str); 6] = [
    (
        "throttle-iops",
        true,
        "Cap the whole run at N IOPS, reads and writes together, shared by all its jobs like a \
         cloud disk's or VM's cap (no root needed); an IO waits for its turn and the wait counts \
         in its latency",
    ),
    (
        "throttle-bw",
        false,
        "Cap the whole run's bandwidth, shared by all its jobs (e.g. 200MiB/s; k, m, g and \
         KiB, MiB, GiB are all powers of 1024); an IO's bytes are its cost",
    ),
    ("throttle-read-iops", true, "Cap the run's reads at N IOPS"),
    (
        "throttle-write-iops",
        true,
        "Cap the run's writes at N IOPS",
    ),
    (
        "throttle-read-bw",
        false,
        "Cap the run's read bandwidth (e.g. 100MiB/s)",
    ),
    (
        "throttle-write-bw",
        false,
        "Cap the run's write bandwidth (e.g. 100MiB/s)",
    ),
];

/// Adds the throttle flags to `command`, under their own help heading.
pub fn add_throttle_flags(command: Command) -> Command {
    FLAGS
        .into_iter()
        .fold(command, |command, (name, is_iops, help)| {
            let arg = Arg::new(name)
                .long(name)
                .help_heading("In-engine throttle (a device or VM cap, no root)")
                .help(help);
            command.arg(if is_iops {
                arg.value_name("N")
                    .value_parser(clap::value_parser!(u64).range(1..))
            } else {
                arg.value_name("RATE").value_parser(parse_bandwidth)
            })
        })
}

fn parse_bandwidth(text: &str) -> Result<u64, String> {
    match diskmeter_units::parse_rate(text) {
        Ok(0) => Err("a bandwidth cap of 0 would stop all IO".to_string()),
        Ok(bytes_per_sec) => Ok(bytes_per_sec),
        Err(e) => Err(e.to_string()),
    }
}

/// The caps [`add_throttle_flags`] defined, as given.
pub fn throttle_limits(matches: &ArgMatches) -> ThrottleLimits {
    let get = |name: &str| matches.get_one::<u64>(name).copied();
    ThrottleLimits {
        iops: get("throttle-iops"),
        bytes_per_sec: get("throttle-bw"),
        read_iops: get("throttle-read-iops"),
        write_iops: get("throttle-write-iops"),
        read_bytes_per_sec: get("throttle-read-bw"),
        write_bytes_per_sec: get("throttle-write-bw"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ThrottleLimits, clap::Error> {
        let command = add_throttle_flags(Command::new("t"));
        command
            .try_get_matches_from(std::iter::once("t").chain(args.iter().copied()))
            .map(|m| throttle_limits(&m))
    }

    #[test]
    fn caps_are_read_in_their_units() {
        let limits = parse(&[
            "--throttle-iops",
            "8000",
            "--throttle-bw",
            "200MiB/s",
            "--throttle-write-bw=50m",
        ])
        .unwrap();
        assert_eq!(limits.iops, Some(8000));
        assert_eq!(limits.bytes_per_sec, Some(200 << 20));
        assert_eq!(limits.write_bytes_per_sec, Some(50 << 20));
        assert_eq!(limits.read_iops, None);
        assert!(parse(&[]).unwrap().is_unlimited());
    }

    #[test]
    fn zero_and_nonsense_are_usage_errors() {
        for args in [
            ["--throttle-iops", "0"],
            ["--throttle-iops", "5k"],
            ["--throttle-bw", "0"],
            ["--throttle-bw", "fast"],
        ] {
            assert!(parse(&args).is_err(), "{args:?}");
        }
    }
}
