//! Tests of the trim and IO-error options (one per option, as in `tests.rs`).

use super::tests::{refused, with};
use crate::trim::{ErrorClass, ErrorClasses};
use crate::{describe, RwMode};

fn shown(job: &crate::JobSpec, name: &str) -> Option<String> {
    let def = super::find_option(name).unwrap();
    def.show.and_then(|show| show(job))
}

#[test]
fn continue_on_error() {
    let job = with(&[("continue_on_error", Some("io"))]);
    assert_eq!(
        job.trim.continue_on_error,
        ErrorClasses {
            read: true,
            write: true,
            verify: false
        }
    );
    assert_eq!(shown(&job, "continue_on_error").unwrap(), "io");
    assert!(
        with(&[("continue_on_error", Some("1"))])
            .trim
            .continue_on_error
            .verify
    );
    assert!(refused("continue_on_error", Some("always")).contains("use one of none, read"));
}

#[test]
fn ignore_error() {
    let job = with(&[("ignore_error", Some(",ENOSPC"))]);
    assert!(job.trim.continues_after(ErrorClass::Write, 28));
    assert!(!job.trim.continues_after(ErrorClass::Read, 5));
    assert_eq!(shown(&job, "ignore_error").unwrap(), ",ENOSPC");
    assert!(refused("ignore_error", Some("ENOPE")).contains("give its number instead"));
    assert!(refused("ignore_error", Some("1,2,3,4")).contains("at most three lists"));
}

#[test]
fn error_dump() {
    assert!(with(&[("error_dump", None)]).trim.error_dump);
    assert!(!with(&[("error_dump", Some("0"))]).trim.error_dump);
}

#[test]
fn trim_percentage_and_backlog() {
    let job = with(&[
        ("rw", Some("randwrite")),
        ("trim_percentage", Some("50")),
        ("trim_backlog", Some("16")),
        ("trim_backlog_batch", Some("4")),
    ]);
    assert_eq!(
        (
            job.trim.trim_percentage,
            job.trim.trim_backlog,
            job.trim.trim_backlog_batch
        ),
        (50, 16, 4)
    );
    assert!(job.trim.backlog_trims());
    assert_eq!(shown(&job, "trim_backlog").unwrap(), "16");
    assert!(refused("trim_percentage", Some("101")).contains("100"));
}

#[test]
fn trim_modes_change_data_and_read_nothing() {
    for rw in ["trim", "randtrim", "trimwrite", "randtrimwrite"] {
        let job = with(&[("rw", Some(rw))]);
        assert!(job.rw.trims() && job.rw.writes() && !job.rw.reads(), "{rw}");
        assert_eq!(job.rw.is_random(), rw.starts_with("rand"), "{rw}");
        assert!(
            describe(&job).contains(&("rw".to_string(), rw.to_string())),
            "{rw}"
        );
    }
    assert!(with(&[("rw", Some("randtrim"))]).rw.trims_only());
    assert!(!with(&[("rw", Some("trimwrite"))]).rw.trims_only());
    assert_eq!(with(&[("rw", Some("trim"))]).rw, RwMode::Trim);
}

#[test]
fn bs_third_value_is_the_trim_size() {
    let job = with(&[("bs", Some("4k,8k,64k"))]);
    assert_eq!(job.trim.bs_bytes, Some(65536));
    assert_eq!(job.trim.trim_bs_bytes(job.bs_bytes.write), 65536);
    assert_eq!(shown(&job, "bs").unwrap(), "4k,8k,64k");
    let only_trims = with(&[("bs", Some(",,16k"))]);
    assert_eq!(
        (only_trims.bs_bytes.write, only_trims.trim.bs_bytes),
        (4096, Some(16384))
    );
    assert_eq!(shown(&only_trims, "bs").unwrap(), "4k,4k,16k");
    // Without a third value trims take the write size, and a later bs resets an earlier one.
    let job = with(&[("bs", Some("4k,4k,64k")), ("bs", Some("4k,8k"))]);
    assert_eq!(job.trim.bs_bytes, None);
    assert_eq!(job.trim.trim_bs_bytes(job.bs_bytes.write), 8192);
    assert_eq!(shown(&job, "bs").unwrap(), "4k,8k");
}
