//! A sweep's IOPS-latency curve (`sweep --curve`): the terminal table (each paced point's
//! rate, IOPS and p50/p99/p99.9 from the intended issue time, each with its 95 % interval),
//! a small terminal plot of p99 against the rate, the SLO's answer as `check` states a
//! verdict, the JSON document, and the chart (IOPS vs latency) the charts and the report draw.

use crate::text::TextTable;
use crate::{Axis, ChartSpec, ChartStyle, SeriesSpec};
use diskmeter_analysis::curve::{Curve, CurvePoint, CurveRole, SloAnswer, CURVE_PERCENTILES};
use diskmeter_analysis::verdict::Estimate;
use diskmeter_units::format_thousands;
use std::fmt::Write;
use std::path::PathBuf;

/// The chart's kind and file stem.
pub const CURVE_CHART_KIND: &str = "iops-vs-latency";
/// Width of the terminal plot's bars, characters.
const PLOT_WIDTH: usize = 40;

/// The curve on `target` as the terminal shows it, with the `charts` written; or, `json`,
/// the document `{"target", "curve", "charts"}` ([`Curve`]'s fields).
pub fn curve_results(curve: &Curve, target: &str, charts: &[PathBuf], json: bool) -> String {
    let charts: Vec<String> = charts.iter().map(|f| f.display().to_string()).collect();
    if json {
        let doc = serde_json::json!({ "target": target, "curve": curve, "charts": charts });
        return serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    }
    let mut text = format!("IOPS-latency curve on {target}\n\n");
    match curve.max_iops {
        Some(max) => {
            let _ = writeln!(
                text,
                "maximum rate: {} IOPS (unpaced); latency below is from each IO's intended \
                 issue time\n",
                format_thousands(max.round() as u64)
            );
        }
        None => text.push_str("The maximum rate was not measured: no point was paced.\n\n"),
    }
    text.push_str(&table(curve));
    text.push_str("\n\n");
    text.push_str(&plot(&curve.points));
    if let Some(slo) = &curve.slo {
        text.push('\n');
        text.push_str(&slo_lines(slo));
    }
    for file in &charts {
        let _ = writeln!(text, "chart: {file}");
    }
    text
}

/// A percentile (given in ms) with its interval, each in its scaled unit:
/// "2.01 ms (2.00 ms-2.12 ms)"; "-" when not measured.
fn figure(estimate: &Option<Estimate>) -> String {
    let ms = |v: f64| diskmeter_units::format_duration(v * 1e6);
    match estimate {
        Some(e) if e.has_interval() && e.low != e.high => {
            format!("{} ({}-{})", ms(e.value), ms(e.low), ms(e.high))
        }
        Some(e) => ms(e.value),
        None => "-".to_string(),
    }
}

fn point_label(point: &CurvePoint) -> String {
    match point.role {
        CurveRole::Max => "max".to_string(),
        CurveRole::Share(share) => format!("{share}%"),
        CurveRole::Bisect => "slo".to_string(),
    }
}

/// The points table: one row per point, the maximum first, partial points marked.
fn table(curve: &Curve) -> String {
    let mut table = TextTable::new(["point", "paced IOPS", "IOPS", "p50", "p99", "p99.9", "SLO"]);
    for point in &curve.points {
        let mut cells = vec![
            point_label(point),
            point.target_iops.map_or("-".to_string(), format_thousands),
            format_thousands(point.iops.round() as u64),
        ];
        if point.partial.is_some() {
            // Part of a run is never shown as if it were whole.
            cells.extend(["-", "-", "-", "partial: left out"].map(String::from));
        } else {
            cells.extend(point.latency_ms.iter().map(figure));
            cells.push(
                point
                    .slo
                    .as_ref()
                    .filter(|_| point.target_iops.is_some())
                    .map_or(String::new(), |j| j.verdict.label().to_lowercase()),
            );
        }
        table.row(cells);
    }
    table.to_string()
}

/// p99 against the paced rate, one bar per whole paced point, on a log scale from the
/// smallest p99 to the largest.
fn plot(points: &[CurvePoint]) -> String {
    let p99 = CURVE_PERCENTILES
        .iter()
        .position(|&p| p == 99.0)
        .unwrap_or(1);
    let bars: Vec<(u64, f64)> = points
        .iter()
        .filter(|p| p.partial.is_none())
        .filter_map(|p| Some((p.target_iops?, p.latency_ms.get(p99)?.as_ref()?.value)))
        .filter(|(_, ms)| *ms > 0.0)
        .collect();
    let (Some(low), Some(high)) = (
        bars.iter().map(|b| b.1).min_by(f64::total_cmp),
        bars.iter().map(|b| b.1).max_by(f64::total_cmp),
    ) else {
        return String::new();
    };
    let span = (high / low).ln().max(f64::MIN_POSITIVE);
    let mut text = "p99 latency by paced rate (log scale):\n".to_string();
    for (rate, ms) in bars {
        let filled = 1 + ((ms / low).ln() / span * (PLOT_WIDTH - 1) as f64).round() as usize;
        let _ = writeln!(
            text,
            "{:>10} IOPS |{:<width$} {}",
            format_thousands(rate),
            "#".repeat(filled),
            diskmeter_units::format_duration(ms * 1e6),
            width = PLOT_WIDTH
        );
    }
    text
}

/// The SLO's answer: the verdict with the rate, then the judgements at the rate and at the
/// first rate over, as `check` prints them.
pub fn slo_lines(slo: &SloAnswer) -> String {
    let mut text = format!("SLO {}: {}", slo.requirement, slo.verdict.label());
    let share = slo
        .share_of_max_percent
        .map(|s| format!(" ({s:.1} % of the maximum)"))
        .unwrap_or_default();
    let _ = match (slo.verdict, slo.rate_iops) {
        (_, Some(rate)) => writeln!(
            text,
            " at {} IOPS{share}: the highest paced rate whose interval {} the bound",
            format_thousands(rate),
            match slo.verdict {
                diskmeter_analysis::verdict::Verdict::Met => "stays under",
                _ => "cannot be told apart from",
            }
        ),
        _ => writeln!(text, ": no paced rate measured stays under the bound"),
    };
    if let Some(at) = &slo.at_rate {
        let _ = writeln!(text, "  at the rate: {}", at.line());
    }
    if let Some((rate, over)) = &slo.first_over {
        let _ = writeln!(
            text,
            "  first rate over, {} IOPS: {}",
            format_thousands(*rate),
            over.line()
        );
    }
    text
}

/// The IOPS vs latency chart: p50, p99 and p99.9 (ms, from the intended issue time) against
/// the IOPS each whole paced point did; id `{anchor}-iops-vs-latency`.
pub fn curve_chart(anchor: &str, about: &str, curve: &Curve) -> ChartSpec {
    let paced: Vec<&CurvePoint> = curve
        .points
        .iter()
        .filter(|p| p.target_iops.is_some() && p.partial.is_none())
        .collect();
    let mut series: Vec<SeriesSpec> = CURVE_PERCENTILES
        .iter()
        .enumerate()
        .map(|(k, p)| SeriesSpec {
            label: format!("p{p}"),
            x: paced.iter().map(|point| point.iops).collect(),
            y: paced
                .iter()
                .map(|point| point.latency_ms.get(k)?.as_ref().map(|e| e.value))
                .collect(),
        })
        .collect();
    // The SLO's bound across the curve, so the rate where p99 crosses it shows.
    let span = paced.iter().map(|p| p.iops);
    let ends = [
        span.clone().fold(f64::MAX, f64::min),
        span.fold(0.0, f64::max),
    ];
    if let (Some(slo), false) = (&curve.slo, paced.is_empty()) {
        series.push(SeriesSpec {
            label: format!(
                "SLO {} <= {} ms",
                slo.requirement.key(),
                slo.requirement.threshold
            ),
            x: ends.to_vec(),
            y: vec![Some(slo.requirement.threshold); 2],
        });
    }
    ChartSpec {
        id: format!("{anchor}-{CURVE_CHART_KIND}"),
        kind: CURVE_CHART_KIND.to_string(),
        title: format!("IOPS vs latency: {about}"),
        style: ChartStyle::LinesPoints,
        x: Axis::linear("IOPS"),
        y: Axis::linear("latency from the intended issue time (ms)"),
        series,
    }
}

/// The SLO a curve sweep was run with, from the run's name (`randread curve --slo p99=2ms`,
/// as `sweep --curve` names it).
pub fn slo_of_run_name(name: &str) -> Option<diskmeter_analysis::verdict::Requirement> {
    let (_, slo) = name.split_once(" --slo ")?;
    diskmeter_analysis::curve::parse_slo(slo).ok()
}

/// A curve's headline: its maximum (unpaced) rate and, with an SLO, the highest rate that
/// met it, with the SLO's judgements at that rate and at the first rate over as verdicts.
fn headline(curve: &Curve) -> crate::headline::Headline {
    use crate::headline::{Card, Headline};
    let iops = |v: f64| format!("{} IOPS", diskmeter_units::format_iops(v));
    let mut cards = vec![Card {
        label: "maximum rate".to_string(),
        value: curve.max_iops.map_or("-".to_string(), iops),
        detail: "unpaced".to_string(),
    }];
    let mut judged = Vec::new();
    if let Some(slo) = &curve.slo {
        cards.push(Card {
            label: format!("rate within SLO {}", slo.requirement),
            value: slo.rate_iops.map_or("none".to_string(), |r| iops(r as f64)),
            detail: slo
                .share_of_max_percent
                .map_or(String::new(), |s| format!("{s:.1} % of the maximum")),
        });
        judged.extend(slo.at_rate.clone());
        judged.extend(slo.first_over.as_ref().map(|(_, j)| j.clone()));
    }
    Headline {
        cards,
        verdicts: Vec::new(),
    }
    .with_judgements(&judged)
}

/// The report's section of a saved curve sweep (`section`, headed as every sweep's): the
/// points table, the SLO's answer and the IOPS vs latency chart.
pub(crate) fn section(
    run: &diskmeter_history::StoredRun,
    mut section: crate::Section,
) -> crate::Section {
    use crate::{Cell, Table};
    let slo = slo_of_run_name(&run.summary.name);
    let curve = Curve::of(
        run.steps.iter().map(|s| (s.name.as_str(), &s.result)),
        slo.as_ref(),
    );
    let anchor = section.anchor.clone();
    section.cards = Some(headline(&curve));
    let rows = curve.points.iter().map(|p| {
        let mut row = vec![
            Cell::text(point_label(p)),
            Cell::number(p.target_iops.map_or("-".to_string(), format_thousands)),
            Cell::number(format_thousands(p.iops.round() as u64)),
        ];
        match &p.partial {
            Some(why) => row.extend(
                ["-", "-", "-"]
                    .map(Cell::number)
                    .into_iter()
                    .chain([Cell::text(format!("partial: left out ({why})"))]),
            ),
            None => {
                row.extend(p.latency_ms.iter().map(|e| Cell::number(figure(e))));
                let slo = p.slo.as_ref().filter(|_| p.target_iops.is_some());
                row.push(Cell::text(
                    slo.map_or(String::new(), |j| j.verdict.label().to_lowercase()),
                ));
            }
        }
        row
    });
    section.tables.push(Table {
        title: "IOPS-latency curve (latency from the intended issue time, 95 % intervals)"
            .to_string(),
        columns: ["point", "paced IOPS", "IOPS", "p50", "p99", "p99.9", "SLO"]
            .map(String::from)
            .to_vec(),
        rows: rows.collect(),
    });
    if let Some(slo) = &curve.slo {
        section
            .notes
            .extend(slo_lines(slo).lines().map(str::to_string));
    }
    let about = format!("{} on {}", run.summary.name, run.summary.target);
    section.charts.push(curve_chart(&anchor, &about, &curve));
    section
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_analysis::curve::parse_slo;
    use diskmeter_analysis::verdict::{Judgement, LatencyClock, Verdict};

    fn estimate(ms: f64) -> Option<Estimate> {
        Some(Estimate {
            value: ms,
            low: ms * 0.9,
            high: ms * 1.1,
            method: "order statistics".to_string(),
        })
    }

    fn point(role: CurveRole, rate: Option<u64>, p99: f64, verdict: Verdict) -> CurvePoint {
        let slo = parse_slo("p99=2ms").unwrap();
        let mut judgement = Judgement::not_measured(&slo, String::new());
        judgement.verdict = verdict;
        CurvePoint {
            step: String::new(),
            role,
            target_iops: rate,
            iops: rate.unwrap_or(2000) as f64,
            latency_ms: vec![estimate(1.0), estimate(p99), estimate(p99 * 2.0)],
            clock: LatencyClock::Intended,
            partial: None,
            slo: rate.map(|_| judgement),
        }
    }

    fn curve() -> Curve {
        Curve {
            max_iops: Some(2000.0),
            points: vec![
                point(CurveRole::Max, None, 8.0, Verdict::NotMeasured),
                point(CurveRole::Share(50.0), Some(1000), 1.5, Verdict::Met),
                point(CurveRole::Share(100.0), Some(2000), 9.0, Verdict::Missed),
            ],
            slo: None,
        }
    }

    #[test]
    fn the_table_gives_each_percentile_with_its_interval_and_the_plot_grows_with_p99() {
        let text = curve_results(&curve(), "f", &[], false);
        assert!(text.contains("maximum rate: 2,000 IOPS"), "{text}");
        assert!(text.contains("| 50%   | 1,000"), "{text}");
        assert!(text.contains("1.50 ms (1.35 ms-1.65 ms)"), "{text}");
        assert!(text.contains("| missed"), "{text}");
        let bars: Vec<usize> = text
            .lines()
            .filter(|l| l.contains(" IOPS |#"))
            .map(|l| l.matches('#').count())
            .collect();
        assert_eq!(bars, [1, PLOT_WIDTH], "{text}");
    }

    #[test]
    fn the_json_holds_the_curve_and_the_chart_draws_the_paced_points() {
        let json: serde_json::Value =
            serde_json::from_str(&curve_results(&curve(), "f", &[], true)).unwrap();
        assert_eq!(json["curve"]["max_iops"], 2000.0);
        assert_eq!(json["curve"]["points"][1]["role"], "share");
        assert_eq!(json["curve"]["points"][1]["share_percent"], 50.0);
        assert_eq!(json["curve"]["points"][2]["latency_ms"][1]["value"], 9.0);
        let chart = curve_chart("a", "f", &curve());
        assert_eq!(chart.kind, CURVE_CHART_KIND);
        assert_eq!(chart.series.len(), 3, "no SLO, no bound line");
        assert_eq!(chart.series[1].x, [1000.0, 2000.0]);
        assert_eq!(chart.series[1].y, [Some(1.5), Some(9.0)]);
    }

    #[test]
    fn a_run_name_gives_back_its_slo() {
        let slo = slo_of_run_name("randread curve --slo lat-p99.9=2.5ms").unwrap();
        assert_eq!(slo.threshold, 2.5);
        assert!(slo_of_run_name("randread curve").is_none());
    }
}
