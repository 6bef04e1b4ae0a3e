//! A sweep: IOPS vs queue depth, MiB/s vs block size and latency vs queue depth, with the
//! analysis (ceilings, crossover, knees) and the named tier.
//!
//! The points are rebuilt from the stored steps and analysed exactly as `diskmeter analyze`
//! does ([`diskmeter_analysis::points_of_steps`], [`diskmeter_analysis::analyse`] against
//! the built-in catalog, [`diskmeter_analysis::summary_lines`]), so the report states the
//! same ceilings and tier as the terminal. A sweep of one pattern shows everything in its
//! own section; a sweep of several (`--rw randread,randwrite`) has one child section per
//! pattern, each analysed on its own.
//!
//! A point whose step was interrupted or failed is partial: the analysis leaves it out
//! ([`diskmeter_analysis::analyse_group`]), the points table shows it marked "partial" with
//! why, and the charts draw whole points only.

mod charts;
pub mod curve;
#[cfg(test)]
pub(crate) mod tests;
pub mod text;

use charts::SweepChart;
use diskmeter_units::MIB_F64;

use crate::{Cell, ChartSpec, FactGroup, Section, SectionKind, Table, Tone, ViewError};
use diskmeter_analysis::{
    analyse_group, points_of_steps, summary_lines, Analysis, CeilingFinding, Limit, PointGroup,
    SweepPoint,
};
use diskmeter_history::{HistoryStore, StoredRun};
use diskmeter_units::{format_size_suffix, format_thousands, KbBase};

/// A sweep run's section with its heading and the run's header facts, anchored `run-ID`.
fn headed_section(run: &StoredRun) -> Section {
    let id = run.summary.id;
    let mut section = Section::new(
        format!("run-{id}"),
        format!("Sweep {id}: {}", run.summary.name),
        SectionKind::Sweep,
    );
    crate::run::run_header(&mut section, run);
    section
}

/// The section of a sweep run.
pub fn section(_store: &HistoryStore, run: &StoredRun) -> Result<Section, ViewError> {
    let id = run.summary.id;
    let first = run.steps.first().map(|s| s.name.as_str());
    if first.is_some_and(|n| diskmeter_analysis::curve::parse_curve_step_name(n).is_some()) {
        return Ok(curve::section(run, headed_section(run)));
    }
    let groups =
        points_of_steps(run.steps.iter().map(|s| (s.name.as_str(), &s.result))).map_err(|e| {
            ViewError::Unusable {
                run_id: id,
                reason: format!("{e} (a sweep's steps are named as diskmeter sweep names them)"),
            }
        })?;
    let mut section = headed_section(run);
    let anchor = section.anchor.clone();
    section.facts.push(grid_facts(&groups));
    let catalog = diskmeter_plan::Catalog::builtin();
    // The target as chart titles name it (with its emulated tier, if any).
    let target = &crate::run::target_title(run);
    match groups.as_slice() {
        [] => section
            .notes
            .push("The sweep has no points: nothing was measured.".to_string()),
        [group] => {
            let analysis = analyse_group(group, &catalog.named_volumes());
            show_pattern(&mut section, group, target, &analysis);
        }
        several => {
            for group in several {
                let analysis = analyse_group(group, &catalog.named_volumes());
                let mut child = Section::new(
                    format!("{anchor}-{}", slug(&group.rw)),
                    format!("Sweep {id}: {}", group.rw),
                    SectionKind::Sweep,
                );
                show_pattern(&mut child, group, target, &analysis);
                section.children.push(child);
            }
        }
    }
    Ok(section)
}

/// `randrw:70` as an HTML id part: `randrw-70`.
fn slug(rw: &str) -> String {
    rw.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn size(bytes: u64) -> String {
    format_size_suffix(bytes, KbBase::Binary).to_uppercase()
}

/// The grid: patterns, block sizes and queue depths swept.
fn grid_facts(groups: &[PointGroup]) -> FactGroup {
    let points: Vec<(u64, u32)> = groups
        .iter()
        .flat_map(|g| {
            let whole = g.points.iter().map(|p| (p.bs_bytes, p.qd));
            whole.chain(g.partial.iter().map(|p| (p.bs_bytes, p.qd)))
        })
        .collect();
    let partial: usize = groups.iter().map(|g| g.partial.len()).sum();
    let mut sizes: Vec<u64> = points.iter().map(|p| p.0).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut depths: Vec<u32> = points.iter().map(|p| p.1).collect();
    depths.sort_unstable();
    depths.dedup();
    let list = |items: Vec<String>| items.join(", ");
    FactGroup {
        title: "Grid".to_string(),
        rows: vec![
            (
                "Points".to_string(),
                match partial {
                    0 => points.len().to_string(),
                    n => format!("{} ({n} partial, left out of the analysis)", points.len()),
                },
            ),
            (
                "Patterns".to_string(),
                list(groups.iter().map(|g| g.rw.clone()).collect()),
            ),
            (
                "Block sizes".to_string(),
                list(sizes.into_iter().map(size).collect()),
            ),
            (
                "Queue depths (IOs in flight)".to_string(),
                list(depths.into_iter().map(|d| d.to_string()).collect()),
            ),
        ],
    }
}

/// One pattern's analysis, tables and charts, added to `section`.
fn show_pattern(section: &mut Section, group: &PointGroup, target: &str, analysis: &Analysis) {
    let rw = group.rw.as_str();
    section.cards = crate::headline::Headline::of_sweep(&group.points);
    section.facts.push(analysis_facts(rw, analysis));
    // The lines `diskmeter analyze` prints under its table, word for word.
    section.notes.extend(summary_lines(analysis));
    section.tables.push(points_table(group, analysis));
    if !analysis.block_sizes.is_empty() {
        section.tables.push(block_size_table(analysis));
    }
    if !analysis.tiers.is_empty() {
        section.tables.push(tiers_table(analysis));
    }
    if !group.partial.is_empty() {
        section.notes.push(
            "The charts draw the whole points only: a partial point's figures cover only \
             part of its time."
                .to_string(),
        );
    }
    // No whole point, no curve: no empty charts.
    if !group.points.is_empty() {
        let charts = sweep_charts(&section.anchor, &format!("{rw} on {target}"), &group.points);
        section.charts.extend(charts);
    }
}

/// The three charts of one pattern's points (`iops-vs-qd`, `mibps-vs-bs`, `latency-vs-qd`),
/// ids `{anchor}-{kind}`; `about` ends their titles ("randread on /dev/vdb"). Public so that
/// a sweep that was not saved (`diskmeter sweep --no-save --charts DIR`) can draw the same
/// charts from its points.
pub fn sweep_charts(anchor: &str, about: &str, points: &[SweepPoint]) -> Vec<ChartSpec> {
    SweepChart::ALL
        .into_iter()
        .map(|which| charts::chart(which, anchor, about, points))
        .collect()
}

fn iops_text(value: f64) -> String {
    format!("{} IOPS", format_thousands(value.round() as u64))
}

fn mibps_text(bytes_per_sec: f64) -> String {
    format!("{:.0} MiB/s", bytes_per_sec / MIB_F64)
}

/// A ceiling as stated: its value and the range measured on its plateau, or why there is
/// none and the best seen.
fn ceiling_text(finding: &CeilingFinding, format: fn(f64) -> String) -> String {
    match finding {
        CeilingFinding::Found(c) => format!(
            "{} (measured {} to {}; block sizes {})",
            format(c.value),
            format(c.low),
            format(c.high),
            c.block_sizes
                .iter()
                .map(|b| size(*b))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        CeilingFinding::NotFound { highest, reason } => {
            format!("none found: {reason} (best {})", format(*highest))
        }
    }
}

fn analysis_facts(rw: &str, a: &Analysis) -> FactGroup {
    if let Some(reason) = &a.nothing_inferred {
        return FactGroup {
            title: format!("Analysis: {rw}"),
            rows: vec![(
                "Nothing inferred".to_string(),
                format!("{reason}: no ceiling, limit, knee or tier is stated"),
            )],
        };
    }
    let mut rows = vec![
        (
            "IOPS ceiling".to_string(),
            ceiling_text(&a.iops_ceiling, iops_text),
        ),
        (
            "Bandwidth ceiling".to_string(),
            ceiling_text(&a.bandwidth_ceiling, mibps_text),
        ),
    ];
    if let Some(crossover) = a.crossover_bytes {
        rows.push((
            "Crossover block size".to_string(),
            format!("{:.1} KiB", crossover / 1024.0),
        ));
    }
    if let Some(f) = a.block_sizes.iter().find(|f| f.qd1_lat_ns.is_some()) {
        rows.push((
            "QD1 latency".to_string(),
            format!(
                "{} ({} IOs)",
                diskmeter_units::format_duration(f.qd1_lat_ns.unwrap_or_default()),
                size(f.bs_bytes)
            ),
        ));
    }
    let throttled: Vec<String> = a
        .block_sizes
        .iter()
        .filter(|f| f.throttled)
        .map(|f| size(f.bs_bytes))
        .collect();
    rows.push((
        "Throttling signature".to_string(),
        if throttled.is_empty() {
            "not seen".to_string()
        } else {
            throttled.join(", ")
        },
    ));
    rows.push((
        "Little's law".to_string(),
        match a.little_failures.len() {
            0 => "holds at every point".to_string(),
            n => format!("fails at {n} point(s)"),
        },
    ));
    rows.push(("Behaves like".to_string(), tier_text(a)));
    FactGroup {
        title: format!("Analysis: {rw}"),
        rows,
    }
}

/// The nearest published tier (ties named together), or why none is named.
fn tier_text(a: &Analysis) -> String {
    let Some((names, first)) = a.nearest_tier() else {
        return "no tier named: no ceiling was found".to_string();
    };
    format!(
        "{} ({} IOPS / {:.0} MiB/s published)",
        names,
        format_thousands(first.iops.round() as u64),
        first.mibps
    )
}

fn limit_text(limit: Limit) -> &'static str {
    match limit {
        Limit::Iops => "IOPS cap",
        Limit::Bandwidth => "bandwidth cap",
        Limit::QueueDepth => "queue depth",
    }
}

/// Every point, as `diskmeter sweep` tabulates them.
fn points_table(group: &PointGroup, a: &Analysis) -> Table {
    let mut rows: Vec<Vec<Cell>> = group
        .points
        .iter()
        .map(|p| {
            let limit = a
                .block_sizes
                .iter()
                .find(|f| f.bs_bytes == p.bs_bytes)
                .map_or("", |f| limit_text(f.limit));
            vec![
                Cell::text(size(p.bs_bytes)),
                Cell::number(p.qd.to_string()),
                Cell::number(diskmeter_units::format_iops(p.iops)),
                Cell::number(diskmeter_units::format_rate_binary(p.bytes_per_sec)),
                Cell::number(diskmeter_units::format_duration(p.lat_mean_ns)),
                Cell::number(diskmeter_units::format_duration(p.lat_p99_ns)),
                Cell::text(limit),
            ]
        })
        .collect();
    // Marked, not analysed: the reader sees the point ran and why it does not count.
    rows.extend(group.partial.iter().map(|p| {
        vec![
            Cell::text(size(p.bs_bytes)),
            Cell::number(p.qd.to_string()),
            Cell::number(format!(
                "({}) partial",
                format_thousands(p.iops.round() as u64)
            )),
            Cell::text("-"),
            Cell::text("-"),
            Cell::text("-"),
            Cell::text(format!("partial, left out: {}", p.reason)).with_tone(Tone::Neutral),
        ]
    }));
    Table {
        title: format!("Points: {}", group.rw),
        columns: [
            "block size",
            "QD",
            "IOPS",
            "bandwidth",
            "mean latency",
            "p99 latency",
            "limited by",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// Per block size: the best figures, what limits it, the knee and QD1 latency.
fn block_size_table(a: &Analysis) -> Table {
    let rows = a
        .block_sizes
        .iter()
        .map(|f| {
            vec![
                Cell::text(size(f.bs_bytes)),
                Cell::number(diskmeter_units::format_iops(f.best_iops)),
                Cell::number(diskmeter_units::format_rate_binary(f.best_bytes_per_sec)),
                Cell::text(limit_text(f.limit)),
                Cell::text(if f.flattened { "yes" } else { "no" }),
                Cell::number(f.knee_qd.map_or("-".to_string(), |k| k.to_string())),
                Cell::number(
                    f.qd1_lat_ns
                        .map_or("-".to_string(), diskmeter_units::format_duration),
                ),
                Cell::text(if f.throttled { "yes" } else { "no" }),
            ]
        })
        .collect();
    Table {
        title: "Block sizes".to_string(),
        columns: [
            "block size",
            "best IOPS",
            "best bandwidth",
            "limited by",
            "flattened",
            "knee QD (90 % of best)",
            "QD1 latency",
            "throttled",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// The published tiers nearest to the ceilings found.
fn tiers_table(a: &Analysis) -> Table {
    let rows = a
        .tiers
        .iter()
        .map(|t| {
            vec![
                Cell::text(&t.id),
                Cell::text(&t.name),
                Cell::number(format_thousands(t.iops.round() as u64)),
                Cell::number(format!("{:.0}", t.mibps)),
                Cell::number(format!("{:.3}", t.distance)),
            ]
        })
        .collect();
    Table {
        title: "Nearest published tiers (log distance: 0.1 is about 10 % off)".to_string(),
        columns: ["tier", "name", "IOPS", "MiB/s", "distance"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}
