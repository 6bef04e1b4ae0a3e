//! One test per verify option (`verify`, `do_verify`, `verify_*`, `experimental_verify`,
//! `trim_verify_zero`), as `tests.rs` does for the others, plus the verify rules of
//! [`crate::validate`] and the phase a job runs.

use super::tests::{refused, with};
use crate::verify::{reading_notes, VerifyPhase};
use crate::{describe, validate, JobSpec};
use diskmeter_verify::{VerifyKind, ALL_KINDS};

fn messages(spec: &JobSpec) -> Vec<String> {
    validate(spec).iter().map(ToString::to_string).collect()
}

#[test]
fn verify_takes_every_fio_kind_and_0_is_off() {
    for kind in ALL_KINDS {
        let spec = with(&[("verify", Some(kind.name()))]);
        assert_eq!(spec.verify.kind, Some(*kind));
        assert!(describe(&spec).contains(&("verify".to_string(), kind.name().to_string())));
    }
    assert_eq!(
        with(&[("verify", Some("crc32c-intel"))]).verify.kind,
        Some(VerifyKind::Crc32c)
    );
    assert_eq!(
        with(&[("verify", Some("md5")), ("verify", Some("0"))])
            .verify
            .kind,
        None
    );
    assert_eq!(JobSpec::default().verify.kind, None);
    assert!(refused("verify", Some("crc8")).contains("use one of 0, md5, crc64"));
}

#[test]
fn do_verify_defaults_on_and_turns_off() {
    assert!(JobSpec::default().verify.do_verify);
    assert!(!with(&[("do_verify", Some("0"))]).verify.do_verify);
}

#[test]
fn verify_only_is_a_flag_and_refuses_time_based() {
    assert!(with(&[("verify_only", None)]).verify.verify_only);
    let spec = with(&[
        ("verify", Some("md5")),
        ("verify_only", None),
        ("time_based", None),
        ("runtime", Some("10")),
    ]);
    assert_eq!(
        messages(&spec),
        vec![
            "job 'job': verify_only=1: verify_only checks what one pass of the job wrote; it \
              does not work with time_based (as in fio): drop time_based"
        ]
    );
}

#[test]
fn verify_pattern_reads_fios_forms_and_alone_means_verify_pattern() {
    let spec = with(&[("verify_pattern", Some(r#"0xff%o"abcd"-12"#))]);
    let pattern = spec.verify.pattern.as_ref().unwrap();
    assert_eq!(pattern.len(), 17);
    assert_eq!(spec.verify.kind, None);
    assert_eq!(spec.verify.effective_kind(), Some(VerifyKind::Pattern));
    assert!(describe(&spec).contains(&(
        "verify_pattern".to_string(),
        r#"0xff%o"abcd"-12"#.to_string()
    )));
    assert_eq!(
        with(&[("verify", Some("crc32c")), ("verify_pattern", Some("0x55"))])
            .verify
            .effective_kind(),
        Some(VerifyKind::Crc32c)
    );
    assert!(refused("verify_pattern", Some("0xzz")).contains("cannot read '0xzz'"));
    assert!(refused("verify_pattern", Some("\"abc")).contains("no closing quote"));
}

#[test]
fn verify_interval_takes_sizes_from_fios_minimum_of_80() {
    let spec = with(&[("verify_interval", Some("4k"))]);
    assert_eq!(spec.verify.interval_bytes, Some(4096));
    assert!(describe(&spec).contains(&("verify_interval".to_string(), "4k".to_string())));
    assert!(refused("verify_interval", Some("64")).contains("80"));
}

#[test]
fn verify_offset_takes_sizes_from_fios_minimum_of_40() {
    assert_eq!(
        with(&[("verify_offset", Some("512"))])
            .verify
            .header_offset_bytes,
        Some(512)
    );
    assert!(refused("verify_offset", Some("8")).contains("40"));
}

#[test]
fn verify_fatal_dump_state_and_experimental_are_flags_with_fios_defaults() {
    let defaults = JobSpec::default().verify;
    assert!(!defaults.fatal && !defaults.dump && !defaults.state_load && !defaults.experimental);
    assert!(defaults.state_save && defaults.trim_verify_zero);
    let spec = with(&[
        ("verify_fatal", None),
        ("verify_dump", Some("1")),
        ("verify_state_save", Some("0")),
        ("verify_state_load", Some("1")),
        ("experimental_verify", Some("1")),
        ("trim_verify_zero", Some("0")),
    ]);
    assert!(spec.verify.fatal && spec.verify.dump);
    assert!(!spec.verify.state_save && spec.verify.state_load && spec.verify.experimental);
    assert!(!spec.verify.trim_verify_zero);
}

#[test]
fn verify_async_and_its_cpus_are_kept() {
    let spec = with(&[
        ("verify_async", Some("2")),
        ("verify_async_cpus", Some("0-1")),
    ]);
    assert_eq!(spec.verify.async_threads, 2);
    assert_eq!(spec.verify.async_cpus, Some(vec![0, 1]));
    assert!(describe(&spec).contains(&("verify_async_cpus".to_string(), "0-1".to_string())));
    let mut far = JobSpec::default();
    far.verify.async_cpus = Some(vec![100_000]);
    assert_eq!(messages(&far).len(), 1, "{:?}", messages(&far));
    assert!(messages(&far)[0].contains("verify_async_cpus"));
}

#[test]
fn verify_backlog_checks_while_writing_and_its_batch_defaults_to_it() {
    let spec = with(&[
        ("verify", Some("md5")),
        ("rw", Some("write")),
        ("verify_backlog", Some("16")),
    ]);
    assert_eq!(
        spec.verify.phase(true),
        VerifyPhase::Backlog {
            every_blocks: 16,
            batch_blocks: 16
        }
    );
    let spec = with(&[
        ("verify", Some("md5")),
        ("verify_backlog", Some("16")),
        ("verify_backlog_batch", Some("4")),
    ]);
    assert_eq!(
        spec.verify.phase(true),
        VerifyPhase::Backlog {
            every_blocks: 16,
            batch_blocks: 4
        }
    );
    assert_eq!(
        with(&[("verify", Some("md5")), ("verify_backlog", Some("0"))])
            .verify
            .phase(true),
        VerifyPhase::AfterWrite
    );
}

#[test]
fn the_phase_follows_fio_write_then_verify_reads_check_existing_data() {
    let md5 = with(&[("verify", Some("md5"))]);
    assert_eq!(md5.verify.phase(true), VerifyPhase::AfterWrite);
    // fio: "If the data direction given is a read or random read, fio will assume that it
    // should verify a previously written file."
    assert_eq!(md5.verify.phase(false), VerifyPhase::Existing);
    let only = with(&[("verify", Some("md5")), ("verify_only", None)]);
    assert_eq!(only.verify.phase(true), VerifyPhase::Existing);
    let no_verify = with(&[("verify", Some("md5")), ("do_verify", Some("0"))]);
    assert_eq!(no_verify.verify.phase(true), VerifyPhase::None);
    // verify=null reads every block back and checks nothing: fio 3.33 reads 1,024 blocks
    // back after writing 4 MiB in 4 KiB blocks with verify=null (issue 28).
    assert_eq!(
        with(&[("verify", Some("null"))]).verify.phase(true),
        VerifyPhase::AfterWrite
    );
    assert_eq!(JobSpec::default().verify.phase(true), VerifyPhase::None);
}

#[test]
fn issue_28_verify_pattern_implies_verify_pattern_unless_verify_was_given() {
    // fio's str_verify_pattern_cb: verify=pattern when verify is not set, before or after.
    for options in [
        &[("verify_pattern", Some("0x55"))][..],
        &[("verify_pattern", Some("0x55")), ("rw", Some("write"))][..],
    ] {
        assert_eq!(
            with(options).verify.effective_kind(),
            Some(VerifyKind::Pattern)
        );
    }
    // An explicit verify=0 before the pattern keeps verification off (the pattern is only
    // written); one after it turns verification off as in fio, where it overrides.
    for options in [
        &[("verify", Some("0")), ("verify_pattern", Some("0x55"))][..],
        &[("verify_pattern", Some("0x55")), ("verify", Some("0"))][..],
    ] {
        let spec = with(options);
        assert_eq!(spec.verify.effective_kind(), None, "{options:?}");
        assert_eq!(spec.verify.phase(true), VerifyPhase::None);
    }
    assert_eq!(
        with(&[("verify_pattern", Some("0x55")), ("verify", Some("md5"))])
            .verify
            .effective_kind(),
        Some(VerifyKind::Md5)
    );
}

#[test]
fn the_verifier_follows_the_options() {
    assert!(JobSpec::default().verify.verifier().unwrap().is_none());
    let spec = with(&[
        ("verify", Some("sha256")),
        ("verify_interval", Some("4k")),
        ("verify_offset", Some("64")),
    ]);
    let verifier = spec.verify.verifier().unwrap().unwrap();
    assert_eq!(verifier.setup().kind, VerifyKind::Sha256);
    assert_eq!(verifier.setup().interval_bytes, Some(4096));
    assert_eq!(verifier.setup().header_offset_bytes, 64);
    assert_eq!(verifier.header_len(), 48 + 32);
}

#[test]
fn a_verify_read_job_is_valid_as_in_fio() {
    let spec = with(&[("verify", Some("crc32c")), ("rw", Some("randread"))]);
    assert_eq!(messages(&spec), Vec::<String>::new());
}

#[test]
fn the_interval_must_divide_every_block_size() {
    let spec = with(&[
        ("verify", Some("crc32c")),
        ("rw", Some("write")),
        ("bs", Some("12k")),
        ("verify_interval", Some("8k")),
    ]);
    assert_eq!(
        messages(&spec),
        vec![
            "job 'job': verify_interval=8k: with block size 12288 bytes: block size 12288 is not \
              a multiple of verify_interval 8192 (fio requires the block size to divide evenly)"
        ]
    );
    let split = with(&[
        ("verify", Some("crc32c")),
        ("rw", Some("randwrite")),
        ("bssplit", Some("4k/50:64k/50")),
        ("verify_interval", Some("4k")),
    ]);
    assert_eq!(messages(&split), Vec::<String>::new());
}

#[test]
fn the_header_must_fit_its_interval() {
    let spec = with(&[
        ("verify", Some("sha512")),
        ("rw", Some("write")),
        ("verify_interval", Some("96")),
        ("bs", Some("4k")),
    ]);
    assert!(messages(&spec)[0].contains("cannot hold the 112-byte verify header"));
    let offset = with(&[
        ("verify", Some("md5")),
        ("rw", Some("write")),
        ("bs", Some("512")),
        ("verify_offset", Some("480")),
    ]);
    assert!(messages(&offset)[0].contains("verify_offset=480"));
}

#[test]
fn verify_pattern_kind_needs_a_pattern() {
    let spec = with(&[("verify", Some("pattern"))]);
    assert_eq!(
        messages(&spec),
        vec!["job 'job': verify=pattern: verify=pattern needs verify_pattern (the bytes to check)"]
    );
}

#[test]
fn reading_notes_say_where_verify_differs_from_fio() {
    assert!(reading_notes(&JobSpec::default()).is_empty());
    assert!(reading_notes(&with(&[("verify", Some("null"))])).is_empty());
    let md5 = reading_notes(&with(&[("verify", Some("md5"))]));
    assert_eq!(md5.len(), 1);
    assert!(md5[0].starts_with("verify=md5: blocks carry diskmeter's verify header"));
    assert_eq!(reading_notes(&with(&[("verify", Some("meta"))])).len(), 2);
    // verify=pattern writes no header: fio and diskmeter read each other's blocks.
    assert!(reading_notes(&with(&[("verify_pattern", Some("0x55"))])).is_empty());
}
