//! The loop linked (schema v9): capture -> requirements -> plan -> replay -> check. A replay
//! keeps its capture on its run row (`runs.capture_id`, written with the run, so a spooled
//! replay keeps it too); a plan made from a capture (`plans`) and a check's verdicts
//! (`checks`, of the run it judged, and of the capture whose level it required, if any) are
//! rows of their own, each saved whole in one transaction. The readers answer "nothing"
//! on a database older than v9 opened read-only (the dashboard does not upgrade).

use crate::{HistoryError, HistoryStore};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

/// The schema version that added the links: older databases have none.
pub const LINKS_SCHEMA_VERSION: u32 = 9;

/// A plan made from a capture (`diskmeter plan --from-capture ID`), to save.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewPlan {
    /// The capture whose checklist was the demand.
    pub capture_id: i64,
    /// The checklist column planned for ("p99").
    pub level: String,
    /// When, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// The command line as given.
    pub command_line: String,
    /// One line: the answer's headline (the configuration chosen, or why none meets it).
    pub summary: String,
    /// The answer as `plan` printed it.
    pub text: String,
    /// The answer as `plan --format json` prints it.
    pub plan_json: String,
}

/// A saved plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredPlan {
    /// Its id (`saved as plan N`).
    pub id: i64,
    /// What was saved.
    #[serde(flatten)]
    pub plan: NewPlan,
}

/// A check's verdicts (`diskmeter check`), to save.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewCheck {
    /// The run judged (a replay, a run, a suite).
    pub run_id: i64,
    /// The step judged ("" when every step of the run was, for `--expect`).
    pub step: String,
    /// The capture whose checklist gave the requirements (`--capture ID`), if any.
    pub capture_id: Option<i64>,
    /// With a capture: the checklist column ("p90"); else "".
    pub level: String,
    /// When, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// The command line as given.
    pub command_line: String,
    /// The overall verdict: "met", "within noise" or "missed" (a figure not measured is
    /// "missed", as `check` fails on it).
    pub verdict: String,
    /// The verdicts as `check` printed them: one line per requirement with the measured
    /// figure, its 95 % interval, the bound and the margin.
    pub text: String,
    /// The same as `check --format json` prints it.
    pub check_json: String,
}

/// A saved check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredCheck {
    /// Its id (`saved as check N`).
    pub id: i64,
    /// What was saved.
    #[serde(flatten)]
    pub check: NewCheck,
}

impl HistoryStore {
    /// Saves a plan made from a capture and returns its id (refused with
    /// [`HistoryError::NotACapture`] when `capture_id` is not a capture).
    pub fn save_plan(&mut self, plan: &NewPlan) -> Result<i64, HistoryError> {
        let tx = self.write_transaction()?;
        require_capture(&tx, plan.capture_id)?;
        tx.execute(
            "INSERT INTO plans (capture_id, level, created_unix_ms, command_line, summary, text,
                 plan_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                plan.capture_id,
                plan.level,
                plan.created_unix_ms as i64,
                plan.command_line,
                plan.summary,
                plan.text,
                plan.plan_json
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// Saves a check's verdicts and returns its id (refused with
    /// [`HistoryError::NoSuchRun`] when the run judged is not in the history).
    pub fn save_check(&mut self, check: &NewCheck) -> Result<i64, HistoryError> {
        let tx = self.write_transaction()?;
        let exists: Option<i64> = tx
            .query_row("SELECT id FROM runs WHERE id = ?1", [check.run_id], |row| {
                row.get(0)
            })
            .optional()?;
        if exists.is_none() {
            return Err(HistoryError::NoSuchRun(check.run_id));
        }
        if let Some(capture) = check.capture_id {
            require_capture(&tx, capture)?;
        }
        tx.execute(
            "INSERT INTO checks (run_id, step, capture_id, level, created_unix_ms, command_line,
                 verdict, text, check_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                check.run_id,
                check.step,
                check.capture_id,
                check.level,
                check.created_unix_ms as i64,
                check.command_line,
                check.verdict,
                check.text,
                check.check_json
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// Whether the open database has the v9 tables (a read-only open of an older one
    /// does not).
    fn has_links(&self) -> Result<bool, HistoryError> {
        Ok(self.schema_version()? >= LINKS_SCHEMA_VERSION)
    }

    /// The capture the run `run_id` replays, if it is a replay of one.
    pub fn capture_of(&self, run_id: i64) -> Result<Option<i64>, HistoryError> {
        if !self.has_links()? {
            return Ok(None);
        }
        Ok(self
            .conn
            .query_row(
                "SELECT capture_id FROM runs WHERE id = ?1",
                [run_id],
                |row| row.get::<_, Option<i64>>(0),
            )
            .optional()?
            .flatten())
    }

    /// The runs replaying capture `capture_id`, oldest first.
    pub fn replays_of(&self, capture_id: i64) -> Result<Vec<i64>, HistoryError> {
        if !self.has_links()? {
            return Ok(Vec::new());
        }
        let mut statement = self
            .conn
            .prepare("SELECT id FROM runs WHERE capture_id = ?1 ORDER BY started_unix_ms, id")?;
        let rows = statement.query_map([capture_id], |row| row.get(0))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The plans made from capture `capture_id`, oldest first.
    pub fn plans_of(&self, capture_id: i64) -> Result<Vec<StoredPlan>, HistoryError> {
        if !self.has_links()? {
            return Ok(Vec::new());
        }
        let mut statement = self.conn.prepare(
            "SELECT id, capture_id, level, created_unix_ms, command_line, summary, text,
                 plan_json
             FROM plans WHERE capture_id = ?1 ORDER BY id",
        )?;
        let rows = statement.query_map([capture_id], |row| {
            Ok(StoredPlan {
                id: row.get(0)?,
                plan: NewPlan {
                    capture_id: row.get(1)?,
                    level: row.get(2)?,
                    created_unix_ms: row.get::<_, i64>(3)? as u64,
                    command_line: row.get(4)?,
                    summary: row.get(5)?,
                    text: row.get(6)?,
                    plan_json: row.get(7)?,
                },
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The checks of the run `run_id`, oldest first.
    pub fn checks_of_run(&self, run_id: i64) -> Result<Vec<StoredCheck>, HistoryError> {
        self.checks_where("run_id = ?1", run_id)
    }

    /// The checks that required what capture `capture_id` needed, oldest first.
    pub fn checks_of_capture(&self, capture_id: i64) -> Result<Vec<StoredCheck>, HistoryError> {
        self.checks_where("capture_id = ?1", capture_id)
    }

    fn checks_where(&self, condition: &str, id: i64) -> Result<Vec<StoredCheck>, HistoryError> {
        if !self.has_links()? {
            return Ok(Vec::new());
        }
        let mut statement = self.conn.prepare(&format!(
            "SELECT id, run_id, step, capture_id, level, created_unix_ms, command_line, verdict,
                 text, check_json
             FROM checks WHERE {condition} ORDER BY id"
        ))?;
        let rows = statement.query_map([id], |row| {
            Ok(StoredCheck {
                id: row.get(0)?,
                check: NewCheck {
                    run_id: row.get(1)?,
                    step: row.get(2)?,
                    capture_id: row.get(3)?,
                    level: row.get(4)?,
                    created_unix_ms: row.get::<_, i64>(5)? as u64,
                    command_line: row.get(6)?,
                    verdict: row.get(7)?,
                    text: row.get(8)?,
                    check_json: row.get(9)?,
                },
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

/// Fails unless run `id` is a capture.
fn require_capture(tx: &rusqlite::Transaction<'_>, id: i64) -> Result<(), HistoryError> {
    let kind: Option<String> = tx
        .query_row("SELECT kind FROM runs WHERE id = ?1", [id], |row| {
            row.get(0)
        })
        .optional()?;
    match kind.as_deref() {
        None => Err(HistoryError::NoSuchRun(id)),
        Some(crate::CAPTURE_KIND) => Ok(()),
        Some(_) => Err(HistoryError::NotACapture(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RunEnd, RunHeader, CAPTURE_KIND};

    fn header(kind: &str, capture_id: Option<i64>) -> RunHeader {
        RunHeader {
            kind: kind.into(),
            name: kind.into(),
            target: "vdb".into(),
            command_line: format!("diskmeter {kind}"),
            host: Default::default(),
            started_unix_ms: 1_000,
            diskmeter_version: "test".into(),
            hostname: "test".into(),
            capture_id,
        }
    }

    fn finished_run(store: &mut HistoryStore, kind: &str, capture_id: Option<i64>) -> i64 {
        let id = store.begin_run(&header(kind, capture_id)).unwrap();
        let end = RunEnd {
            finished_unix_ms: 2_000,
            partial: false,
            summary: Some(String::new()),
        };
        store.finish_run(id, &end).unwrap();
        id
    }

    fn plan(capture_id: i64) -> NewPlan {
        NewPlan {
            capture_id,
            level: "p99".into(),
            created_unix_ms: 3_000,
            command_line: "diskmeter plan --from-capture 1".into(),
            summary: "1 x D8ds_v5 + 2 x P30".into(),
            text: "Cheapest: ...\n".into(),
            plan_json: "{}".into(),
        }
    }

    fn check(run_id: i64, capture_id: Option<i64>) -> NewCheck {
        NewCheck {
            run_id,
            step: "replay".into(),
            capture_id,
            level: "p90".into(),
            created_unix_ms: 4_000,
            command_line: "diskmeter check last --capture 1".into(),
            verdict: "met".into(),
            text: "MET iops >= 2000: 2003 [1998, 2008]\n".into(),
            check_json: "{}".into(),
        }
    }

    #[test]
    fn plans_checks_and_a_replays_capture_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open(&dir.path().join("h.db")).unwrap();
        assert_eq!(store.schema_version().unwrap(), crate::SCHEMA_VERSION);
        let capture = finished_run(&mut store, CAPTURE_KIND, None);
        let replay = finished_run(&mut store, "replay", Some(capture));
        let other = finished_run(&mut store, "run", None);
        assert_eq!(store.capture_of(replay).unwrap(), Some(capture));
        assert_eq!(store.capture_of(other).unwrap(), None);
        assert_eq!(store.replays_of(capture).unwrap(), vec![replay]);
        let plan_id = store.save_plan(&plan(capture)).unwrap();
        let plans = store.plans_of(capture).unwrap();
        assert_eq!(plans.len(), 1);
        assert_eq!((plans[0].id, &plans[0].plan), (plan_id, &plan(capture)));
        let check_id = store.save_check(&check(replay, Some(capture))).unwrap();
        let by_run = store.checks_of_run(replay).unwrap();
        assert_eq!(
            (by_run[0].id, &by_run[0].check),
            (check_id, &check(replay, Some(capture)))
        );
        assert_eq!(store.checks_of_capture(capture).unwrap(), by_run);
        assert!(store.checks_of_run(other).unwrap().is_empty());
    }

    #[test]
    fn a_plan_needs_a_capture_and_a_check_a_run() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open(&dir.path().join("h.db")).unwrap();
        let run = finished_run(&mut store, "run", None);
        assert!(matches!(
            store.save_plan(&plan(run)),
            Err(HistoryError::NotACapture(id)) if id == run
        ));
        assert!(matches!(
            store.save_check(&check(99, None)),
            Err(HistoryError::NoSuchRun(99))
        ));
        assert!(matches!(
            store.save_check(&check(run, Some(run))),
            Err(HistoryError::NotACapture(_))
        ));
    }

    #[test]
    fn a_replay_of_a_capture_no_longer_there_is_saved_unlinked() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open(&dir.path().join("h.db")).unwrap();
        let replay = finished_run(&mut store, "replay", Some(42));
        assert_eq!(store.capture_of(replay).unwrap(), None);
    }

    #[test]
    fn a_version_8_database_is_upgraded_with_its_runs_unlinked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let (capture, run) = {
            // Rows as a v8 diskmeter wrote them (it had no capture_id column).
            let old = HistoryStore::open_at_version(&path, 8).unwrap();
            let insert = |kind: &str| {
                old.connection()
                    .execute(
                        "INSERT INTO runs (kind, name, target, started_unix_ms,
                             finished_unix_ms, partial, diskmeter_version, hostname,
                             command_line)
                         VALUES (?1, 'r', 't', 1, 2, 0, 'old', 'h', 'c')",
                        [kind],
                    )
                    .unwrap();
                old.connection().last_insert_rowid()
            };
            (insert(CAPTURE_KIND), insert("replay"))
        };
        // Read-only, as the dashboard opens it: read as it is, with no links.
        let read_only = HistoryStore::open_read_only(&path).unwrap();
        assert_eq!(read_only.schema_version().unwrap(), 8);
        assert_eq!(read_only.capture_of(run).unwrap(), None);
        assert!(read_only.plans_of(capture).unwrap().is_empty());
        assert!(read_only.checks_of_run(run).unwrap().is_empty());
        drop(read_only);
        let mut store = HistoryStore::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), LINKS_SCHEMA_VERSION);
        assert_eq!(store.capture_of(run).unwrap(), None);
        assert!(store.replays_of(capture).unwrap().is_empty());
        store.save_plan(&plan(capture)).unwrap();
        store.save_check(&check(run, Some(capture))).unwrap();
        assert_eq!(store.plans_of(capture).unwrap().len(), 1);
        assert_eq!(store.checks_of_run(run).unwrap().len(), 1);
        assert!(store.integrity_ok().unwrap());
    }
}
