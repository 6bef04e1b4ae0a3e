//! The DevTools protocol over the pipe Chromium opens with `--remote-debugging-pipe`: the
//! browser reads commands from its fd 3 and writes replies and events to its fd 4, each JSON
//! message ended by a NUL byte (the protocol's reference: chromedevtools.github.io/
//! devtools-protocol). Calls come from any test thread and wait for the reply with their id;
//! events go to the handler the connection was started with.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// What the connection does with an event: its method, the session (tab) it belongs to, and
/// its parameters.
pub type EventHandler = Box<dyn Fn(&str, &str, &Value) + Send + Sync>;

/// The protocol connection to one browser.
pub struct Connection {
    to_browser: Mutex<File>,
    next_id: AtomicU64,
    /// The calls waiting for their reply, by id.
    waiting: Mutex<HashMap<u64, mpsc::Sender<Value>>>,
    on_event: EventHandler,
    /// How long a call waits for its reply.
    timeout: Duration,
}

impl Connection {
    /// Starts the browser `command` (which must ask for `--remote-debugging-pipe`) with the
    /// pipe on its fds 3 and 4, and returns the connection and the browser's process id; each
    /// event is given to `on_event`.
    pub fn start(
        mut command: Command,
        timeout: Duration,
        on_event: impl Fn(&str, &str, &Value) + Send + Sync + 'static,
    ) -> Result<(Arc<Connection>, u32), String> {
        let (commands_read, commands_write) = pipe()?;
        let (replies_read, replies_write) = pipe()?;
        let (child_in, child_out) = (commands_read.as_raw_fd(), replies_write.as_raw_fd());
        // SAFETY: between fork and exec only dup/dup2, which are async-signal-safe, on
        // descriptors this process owns. Both ends are first moved above 4, so that placing one
        // on 3 or 4 cannot close the other; dup2 leaves the new descriptors open across exec.
        unsafe {
            command.pre_exec(move || {
                let high_in = libc::fcntl(child_in, libc::F_DUPFD_CLOEXEC, 10);
                let high_out = libc::fcntl(child_out, libc::F_DUPFD_CLOEXEC, 10);
                if high_in < 0
                    || high_out < 0
                    || libc::dup2(high_in, 3) < 0
                    || libc::dup2(high_out, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().map_err(|e| e.to_string())?;
        // The browser's ends are its own now: with ours closed, its exit ends our reader.
        drop((commands_read, replies_write));
        let connection = Arc::new(Connection {
            to_browser: Mutex::new(File::from(commands_write)),
            next_id: AtomicU64::new(1),
            waiting: Mutex::new(HashMap::new()),
            on_event: Box::new(on_event),
            timeout,
        });
        let reader = Arc::clone(&connection);
        std::thread::Builder::new()
            .name("chromium-devtools".into())
            .spawn(move || reader.read(File::from(replies_read)))
            .map_err(|e| format!("start the DevTools reader: {e}"))?;
        Ok((connection, child.id()))
    }

    /// Calls `method` (on the tab of `session`, or on the browser) and returns its result, or
    /// the protocol's error message; at most the connection's timeout.
    pub fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply_to, reply) = mpsc::channel();
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, reply_to);
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = Value::String(session.to_string());
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        self.to_browser
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .write_all(&bytes)
            .map_err(|e| format!("{method}: write to the browser: {e}"))?;
        let reply = reply.recv_timeout(self.timeout).map_err(|_| {
            self.waiting
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            format!(
                "{method}: no reply in {:?} (or the browser ended)",
                self.timeout
            )
        })?;
        match reply.get("error") {
            Some(error) => Err(format!(
                "{method}: {}",
                error["message"].as_str().unwrap_or("error")
            )),
            None => Ok(reply["result"].clone()),
        }
    }

    /// Reads the browser's messages until it ends: replies to their callers, events to their
    /// tab's record.
    fn read(&self, from_browser: File) {
        let mut from_browser = BufReader::new(from_browser);
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match from_browser.read_until(0, &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if bytes.last() == Some(&0) {
                bytes.pop();
            }
            let Ok(message) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            if let Some(id) = message["id"].as_u64() {
                let waiting = self
                    .waiting
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                if let Some(reply_to) = waiting {
                    let _ = reply_to.send(message);
                }
            } else if let (Some(method), Some(session)) =
                (message["method"].as_str(), message["sessionId"].as_str())
            {
                (self.on_event)(method, session, &message["params"]);
            }
        }
        // The browser ended: the calls still waiting get no reply (their senders drop).
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// A pipe's (read, write) ends, closed on exec in this process's other children.
fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
