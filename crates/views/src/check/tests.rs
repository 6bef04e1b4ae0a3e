//! `diskmeter check`'s and `diskmeter requirements`' loading against a temporary history:
//! an id that names no run of the kind wanted is the user's input (exit 2 at the edge), and
//! a run of several steps is judged on the step named, and --strict fails what is within noise.

use super::check;
use crate::requirements::{load, LoadError};
use crate::tests::{save_plain_run, save_suite, Fixture, SUITE_STEPS};
use diskmeter_analysis::requirements::WindowSet;
use diskmeter_analysis::verdict::parse_requirements;

/// The message of an error of the user's input.
fn input<T>(result: Result<T, LoadError>) -> String {
    match result {
        Err(LoadError::Input(message)) => message,
        Err(e) => panic!("not the user's input: {e}"),
        Ok(_) => panic!("loaded"),
    }
}

#[test]
fn an_id_that_names_no_capture_is_the_users_input() {
    let mut fixture = Fixture::new();
    let loaded = |text: &str| load(&fixture.store, text, None, WindowSet::default());
    assert!(input(loaded("last")).contains("no capture yet"));
    assert!(input(loaded("x")).contains("'x' is not a capture id"));
    assert!(input(loaded("7")).contains("no run 7 in the history"));
    let run = save_plain_run(&mut fixture);
    let not_a_capture = input(load(
        &fixture.store,
        &run.to_string(),
        None,
        WindowSet::default(),
    ));
    assert!(
        not_a_capture.contains("is not a capture"),
        "{not_a_capture}"
    );
}

#[test]
fn a_suite_is_checked_on_the_step_named() {
    let mut fixture = Fixture::new();
    let id = save_suite(&mut fixture);
    let required = parse_requirements("iops=1").unwrap();
    let many = input(check(&fixture.store, "last", None, &required, None));
    assert!(many.contains(&format!("run {id} has 3 steps")), "{many}");
    let unknown = input(check(&fixture.store, "last", Some("nope"), &required, None));
    assert!(unknown.starts_with("--step nope: "), "{unknown}");
    let checked = check(
        &fixture.store,
        "last",
        Some(SUITE_STEPS[1]),
        &required,
        None,
    )
    .unwrap();
    let text = checked.text(true);
    assert!(
        text.starts_with(&format!("Checking run {id} (suite ")),
        "{text}"
    );
    assert!(
        text.contains(&format!("\nstep: {}\nWITHIN NOISE iops", SUITE_STEPS[1])),
        "{text}"
    );
    // Three 1 s samples are too few for an interval: within noise, which --strict fails.
    let strict =
        "\n1 requirement: 0 met, 1 within noise, 0 missed (--strict: within noise fails)\n";
    assert!(text.ends_with(strict), "{text}");
    assert!(checked.failed(true) && !checked.failed(false));
    let json: serde_json::Value = serde_json::from_str(&checked.json(true).unwrap()).unwrap();
    assert_eq!(json["judgements"][0]["step"], SUITE_STEPS[1]);
    assert_eq!(json["judgements"][0]["verdict"], "within_noise");
    assert_eq!(
        (json["within_noise"].as_u64(), json["exit_code"].as_i64()),
        (Some(1), Some(1))
    );
}
