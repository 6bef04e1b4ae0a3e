//! The `diskmeter` binary: everything lives in the `diskmeter-cli` crate; this file only hands over.

fn main() -> std::process::ExitCode {
    diskmeter_cli::main()
}
