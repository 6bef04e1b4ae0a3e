//! Opening the results history for the commands that read it (`history`, `show`, `export`,
//! `compare`, `analyze`). Saving is the orchestrator's: every session saves what finished.

use crate::EXIT_FAILURE;
use diskmeter_history::HistoryStore;
use diskmeter_orchestrator::HistoryChoice;
use std::path::PathBuf;

/// Opens the history for reading commands; prints why and returns the exit code on failure.
pub(crate) fn open_for_reading(db: Option<&PathBuf>) -> Result<HistoryStore, i32> {
    let choice = db.map_or(HistoryChoice::Default, |p| HistoryChoice::At(p.clone()));
    let path = match choice.path() {
        Ok(Some(path)) => path,
        Ok(None) => return Err(EXIT_FAILURE),
        Err(e) => {
            eprintln!("diskmeter: {e}");
            return Err(EXIT_FAILURE);
        }
    };
    if !path.exists() {
        eprintln!(
            "diskmeter: no history at {} yet: runs are saved there as they finish",
            path.display()
        );
        return Err(EXIT_FAILURE);
    }
    HistoryStore::open(&path).map_err(|e| {
        eprintln!("diskmeter: {}: {e}", path.display());
        EXIT_FAILURE
    })
}
