//! IO errors become one clear line naming the file and the cause, with exit code 1, and the
//! files diskmeter created are still removed: O_DIRECT refused by a filesystem (ramfs:
//! EINVAL), a full filesystem (ENOSPC), and a folder that does not exist.

mod common;

use common::{require_root, sh, TestDir};
use predicates::str::contains;

/// A small filesystem mounted in the test folder, unmounted on drop.
struct Mount(std::path::PathBuf);

impl Mount {
    fn new(t: &TestDir, fstype: &str, options: &str) -> Mount {
        let at = t.path().join(fstype);
        std::fs::create_dir_all(&at).unwrap();
        sh(&format!(
            "mount -t {fstype} -o {options} none {}",
            at.display()
        ));
        Mount(at)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn o_direct_refused_by_the_filesystem_is_one_clear_line() {
    if !require_root("o_direct_refused_by_the_filesystem_is_one_clear_line") {
        return;
    }
    let t = TestDir::new();
    let m = Mount::new(&t, "ramfs", "size=64m");
    let out = t
        .run(&[
            "--name=d",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--direct=1",
        ])
        .arg(format!("--directory={}", m.0.display()))
        .assert()
        .code(1)
        .stderr(contains("O_DIRECT"))
        .stderr(contains("d.0.0"))
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8(out).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        std::fs::read_dir(&m.0).unwrap().next().is_none(),
        "created file removed"
    );
}

#[test]
fn a_full_filesystem_is_one_clear_line() {
    if !require_root("a_full_filesystem_is_one_clear_line") {
        return;
    }
    let t = TestDir::new();
    let m = Mount::new(&t, "tmpfs", "size=2m");
    t.run(&["--name=big", "--rw=randread", "--bs=4k", "--size=8m"])
        .arg(format!("--directory={}", m.0.display()))
        .assert()
        .code(1)
        .stderr(contains("ENOSPC"))
        .stderr(contains("big.0.0"));
    assert!(
        std::fs::read_dir(&m.0).unwrap().next().is_none(),
        "created file removed"
    );
}

#[test]
fn a_missing_folder_is_named() {
    let t = TestDir::new();
    t.run(&[
        "--name=n",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--directory=/nonexistent/folder",
    ])
    .assert()
    .code(1)
    .stderr(contains("/nonexistent/folder"));
}
