//! `diskmeter completions SHELL` and `diskmeter man` through the real binary: the bash script
//! parses and completes subcommand names and options in a real bash; the zsh and fish
//! scripts parse where those shells are installed; the manual page renders with groff
//! without a warning and names every subcommand; `man -o DIR` writes one page per command.

use crate::common;

use common::{require_tool, TestDir};
use std::process::Output;

fn diskmeter(args: &[&str]) -> Output {
    common::diskmeter(".", args)
}

fn ok(output: Output) -> String {
    assert!(
        output.status.success(),
        "failed ({:?}): {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// `bash -c SCRIPT` with the completion script as $1's file; returns stdout.
fn bash(dir: &TestDir, script: &str) -> String {
    let completion = dir.path().join("diskmeter.bash");
    std::fs::write(&completion, ok(diskmeter(&["completions", "bash"]))).unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg("bash")
        .arg(&completion)
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "bash failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What bash offers for the words of `line` (the last one being completed).
fn complete(dir: &TestDir, line: &str) -> Vec<String> {
    let script = format!(
        r#"source "$1"
COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}
read -r -a COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
_diskmeter diskmeter "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#
    );
    let mut words: Vec<String> = bash(dir, &script).lines().map(String::from).collect();
    words.sort();
    words
}

#[test]
fn the_bash_completion_parses_registers_and_completes_subcommands_and_options() {
    let dir = TestDir::new();
    let script = dir.path().join("check.bash");
    std::fs::write(&script, ok(diskmeter(&["completions", "bash"]))).unwrap();
    let parsed = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        parsed.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let registered = bash(&dir, r#"source "$1"; complete -p diskmeter"#);
    assert!(
        registered.contains("-F _diskmeter diskmeter"),
        "{registered}"
    );
    assert_eq!(
        complete(&dir, "diskmeter re"),
        ["replay", "report", "requirements"]
    );
    assert_eq!(complete(&dir, "diskmeter chart --ki"), ["--kind"]);
    let shells = complete(&dir, "diskmeter completions ");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        assert!(shells.iter().any(|s| s == shell), "{shell} in {shells:?}");
    }
}

#[test]
fn every_shell_gets_a_script_that_its_shell_parses_where_installed() {
    let dir = TestDir::new();
    for (shell, marker, check) in [
        ("zsh", "#compdef diskmeter", Some("zsh")),
        ("fish", "complete -c diskmeter", Some("fish")),
        ("elvish", "edit:completion:arg-completer[diskmeter]", None),
        ("powershell", "Register-ArgumentCompleter", None),
    ] {
        let script = ok(diskmeter(&["completions", shell]));
        assert!(script.contains(marker), "{shell}: no {marker:?}");
        assert!(
            script.contains("report") && script.contains("kind"),
            "{shell}"
        );
        // zsh and fish are not what the tests install; bash above always runs.
        let Some(check) = check else { continue };
        let installed = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {check}"))
            .output()
            .is_ok_and(|o| o.status.success());
        if !installed {
            eprintln!("{shell} is not installed: its script was checked for its shape only");
            continue;
        }
        let file = dir.path().join(format!("diskmeter.{shell}"));
        std::fs::write(&file, &script).unwrap();
        let parsed = std::process::Command::new(check)
            .arg("-n")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            parsed.status.success(),
            "{check} -n: {}",
            String::from_utf8_lossy(&parsed.stderr)
        );
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = diskmeter(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bash"));
}

/// The names of the visible subcommands, from `diskmeter --help`.
fn subcommands() -> Vec<String> {
    let help = ok(diskmeter(&["--help"]));
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A wrapped description continues further in.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

#[test]
fn the_manual_page_renders_without_warnings_and_names_every_subcommand() {
    let page = ok(diskmeter(&["man"]));
    assert!(page.contains(".TH diskmeter 1"), "{page:.300}");
    let names = subcommands();
    assert!(names.len() > 15, "{names:?}");
    for name in &names {
        assert!(
            page.contains(&format!("diskmeter\\-{}", name.replace('-', "\\-"))),
            "the page names {name}"
        );
    }
    if !require_tool("the manual page renders", "groff") {
        return;
    }
    let dir = TestDir::new();
    let file = dir.path().join("diskmeter.1");
    std::fs::write(&file, &page).unwrap();
    let rendered = std::process::Command::new("groff")
        // -P-cbou: plain text, no bold or underlining by overstriking.
        .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
        .arg(&file)
        .output()
        .unwrap();
    let warnings = String::from_utf8_lossy(&rendered.stderr);
    assert!(
        rendered.status.success() && warnings.is_empty(),
        "{warnings}"
    );
    let text = String::from_utf8_lossy(&rendered.stdout);
    assert!(
        text.contains("SYNOPSIS") && text.contains("chart"),
        "{text}"
    );
}

#[test]
fn man_into_a_folder_writes_a_page_per_command() {
    let dir = TestDir::new();
    let out = dir.path().join("man1");
    let said = ok(diskmeter(&["man", "-o", out.to_str().unwrap()]));
    let mut expected = vec!["diskmeter.1".to_string()];
    expected.extend(subcommands().iter().map(|s| format!("diskmeter-{s}.1")));
    for page in &expected {
        let text = std::fs::read_to_string(out.join(page))
            .unwrap_or_else(|e| panic!("{page}: {e} ({said})"));
        assert!(text.contains(".TH"), "{page}");
    }
    assert!(said.starts_with("wrote "), "{said}");
    let chart = std::fs::read_to_string(out.join("diskmeter-chart.1")).unwrap();
    assert!(chart.contains("\\-\\-kind") && chart.contains("\\-\\-step"));
}
