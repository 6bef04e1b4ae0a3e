//! The fixture: the history (runs A and B, a capture, suites) and the files the docs'
//! commands work on, built once and copied for each block.

use super::rules::MAX_SIZE_BYTES;
use crate::common::{is_root, LoopDevice, TestDir};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The history and the files the docs' commands work on.
pub(crate) struct Fixture {
    /// The folder its commands run in: the template's, or a copy of it for one block.
    pub(crate) dir: PathBuf,
    /// Loop devices (or files) standing for the docs' device paths, by path.
    pub(crate) devices: HashMap<String, String>,
    pub(crate) loops: Vec<LoopDevice>,
    /// The capture device's name (root only) and the fixture capture's id.
    pub(crate) capture_device: Option<String>,
    pub(crate) capture_id: Option<String>,
    /// Runs A and B.
    pub(crate) runs: [String; 2],
    /// The docs' run ids, mapped to A and B in the order the docs use them.
    pub(crate) run_ids: HashMap<String, String>,
    /// The newest saved suite run of each suite.
    pub(crate) suites: HashMap<String, String>,
    /// The devices the last `emulate create` printed (for the docs' /dev/loop1...).
    pub(crate) emulated: Vec<String>,
    /// Variables set by an `export`, per file.
    pub(crate) exported: Vec<(String, String)>,
    pub(crate) root: bool,
}

/// `diskmeter ARGS` in the fixture's folder; its output, which must be a success.
pub(crate) fn fixture_diskmeter(dir: &Path, env: &[(String, String)], args: &[&str]) -> String {
    let output = crate::common::process()
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .args(args)
        .output()
        .expect("run diskmeter");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "fixture: diskmeter {}: {stderr}",
        args.join(" ")
    );
    stderr
}

/// The id in a `saved as run N` (or `capture N`) line of `stderr`.
pub(crate) fn saved_id(stderr: &str, kind: &str) -> Option<String> {
    let marker = format!("saved as {kind} ");
    let at = stderr.rfind(&marker)? + marker.len();
    Some(
        stderr[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect(),
    )
}

impl Fixture {
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let bin = crate::common::binary();
        let path = format!(
            "{}:{}",
            bin.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut env = vec![
            ("PATH".to_string(), path),
            (
                "XDG_DATA_HOME".to_string(),
                self.path("xdg").display().to_string(),
            ),
            ("HOME".to_string(), self.path("home").display().to_string()),
        ];
        env.extend(self.exported.iter().cloned());
        env
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.as_path().join(name)
    }

    /// Builds the template every block starts from, in `test_dir`: the history with run A (a
    /// paced application, captured with a trace as root), run B and the suites `suites`,
    /// and the files the docs name; `run_ids` maps the docs' run ids to A (0) and B (1).
    pub(crate) fn new(
        test_dir: &TestDir,
        run_ids: &HashMap<String, usize>,
        suites: &[String],
    ) -> Fixture {
        let root = is_root();
        let dir = test_dir.path().join("template");
        std::fs::create_dir_all(&dir).unwrap();
        let mut fixture = Fixture {
            dir,
            devices: HashMap::new(),
            loops: Vec::new(),
            capture_device: None,
            capture_id: None,
            runs: [String::new(), String::new()],
            run_ids: HashMap::new(),
            suites: HashMap::new(),
            emulated: Vec::new(),
            exported: Vec::new(),
            root,
        };
        let base = fixture.dir.as_path().to_path_buf();
        for folder in [
            "xdg",
            "home/.config/fish/completions",
            "mnt/data",
            "mnt/newvol",
            "mnt/vol",
            "mnt/stripe",
            "mnt/cached",
            "root-data",
            "shared",
            "etc/bash_completion.d",
            "usr/local/share/man/man1",
            "zsh",
            "results",
        ] {
            std::fs::create_dir_all(base.join(folder)).unwrap();
        }
        // The suites first, so that `last` is run B (and the capture, of its kind).
        for suite in suites {
            fixture.suite_id(suite);
        }
        let env = fixture.env();
        // Run A: an application paced at 1,000 IOPS for 3 s, captured (with a trace) as root.
        let app_args = |target: &str| -> Vec<String> {
            [
                "run",
                "--name=app",
                "--rw=randrw",
                "--rwmixread=70",
                "--bs=4k",
                "--rate_iops=700,300",
                "--iodepth=4",
                "--direct=1",
                "--time_based",
                "--runtime=3",
                "--size=32m",
                "--allow-destroy",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([format!("--filename={target}")])
            .collect()
        };
        if root {
            let device = LoopDevice::new_direct(test_dir.path(), "capture.img", 64);
            let name = device.dev.trim_start_matches("/dev/").to_string();
            let args = app_args(&device.dev);
            let mut app = crate::common::process()
                .current_dir(&base)
                .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let captured = fixture_diskmeter(
                &base,
                &env,
                &[
                    "capture",
                    "--trace",
                    "--device",
                    &name,
                    "--duration",
                    "2s",
                    "--name",
                    "fixture",
                ],
            );
            let mut app_stderr = String::new();
            app.stderr
                .take()
                .unwrap()
                .read_to_string(&mut app_stderr)
                .unwrap();
            assert!(app.wait().unwrap().success(), "fixture app: {app_stderr}");
            fixture.capture_id = saved_id(&captured, "capture");
            assert!(
                fixture.capture_id.is_some(),
                "fixture capture saved no id: {captured}"
            );
            fixture.runs[0] = saved_id(&app_stderr, "run").expect("run A's id");
            fixture.capture_device = Some(name.clone());
            fixture
                .devices
                .insert(device.dev.clone(), device.dev.clone());
            fixture.loops.push(device);
        } else {
            let args = app_args("app.dat");
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let stderr = fixture_diskmeter(&base, &env, &args);
            fixture.runs[0] = saved_id(&stderr, "run").expect("run A's id");
        }
        let stderr = fixture_diskmeter(
            &base,
            &env,
            &[
                "run",
                "--name=app",
                "--rw=randrw",
                "--rwmixread=70",
                "--bs=4k",
                "--iodepth=4",
                "--direct=1",
                "--time_based",
                "--runtime=1",
                "--size=32m",
                "--filename=b.dat",
            ],
        );
        fixture.runs[1] = saved_id(&stderr, "run").expect("run B's id");
        // Two hosts' results to merge (`host*.json`, `results/*.json`).
        for (i, out) in [
            "host1.json",
            "host2.json",
            "results/pod-0.json",
            "results/pod-1.json",
        ]
        .iter()
        .enumerate()
        {
            fixture_diskmeter(
                &base,
                &env,
                &[
                    "run",
                    "--no-save",
                    "--quiet",
                    "--name=share",
                    "--ioengine=psync",
                    "--rw=randread",
                    "--bs=4k",
                    "--size=2m",
                    "--number_ios=500",
                    &format!("--filename=share{i}.dat"),
                    "--output-format=json",
                    &format!("--output={out}"),
                ],
            );
        }
        // A VM's disk file, as VM Fleet's profiles expect one.
        std::fs::File::create(base.join("mnt/data/vm.dat"))
            .unwrap()
            .set_len(MAX_SIZE_BYTES)
            .unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::copy(
            repo.join("tests/data/diskspd/profiles/vmfleet-peak.xml"),
            base.join("peak.xml"),
        )
        .unwrap();
        std::fs::copy(
            repo.join("tests/data/iometer/guides-1.1.0.icf"),
            base.join("test.icf"),
        )
        .unwrap();
        let files = [
            (
                "job.fio",
                "[global]\nrw=randread\nbs=4k\nsize=16m\nruntime=1\ntime_based\n\n[job]\nfilename=job.dat\n",
            ),
            ("bad.fio", "[job]\nrw=randread\niodpeth=4\nbs=-4k\n"),
            ("loop.fio", "[job]\ninclude loop.fio\n"),
            ("my.fio", "[job]\nrw=read\n"),
        ];
        for (name, text) in files {
            std::fs::write(base.join(name), text).unwrap();
        }
        // A catalog whose one VM size has no cores.
        let azure =
            std::fs::read_to_string(repo.join("crates/plan/catalog/guides/azure.toml")).unwrap();
        let vm = &azure[azure.find("[[vm]]").unwrap()..];
        let vm = &vm[..vm[1..].find("[[").map_or(vm.len(), |end| end + 1)];
        let mine = vm
            .replacen("id = \"Standard_DS1\"", "id = \"X\"", 1)
            .replacen("cores = 1\n", "cores = 0\n", 1);
        std::fs::write(base.join("mine.toml"), mine).unwrap();
        fixture.run_ids = run_ids
            .iter()
            .map(|(doc, run)| (doc.clone(), fixture.runs[*run].clone()))
            .collect();
        // The fixture's test files stay out of the blocks' copies.
        for entry in std::fs::read_dir(&base).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() && entry.metadata().unwrap().len() > 1 << 20 {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        fixture
    }

    /// A copy of the template (its files and history) for the block numbered `index`.
    pub(crate) fn chain(&self, index: usize) -> Fixture {
        let dir = self.dir.parent().unwrap().join(format!("block-{index}"));
        let copied = Command::new("cp")
            .arg("-a")
            .arg(&self.dir)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(copied.success(), "copy the template to {}", dir.display());
        Fixture {
            dir,
            devices: HashMap::new(),
            loops: Vec::new(),
            capture_device: self.capture_device.clone(),
            capture_id: self.capture_id.clone(),
            runs: self.runs.clone(),
            run_ids: self.run_ids.clone(),
            suites: self.suites.clone(),
            emulated: Vec::new(),
            exported: Vec::new(),
            root: self.root,
        }
    }

    /// The device or file standing for the docs' device `path`.
    pub(crate) fn device(&mut self, path: &str) -> String {
        if let Some(dev) = self.devices.get(path) {
            return dev.clone();
        }
        let name = path.trim_start_matches("/dev/");
        let dev = if self.root {
            let device = LoopDevice::new_direct(self.dir.as_path(), &format!("dev-{name}.img"), 64);
            let dev = device.dev.clone();
            self.loops.push(device);
            dev
        } else {
            let file = self.path(&format!("dev-{name}"));
            std::fs::File::create(&file)
                .unwrap()
                .set_len(MAX_SIZE_BYTES)
                .unwrap();
            file.display().to_string()
        };
        self.devices.insert(path.to_string(), dev.clone());
        dev
    }

    /// The id of the newest `suite` run of this suite, run at test scale if there is none.
    pub(crate) fn suite_id(&mut self, suite: &str) -> String {
        if let Some(id) = self.suites.get(suite) {
            return id.clone();
        }
        let env = self.env();
        let stderr = fixture_diskmeter(
            self.dir.as_path(),
            &env,
            &[
                "suite",
                suite,
                "fixture-suite.dat",
                "--runtime",
                "300ms",
                "--size",
                "64m",
            ],
        );
        let id = saved_id(&stderr, "run").expect("the suite's id");
        self.suites.insert(suite.to_string(), id.clone());
        id
    }
}
