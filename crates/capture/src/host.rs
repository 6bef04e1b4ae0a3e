//! This host as iostat's JSON names it: uname's fields, the CPUs and the clock when the
//! capture began (`diskmeter capture --format json`'s host object).

/// What `iostat -o JSON` says of the host it runs on.
#[derive(Debug, Clone, PartialEq)]
pub struct HostFacts {
    /// uname's nodename, sysname, release and machine.
    pub nodename: String,
    pub sysname: String,
    pub release: String,
    pub machine: String,
    /// CPUs this process may use.
    pub cpus: usize,
    /// The time the facts were read, ms since the Unix epoch.
    pub now_unix_ms: u64,
}

impl HostFacts {
    /// Reads them now.
    pub fn read() -> HostFacts {
        let uname = rustix::system::uname();
        let text = |s: &std::ffi::CStr| s.to_string_lossy().into_owned();
        HostFacts {
            nodename: text(uname.nodename()),
            sysname: text(uname.sysname()),
            release: text(uname.release()),
            machine: text(uname.machine()),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            now_unix_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
        }
    }
}
