//! One test per system option (`rows_system.rs`): the forms fio documents and the values it
//! refuses, with the message a user reads.

use super::tests::{refused, with};

#[test]
fn write_hist_log() {
    let spec = with(&[("write_hist_log", Some("h"))]);
    assert_eq!(spec.system.write_hist_log.as_deref(), Some("h"));
    let spec = with(&[("write_hist_log", None)]);
    assert_eq!(spec.system.write_hist_log.as_deref(), Some(""));
}

#[test]
fn log_hist_msec() {
    assert_eq!(
        with(&[("log_hist_msec", Some("1000"))])
            .system
            .log_hist_msec,
        1000
    );
    assert!(refused("log_hist_msec", Some("x")).starts_with("log_hist_msec=x"));
}

#[test]
fn log_hist_coarseness() {
    assert_eq!(
        with(&[("log_hist_coarseness", Some("6"))])
            .system
            .log_hist_coarseness,
        6
    );
    assert_eq!(
        refused("log_hist_coarseness", Some("7")),
        "log_hist_coarseness=7: must be from 0 to 6"
    );
}
