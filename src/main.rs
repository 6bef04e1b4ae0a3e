//! The `diskmeter` binary: everything lives in the `diskmeter-cli` crate; this file only hands over.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    diskmeter_cli::main()
}
