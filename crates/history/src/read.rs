//! Reading runs back: listings, whole runs, histograms.
//!
//! Results are read as the current result schema only: rows written by older diskmeters were
//! converted once, when their database was upgraded (`migrations.rs`).

use crate::{HistoryError, HistoryStore, RunFilter, RunSummary, StoredRun, StoredStep};
use diskmeter_report::ReportError;
use diskmeter_stats::LatencyHistogram;
use rusqlite::{params, OptionalExtension};

/// The columns [`summary_from_row`] reads, in its order.
const SUMMARY_COLUMNS: &str = "id, kind, name, target, started_unix_ms, finished_unix_ms,
    partial, unfinished, diskmeter_version, hostname, command_line,
    (SELECT COUNT(*) FROM steps WHERE steps.run_id = runs.id), summary";

impl HistoryStore {
    /// Runs matching `filter`, newest first.
    pub fn list(&self, filter: &RunFilter) -> Result<Vec<RunSummary>, HistoryError> {
        let (conditions, mut values) = conditions(filter, None);
        let mut sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM runs WHERE {conditions}
             ORDER BY started_unix_ms DESC, id DESC"
        );
        if let Some(limit) = filter.limit {
            sql.push_str(" LIMIT ?");
            values.push(i64::from(limit).into());
        }
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(rusqlite::params_from_iter(values), summary_from_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// One page of the runs matching `query`, newest first, with how many match in all
    /// (the dashboard's run list). `query.filter.limit` is ignored: the page size is.
    pub fn list_page(&self, query: &RunPageQuery) -> Result<RunPage, HistoryError> {
        let (conditions, mut values) = conditions(&query.filter, query.hostname.as_deref());
        let total: i64 = self.conn.query_row(
            &format!("SELECT COUNT(*) FROM runs WHERE {conditions}"),
            rusqlite::params_from_iter(values.clone()),
            |row| row.get(0),
        )?;
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM runs WHERE {conditions}
             ORDER BY started_unix_ms DESC, id DESC LIMIT ? OFFSET ?"
        );
        values.push(i64::from(query.page_size).into());
        values.push((query.offset.min(i64::MAX as u64) as i64).into());
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(rusqlite::params_from_iter(values), summary_from_row)?;
        Ok(RunPage {
            runs: rows.collect::<Result<Vec<_>, _>>()?,
            total: total as u64,
        })
    }

    /// The kinds, suite names and hosts the history holds, each sorted: what the run
    /// list's filters offer.
    pub fn facets(&self) -> Result<RunFacets, HistoryError> {
        let distinct = |sql: &str| -> Result<Vec<String>, HistoryError> {
            let mut statement = self.conn.prepare(sql)?;
            let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        };
        Ok(RunFacets {
            kinds: distinct("SELECT DISTINCT kind FROM runs ORDER BY kind")?,
            suites: distinct("SELECT DISTINCT name FROM runs WHERE kind = 'suite' ORDER BY name")?,
            hosts: distinct("SELECT DISTINCT hostname FROM runs ORDER BY hostname")?,
        })
    }

    /// The whole run `id`.
    pub fn load(&self, id: i64) -> Result<StoredRun, HistoryError> {
        let summary = self
            .conn
            .query_row(
                &format!("SELECT {SUMMARY_COLUMNS} FROM runs WHERE id = ?1"),
                [id],
                summary_from_row,
            )
            .optional()?
            .ok_or(HistoryError::NoSuchRun(id))?;
        let host = self
            .conn
            .query_row(
                "SELECT facts_json FROM host_facts WHERE run_id = ?1",
                [id],
                |row| row.get::<_, String>(0),
            )
            .optional()?
            .map(|text| {
                serde_json::from_str(&text).map_err(|e| HistoryError::Damaged {
                    run_id: id,
                    what: "host facts",
                    source: ReportError::Json(e),
                })
            })
            .transpose()?;
        let mut statement = self.conn.prepare(
            "SELECT name, result_json, position FROM steps WHERE run_id = ?1 ORDER BY position",
        )?;
        let rows = statement.query_map([id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, u32>(2)?,
            ))
        })?;
        let mut steps = Vec::new();
        for row in rows {
            let (name, json, position) = row?;
            let mut result =
                diskmeter_report::from_json(&json).map_err(|source| HistoryError::Damaged {
                    run_id: id,
                    what: "result",
                    source,
                })?;
            crate::job_histograms::restore(&self.conn, id, position, &mut result)?;
            steps.push(StoredStep { name, result });
        }
        Ok(StoredRun {
            summary,
            host,
            steps,
        })
    }

    /// The stored job file of one step (`[name]` sections of `key=value` options), if the
    /// step exists.
    pub fn job_file(&self, id: i64, position: u32) -> Result<Option<String>, HistoryError> {
        Ok(self
            .conn
            .query_row(
                "SELECT job_file FROM steps WHERE run_id = ?1 AND position = ?2",
                params![id, position],
                |row| row.get(0),
            )
            .optional()?)
    }

    /// The merged histogram of one step, direction ("read"/"write") and kind ("clat"/"lat").
    pub fn histogram(
        &self,
        id: i64,
        position: u32,
        direction: &str,
        kind: &str,
    ) -> Result<Option<LatencyHistogram>, HistoryError> {
        let blob: Option<Vec<u8>> = self
            .conn
            .query_row(
                "SELECT hdr_v2 FROM histograms
                 WHERE run_id = ?1 AND position = ?2 AND direction = ?3 AND kind = ?4",
                params![id, position, direction, kind],
                |row| row.get(0),
            )
            .optional()?;
        match blob {
            Some(bytes) => Ok(LatencyHistogram::from_bytes(&bytes).ok()),
            // Steps saved with their jobs' histograms keep no merged copy.
            None => crate::job_histograms::merged(&self.conn, id, position, direction, kind),
        }
    }

    /// The id of the newest run, if any (`diskmeter show last`).
    pub fn newest_id(&self) -> Result<Option<i64>, HistoryError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id FROM runs ORDER BY started_unix_ms DESC, id DESC LIMIT 1",
                [],
                |row| row.get(0),
            )
            .optional()?)
    }
}

/// One page of runs to list ([`HistoryStore::list_page`]).
#[derive(Debug, Clone, Default)]
pub struct RunPageQuery {
    /// Which runs (its `limit` is ignored).
    pub filter: RunFilter,
    /// Only runs made on this host.
    pub hostname: Option<String>,
    /// Runs to skip, newest first.
    pub offset: u64,
    /// Runs per page.
    pub page_size: u32,
}

/// A page of runs and how many match in all.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPage {
    /// This page's runs, newest first.
    pub runs: Vec<RunSummary>,
    /// How many runs match the filter, on all pages.
    pub total: u64,
}

/// The distinct values the run list can be filtered by.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunFacets {
    /// Kinds of runs ("run", "suite", ...).
    pub kinds: Vec<String>,
    /// Names of suites.
    pub suites: Vec<String>,
    /// Hosts the runs were made on.
    pub hosts: Vec<String>,
}

/// The `WHERE` conditions (joined by AND, "1 = 1" for none) and their values for `filter`
/// and a host.
fn conditions(filter: &RunFilter, hostname: Option<&str>) -> (String, Vec<rusqlite::types::Value>) {
    let mut conditions = vec!["1 = 1"];
    let mut values: Vec<rusqlite::types::Value> = Vec::new();
    if let Some(kind) = &filter.kind {
        conditions.push("kind = ?");
        values.push(kind.clone().into());
    }
    if let Some(name) = &filter.name {
        conditions.push("name = ?");
        values.push(name.clone().into());
    }
    if let Some(text) = &filter.target_contains {
        conditions.push("instr(target, ?) > 0");
        values.push(text.clone().into());
    }
    if let Some(host) = hostname {
        conditions.push("hostname = ?");
        values.push(host.to_string().into());
    }
    if let Some(since) = filter.since_unix_ms {
        conditions.push("started_unix_ms >= ?");
        values.push((since.min(i64::MAX as u64) as i64).into());
    }
    if let Some(until) = filter.until_unix_ms {
        conditions.push("started_unix_ms < ?");
        values.push((until.min(i64::MAX as u64) as i64).into());
    }
    (conditions.join(" AND "), values)
}

fn summary_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<RunSummary> {
    Ok(RunSummary {
        id: row.get(0)?,
        kind: row.get(1)?,
        name: row.get(2)?,
        target: row.get(3)?,
        started_unix_ms: row.get::<_, i64>(4)? as u64,
        finished_unix_ms: row.get::<_, i64>(5)? as u64,
        partial: row.get(6)?,
        unfinished: row.get(7)?,
        diskmeter_version: row.get(8)?,
        hostname: row.get(9)?,
        command_line: row.get(10)?,
        steps: row.get::<_, i64>(11)? as u32,
        summary: row.get(12)?,
    })
}
