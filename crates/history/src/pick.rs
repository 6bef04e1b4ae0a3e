//! Reading the history from a command: opening it to read ([`open_for_reading`]) and
//! resolving what the user typed for a run — an id or `last` — to a run id
//! ([`HistoryStore::resolve_id`]). Every command that reads a saved run goes through these
//! two, so `last` means the same thing everywhere and a history on a read-only mount is
//! read by every command, not only by some.

use crate::{default_path, HistoryError, HistoryStore, CAPTURE_KIND};
use rusqlite::OptionalExtension;
use std::path::{Path, PathBuf};

/// Which run `last` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Newest<'a> {
    /// The newest run of any kind (`show last`).
    Run,
    /// The newest run of this kind (`analyze last`: the newest sweep).
    OfKind(&'a str),
    /// The newest capture (`requirements last`, `replay last`).
    Capture,
    /// The newest run that is not a capture: a result to judge (`check last`).
    Result,
}

/// What was looked for, in an error (a [`Newest`] without its borrowed kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// A run (of any kind, or of one kind).
    Run,
    /// A capture.
    Capture,
    /// A run that is not a capture.
    Result,
}

impl From<Newest<'_>> for Wanted {
    fn from(newest: Newest<'_>) -> Wanted {
        match newest {
            Newest::Run | Newest::OfKind(_) => Wanted::Run,
            Newest::Capture => Wanted::Capture,
            Newest::Result => Wanted::Result,
        }
    }
}

/// Why what the user typed names no run.
#[derive(Debug, thiserror::Error)]
pub enum PickError {
    /// Neither a number nor `last`: the user's input.
    #[error("'{text}' is not a {} (a number from diskmeter history{}, or 'last')",
        if *wanted == Wanted::Capture { "capture id" } else { "run id" },
        if *wanted == Wanted::Capture { " --kind capture" } else { "" })]
    NotAnId {
        /// What was typed.
        text: String,
        /// What it should have named.
        wanted: Wanted,
    },
    /// `last`, in a history that has no such run yet.
    #[error("{}", match wanted {
        Wanted::Run => "the history has no such run yet",
        Wanted::Capture => "the history has no capture yet (diskmeter capture makes one)",
        Wanted::Result => "the history has no result to check yet",
    })]
    NoneYet {
        /// What `last` looked for.
        wanted: Wanted,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] HistoryError),
}

impl PickError {
    /// Whether the user's input is at fault (a typo, or `last` in a history without one)
    /// rather than the database.
    pub fn is_input(&self) -> bool {
        !matches!(self, PickError::Store(_))
    }
}

impl HistoryStore {
    /// The run id `text` names: a number as it is (whether such a run exists is for
    /// [`HistoryStore::load`] to say), or `last`, the newest run `newest` describes
    /// (newest by start time, then by id, as the listing orders them).
    pub fn resolve_id(&self, text: &str, newest: Newest<'_>) -> Result<i64, PickError> {
        if text == "last" {
            let found = match newest {
                Newest::Run => self.newest_where("?1 = ?1", "")?,
                Newest::OfKind(kind) => self.newest_where("kind = ?1", kind)?,
                Newest::Capture => self.newest_where("kind = ?1", CAPTURE_KIND)?,
                Newest::Result => self.newest_where("kind != ?1", CAPTURE_KIND)?,
            };
            return found.ok_or(PickError::NoneYet {
                wanted: newest.into(),
            });
        }
        text.parse::<i64>().map_err(|_| PickError::NotAnId {
            text: text.to_string(),
            wanted: newest.into(),
        })
    }

    /// The newest run whose row meets `condition` (one parameter, `value`).
    fn newest_where(&self, condition: &str, value: &str) -> Result<Option<i64>, HistoryError> {
        let sql = format!(
            "SELECT id FROM runs WHERE {condition} ORDER BY started_unix_ms DESC, id DESC LIMIT 1"
        );
        Ok(self
            .connection()
            .query_row(&sql, [value], |row| row.get(0))
            .optional()?)
    }
}

/// Why the history could not be opened to read.
#[derive(Debug, thiserror::Error)]
pub enum ReadOpenError {
    /// No `--db` and no default location.
    #[error("no history location: set XDG_DATA_HOME or HOME, or give --db PATH")]
    NoLocation,
    /// Nothing was ever saved there.
    #[error("no history at {} yet: runs are saved there as they finish", .0.display())]
    Missing(PathBuf),
    /// The database refused to open.
    #[error("{}", path.display())]
    Store {
        /// The database.
        path: PathBuf,
        /// Why.
        #[source]
        source: HistoryError,
    },
}

/// Opens the history `db` names (`--db`), or the default one, to read a saved run: upgraded
/// when it can be written, read as it is when it cannot (a read-only mount, an immutable
/// file), as the dashboard reads it. Nothing is created: a history that does not exist yet
/// is [`ReadOpenError::Missing`].
pub fn open_for_reading(db: Option<&Path>) -> Result<HistoryStore, ReadOpenError> {
    let path = match db {
        Some(path) => path.to_path_buf(),
        None => default_path().ok_or(ReadOpenError::NoLocation)?,
    };
    if !path.exists() {
        return Err(ReadOpenError::Missing(path));
    }
    match HistoryStore::open(&path) {
        // Reading needs no writing.
        Err(HistoryError::ReadOnly(_)) => HistoryStore::open_read_only(&path),
        opened => opened,
    }
    .map_err(|source| ReadOpenError::Store { path, source })
}

/// The fio iolog a traced capture writes by default, `iologs/capture-ID.log` beside the
/// history database `db` (made absolute): where `capture --trace` puts it and where
/// `replay --exact` finds it through the capture's trace profile. The folder is not made.
pub fn capture_iolog_path(db: &Path, capture_id: i64) -> PathBuf {
    let folder = db
        .parent()
        .map_or_else(|| PathBuf::from("iologs"), |p| p.join("iologs"));
    let folder = std::path::absolute(&folder).unwrap_or(folder);
    folder.join(format!("capture-{capture_id}.log"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traced_captures_iolog_sits_beside_the_history() {
        assert_eq!(
            capture_iolog_path(Path::new("/data/diskmeter/history.db"), 7),
            PathBuf::from("/data/diskmeter/iologs/capture-7.log")
        );
    }

    #[test]
    fn what_is_neither_a_number_nor_last_is_the_users_input() {
        let folder = tempfile::tempdir().unwrap();
        let store = HistoryStore::open(&folder.path().join("h.db")).unwrap();
        assert_eq!(store.resolve_id("12", Newest::Run).unwrap(), 12);
        let wrong = store.resolve_id("twelve", Newest::Capture).unwrap_err();
        assert!(wrong.is_input());
        assert_eq!(
            wrong.to_string(),
            "'twelve' is not a capture id (a number from diskmeter history --kind capture, or 'last')"
        );
        let none = store.resolve_id("last", Newest::Result).unwrap_err();
        assert_eq!(none.to_string(), "the history has no result to check yet");
        let missing = open_for_reading(Some(&folder.path().join("none.db"))).err();
        assert!(matches!(missing, Some(ReadOpenError::Missing(_))));
    }
}
