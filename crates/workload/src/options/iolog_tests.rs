//! One test per iolog option (`read_iolog`, `write_iolog`, `replay_*`), as `tests.rs` does
//! for the others.

use super::tests::{refused, with};
use crate::{describe, ReplaySkip};
use std::path::PathBuf;

#[test]
fn read_iolog_names_the_log_to_replay() {
    let spec = with(&[("read_iolog", Some("/tmp/app.log"))]);
    assert_eq!(spec.iolog.read_iolog, Some(PathBuf::from("/tmp/app.log")));
    assert!(describe(&spec).contains(&("read_iolog".to_string(), "/tmp/app.log".to_string())));
    assert!(refused("read_iolog", Some("")).contains("a file name is empty"));
}

#[test]
fn read_iolog_chunked_is_accepted_and_changes_nothing() {
    assert_eq!(with(&[("read_iolog_chunked", Some("1"))]), with(&[]));
}

#[test]
fn write_iolog_names_the_log_to_write() {
    let spec = with(&[("write_iolog", Some("out.log"))]);
    assert_eq!(spec.iolog.write_iolog, Some(PathBuf::from("out.log")));
}

#[test]
fn replay_no_stall_is_a_flag() {
    assert!(with(&[("replay_no_stall", None)]).iolog.replay_no_stall);
    assert!(
        !with(&[("replay_no_stall", Some("0"))])
            .iolog
            .replay_no_stall
    );
}

#[test]
fn replay_redirect_names_the_target() {
    let spec = with(&[("replay_redirect", Some("/dev/loop7"))]);
    assert_eq!(
        spec.iolog.replay_redirect,
        Some(PathBuf::from("/dev/loop7"))
    );
}

#[test]
fn replay_align_is_a_power_of_two_with_size_suffixes() {
    assert_eq!(
        with(&[("replay_align", Some("4k"))])
            .iolog
            .replay_align_bytes,
        4096
    );
    assert_eq!(
        with(&[("replay_align", Some("0"))])
            .iolog
            .replay_align_bytes,
        0
    );
    assert!(refused("replay_align", Some("3000")).contains("must be a power of two"));
}

#[test]
fn replay_scale_divides_offsets() {
    assert_eq!(with(&[]).iolog.replay_scale, 1);
    assert_eq!(with(&[("replay_scale", Some("8"))]).iolog.replay_scale, 8);
}

#[test]
fn replay_time_scale_is_a_percentage_of_the_logs_rate() {
    assert_eq!(with(&[]).iolog.replay_time_scale_percent, 100);
    let spec = with(&[("replay_time_scale", Some("200"))]);
    assert_eq!(spec.iolog.replay_time_scale_percent, 200);
    assert!(refused("replay_time_scale", Some("0")).contains("at least 1"));
}

#[test]
fn replay_skip_takes_fios_words() {
    let spec = with(&[("replay_skip", Some("write,trim"))]);
    assert_eq!(
        spec.iolog.replay_skip,
        ReplaySkip {
            write: true,
            trim: true,
            ..ReplaySkip::default()
        }
    );
    assert!(describe(&spec).contains(&("replay_skip".to_string(), "write,trim".to_string())));
    let message = refused("replay_skip", Some("wrte"));
    assert!(message.contains("did you mean 'write'"), "{message}");
}
