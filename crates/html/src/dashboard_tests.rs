//! The dashboard's own pages: what a user typed or a run was named is escaped, the filters
//! keep their values, the pager links, and the runs-in-progress block is placed as given.

use super::*;

fn row(id: i64, name: &str) -> RunRow {
    RunRow {
        id,
        started: "2026-11-25 10:00:00 UTC".into(),
        kind: "run".into(),
        name: name.into(),
        target: "/mnt/a".into(),
        host: "box".into(),
        steps: 1,
        result: "1000 IOPS".into(),
    }
}

fn list() -> RunList {
    RunList {
        filters: RunFilters {
            kind: "suite".into(),
            target: "\"><script>alert(1)</script>".into(),
            ..Default::default()
        },
        choices: FilterChoices {
            kinds: vec!["run".into(), "suite".into()],
            suites: vec!["quick".into()],
            hosts: vec!["box".into()],
        },
        rows: vec![row(7, "<b>bold</b>"), row(6, "plain")],
        pager: Pager {
            page: 2,
            pages: 3,
            total: 250,
            first: 101,
            last: 200,
            previous: Some("/?kind=suite".into()),
            next: Some("/?kind=suite&page=3".into()),
        },
        empty: None,
        live: TrustedHtml::new("<section id=\"live\"></section>"),
    }
}

#[test]
fn run_names_and_filter_text_are_escaped() {
    let html = run_list_page(&list()).unwrap();
    assert!(html.contains("&#60;b&#62;bold&#60;/b&#62;"), "{html}");
    assert!(!html.contains("<script>alert(1)"), "{html}");
}

#[test]
fn the_list_links_each_run_offers_a_and_b_and_keeps_the_filters() {
    let html = run_list_page(&list()).unwrap();
    assert!(html.contains("<a href=\"/run/7\">7</a>"), "{html}");
    assert!(html.contains("name=\"a\" value=\"6\"") && html.contains("name=\"b\" value=\"7\""));
    assert!(html.contains("action=\"/compare\""), "{html}");
    assert!(html.contains("<option selected>suite</option>"), "{html}");
    assert!(
        html.contains("Runs 101–200 of 250") && html.contains("page 2 of 3"),
        "{html}"
    );
    assert!(html.contains("href=\"/?kind=suite&#38;page=3\""), "{html}");
    assert!(html.contains("data-charts-expected=\"0\""), "{html}");
}

#[test]
fn the_runs_in_progress_block_comes_first_as_given() {
    let html = run_list_page(&list()).unwrap();
    let live = html
        .find("<section id=\"live\"></section>")
        .expect("the live block");
    assert!(
        live < html.find("id=\"filters\"").unwrap(),
        "above the filters"
    );
}

#[test]
fn an_empty_list_says_why() {
    let mut empty = list();
    empty.rows.clear();
    empty.empty = Some("No run matches the filters.".into());
    let html = run_list_page(&empty).unwrap();
    assert!(html.contains("No run matches the filters."), "{html}");
    assert!(!html.contains("id=\"run-list\""), "{html}");
}

#[test]
fn the_picker_preselects_the_run_already_chosen() {
    let picker = ComparePicker {
        baseline: Some(6),
        candidate: None,
        runs: vec![row(7, "seven"), row(6, "six")],
        problem: None,
    };
    let html = compare_picker_page(&picker).unwrap();
    assert!(html.contains("<option value=\"6\" selected>"), "{html}");
    assert_eq!(html.matches(" selected>").count(), 1, "{html}");
}

#[test]
fn a_message_page_escapes_its_message() {
    let html = message_page("Not found", "no run <99>").unwrap();
    assert!(html.contains("no run &#60;99&#62;"), "{html}");
}

#[test]
fn the_picker_says_why_two_runs_could_not_be_compared() {
    let picker = ComparePicker {
        baseline: Some(6),
        candidate: Some(7),
        runs: vec![row(7, "seven"), row(6, "six")],
        problem: Some("run 7: no step in common with run 6".into()),
    };
    let html = compare_picker_page(&picker).unwrap();
    assert!(
        html.contains("id=\"compare-problem\">run 7: no step in common"),
        "{html}"
    );
    assert_eq!(html.matches(" selected>").count(), 2, "{html}");
}
