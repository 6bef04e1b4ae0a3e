//! `diskmeter diskspd -X` through the real binary (issue 19): DiskSpd's own sample profiles
//! (tests/data/diskspd/profiles, from DiskSpd's repository) dry-run and one runs; a profile of
//! two time spans runs as two steps; the `-Rxml` report's `<Profile>` fed back with `-X`
//! gives the same jobs as the command line it came from.

use crate::common;

use assert_cmd::Command;
use common::{real_io, TestDir};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn diskspd(dir: &TestDir, args: &[&str]) -> Command {
    let mut cmd = common::command();
    cmd.current_dir(dir.path())
        .arg("diskspd")
        .arg("--quiet")
        .args(args);
    cmd
}

fn sample(name: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/diskspd/profiles")
        .join(name);
    path.to_string_lossy().into_owned()
}

/// What a run that must succeed printed on stdout (its stderr in the failure).
fn stdout_of(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A zero-filled scratch target of `mib` MiB in `dir`.
fn scratch(dir: &TestDir, name: &str, mib: usize) -> String {
    std::fs::write(dir.path().join(name), vec![0u8; mib << 20]).unwrap();
    name.to_string()
}

#[test]
fn diskspds_sample_profiles_dry_run_or_say_why_not() {
    let dir = TestDir::new();
    // VM Fleet's SQL profile starts one target 5 GiB in (<BaseFileOffset>): a sparse file (a
    // dry run does no IO). Its VDI profile's 10 GiB <MaxFileSize> is at most that much.
    let target = "t.dat".to_string();
    std::fs::File::create(dir.path().join(&target))
        .unwrap()
        .set_len(16 << 30)
        .unwrap();
    // The -Rxml profile names its target.
    scratch(&dir, "testfile1.dat", 1);
    for name in [
        "vmfleet-peak.xml",
        "vmfleet-sql.xml",
        "vmfleet-vdi.xml",
        "rxml-result-profile.xml",
    ] {
        let profile = sample(name);
        let mut args = vec!["--dry-run", "-d1", "-W0", "-C0", "-X", &profile];
        if name.starts_with("vmfleet") {
            args.push(&target);
        }
        let out = diskspd(&dir, &args).output().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("[diskspd-0]"));
    }
    // As DiskSpd: VM Fleet's general template has a distribution but no <Random>; DiskSpd's
    // unit-test profiles leave <Path> empty or use what Linux has no counterpart for.
    for (name, needle) in [
        ("vmfleet-general.xml", "apply to random IO"),
        ("unittest-thread-targets.xml", "<Path> at line 9: is empty"),
        (
            "unittest-group-affinity.xml",
            "processor groups are Windows",
        ),
        ("unittest-two-timespans.xml", "<ParallelAsyncIO> at line 22"),
    ] {
        let profile = sample(name);
        diskspd(
            &dir,
            &["--dry-run", "-d1", "-W0", "-C0", "-X", &profile, &target],
        )
        .assert()
        .code(2)
        .stderr(predicate::str::contains(needle));
    }
}

/// DiskSpd's rule for a <MaxFileSize> past the end: the file as it is (issue 19, dsf).
#[test]
fn vm_fleets_vdi_profile_dry_runs_on_a_small_file() {
    let dir = TestDir::new();
    let target = scratch(&dir, "small.dat", 1);
    let profile = sample("vmfleet-vdi.xml");
    diskspd(
        &dir,
        &["--dry-run", "-d1", "-W0", "-C0", "-X", &profile, &target],
    )
    .assert()
    .success()
    .stdout(predicate::str::contains(
        "small.dat (File, UseExisting): bytes 0..1048576",
    ))
    .stdout(predicate::str::contains(
        "small.dat ends 1.00 MiB in, before the 10.0 GiB from offset 0",
    ));
}

#[test]
fn a_sample_profile_runs_with_its_template_filled() {
    let _turn = real_io();
    let dir = TestDir::new();
    let target = scratch(&dir, "vm.dat", 16);
    let profile = sample("vmfleet-peak.xml");
    let text = stdout_of(diskspd(
        &dir,
        &["-d1", "-W0", "-C0", "-Rxml", "-X", &profile, &target],
    ));
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ios: u64 = doc
        .descendants()
        .filter(|n| n.has_tag_name("IOCount"))
        .filter_map(|n| n.text()?.parse::<u64>().ok())
        .sum();
    assert!(ios > 0, "{text}");
}

const TWO_SPANS: &str = r#"<Profile>
  <TimeSpans>
    <TimeSpan>
      <Duration>1</Duration><Warmup>0</Warmup>
      <Targets><Target><Path>*1</Path><BlockSize>4096</BlockSize><Random>4096</Random></Target></Targets>
    </TimeSpan>
    <TimeSpan>
      <Duration>1</Duration><Warmup>0</Warmup>
      <Targets><Target><Path>*1</Path><BlockSize>8192</BlockSize><WriteRatio>0</WriteRatio></Target></Targets>
    </TimeSpan>
  </TimeSpans>
</Profile>"#;

#[test]
fn two_time_spans_run_as_two_steps_each_reported() {
    let _turn = real_io();
    let dir = TestDir::new();
    let target = scratch(&dir, "two.dat", 8);
    std::fs::write(dir.path().join("two.xml"), TWO_SPANS).unwrap();
    let text = stdout_of(diskspd(&dir, &["-Rxml", "-Xtwo.xml", &target]));
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let results = doc.root_element();
    let spans = results
        .children()
        .filter(|n| n.has_tag_name("TimeSpan"))
        .count();
    assert_eq!(spans, 2, "{text}");
    let profile_spans = doc
        .descendants()
        .filter(|n| n.has_tag_name("Profile"))
        .flat_map(|p| p.descendants())
        .filter(|n| n.has_tag_name("TimeSpan"))
        .count();
    assert_eq!(profile_spans, 2);
}

#[test]
fn the_rxml_profile_fed_back_gives_the_same_jobs() {
    let _turn = real_io();
    let dir = TestDir::new();
    let line = "-c8M -b8K -t2 -r -o4 -w30 -rdpct80/20 -Sh -L -d1 -W0 a.dat";
    let args: Vec<&str> = line.split_whitespace().collect();
    let mut run = args.clone();
    run.insert(0, "-Rxml");
    let text = stdout_of(diskspd(&dir, &run));
    let start = text.find("<Profile>").expect("a <Profile>");
    let end = text.find("</Profile>").expect("</Profile>") + "</Profile>".len();
    std::fs::write(dir.path().join("back.xml"), &text[start..end]).unwrap();
    let mut dry = args.clone();
    dry.insert(0, "--dry-run");
    let expected = diskspd(&dir, &dry).output().unwrap();
    let fed_back = diskspd(&dir, &["--dry-run", "-Xback.xml"])
        .output()
        .unwrap();
    assert!(
        fed_back.status.success(),
        "{}",
        String::from_utf8_lossy(&fed_back.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&fed_back.stdout),
        String::from_utf8_lossy(&expected.stdout)
    );
    // -Rp: the same profile without running.
    let mut printed = args.clone();
    printed.insert(0, "-Rpxml");
    diskspd(&dir, &printed)
        .assert()
        .success()
        .stdout(predicate::str::contains("<Range IO=\"80\">20</Range>"));
}
