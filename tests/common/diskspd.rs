//! `diskmeter diskspd` for the tests of both binaries: a command line run in a test's folder,
//! and the numbers of its `-Rxml` report (tests/parallel/diskspd.rs checks the front end,
//! tests/alone/diskspd_throttles.rs its measured rates).

use super::TestDir;
use assert_cmd::Command;

/// `diskmeter diskspd --quiet LINE` in `dir` (LINE split at blanks, as a shell would).
pub fn command(dir: &TestDir, line: &str) -> Command {
    let mut cmd = super::command();
    cmd.current_dir(dir.path())
        .arg("diskspd")
        .arg("--quiet")
        .args(line.split_whitespace());
    cmd
}

/// Runs `line` with -Rxml and returns the document's text, checked to be well-formed.
pub fn xml(dir: &TestDir, line: &str) -> String {
    let out = command(dir, &format!("-Rxml {line}"))
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{line}: not XML: {e}\n{text}"));
    text
}

/// The sum of every `<tag>` number in the document (one per thread).
pub fn sum(text: &str, tag: &str) -> u64 {
    let doc = roxmltree::Document::parse(text).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name(tag))
        .filter_map(|n| n.text()?.trim().parse::<u64>().ok())
        .sum()
}
