//! Latency against the disk types' published latency classes.
//!
//! A provider publishes a class, not a guarantee: "sub-millisecond", "single-digit
//! millisecond", or a hard disk. A per-IO latency bound (typed as `latency=`, or a traced
//! capture's per-IO device latency at the plan's level) is judged against the class's range
//! ([`LatencyClass::range_ms`]): a class wholly at or below the bound meets it, a class wholly
//! at or above it is excluded, and a class that spans the bound is "within the class's
//! range": kept, with that said, never a coin flip. A counter-only capture's latency is an
//! interval mean of await (queueing included), not a per-IO figure: it is shown beside the
//! classes and excludes nothing. Without a latency figure the answer says latency was not
//! judged.

use crate::catalog::{DiskTier, LatencyClass};
use crate::demand::{Demand, LatencyBasis};
use serde::Serialize;

/// The verdict of one disk type against the demand's latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyVerdict {
    /// The class's whole range is at or below the bound.
    Meets,
    /// The class spans the bound: the published class cannot say.
    WithinClassRange,
    /// The class lies at or above the bound: excluded.
    Excluded,
    /// No per-IO bound (none given, or a counter-only await): nothing judged.
    NotJudged,
    /// The type has no latency class in the catalog.
    Unknown,
}

/// A disk type's latency judgement, with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyJudgement {
    /// The verdict.
    pub verdict: LatencyVerdict,
    /// The type's class, when published.
    pub class: Option<LatencyClass>,
    /// One line: the class, its range, the bound and what follows.
    pub text: String,
}

/// The bound the demand sets on per-IO latency, ms, when it sets one.
pub fn per_io_bound_ms(demand: &Demand) -> Option<f64> {
    match (demand.latency_ns, demand.latency_basis) {
        (Some(ns), None | Some(LatencyBasis::PerIo)) => Some(ns as f64 / 1e6),
        _ => None,
    }
}

/// Judges `tier`'s published class against `demand`'s latency.
pub fn judge(tier: &DiskTier, demand: &Demand) -> LatencyJudgement {
    let class = tier.latency_class;
    let class_text = match class {
        Some(c) => {
            let (low, high) = c.range_ms();
            if high.is_finite() {
                format!("{} is {} ({low}-{high} ms)", tier.id, c.label())
            } else {
                format!("{} is {}", tier.id, c.label())
            }
        }
        None => format!("{} has no published latency class in the catalog", tier.id),
    };
    let Some(bound) = per_io_bound_ms(demand) else {
        let text = match (demand.latency_ns, demand.latency_basis) {
            (Some(ns), Some(LatencyBasis::IntervalAwait)) => format!(
                "latency not judged: the capture's {} is an interval mean of await \
                 (queueing included, counters only), not a per-IO latency; {class_text}",
                diskmeter_units::format_duration_ns(ns)
            ),
            _ => "latency not judged: the requirement has no latency bound".to_string(),
        };
        return LatencyJudgement {
            verdict: LatencyVerdict::NotJudged,
            class,
            text,
        };
    };
    let Some(c) = class else {
        return LatencyJudgement {
            verdict: LatencyVerdict::Unknown,
            class,
            text: format!("latency not judged: {class_text}"),
        };
    };
    let (low, high) = c.range_ms();
    let bound_text = format!("the bound {} ms per IO", trim(bound));
    let (verdict, text) = if high <= bound {
        (
            LatencyVerdict::Meets,
            format!("latency: {class_text}, within {bound_text}"),
        )
    } else if low >= bound {
        (
            LatencyVerdict::Excluded,
            format!("latency: {class_text}, above {bound_text}: excluded"),
        )
    } else {
        (
            LatencyVerdict::WithinClassRange,
            format!(
                "latency: {class_text}, a range that spans {bound_text}: the class cannot \
                 say; measure it (diskmeter run) before relying on it"
            ),
        )
    };
    LatencyJudgement {
        verdict,
        class,
        text,
    }
}

/// How a search judged latency: the bound and the disk types it excluded ("P1
/// (single-digit ms)" entries, grouped by class), or why latency was not judged.
pub fn summary(demand: &Demand, excluded: &[String]) -> String {
    match per_io_bound_ms(demand) {
        Some(bound) if excluded.is_empty() => format!(
            "latency: the bound {bound} ms per IO excludes no disk type of the search by its \
             published class"
        ),
        Some(bound) => {
            // "P1 (single-digit ms)" entries, grouped by class.
            let mut by_class: Vec<(String, Vec<&str>)> = Vec::new();
            for entry in excluded {
                let (id, class) = entry.split_once(" (").unwrap_or((entry, ""));
                let class = class.strip_suffix(')').unwrap_or(class).to_string();
                match by_class.iter_mut().find(|(c, _)| *c == class) {
                    Some((_, ids)) => ids.push(id),
                    None => by_class.push((class, vec![id])),
                }
            }
            let groups: Vec<String> = by_class
                .iter()
                .map(|(class, ids)| format!("{class}: {}", ids.join(", ")))
                .collect();
            format!(
                "latency: the bound {bound} ms per IO excludes {} disk type(s) whose published \
                 class lies above it ({})",
                excluded.len(),
                groups.join("; ")
            )
        }
        None => match demand.latency_ns {
            Some(ns) => format!(
                "latency not judged: the capture's {} is an interval mean of await (counters \
                 only), not a per-IO latency; trace the capture (capture --trace) or give \
                 latency= to judge the disk types' latency classes",
                diskmeter_units::format_duration_ns(ns)
            ),
            None => "latency not judged: the requirement has no latency bound (add latency=, \
                     e.g. latency=1ms, to exclude disk types whose published class lies above \
                     it)"
            .to_string(),
        },
    }
}

fn trim(ms: f64) -> String {
    let text = format!("{ms:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tier(class: LatencyClass) -> DiskTier {
        DiskTier {
            id: "t".into(),
            latency_class: Some(class),
            ..DiskTier::default()
        }
    }

    #[test]
    fn a_bound_excludes_classes_above_it_and_keeps_a_spanning_class_with_that_said() {
        let one_ms = Demand::parse("iops=100,latency=1ms").unwrap();
        assert_eq!(
            judge(&tier(LatencyClass::SubMillisecond), &one_ms).verdict,
            LatencyVerdict::Meets
        );
        assert_eq!(
            judge(&tier(LatencyClass::SingleDigitMillisecond), &one_ms).verdict,
            LatencyVerdict::Excluded
        );
        assert_eq!(
            judge(&tier(LatencyClass::Hdd), &one_ms).verdict,
            LatencyVerdict::Excluded
        );
        let five = Demand::parse("iops=100,latency=5ms").unwrap();
        let spanning = judge(&tier(LatencyClass::SingleDigitMillisecond), &five);
        assert_eq!(spanning.verdict, LatencyVerdict::WithinClassRange);
        assert!(spanning.text.contains("1-10 ms"), "{}", spanning.text);
    }

    #[test]
    fn an_await_or_no_latency_is_not_judged_and_says_why() {
        let mut await_only = Demand::parse("iops=100,latency=300us").unwrap();
        await_only.latency_basis = Some(LatencyBasis::IntervalAwait);
        let j = judge(&tier(LatencyClass::Hdd), &await_only);
        assert_eq!(j.verdict, LatencyVerdict::NotJudged);
        assert!(j.text.contains("interval mean of await"), "{}", j.text);
        let none = judge(&tier(LatencyClass::Hdd), &Demand::parse("iops=1").unwrap());
        assert!(none.text.contains("no latency bound"), "{}", none.text);
    }
}
