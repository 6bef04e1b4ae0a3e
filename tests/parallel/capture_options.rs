//! `diskmeter capture`'s options as the command reads them: its defaults (1 s intervals until
//! Ctrl-C, the live text), repeated devices, JSON, `--no-save`, and the usage errors. The
//! captures here watch a device of /proc/diskstats for a second or two and judge no figure
//! (tests/alone/capture.rs judges them).

use crate::common::{self, TestDir};

/// Two devices /proc/diskstats lists, by kernel name (a loop device's name is as good as a
/// disk's: capture needs no root and no IO).
fn two_devices() -> (String, String) {
    let stats = std::fs::read_to_string("/proc/diskstats").unwrap();
    let mut names = stats.lines().filter_map(|l| l.split_whitespace().nth(2));
    let first = names
        .next()
        .expect("a device in /proc/diskstats")
        .to_string();
    let second = names.next().unwrap_or(&first).to_string();
    (first, second)
}

#[test]
fn defaults_are_one_second_until_ctrl_c_in_text() {
    let dir = TestDir::new();
    let (device, _) = two_devices();
    // No --duration: it runs until Ctrl-C, which ends it normally (exit 0) after the last
    // whole interval; sent once the first interval is shown.
    let mut child = common::process()
        .current_dir(dir.path())
        .args(["capture", "--device", &device, "--no-save"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut shown = String::new();
    while !shown.lines().any(|l| l.starts_with("20")) {
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut stdout, &mut line).unwrap() == 0 {
            break;
        }
        shown += &line;
    }
    // SAFETY: sends a signal to our own child, which has not been waited for.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    std::io::Read::read_to_string(&mut stdout, &mut shown).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{shown}{stderr}");
    assert!(
        shown.starts_with(&format!(
            "diskmeter capture: {device} every 1s until Ctrl-C\n"
        )),
        "{shown}"
    );
    assert!(
        stderr.contains(" interval") && !stderr.contains(" 0 intervals"),
        "{stderr}"
    );
}

#[test]
fn repeated_devices_an_interval_a_duration_json_and_no_save_are_read() {
    let dir = TestDir::new();
    let (first, second) = two_devices();
    let second_path = format!("/dev/{second}");
    let out = common::command_in(dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .args(["capture", "--device", &first, "--device", &second_path])
        .args([
            "--interval",
            "500ms",
            "--duration",
            "1s",
            "--format",
            "json",
        ])
        .arg("--no-save")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("iostat's JSON");
    let statistics = json["sysstat"]["hosts"][0]["statistics"]
        .as_array()
        .unwrap();
    assert_eq!(statistics.len(), 2, "two intervals of 500 ms in 1 s");
    let devices: Vec<&str> = statistics[0]["disk"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["disk_device"].as_str().unwrap())
        .collect();
    assert!(devices.contains(&first.as_str()) && devices.contains(&second.as_str()));
    // --no-save: no history was made.
    assert!(!dir.path().join("diskmeter").exists());
}

#[test]
fn a_bad_interval_or_format_is_a_usage_error() {
    let out = common::command()
        .args(["capture", "--interval", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "diskmeter: --interval '0': must be longer than 0\n"
    );
    let out = common::command()
        .args(["capture", "--format", "xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
