//! The shapes of an access pattern beyond a fixed block size and uniform offsets: block sizes
//! drawn from a range or a weighted list (fio `bsrange`, `bssplit`) and skewed random offsets
//! (fio `random_distribution`). Parsing follows fio 3.x's HOWTO; the drawing itself is the
//! runner's business.

use diskmeter_units::{format_size_suffix, parse_size_as_fio, KbBase, UnitError};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use crate::zones::{
    fit_abs_zones, AbsZone, FittedZone, Zone, ZoneFitError, ZonesPastEnd, MAX_ZONES,
};

/// Why a `bsrange`, `bssplit` or `random_distribution` value cannot be used; the option parser
/// puts the option and value in front.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PatternError {
    /// A block size the units parser refused.
    #[error(transparent)]
    Size(#[from] UnitError),

    /// A `bsrange` end of 0 bytes.
    #[error("block sizes must be at least 1 byte")]
    ZeroRangeSize,

    /// A `bssplit` entry of 0 bytes.
    #[error("block size '{size}' must be at least 1 byte")]
    ZeroSplitSize {
        /// The size as written.
        size: String,
    },

    /// A `bssplit` share that is not a number from 0 to 100.
    #[error("'{entry}': the share after '/' must be 0 to 100")]
    BadShare {
        /// The entry as written.
        entry: String,
    },

    /// A `bssplit` list with no entry.
    #[error("needs at least one size/percentage entry, e.g. 4k/50:64k/50")]
    EmptySplit,

    /// More `bssplit` entries than fio keeps.
    #[error("at most {MAX_BSSPLIT} entries per direction (fio's limit)")]
    TooManyEntries,

    /// Shares past 100 % with more than one blank share left to fill.
    #[error("the shares add up to {total_percent}%, more than 100%")]
    SharesOver100 {
        /// The sum of the given shares.
        total_percent: f64,
    },

    /// A distribution parameter that is not a number.
    #[error("'{text}' is not a number ({what})")]
    NotANumber {
        /// The parameter as written.
        text: String,
        /// Which parameter.
        what: &'static str,
    },

    /// A Zipf theta of 1 or less than 0 (fio's rule).
    #[error("the Zipf theta must be above 0 and not 1.0 (fio's rule)")]
    ZipfTheta,

    /// A Pareto power outside (0, 1).
    #[error("the Pareto power must be between 0 and 1 (exclusive)")]
    ParetoPower,

    /// A normal deviation outside 0-100 %.
    #[error("the normal deviation must be 0 to 100 (percent)")]
    NormalDeviation,

    /// A `zoned_abs` zone without its size.
    #[error("'{entry}': a zoned_abs zone is ACCESS%/SIZE with a size in bytes (e.g. 50/10g)")]
    BadAbsZone {
        /// The entry as written.
        entry: String,
    },

    /// A `zoned` entry that is not `ACCESS/SIZE` with two whole percents.
    #[error("'{entry}': a zone is ACCESS%/SIZE%, two whole percents 0 to 100 (e.g. 60/10)")]
    BadZone {
        /// The entry as written.
        entry: String,
    },

    /// `zoned` shares that do not add up as fio requires.
    #[error(
        "the zones' access shares add up to {access_percent}% and their sizes to \
         {size_percent}%: access must add up to 100%, sizes to at most 100%"
    )]
    ZoneShares {
        /// Sum of the access shares.
        access_percent: u32,
        /// Sum of the size shares.
        size_percent: u32,
    },

    /// A `zoned` list per direction (`zoned:R,W`), which diskmeter does not implement.
    #[error(
        "one zoned list for reads and writes together (per-direction lists are not supported)"
    )]
    ZonedPerDirection,

    /// A distribution name fio does not have.
    #[error(
        "'{name}' is not a distribution; use random, zipf:THETA, pareto:H or normal:DEV (each \
         with an optional :CENTER)"
    )]
    UnknownDistribution {
        /// The name as written.
        name: String,
    },

    /// More than `NAME:VALUE:CENTER`.
    #[error("too many ':' parts; the form is NAME:VALUE[:CENTER]")]
    TooManyParts,

    /// A center outside the region.
    #[error("the center {center} must be between 0 and 1")]
    CenterOutside {
        /// The center as parsed.
        center: f64,
    },
}

/// One entry of a `bssplit` list: a block size and the share of IOs that use it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BlockSizeShare {
    /// The block size, bytes.
    pub bytes: u64,
    /// Share of the direction's IOs, percent (the list sums to 100).
    pub percent: f64,
}

/// How one direction's IO sizes vary.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockSizeSpread {
    /// Every IO has the job's `bs`.
    #[default]
    Fixed,
    /// Sizes drawn uniformly from a range (fio `bsrange=min-max`); multiples of `min_bytes`
    /// unless `blocksize_unaligned` is set.
    Range {
        /// Smallest size, bytes.
        min_bytes: u64,
        /// Largest size, bytes.
        max_bytes: u64,
    },
    /// Sizes drawn from a weighted list (fio `bssplit=4k/10:64k/90`).
    Split(Vec<BlockSizeShare>),
}

impl BlockSizeSpread {
    /// Smallest and largest size this spread issues, given the fixed size `bs_bytes`.
    pub fn bounds(&self, bs_bytes: u64) -> (u64, u64) {
        match self {
            BlockSizeSpread::Fixed => (bs_bytes, bs_bytes),
            BlockSizeSpread::Range {
                min_bytes,
                max_bytes,
            } => (*min_bytes, *max_bytes),
            BlockSizeSpread::Split(shares) => {
                let min = shares.iter().map(|s| s.bytes).min().unwrap_or(bs_bytes);
                let max = shares.iter().map(|s| s.bytes).max().unwrap_or(bs_bytes);
                (min, max)
            }
        }
    }
}

/// A size in a range or list, read as fio reads it; a note for each value fio reads other
/// than written (`1.5m`) goes to `notes`, naming the value.
fn fio_size(text: &str, kb_base: KbBase, notes: &mut Vec<String>) -> Result<u64, UnitError> {
    let read = parse_size_as_fio(text, kb_base)?;
    notes.extend(read.note.map(|note| format!("'{text}' {note}")));
    Ok(read.value)
}

/// Parses one direction's `bsrange` text (`1k-4k`; a single size means a fixed range).
pub fn parse_bsrange(text: &str, kb_base: KbBase) -> Result<BlockSizeSpread, PatternError> {
    parse_bsrange_noted(text, kb_base, &mut Vec::new())
}

/// [`parse_bsrange`], with a note in `notes` for each size fio reads other than written.
pub fn parse_bsrange_noted(
    text: &str,
    kb_base: KbBase,
    notes: &mut Vec<String>,
) -> Result<BlockSizeSpread, PatternError> {
    let (low, high) = text.split_once(['-', ':']).unwrap_or((text, text));
    let min_bytes = fio_size(low.trim(), kb_base, notes)?;
    let max_bytes = fio_size(high.trim(), kb_base, notes)?;
    if min_bytes == 0 {
        return Err(PatternError::ZeroRangeSize);
    }
    // fio swaps a reversed range rather than refusing it.
    let (min_bytes, max_bytes) = (min_bytes.min(max_bytes), min_bytes.max(max_bytes));
    Ok(BlockSizeSpread::Range {
        min_bytes,
        max_bytes,
    })
}

/// The most entries a `bssplit` list may have (fio's `BSSPLIT_MAX`).
pub const MAX_BSSPLIT: usize = 64;

/// Parses one direction's `bssplit` list: `size/percent` entries joined by ':'; entries with
/// no percentage (or 0, which fio reads as none) share what the others leave, evenly in whole
/// percents (fio's rule). Shares are whole numbers, as fio's `atoi` reads them: `12.5` is 12,
/// read so with a note. Like fio, shares past 100
/// in total are cut and a list short of 100 gives the rest to its last entry.
pub fn parse_bssplit(text: &str, kb_base: KbBase) -> Result<BlockSizeSpread, PatternError> {
    parse_bssplit_noted(text, kb_base, &mut Vec::new())
}

/// [`parse_bssplit`], with a note in `notes` for each value fio reads other than written.
pub fn parse_bssplit_noted(
    text: &str,
    kb_base: KbBase,
    notes: &mut Vec<String>,
) -> Result<BlockSizeSpread, PatternError> {
    let mut shares = Vec::new();
    let mut blank = Vec::new();
    for entry in text.split(':').filter(|e| !e.trim().is_empty()) {
        let (size, percent) = entry.split_once('/').unwrap_or((entry, ""));
        let bytes = fio_size(size.trim(), kb_base, notes)?;
        if bytes == 0 {
            return Err(PatternError::ZeroSplitSize {
                size: size.to_string(),
            });
        }
        // fio reads the share with atoi (`split_parse_ddir`, options.c): a whole number, `%`
        // ignored, and 0 is "no share given", filled like an empty one.
        let percent = percent.trim().trim_end_matches('%');
        let whole_len = percent.bytes().take_while(u8::is_ascii_digit).count();
        let percent = if whole_len > 0 && whole_len < percent.len() {
            // atoi stops at the first non-digit: `12.5` is 12 to fio.
            let whole = &percent[..whole_len];
            notes.push(format!(
                "'{entry}' read as fio 3.33 reads it, {size}/{whole} (fio reads a share with \
                 atoi: the leading digits, so shares are whole percentages)",
                size = size.trim()
            ));
            whole
        } else {
            percent
        };
        let percent: Option<u32> = if percent.is_empty() {
            None
        } else {
            let value = percent
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| percent.parse::<u32>().ok())
                .flatten()
                .filter(|p| *p <= 100)
                .ok_or_else(|| PatternError::BadShare {
                    entry: entry.to_string(),
                })?;
            (value > 0).then_some(value)
        };
        let Some(percent) = percent else {
            blank.push(shares.len());
            shares.push(BlockSizeShare {
                bytes,
                percent: 0.0,
            });
            continue;
        };
        let percent = f64::from(percent);
        shares.push(BlockSizeShare { bytes, percent });
    }
    if shares.is_empty() {
        return Err(PatternError::EmptySplit);
    }
    if shares.len() > MAX_BSSPLIT {
        return Err(PatternError::TooManyEntries);
    }
    let given: f64 = shares.iter().map(|s| s.percent).sum();
    if given > 100.0 + 1e-9 && blank.len() > 1 {
        return Err(PatternError::SharesOver100 {
            total_percent: given,
        });
    }
    // fio divides what is left in whole percents (`bssplit_ddir`); the rounding's remainder
    // goes to the last entry below, as fio's draw gives it.
    for &i in &blank {
        shares[i].percent = ((100.0 - given) / blank.len() as f64).floor().max(0.0);
    }
    // fio walks the list adding shares until a uniform draw from 1-100 falls inside: shares
    // past 100 in total are cut, and what a short list leaves goes to its last entry.
    let mut total = 0.0;
    for share in shares.iter_mut() {
        share.percent = share.percent.min(100.0 - total).max(0.0);
        total += share.percent;
    }
    if let Some(last) = shares.last_mut() {
        last.percent += 100.0 - total;
    }
    Ok(BlockSizeSpread::Split(shares))
}

/// Prints a spread so that parsing it again gives the same spread.
pub fn show_spread(spread: &BlockSizeSpread, kb_base: KbBase) -> String {
    let size = |bytes| format_size_suffix(bytes, kb_base);
    match spread {
        BlockSizeSpread::Fixed => String::new(),
        BlockSizeSpread::Range {
            min_bytes,
            max_bytes,
        } => format!("{}-{}", size(*min_bytes), size(*max_bytes)),
        BlockSizeSpread::Split(shares) => shares
            .iter()
            .map(|s| format!("{}/{}", size(s.bytes), s.percent))
            .collect::<Vec<_>>()
            .join(":"),
    }
}

/// How random offsets are spread over the region (fio `random_distribution`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RandomDistribution {
    /// Every block equally likely (fio `random`, the default).
    #[default]
    Uniform,
    /// Zipf with exponent `theta` (!= 1): a few blocks take most IOs.
    Zipf {
        /// The Zipf theta.
        theta: f64,
        /// Where the hottest block sits, 0..1 of the region; `None` = scattered (fio's hash).
        center: Option<f64>,
    },
    /// Pareto with power `h` (0 < h < 1; fio's 0.2 gives the 80/20 rule's skew).
    Pareto {
        /// The Pareto power.
        h: f64,
        /// As for Zipf.
        center: Option<f64>,
    },
    /// Normal (Gaussian) around `center` with a deviation of `deviation_percent` % of the region.
    Normal {
        /// Standard deviation, percent of the region (0-100).
        deviation_percent: f64,
        /// Mean, 0..1 of the region (fio's default 0.5).
        center: f64,
    },
    /// Zones of the region, each taking a share of the IOs, uniform inside (fio `zoned`).
    Zoned {
        /// The zones from the region's start; access shares add up to 100.
        zones: Vec<Zone>,
    },
    /// Zones of fixed sizes in bytes from the region's start, each taking a share of the IOs,
    /// uniform inside (fio `zoned_abs`, DiskSpd `-rdabs`); `past_end` says what a zone that
    /// reaches past a target's region becomes.
    ZonedAbs {
        /// The zones from the region's start; access shares add up to 100.
        zones: Vec<AbsZone>,
        /// fio's rule (refused) or DiskSpd's (dropped, the rest re-weighted).
        #[serde(default)]
        past_end: ZonesPastEnd,
    },
}

/// fio's defaults when the parameter is left out (`FIO_DEF_ZIPF`, `FIO_DEF_PARETO`).
const DEFAULT_ZIPF_THETA: f64 = 1.1;
const DEFAULT_PARETO_H: f64 = 0.2;

impl RandomDistribution {
    /// Parses fio's `random`, `zipf[:theta[:center]]`, `pareto[:h[:center]]`,
    /// `normal[:dev[:center]]` (`gauss` too).
    pub fn parse(text: &str) -> Result<RandomDistribution, PatternError> {
        let mut parts = text.split(':');
        let kind = parts.next().unwrap_or("").trim();
        let mut number = |what: &'static str| -> Result<Option<f64>, PatternError> {
            match parts.next() {
                None => Ok(None),
                Some(p) => {
                    p.trim()
                        .parse::<f64>()
                        .map(Some)
                        .map_err(|_| PatternError::NotANumber {
                            text: p.to_string(),
                            what,
                        })
                }
            }
        };
        let distribution = match kind {
            "random" => RandomDistribution::Uniform,
            "zipf" => {
                let theta = number("the Zipf theta")?.unwrap_or(DEFAULT_ZIPF_THETA);
                let center = number("the center, 0 to 1")?;
                if theta == 1.0 || theta <= 0.0 {
                    return Err(PatternError::ZipfTheta);
                }
                RandomDistribution::Zipf { theta, center }
            }
            "pareto" => {
                let h = number("the Pareto power")?.unwrap_or(DEFAULT_PARETO_H);
                let center = number("the center, 0 to 1")?;
                if !(h > 0.0 && h < 1.0) {
                    return Err(PatternError::ParetoPower);
                }
                RandomDistribution::Pareto { h, center }
            }
            "normal" | "gauss" => {
                let deviation_percent = number("the deviation, 0 to 100")?.unwrap_or(0.0);
                let center = number("the center, 0 to 1")?.unwrap_or(0.5);
                if !(0.0..=100.0).contains(&deviation_percent) {
                    return Err(PatternError::NormalDeviation);
                }
                RandomDistribution::Normal {
                    deviation_percent,
                    center,
                }
            }
            "zoned" => {
                return crate::zones::parse_zones(text.split_once(':').map_or("", |(_, rest)| rest))
            }
            "zoned_abs" => {
                return crate::zones::parse_abs_zones(
                    text.split_once(':').map_or("", |(_, rest)| rest),
                )
            }
            other => {
                return Err(PatternError::UnknownDistribution {
                    name: other.to_string(),
                })
            }
        };
        if parts.next().is_some() {
            return Err(PatternError::TooManyParts);
        }
        if let RandomDistribution::Zipf {
            center: Some(c), ..
        }
        | RandomDistribution::Pareto {
            center: Some(c), ..
        }
        | RandomDistribution::Normal { center: c, .. } = distribution
        {
            if !(0.0..=1.0).contains(&c) {
                return Err(PatternError::CenterOutside { center: c });
            }
        }
        Ok(distribution)
    }

    /// fio's spelling, parseable again.
    pub fn show(&self) -> String {
        let with_center = |name: &str, value: f64, center: Option<f64>| match center {
            Some(c) => format!("{name}:{value}:{c}"),
            None => format!("{name}:{value}"),
        };
        match *self {
            RandomDistribution::Uniform => "random".to_string(),
            RandomDistribution::Zipf { theta, center } => with_center("zipf", theta, center),
            RandomDistribution::Pareto { h, center } => with_center("pareto", h, center),
            RandomDistribution::Normal {
                deviation_percent,
                center,
            } => with_center("normal", deviation_percent, Some(center)),
            RandomDistribution::Zoned { ref zones } => format!(
                "zoned:{}",
                zones
                    .iter()
                    .map(|z| format!("{}/{}", z.access_percent, z.size_percent))
                    .collect::<Vec<_>>()
                    .join(":")
            ),
            RandomDistribution::ZonedAbs { ref zones, .. } => format!(
                "zoned_abs:{}",
                zones
                    .iter()
                    .map(|z| format!(
                        "{}/{}",
                        z.access_percent,
                        format_size_suffix(z.size_bytes, KbBase::Binary)
                    ))
                    .collect::<Vec<_>>()
                    .join(":")
            ),
        }
    }
}

#[cfg(test)]
#[path = "patterns_tests.rs"]
mod tests;
