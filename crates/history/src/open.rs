//! Opening a history for writing when other diskmeters may do the same at the same moment
//! (two saving processes, or the two connections of one: the session's history sink and
//! its live sampler).
//!
//! Three races are closed here:
//!
//! - **Creating a new database.** Two processes that each create tables in a new, empty file
//!   race on the schema ("table runs already exists") and on the switch to WAL. So a new
//!   database is built whole in a private file of the same folder (WAL mode set, every
//!   migration applied, closed) and then hard-linked into place, which fails when the name
//!   exists: the loser of a race deletes its build and opens the winner's file. Nobody ever
//!   opens a database that is half made.
//! - **The switch to WAL** (an old database in rollback-journal mode) does not wait on the
//!   busy handler: it is retried on SQLITE_BUSY until the deadline, and the mode read back.
//! - **Migrations** run one per IMMEDIATE transaction that reads the version again inside
//!   it (`migrations.rs`); one that still meets a lock (WAL recovery, a checkpoint) is
//!   retried until the deadline. A database already at the version takes no write lock at
//!   all, so reading a history another process holds locked still works (WAL).
//!
//! The deadline is the busy timeout ([`crate::busy_timeout`]).

use crate::{busy_timeout, migrations, HistoryError};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long to sleep between two tries of something another process holds.
const RETRY_PAUSE: Duration = Duration::from_millis(5);

/// How long a database that answers with another journal mode than WAL (without an error)
/// is asked again: a filesystem without shared memory (NFS) never gives WAL, and then the
/// rollback journal it keeps is still transactional.
const WAL_PATIENCE: Duration = Duration::from_millis(500);

/// The SQLite header's magic string.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Opens `path` read-write (creating it whole when missing, with its folder), in WAL mode,
/// migrated up to `version`.
pub(crate) fn open_for_writing(path: &Path, version: u32) -> Result<Connection, HistoryError> {
    open_writable(path, version).map_err(|error| match error {
        // SQLite says only "unable to open" or "readonly": say which part cannot be written.
        HistoryError::CannotOpen(_) | HistoryError::ReadOnly(_) => match why_read_only(path) {
            Some(reason) => HistoryError::ReadOnly(reason),
            None => error,
        },
        error => error,
    })
}

/// Why `path`, or the folder SQLite keeps its WAL and shared-memory files in, cannot be
/// written, with what to do instead: a read-only filesystem, an immutable file, the file's or
/// the folder's permissions; `None` when both can.
fn why_read_only(path: &Path) -> Option<String> {
    use rustix::fs::{access, Access};
    use rustix::io::Errno;
    let folder = folder_of(path);
    let errno_text = |errno: Errno| std::io::Error::from(errno).to_string();
    let file = path
        .exists()
        .then(|| access(path, Access::WRITE_OK).err())
        .flatten();
    let folder_errno = access(folder, Access::WRITE_OK).err();
    match (file, folder_errno) {
        (Some(Errno::ROFS), _) | (_, Some(Errno::ROFS)) => Some(format!(
            "the file is on a read-only filesystem ({}); give another --db on a writable \
             filesystem",
            errno_text(Errno::ROFS)
        )),
        (Some(Errno::PERM), _) => Some(format!(
            "the file is immutable, so read-only ({}; lsattr shows the i flag): remove the \
             flag (chattr -i {}), or give another --db",
            errno_text(Errno::PERM),
            path.display()
        )),
        (Some(errno), _) => Some(permission_hint(path, errno)),
        (None, Some(errno)) => Some(format!(
            "its folder {} is not writable by this user ({}), and the file and its journal \
             go there: make the folder writable, or give another --db in a folder you can \
             write",
            folder.display(),
            errno_text(errno)
        )),
        (None, None) => None,
    }
}

/// Why this user may not read the existing file at `path`, with what to do; `None` when it may
/// (or the file is not there: a missing file is said elsewhere).
pub(crate) fn why_unreadable(path: &Path) -> Option<String> {
    use rustix::fs::{access, Access};
    if !path.exists() {
        return None;
    }
    let errno = access(path, Access::READ_OK).err()?;
    Some(permission_hint(path, errno))
}

/// The file at `path` refused this user (`errno`): which access it lacks, the file's mode and
/// owner, and the two ways on (permission from its owner, or another database).
fn permission_hint(path: &Path, errno: rustix::io::Errno) -> String {
    use rustix::fs::{access, Access};
    use std::os::unix::fs::MetadataExt;
    let lacks = match (
        access(path, Access::READ_OK).is_ok(),
        access(path, Access::WRITE_OK).is_ok(),
    ) {
        (false, false) => "may neither read nor write",
        (false, true) => "may not read",
        _ => "may read but not write",
    };
    let (mode, owner) = std::fs::metadata(path).map_or((0, 0), |m| (m.mode() & 0o7777, m.uid()));
    format!(
        "this user (uid {}) {lacks} the file (mode {mode:04o}, owned by uid {owner}; {}): let it \
         (as its owner or root: chmod a+rw {}), or give another --db",
        rustix::process::geteuid().as_raw(),
        std::io::Error::from(errno),
        path.display()
    )
}

/// The folder a database file is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

fn open_writable(path: &Path, version: u32) -> Result<Connection, HistoryError> {
    let timeout = busy_timeout();
    let deadline = Instant::now() + timeout;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| HistoryError::Folder {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    if std::fs::symlink_metadata(path).is_err() {
        create_whole(path, version)?;
    }
    check_not_truncated(path)?;
    // No CREATE flag: the file exists (made whole above, by us or by the winner of a race);
    // SQLite must never make an empty one in its place.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let mut conn = Connection::open_with_flags(path, flags)?;
    // SQLite opens a file it may not write read-only, without a word; a writer says so now
    // rather than at its first write.
    if conn.is_readonly(rusqlite::MAIN_DB)? {
        return Err(HistoryError::ReadOnly("the file is read-only".to_string()));
    }
    // Several diskmeters may save at once (MPI ranks, parallel CI jobs): wait, don't fail.
    conn.busy_timeout(timeout)?;
    retry_while_busy(deadline, || ensure_wal(&conn))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    retry_while_busy(deadline, || migrations::migrate(&mut conn, version))?;
    Ok(conn)
}

/// A read-only connection to `path` and the database's version; `immutable` tells SQLite
/// the file cannot change (no locks, no shared memory), for a file on a read-only mount.
pub(crate) fn read_only_connection(
    path: &Path,
    immutable: bool,
) -> Result<(Connection, u32), HistoryError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = if immutable {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Connection::open_with_flags(format!("file:{}?immutable=1", uri_path(&absolute)), flags)?
    } else {
        Connection::open_with_flags(path, flags)?
    };
    conn.busy_timeout(busy_timeout())?;
    conn.pragma_update(None, "query_only", true)?;
    let version: u32 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    Ok((conn, version))
}

/// `path` for an SQLite URI: every byte but letters, digits, `/` and `-._~` percent-encoded.
fn uri_path(path: &Path) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for &byte in path.as_os_str().as_encoded_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// Runs `attempt` again while it fails because another process holds a lock, until
/// `deadline`; then returns what it last gave.
fn retry_while_busy<T>(
    deadline: Instant,
    mut attempt: impl FnMut() -> Result<T, HistoryError>,
) -> Result<T, HistoryError> {
    loop {
        match attempt() {
            Err(error) if error.is_busy() && Instant::now() < deadline => {
                std::thread::sleep(RETRY_PAUSE);
            }
            other => return other,
        }
    }
}

/// Puts the database in WAL mode if it is not, and reads the mode back: SQLite answers a
/// switch it could not make with the old mode rather than an error, so the answer is checked
/// and the switch asked again for a while ([`WAL_PATIENCE`]).
fn ensure_wal(conn: &Connection) -> Result<(), HistoryError> {
    let started = Instant::now();
    loop {
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |row| row.get(0))?;
        if mode.eq_ignore_ascii_case("wal") {
            return Ok(());
        }
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if mode.eq_ignore_ascii_case("wal") || started.elapsed() > WAL_PATIENCE {
            return Ok(());
        }
        std::thread::sleep(RETRY_PAUSE);
    }
}

/// Builds a new database in a private file next to `path` and links it into place unless
/// another process was quicker (then its database is the one, and ours is deleted).
fn create_whole(path: &Path, version: u32) -> Result<(), HistoryError> {
    let folder = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => parent.to_path_buf(),
        None => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "history.db".to_string());
    remove_stale_builds(&folder, &name);
    static BUILDS: AtomicU64 = AtomicU64::new(0);
    let build = folder.join(format!(
        "{}{}-{}",
        build_prefix(&name),
        std::process::id(),
        BUILDS.fetch_add(1, Ordering::Relaxed)
    ));
    let made = build_database(&build, version).and_then(|()| link_into_place(&build, path));
    remove_build(&build);
    made
}

/// The start of the name of a database being built for `name` (the builder's pid follows).
fn build_prefix(name: &str) -> String {
    format!(".{name}.new-")
}

fn build_database(build: &Path, version: u32) -> Result<(), HistoryError> {
    let mut conn = Connection::open(build)?;
    ensure_wal(&conn)?;
    // Nobody else sees the build until it is linked, after the one flush below: the
    // migrations' commits need not each wait for the disk.
    conn.pragma_update(None, "synchronous", "OFF")?;
    migrations::migrate(&mut conn, version)?;
    // Closing the only connection checkpoints the WAL into the file and removes it, so the
    // file alone is the whole database.
    conn.close()
        .map_err(|(_, error)| HistoryError::from(error))?;
    let sync = std::fs::File::open(build).and_then(|file| file.sync_all());
    sync.map_err(|source| HistoryError::Folder {
        path: build.to_path_buf(),
        source,
    })
}

/// Gives the built database its name, never replacing a file of that name.
fn link_into_place(build: &Path, path: &Path) -> Result<(), HistoryError> {
    match std::fs::hard_link(build, path) {
        Ok(()) => Ok(()),
        // Another process made it first: its database is the one.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        // A filesystem without hard links: a rename, when the name is still free (the
        // window between the check and the rename is the only race left there).
        Err(_) if std::fs::symlink_metadata(path).is_err() => {
            std::fs::rename(build, path).map_err(|source| HistoryError::Folder {
                path: path.to_path_buf(),
                source,
            })
        }
        Err(_) => Ok(()),
    }
}

/// Removes a build and the files SQLite may have left beside it.
fn remove_build(build: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut file = build.as_os_str().to_owned();
        file.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(file));
    }
}

/// Removes the builds of processes that died while building (SIGKILL between the build and
/// the link).
fn remove_stale_builds(folder: &Path, name: &str) {
    let prefix = build_prefix(name);
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name.strip_prefix(&prefix) else {
            continue;
        };
        let pid = rest.split(['-', '.']).next().unwrap_or("");
        if !pid.is_empty() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Refuses a database file shorter than its own header says it is (a truncated copy, a
/// half-restored backup): SQLite would read the missing pages as damage only when a query
/// reaches them, and could meanwhile write into it. Reads 100 bytes; SQLite checks the rest.
///
/// The file is read without SQLite's locks, so another process's commit may be under way:
/// in rollback-journal mode it writes page 1 (the new page count) before the pages that
/// extend the file, with its journal beside it. A file that looks short is therefore looked
/// at again, a few times over 100 ms, and is called truncated only when it stays short with
/// no journal or WAL beside it (a CI run of 2026-11-29 saw 45,056 bytes against a header's
/// 135,168 while threads upgraded one database at once).
fn check_not_truncated(path: &Path) -> Result<(), HistoryError> {
    const LOOKS: usize = 6;
    let mut shortfall = None;
    for look in 0..LOOKS {
        if look > 0 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // A journal or WAL beside it may hold the pages a crash kept from the file (a
        // checkpoint or a transaction cut short), or belong to a commit under way: SQLite
        // puts them back, or finishes, when it opens it.
        if has_journal_beside(path) {
            return Ok(());
        }
        match header_shortfall(path)? {
            None => return Ok(()),
            Some(found) => shortfall = Some(found),
        }
    }
    let (file_bytes, expected) = shortfall.unwrap_or_default();
    Err(HistoryError::Corrupt(format!(
        "the file is {file_bytes} bytes but its header says {expected}: truncated"
    )))
}

/// Whether a non-empty `-wal` or `-journal` file is beside the database.
fn has_journal_beside(path: &Path) -> bool {
    ["-wal", "-journal"].iter().any(|suffix| {
        let mut beside = path.as_os_str().to_owned();
        beside.push(suffix);
        std::fs::metadata(PathBuf::from(beside)).is_ok_and(|m| m.len() > 0)
    })
}

/// The file's length and the length its header gives, when the file is the shorter; `None`
/// when it is not (or cannot be read: SQLite says why); an error when it is no database.
fn header_shortfall(path: &Path) -> Result<Option<(u64, u64)>, HistoryError> {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    let mut header = [0u8; 100];
    let read = file.read(&mut header).unwrap_or(0);
    let file_bytes = file.metadata().map_or(0, |m| m.len());
    if file_bytes == 0 {
        return Ok(None);
    }
    if read < header.len() || &header[..16] != SQLITE_MAGIC {
        return Err(HistoryError::Corrupt(
            "file is not a database: no SQLite header".to_string(),
        ));
    }
    let be32 = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    let page_bytes = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => u64::from(n),
    };
    // The header's page count is valid only when the change counter matches the
    // version-valid-for number (SQLite's file format, section 1.3.7).
    let pages = u64::from(be32(28));
    if be32(24) == be32(92) && pages > 0 && page_bytes > 0 {
        let expected = pages * page_bytes;
        if file_bytes < expected {
            return Ok(Some((file_bytes, expected)));
        }
    }
    Ok(None)
}
