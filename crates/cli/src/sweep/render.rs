//! What a sweep's results become: each point's figures, how auto-stopped points ended, the
//! analysis, the JSON document and the charts, shared by `sweep` and `analyze` (which redoes
//! it from the history). The tables are drawn by [`diskmeter_views::sweep::text`].

use diskmeter_analysis::{analyse_group, points_of_steps, summary_lines, Analysis, PointGroup};
use diskmeter_report::RunResult;
use std::fmt::Write;
use std::path::PathBuf;

/// How the points of an auto-stopped sweep ended.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub(crate) struct AutoStopSummary {
    /// Points run.
    pub points: usize,
    /// Points that ended because they were steady (the rest ran --point-max).
    pub steady: usize,
    /// Measured time of all points, ns (ramps excluded).
    pub measured_ns: u64,
}

impl AutoStopSummary {
    pub(super) fn of<'a>(results: impl Iterator<Item = &'a RunResult>) -> Option<AutoStopSummary> {
        let mut summary = AutoStopSummary::default();
        for result in results {
            let watched: Vec<_> = result
                .jobs
                .iter()
                .filter_map(|job| job.steady_state.as_ref().map(|ss| (job, ss)))
                .collect();
            if watched.is_empty() {
                return None;
            }
            summary.points += 1;
            summary.steady += usize::from(watched.iter().all(|(_, ss)| ss.attained));
            summary.measured_ns += watched
                .iter()
                .map(|(job, _)| job.runtime_ns)
                .max()
                .unwrap_or(0);
        }
        (summary.points > 0).then_some(summary)
    }
}

/// `--charts DIR`: the folder for the charts, `None` for 'none'; by default a new
/// diskmeter-sweep-<unix time> folder here.
pub(crate) fn charts_folder(given: Option<&String>) -> Option<PathBuf> {
    match given.map(String::as_str) {
        Some("none") => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => Some(PathBuf::from(format!(
            "diskmeter-sweep-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        ))),
    }
}

/// Analyses each pattern's points, writes the charts into `charts_dir` and renders the
/// tables and summaries (or the JSON document), with how auto-stopped points ended when
/// known: shared by `sweep` and `analyze`.
pub(crate) fn analyse_and_render(
    groups: &[PointGroup],
    target: &str,
    charts_dir: Option<PathBuf>,
    json: bool,
    auto_stop: Option<AutoStopSummary>,
) -> String {
    let catalog = diskmeter_plan::Catalog::builtin();
    // Partial points are listed by the analysis and drawn nowhere: a chart's curve is of
    // whole points only.
    let analyses: Vec<(&String, &PointGroup, Analysis)> = groups
        .iter()
        .map(|group| (&group.rw, group, analyse_group(group, &catalog.disks)))
        .collect();
    let mut chart_files = Vec::new();
    if let Some(dir) = &charts_dir {
        // A pattern with no whole point has no curve to draw: no empty charts.
        for (rw, group, _) in analyses.iter().filter(|(_, g, _)| !g.points.is_empty()) {
            let folder = if analyses.len() > 1 {
                dir.join(rw.replace(':', ""))
            } else {
                dir.clone()
            };
            if let Err(e) = std::fs::create_dir_all(&folder) {
                eprintln!("diskmeter: cannot create {}: {e}", folder.display());
                continue;
            }
            let about = format!("{rw} on {target}");
            match diskmeter_charts::write_charts(&folder, &about, &group.points) {
                Ok(files) => chart_files.extend(files),
                Err(e) => eprintln!("diskmeter: {e}"),
            }
        }
    }
    if json {
        let doc = serde_json::json!({
            "target": target,
            "sweeps": analyses.iter().map(|(rw, group, a)| serde_json::json!({
                "rw": rw, "points": group.points, "partial_points": group.partial,
                "analysis": a, "summary": summary_lines(a),
            })).collect::<Vec<_>>(),
            "charts": chart_files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "auto_stop": auto_stop,
        });
        return serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    }
    let mut text = String::new();
    if analyses.is_empty() {
        text.push_str(
            "No point of the sweep finished: nothing was measured and nothing is inferred.\n",
        );
    }
    for (rw, group, analysis) in &analyses {
        text.push_str(&diskmeter_views::sweep::text::terminal(
            rw, target, group, analysis,
        ));
    }
    if let Some(a) = auto_stop {
        let _ = writeln!(
            text,
            "auto-stop: {} of {} points steady before their maximum; {:.1} s measured in all \
             ({:.2} s a point)",
            a.steady,
            a.points,
            a.measured_ns as f64 / 1e9,
            a.measured_ns as f64 / 1e9 / a.points as f64
        );
    }
    for file in &chart_files {
        let _ = writeln!(text, "chart: {}", file.display());
    }
    text
}

/// A sweep's points rebuilt from its steps in the history, grouped by pattern
/// ([`diskmeter_analysis::points_of_steps`]).
pub(crate) fn points_from_steps(
    steps: &[diskmeter_history::StoredStep],
) -> anyhow::Result<Vec<PointGroup>> {
    points_of_steps(steps.iter().map(|s| (s.name.as_str(), &s.result)))
        .map_err(|e| anyhow::anyhow!("{e} (analyze takes runs saved by diskmeter sweep)"))
}
