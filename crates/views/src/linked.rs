//! The loop linked: capture -> requirements -> plan -> replay -> check, as links between the
//! sections the report and the dashboard show, and as one report
//! (`diskmeter report CAPTURE_ID --with-replays`: [`loop_sections`]). The history keeps the
//! links (`diskmeter_history`'s `linked.rs`): a replay's capture, the plans made from a
//! capture, each check's run and capture. Here they become a table of links on a capture
//! ([`capture_links`]), a replay's link back and its checks ([`replay_links`]), and the
//! sections of a plan and of a check's verdicts. Also the records `plan` and `check` save
//! and the line saying where they went.

use crate::{Cell, CodeBlock, FactGroup, Section, SectionKind, Table, Tone, ViewError};
use diskmeter_history::{HistoryStore, NewPlan, StoredCheck, StoredPlan};
use diskmeter_orchestrator::{HistorySaveError, LinkedRecord, SavedRun};

/// The anchor of a capture's requirements checklist (a child of its section).
pub fn requirements_anchor(capture_id: i64) -> String {
    format!("run-{capture_id}-requirements")
}

/// The record `plan --from-capture ID` saves: `text` as printed, `json` as `--format json`
/// prints it; the summary is the text's first line (the command line and the time are
/// stamped when it is saved).
pub fn plan_record(capture_id: i64, level: &str, text: &str, json: String) -> NewPlan {
    NewPlan {
        capture_id,
        level: level.to_string(),
        created_unix_ms: 0,
        command_line: String::new(),
        summary: first_line(text),
        text: text.to_string(),
        plan_json: json,
    }
}

/// `plan --from-capture ID`'s save: the plan (`text` as printed, `answer` as JSON) kept in
/// the history `db` names, linked to its capture; returns the line saying where (nothing
/// without a capture: only a plan made from one is kept).
pub fn save_plan(
    db: Option<&std::path::Path>,
    from_capture: Option<&str>,
    level: Option<&str>,
    text: &str,
    answer: &diskmeter_plan::Answer,
) -> Result<String, ViewError> {
    let Some(id_text) = from_capture else {
        return Ok(String::new());
    };
    let store = diskmeter_history::open_for_reading(db).map_err(|e| ViewError::Unusable {
        run_id: 0,
        reason: e.to_string(),
    })?;
    let capture_id = store
        .resolve_id(id_text, diskmeter_history::Newest::Capture)
        .map_err(|e| ViewError::Unusable {
            run_id: 0,
            reason: e.to_string(),
        })?;
    drop(store);
    let json = serde_json::to_string_pretty(answer).unwrap_or_default();
    let record = plan_record(capture_id, level.unwrap_or("p99"), text, json);
    let saved = diskmeter_orchestrator::save_linked(db, LinkedRecord::Plan(record));
    Ok(saved_line("plan", Some(capture_id), &saved))
}

/// The plan's headline: the cheapest configuration of a search ("cheapest: ..."), the
/// configuration evaluated ("Plan: ..."), else the first line.
fn first_line(text: &str) -> String {
    let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty());
    if let Some(best) = lines().find_map(|l| l.strip_prefix("1. ")) {
        return format!("cheapest: {best}");
    }
    let evaluated = lines().find_map(|l| l.strip_prefix("Plan: "));
    evaluated
        .or_else(|| lines().next())
        .unwrap_or("")
        .to_string()
}

/// The line saying where a plan or check (`what`) was saved, or why it was not, with a
/// trailing newline (the CLI writes it on stderr, after the plan or verdicts).
pub fn saved_line(
    what: &str,
    capture_id: Option<i64>,
    saved: &Result<SavedRun, HistorySaveError>,
) -> String {
    match saved {
        Ok(saved) => {
            let next = capture_id.map_or(String::new(), |c| {
                format!(" (diskmeter report {c} --with-replays)")
            });
            format!(
                "diskmeter: saved as {what} {} in {}{next}\n",
                saved.id,
                saved.path.display()
            )
        }
        Err(error) => format!(
            "diskmeter: the {what} above was not kept in the history: {error} (the {what} \
             stands; to link it to its run and capture, run the command again once the \
             history can be written)\n"
        ),
    }
}

/// The overall verdict of a check's `text` as `check` printed it: its counts line.
pub fn overall_verdict(missed: usize, within_noise: usize, not_measured: usize) -> &'static str {
    if missed + not_measured > 0 {
        "missed"
    } else if within_noise > 0 {
        "within noise"
    } else {
        "met"
    }
}

fn tone_of(verdict: &str) -> Tone {
    match verdict {
        "met" => Tone::Good,
        "missed" => Tone::Bad,
        _ => Tone::Neutral,
    }
}

fn link(text: impl Into<String>, href: impl Into<String>) -> Cell {
    Cell::text(text).with_link(href)
}

const LOOP_COLUMNS: [&str; 4] = ["step", "saved as", "what", "verdict"];

fn loop_table(title: &str, rows: Vec<Vec<Cell>>) -> Table {
    Table {
        title: title.to_string(),
        columns: LOOP_COLUMNS.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

fn check_row(check: &StoredCheck) -> Vec<Cell> {
    let c = &check.check;
    let href = format!("/run/{}#check-{}", c.run_id, check.id);
    let what = match (&c.capture_id, c.level.as_str()) {
        (Some(capture), level) if !level.is_empty() => {
            format!("run {} against capture {capture} at {level}", c.run_id)
        }
        _ => format!("run {}", c.run_id),
    };
    vec![
        Cell::text("check"),
        link(format!("check {}", check.id), href),
        Cell::text(what),
        Cell::text(c.verdict.clone()).with_tone(tone_of(&c.verdict)),
    ]
}

/// A capture's links: its requirements, the plans made from it, its replays and the
/// checks against it, each a link (a plan and a check to their sections, a replay to its
/// page), in the loop's order.
pub fn capture_links(store: &HistoryStore, capture_id: i64) -> Result<Table, ViewError> {
    let mut rows = vec![vec![
        Cell::text("requirements"),
        link("checklist", format!("#{}", requirements_anchor(capture_id))),
        Cell::text(format!("diskmeter requirements {capture_id}")),
        Cell::text(""),
    ]];
    for plan in store.plans_of(capture_id)? {
        rows.push(vec![
            Cell::text("plan"),
            link(format!("plan {}", plan.id), format!("#plan-{}", plan.id)),
            Cell::text(format!("at {}: {}", plan.plan.level, plan.plan.summary)),
            Cell::text(""),
        ]);
    }
    for replay in store.replays_of(capture_id)? {
        let summary = store.load(replay)?.summary;
        rows.push(vec![
            Cell::text("replay"),
            link(format!("run {replay}"), format!("/run/{replay}")),
            Cell::text(format!(
                "{} on {}: {}",
                summary.name, summary.target, summary.summary
            )),
            Cell::text(""),
        ]);
    }
    for check in store.checks_of_capture(capture_id)? {
        rows.push(check_row(&check));
    }
    Ok(loop_table(
        "The loop: requirements, plans, replays and checks of this capture",
        rows,
    ))
}

/// A run's links: the capture it replays (if it is a replay) and its checks, as a table,
/// and the checks' sections.
pub fn replay_links(
    store: &HistoryStore,
    run_id: i64,
) -> Result<(Option<Table>, Vec<Section>), ViewError> {
    let capture = store.capture_of(run_id)?;
    let checks = store.checks_of_run(run_id)?;
    if capture.is_none() && checks.is_empty() {
        return Ok((None, Vec::new()));
    }
    let mut rows = Vec::new();
    if let Some(capture) = capture {
        rows.push(vec![
            Cell::text("capture"),
            link(format!("capture {capture}"), format!("/run/{capture}")),
            Cell::text(format!("this run replays capture {capture}")),
            Cell::text(""),
        ]);
        rows.push(vec![
            Cell::text("requirements"),
            link(
                "checklist",
                format!("/run/{capture}#{}", requirements_anchor(capture)),
            ),
            Cell::text(format!("diskmeter requirements {capture}")),
            Cell::text(""),
        ]);
    }
    rows.extend(checks.iter().map(check_row));
    let title = match capture {
        Some(capture) => format!("Replay of capture {capture}, and its checks"),
        None => "Checks of this run".to_string(),
    };
    Ok((
        Some(loop_table(&title, rows)),
        checks.iter().map(check_section).collect(),
    ))
}

/// A plan made from a capture: what it planned for, and the answer as `plan` printed it.
pub fn plan_section(plan: &StoredPlan) -> Section {
    let p = &plan.plan;
    let mut section = Section::new(
        format!("plan-{}", plan.id),
        format!("Plan {}: {}", plan.id, p.summary),
        SectionKind::Plan,
    );
    section.tables.push(loop_table(
        "Made from",
        vec![vec![
            Cell::text("capture"),
            link(
                format!("capture {}", p.capture_id),
                format!("/run/{}", p.capture_id),
            ),
            Cell::text(format!("its checklist at {} as the demand", p.level)),
            Cell::text(""),
        ]],
    ));
    section.code.push(CodeBlock {
        title: "Command line".to_string(),
        text: p.command_line.clone(),
    });
    section.code.push(CodeBlock {
        title: "The plan".to_string(),
        text: p.text.clone(),
    });
    section
}

/// A check's verdicts with their evidence (one row per requirement, as `check` printed it:
/// the measured figure with its 95 % interval, the bound and the margin).
pub fn check_section(check: &StoredCheck) -> Section {
    let c = &check.check;
    let mut section = Section::new(
        format!("check-{}", check.id),
        format!("Check {}: {} (run {})", check.id, c.verdict, c.run_id),
        SectionKind::Check,
    );
    let mut judged = vec![("Run judged".to_string(), format!("run {}", c.run_id))];
    if !c.step.is_empty() {
        judged.push(("Step".to_string(), c.step.clone()));
    }
    if let Some(capture) = c.capture_id {
        judged.push((
            "Requirements".to_string(),
            format!("capture {capture} at {}", c.level),
        ));
    }
    judged.push(("Verdict".to_string(), c.verdict.clone()));
    section.facts.push(FactGroup {
        title: "Check".to_string(),
        rows: judged,
    });
    let mut links = vec![vec![
        Cell::text("run"),
        link(format!("run {}", c.run_id), format!("/run/{}", c.run_id)),
        Cell::text("the result judged"),
        Cell::text(""),
    ]];
    if let Some(capture) = c.capture_id {
        links.push(vec![
            Cell::text("capture"),
            link(format!("capture {capture}"), format!("/run/{capture}")),
            Cell::text(format!("its checklist at {}", c.level)),
            Cell::text(""),
        ]);
    }
    section.tables.push(loop_table("Linked", links));
    section.tables.push(verdict_table(&c.text));
    section.cards = verdict_cards(&c.text);
    section.code.push(CodeBlock {
        title: "Command line".to_string(),
        text: c.command_line.clone(),
    });
    section
}

/// How `check` starts a verdict line, the word a table shows for it, and its colour.
const VERDICT_LABELS: [(&str, &str, Tone); 4] = [
    ("WITHIN NOISE ", "within noise", Tone::Neutral),
    ("NOT MEASURED ", "not measured", Tone::Bad),
    ("MET ", "met", Tone::Good),
    ("MISSED ", "missed", Tone::Bad),
];

/// The verdict lines of `check`'s text as the headline's verdict cards: what was judged
/// (the requirement) over its evidence (the measured value, its interval, the bound), as
/// `check` printed them; `None` when the text has no verdict line.
fn verdict_cards(text: &str) -> Option<crate::headline::Headline> {
    let verdicts: Vec<crate::headline::VerdictCard> = text
        .lines()
        .filter_map(|line| {
            let (label, _, tone) = VERDICT_LABELS.iter().find(|(l, ..)| line.starts_with(l))?;
            let rest = &line[label.len()..];
            let (what, evidence) = rest.split_once(": ").unwrap_or((rest, ""));
            Some(crate::headline::VerdictCard {
                verdict: label.trim().to_string(),
                tone: *tone,
                what: what.to_string(),
                evidence: evidence.to_string(),
            })
        })
        .collect();
    (!verdicts.is_empty()).then(|| crate::headline::Headline {
        cards: Vec::new(),
        verdicts,
    })
}

/// The verdict lines of `check`'s text as a table: verdict, then the requirement and its
/// evidence as printed.
fn verdict_table(text: &str) -> Table {
    let rows = text
        .lines()
        .filter_map(|line| {
            let (label, verdict, tone) =
                VERDICT_LABELS.iter().find(|(l, ..)| line.starts_with(l))?;
            Some(vec![
                Cell::text(*verdict).with_tone(*tone),
                Cell::text(&line[label.len()..]),
            ])
        })
        .collect();
    Table {
        title: "Verdicts: the measured figure, its 95 % interval, the bound and the margin"
            .to_string(),
        columns: vec![
            "verdict".to_string(),
            "requirement and evidence".to_string(),
        ],
        rows,
    }
}

/// `report CAPTURE_ID --with-replays`: the capture (its requirements a child section, its
/// links table first), each plan made from it, each replay of it, each check against it
/// or of its replays, in that order; every section links to the next ones.
pub fn loop_sections(store: &HistoryStore, capture_id: i64) -> Result<Vec<Section>, ViewError> {
    let run = store.load(capture_id)?;
    if run.summary.kind != diskmeter_history::CAPTURE_KIND {
        return Err(ViewError::Unusable {
            run_id: capture_id,
            reason: format!(
                "--with-replays takes a capture (diskmeter history --kind capture lists them); \
                 run {capture_id} is a {}",
                run.summary.kind
            ),
        });
    }
    let mut capture = crate::capture::section(store, &run)?;
    capture.tables.insert(0, capture_links(store, capture_id)?);
    let mut sections = vec![capture];
    sections.extend(store.plans_of(capture_id)?.iter().map(plan_section));
    let mut checks: Vec<StoredCheck> = store.checks_of_capture(capture_id)?;
    for replay in store.replays_of(capture_id)? {
        let mut section = crate::section(store, crate::Item::Run(replay))?;
        // The checks follow as sections of their own, in the loop's order.
        section.children.retain(|c| c.kind != SectionKind::Check);
        sections.push(section);
        for check in store.checks_of_run(replay)? {
            if !checks.iter().any(|c| c.id == check.id) {
                checks.push(check);
            }
        }
    }
    checks.sort_by_key(|c| c.id);
    sections.extend(checks.iter().map(check_section));
    Ok(sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plans_headline_is_the_cheapest_or_the_configuration_evaluated() {
        let search = "Requirement: 930 IOPS\n\nCheapest first\n  1. c6g.medium + 1 x gp3: $24.90 a month\n  2. other\n";
        assert_eq!(
            first_line(search),
            "cheapest: c6g.medium + 1 x gp3: $24.90 a month"
        );
        let evaluation = "Plan: Standard_D8ds_v5 + 2 x P30 (cache ReadOnly)\nDemand: ...\n";
        assert_eq!(
            first_line(evaluation),
            "Standard_D8ds_v5 + 2 x P30 (cache ReadOnly)"
        );
        assert_eq!(first_line("\n  IO size  caps\n"), "IO size  caps");
    }

    #[test]
    fn the_overall_verdict_is_the_worst_of_the_lines() {
        assert_eq!(overall_verdict(0, 0, 0), "met");
        assert_eq!(overall_verdict(0, 2, 0), "within noise");
        assert_eq!(overall_verdict(1, 2, 0), "missed");
        assert_eq!(overall_verdict(0, 0, 1), "missed");
    }

    #[test]
    fn the_verdict_lines_become_rows_with_their_evidence() {
        let text = "Checking run 3 (replay r on f)\nstep: r\n\
            MET iops >= 600 IOPS (capture 1 p50 IOPS total): measured 602 IOPS, 95 % interval 598 to 606, margin +0.3 %\n\
            WITHIN NOISE mibps >= 2.35 MiB/s: measured 2.36 MiB/s\n\
            MISSED read-await-p50 <= 0.12 ms: measured 1.49 ms\n\
            3 requirements: 1 met, 1 within noise, 1 missed\n";
        let table = verdict_table(text);
        let cells: Vec<(&str, Tone)> = table
            .rows
            .iter()
            .map(|r| (r[0].text.as_str(), r[0].tone))
            .collect();
        assert_eq!(
            cells,
            [
                ("met", Tone::Good),
                ("within noise", Tone::Neutral),
                ("missed", Tone::Bad)
            ]
        );
        assert!(table.rows[0][1].text.contains("95 % interval 598 to 606"));
        assert!(table.rows[0][1].text.starts_with("iops >= 600 IOPS"));
        // The same lines open the section as verdict cards: what over its evidence.
        let cards = verdict_cards(text).expect("verdict cards").verdicts;
        assert_eq!(cards.len(), 3);
        assert_eq!(cards[0].verdict, "MET");
        assert_eq!(cards[0].what, "iops >= 600 IOPS (capture 1 p50 IOPS total)");
        assert!(cards[0].evidence.contains("95 % interval 598 to 606"));
        assert_eq!(
            (cards[2].verdict.as_str(), cards[2].tone),
            ("MISSED", Tone::Bad)
        );
        assert!(verdict_cards("no verdict here").is_none());
    }

    #[test]
    fn a_saved_record_says_its_id_and_where_and_a_refused_one_says_why() {
        let saved = Ok(SavedRun {
            id: 4,
            path: "h.db".into(),
            from_spool: Vec::new(),
        });
        assert_eq!(
            saved_line("plan", Some(12), &saved),
            "diskmeter: saved as plan 4 in h.db (diskmeter report 12 --with-replays)\n"
        );
        let refused = Err(HistorySaveError::NoLocation);
        let line = saved_line("check", None, &refused);
        assert!(
            line.contains("the check above was not kept") && line.contains("--db"),
            "{line}"
        );
    }
}
