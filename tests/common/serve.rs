//! `diskmeter serve` as the dashboard tests start it: on the address its arguments give, read
//! back from its first line (`diskmeter serve: listening on http://ADDR:PORT/`), stopped with
//! a signal by the test or, when the test ends first, with Ctrl-C's SIGINT (then killed if
//! it does not stop within 5 s).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStderr, Stdio};
use std::time::{Duration, Instant};

/// A running `diskmeter serve`.
pub struct Server {
    /// The process.
    pub child: Child,
    /// `http://ADDR:PORT/`, from its first line.
    pub url: String,
    /// What it prints on stderr (read once it has exited).
    stderr: Option<ChildStderr>,
}

impl Server {
    /// `diskmeter serve --db DB ARGS...`, once it says where it listens.
    pub fn start(db: &Path, args: &[&str]) -> Server {
        let mut child = super::process()
            .arg("serve")
            .arg("--db")
            .arg(db)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start diskmeter serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        stdout.read_line(&mut first).expect("read serve's stdout");
        let Some(url) = first
            .trim_end()
            .strip_prefix("diskmeter serve: listening on ")
        else {
            let _ = child.kill();
            panic!("serve's first line is not where it listens: {first:?}");
        };
        let url = url.to_string();
        // The rest of stdout is drained, so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let stderr = child.stderr.take();
        Server { child, url, stderr }
    }

    /// The URL of `path` ("/run/1", "events") on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.url, path.trim_start_matches('/'))
    }

    /// Sends `signal` and waits (at most 15 s) for it to exit: its exit code and stderr.
    pub fn stop_with(mut self, signal: i32) -> (Option<i32>, String) {
        let status = self.signal_and_wait(signal, Duration::from_secs(15));
        assert!(status.is_some(), "serve did not stop on signal {signal}");
        let mut stderr = String::new();
        if let Some(mut pipe) = self.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        (status.flatten(), stderr)
    }

    /// Sends `signal`; `Some(exit code)` once it exited within `limit`, `None` if it did not.
    fn signal_and_wait(&mut self, signal: i32, limit: Duration) -> Option<Option<i32>> {
        // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status.code());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            if self
                .signal_and_wait(libc::SIGINT, Duration::from_secs(5))
                .is_none()
            {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
    }
}
