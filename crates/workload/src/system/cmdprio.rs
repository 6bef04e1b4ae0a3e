//! fio's per-IO priorities of the io_uring and libaio engines (`cmdprio_percentage`,
//! `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`): which share of a direction's IOs, or of
//! its IOs of a block size, carries which IO priority (class and level) in the IO itself.
//!
//! Part of [`super::SystemOptions`]; parsed by the system rows.

use diskmeter_units::{parse_size, KbBase};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The per-IO priority settings of a job (indexed read, write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CmdPrio {
    /// Percentage of each direction's IOs issued with the priority (`cmdprio_percentage`);
    /// `None` = unset.
    pub percentage: Option<[u8; 2]>,
    /// The priority class of those IOs (`cmdprio_class`; fio's default 1, realtime).
    pub class: [u8; 2],
    /// The priority level of those IOs (`cmdprio`; fio's default 0, the highest).
    pub level: [u8; 2],
    /// Per block size shares, each with its own class and level if given
    /// (`cmdprio_bssplit`); `None` = unset.
    pub bssplit: Option<[Vec<CmdPrioSplit>; 2]>,
}

impl Default for CmdPrio {
    fn default() -> Self {
        CmdPrio {
            percentage: None,
            class: [1, 1],
            level: [0, 0],
            bssplit: None,
        }
    }
}

impl CmdPrio {
    /// True when the job gives any IO a priority of its own.
    pub fn is_set(&self) -> bool {
        self.percentage.is_some() || self.bssplit.is_some()
    }
}

/// One `cmdprio_bssplit` entry: `BS/PERCENT[/CLASS/LEVEL]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmdPrioSplit {
    /// The block size the entry is for.
    pub bs_bytes: u64,
    /// The share of that size's IOs with the priority.
    pub percent: u8,
    /// Class and level of the entry; `None` = `cmdprio_class` and `cmdprio`.
    pub class_level: Option<(u8, u8)>,
}

/// Why a `cmdprio_bssplit` value cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CmdPrioError {
    /// An entry that is not `BS/PERCENT` or `BS/PERCENT/CLASS/LEVEL`.
    #[error("'{entry}' is not BS/PERCENT or BS/PERCENT/CLASS/LEVEL (e.g. 64k/25/1/0:1m/0)")]
    Entry {
        /// The entry as written.
        entry: String,
    },
    /// fio 3.36's fifth field, the priority hint (command duration limits).
    #[error(
        "'{entry}' has a fifth field, a priority hint (command duration limits), which fio \
         3.36 added; fio 3.33 and diskmeter take BS/PERCENT/CLASS/LEVEL"
    )]
    Hint {
        /// The entry as written.
        entry: String,
    },
    /// A number out of its range.
    #[error("'{entry}': {what} must be from {min} to {max}")]
    Range {
        /// The entry as written.
        entry: String,
        /// Which number.
        what: &'static str,
        /// The smallest value.
        min: u8,
        /// The largest value.
        max: u8,
    },
    /// More than read,write.
    #[error("at most two lists: read,write")]
    TooManyDirections,
}

/// Parses fio's `cmdprio_bssplit` (`READ[,WRITE]`, each `ENTRY:ENTRY...`); a single list
/// applies to both directions, as fio's.
pub fn parse_cmdprio_bssplit(
    text: &str,
    kb_base: KbBase,
) -> Result<[Vec<CmdPrioSplit>; 2], CmdPrioError> {
    let lists: Vec<&str> = text.split(',').collect();
    if lists.len() > 2 {
        return Err(CmdPrioError::TooManyDirections);
    }
    let read = parse_list(lists[0], kb_base)?;
    let write = match lists.get(1) {
        Some(list) => parse_list(list, kb_base)?,
        None => read.clone(),
    };
    Ok([read, write])
}

fn parse_list(list: &str, kb_base: KbBase) -> Result<Vec<CmdPrioSplit>, CmdPrioError> {
    let mut entries = Vec::new();
    for entry in list.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        let bad = || CmdPrioError::Entry {
            entry: entry.to_string(),
        };
        let fields: Vec<&str> = entry.split('/').map(str::trim).collect();
        if fields.len() == 5 {
            return Err(CmdPrioError::Hint {
                entry: entry.to_string(),
            });
        }
        if fields.len() != 2 && fields.len() != 4 {
            return Err(bad());
        }
        let bs_bytes = parse_size(fields[0], kb_base).map_err(|_| bad())?;
        let number = |text: &str, what, max: u8| -> Result<u8, CmdPrioError> {
            let value: u8 = text.parse().map_err(|_| bad())?;
            if value > max {
                return Err(CmdPrioError::Range {
                    entry: entry.to_string(),
                    what,
                    min: 0,
                    max,
                });
            }
            Ok(value)
        };
        let percent = number(fields[1], "the percentage", 100)?;
        let class_level = if fields.len() == 4 {
            Some((
                number(fields[2], "the class", 3)?,
                number(fields[3], "the level", 7)?,
            ))
        } else {
            None
        };
        entries.push(CmdPrioSplit {
            bs_bytes,
            percent,
            class_level,
        });
    }
    Ok(entries)
}

/// Prints a `cmdprio_bssplit` back as fio writes it.
pub fn format_cmdprio_bssplit(split: &[Vec<CmdPrioSplit>; 2]) -> String {
    let list = |entries: &[CmdPrioSplit]| {
        entries
            .iter()
            .map(|e| match e.class_level {
                Some((class, level)) => format!("{}/{}/{class}/{level}", e.bs_bytes, e.percent),
                None => format!("{}/{}", e.bs_bytes, e.percent),
            })
            .collect::<Vec<_>>()
            .join(":")
    };
    format!("{},{}", list(&split[0]), list(&split[1]))
}
