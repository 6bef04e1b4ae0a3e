//! One test per option of the table (STYLE rule 12), plus checks of the table itself.
//!
//! Each option test applies the forms fio documents for it and at least one value it must
//! refuse, with the message a user would read.

use super::*;
use crate::{apply_option, EngineKind, JobSpec, KbBase, PerDirection, RwMode};
use std::path::PathBuf;

/// The default job with `options` applied in order; panics on the first error.
pub(super) fn with(options: &[(&str, Option<&str>)]) -> JobSpec {
    let mut spec = JobSpec::default();
    for (name, value) in options {
        if let Err(error) = apply_option(&mut spec, name, *value) {
            panic!("{name}={value:?}: {error}");
        }
    }
    spec
}

/// The default job with `name=value` applied, which fio reads other than written, and the
/// note that says so (panics if it was refused or read as written).
pub(super) fn read_as_fio(name: &str, value: &str) -> (JobSpec, String) {
    let spec = with(&[(name, Some(value))]);
    let note = spec.compat.value_readings.join("\n");
    assert!(
        note.starts_with(&format!("{name}={value}: ")) && note.contains("read as fio 3.33"),
        "{name}={value}: {note:?}"
    );
    (spec, note)
}

/// The message for applying `name=value` to the default job.
pub(super) fn refused(name: &str, value: Option<&str>) -> String {
    match apply_option(&mut JobSpec::default(), name, value) {
        Ok(()) => panic!("{name}={value:?} was accepted"),
        Err(error) => error.to_string(),
    }
}

// ---- the table --------------------------------------------------------------------------

#[test]
fn names_and_aliases_are_unique_and_found() {
    let mut seen = std::collections::HashSet::new();
    for def in all_options() {
        for name in std::iter::once(def.name).chain(def.aliases.iter().copied()) {
            assert!(seen.insert(name), "{name} is defined twice");
            assert_eq!(find_option(name).map(|d| d.name), Some(def.name));
        }
        assert!(!def.help.is_empty(), "{} has no help", def.name);
    }
    assert!(find_option("nosuch").is_none());
}

#[test]
fn suggestions_follow_fios_typo_rule() {
    assert_eq!(suggest_option("iodepht"), Some("iodepth"));
    assert_eq!(suggest_option("runtim"), Some("runtime"));
    assert_eq!(suggest_option("bs"), Some("bs"));
    assert_eq!(suggest_option("xyzzy"), None);
    assert_eq!(suggest_option(""), None);
}

// ---- one test per option, in table order ------------------------------------------------

#[test]
fn name() {
    assert_eq!(with(&[("name", Some("seq-read"))]).name, "seq-read");
    assert_eq!(
        refused("name", Some("")),
        "name=: a job name can't be empty"
    );
    assert_eq!(refused("name", None), "name needs a value (e.g. name=text)");
}

#[test]
fn kb_base() {
    assert_eq!(with(&[("kb_base", Some("1000"))]).kb_base, KbBase::Decimal);
    let spec = with(&[("kb_base", Some("1000")), ("size", Some("1m"))]);
    assert_eq!(spec.size_bytes, Some(1_000_000));
    let spec = with(&[("kb_base", Some("1000")), ("bs", Some("4KiB"))]);
    assert_eq!(spec.bs_bytes, PerDirection::both(4096));
    assert!(refused("kb_base", Some("1k")).starts_with("kb_base=1k: use one of 1024, 1000"));
}

#[test]
fn filename() {
    let spec = with(&[("filename", Some("/dev/sda:/dev/sdb"))]);
    assert_eq!(
        spec.filenames,
        [PathBuf::from("/dev/sda"), PathBuf::from("/dev/sdb")]
    );
    let spec = with(&[("filename", Some(r"/dev/dsk/foo@3,0\:c"))]);
    assert_eq!(spec.filenames, [PathBuf::from("/dev/dsk/foo@3,0:c")]);
    assert!(refused("filename", Some("a::b")).contains("a file name is empty"));
}

#[test]
fn directory() {
    assert_eq!(
        with(&[("directory", Some("/mnt/test"))]).directory,
        Some(PathBuf::from("/mnt/test"))
    );
    assert!(refused("directory", Some("/a:/b")).contains("give one directory"));
    assert!(refused("directory", Some("")).contains("can't be empty"));
}

#[test]
fn nrfiles() {
    assert_eq!(with(&[("nrfiles", Some("8"))]).nrfiles, 8);
    assert_eq!(
        refused("nrfiles", Some("5g")),
        "nrfiles=5g: must be from 1 to 1000000 (diskmeter plans every file before the run starts)"
    );
    // 2^32 - 1 files once passed and were planned until memory ran out (found by fuzzing).
    assert!(refused("nrfiles", Some("4294967295")).contains("from 1 to 1000000"));
    assert_eq!(with(&[("nrfiles", Some("1000000"))]).nrfiles, 1_000_000);
}

#[test]
fn size() {
    assert_eq!(with(&[("size", Some("30g"))]).size_bytes, Some(30 << 30));
    assert_eq!(
        with(&[("size", Some("0x100000"))]).size_bytes,
        Some(1 << 20)
    );
    // fio's percentage form (issue 3): a share of each existing file or device.
    assert_eq!(with(&[("size", Some("50%"))]).size_percent, Some(50.0));
    let (fio, note) = read_as_fio("size", "1.5g");
    assert_eq!(fio.size_bytes, Some(1));
    assert!(note.contains("write 1536m"), "{note}");
}

#[test]
fn io_size() {
    assert_eq!(
        with(&[("io_size", Some("10g"))]).io_size_bytes,
        Some(10 << 30)
    );
    assert_eq!(
        with(&[("io_limit", Some("1m"))]).io_size_bytes,
        Some(1 << 20)
    );
    assert!(refused("io_size", Some("lots")).starts_with("io_size=lots: 'lots' is not a size"));
}

#[test]
fn offset() {
    assert_eq!(with(&[("offset", Some("1m"))]).offset_bytes, 1 << 20);
    assert!(refused("offset", Some("-4k")).contains("negative values are not allowed"));
}

#[test]
fn rw() {
    let cases = [
        ("read", RwMode::Read),
        ("write", RwMode::Write),
        ("rw", RwMode::ReadWrite),
        ("readwrite", RwMode::ReadWrite),
        ("randread", RwMode::RandRead),
        ("randwrite", RwMode::RandWrite),
        ("randrw", RwMode::RandRw),
        ("trim", RwMode::Trim),
        ("randtrim", RwMode::RandTrim),
        ("trimwrite", RwMode::TrimWrite),
        ("randtrimwrite", RwMode::RandTrimWrite),
    ];
    for (text, mode) in cases {
        assert_eq!(with(&[("rw", Some(text))]).rw, mode, "{text}");
    }
    assert_eq!(with(&[("readwrite", Some("randrw"))]).rw, RwMode::RandRw);
    assert!(refused("rw", Some("trimm")).starts_with("rw=trimm: use one of read, write, rw"));
}

#[test]
fn rwmixread() {
    assert_eq!(with(&[("rwmixread", Some("70"))]).rwmixread, 70);
    // fio's int parser reads '%' as its share-of-a-file marker: only reads under fio 3.33.
    let (fio, note) = read_as_fio("rwmixread", "70%");
    assert_eq!(fio.rwmixread, 100);
    assert!(note.contains("only reads"), "{note}");
    // An int to fio: 70.5 is 70 there (issue 28).
    assert_eq!(read_as_fio("rwmixread", "70.5").0.rwmixread, 70);
    assert!(refused("rwmixread", Some("101")).contains("between 0 and 100"));
}

#[test]
fn rwmixwrite() {
    assert_eq!(with(&[("rwmixwrite", Some("30"))]).rwmixread, 70);
    assert_eq!(with(&[("rwmixwrite", Some("100"))]).rwmixread, 0);
    assert!(refused("rwmixwrite", Some("x")).starts_with("rwmixwrite=x:"));
}

#[test]
fn bs() {
    assert_eq!(
        with(&[("bs", Some("64k"))]).bs_bytes,
        PerDirection::both(65536)
    );
    assert_eq!(
        with(&[("blocksize", Some("1m"))]).bs_bytes,
        PerDirection::both(1 << 20)
    );
    assert_eq!(
        with(&[("bs", Some("4k,64k"))]).bs_bytes,
        PerDirection {
            read: 4096,
            write: 65536
        }
    );
    // ",64k" sets only writes, as in fio.
    assert_eq!(
        with(&[("bs", Some("8k")), ("bs", Some(",64k"))]).bs_bytes,
        PerDirection {
            read: 8192,
            write: 65536
        }
    );
    assert!(refused("bs", Some("4k-64k")).contains("bsrange"));
    assert_eq!(read_as_fio("bs", "4q").0.bs_bytes.read, 4);
    let (fio, note) = read_as_fio("bs", "4kfoo,1.5k");
    assert_eq!((fio.bs_bytes.read, fio.bs_bytes.write), (4096, 1));
    assert!(
        note.contains("'1.5k' read as fio 3.33 reads it, 1"),
        "{note}"
    );
}

#[test]
fn iodepth() {
    assert_eq!(with(&[("iodepth", Some("128"))]).iodepth, 128);
    // fio reads ints with the size suffixes.
    assert_eq!(with(&[("iodepth", Some("1k"))]).iodepth, 1024);
    assert!(refused("iodepth", Some("deep")).starts_with("iodepth=deep: 'deep' is not an integer"));
}

#[test]
fn iodepth_batch_submit() {
    assert_eq!(
        with(&[("iodepth_batch_submit", Some("16"))]).iodepth_batch_submit,
        16
    );
    assert_eq!(
        with(&[("iodepth_batch", Some("8"))]).iodepth_batch_submit,
        8
    );
    assert!(refused("iodepth_batch", None).starts_with("iodepth_batch needs a value"));
}

#[test]
fn iodepth_batch_complete_min() {
    let spec = with(&[("iodepth_batch_complete_min", Some("4"))]);
    assert_eq!(spec.iodepth_batch_complete_min, 4);
    let spec = with(&[("iodepth_batch_complete", Some("0"))]);
    assert_eq!(spec.iodepth_batch_complete_min, 0);
    read_as_fio("iodepth_batch_complete_min", "1.5");
}

#[test]
fn numjobs() {
    assert_eq!(with(&[("numjobs", Some("4"))]).numjobs, 4);
    assert!(refused("numjobs", Some("-1")).contains("negative"));
    // fio's own limit on jobs; 2^32 - 1 clones once passed and were planned until memory ran
    // out (found by fuzzing).
    assert_eq!(
        refused("numjobs", Some("4294967295")),
        "numjobs=4294967295: must be from 1 to 4096 (fio runs at most 4,096 jobs in all)"
    );
    assert_eq!(with(&[("numjobs", Some("4096"))]).numjobs, 4096);
}

#[test]
fn runtime() {
    assert_eq!(
        with(&[("runtime", Some("10"))]).runtime_ns,
        Some(10_000_000_000)
    );
    assert_eq!(
        with(&[("runtime", Some("2m"))]).runtime_ns,
        Some(120_000_000_000)
    );
    assert_eq!(
        with(&[("timeout", Some("500ms"))]).runtime_ns,
        Some(500_000_000)
    );
    // fio: 0 = no limit.
    assert_eq!(
        with(&[("runtime", Some("10")), ("runtime", Some("0"))]).runtime_ns,
        None
    );
    let (fio, note) = read_as_fio("runtime", "10min");
    assert_eq!(fio.runtime_ns, Some(10_000));
    assert!(note.ends_with("write 600s for 10 minutes"), "{note}");
}

#[test]
fn time_based() {
    assert!(with(&[("time_based", None)]).time_based);
    assert!(with(&[("time_based", Some("1"))]).time_based);
    assert!(!with(&[("time_based", None), ("time_based", Some("0"))]).time_based);
    assert_eq!(
        refused("time_based", Some("yes")),
        "time_based=yes: 'yes' is not a bool: use 1 or 0 (fio's booleans are numbers)"
    );
}

#[test]
fn ramp_time() {
    assert_eq!(
        with(&[("ramp_time", Some("30"))]).ramp_time_ns,
        30_000_000_000
    );
    assert_eq!(
        with(&[("ramp_time", Some("2h"))]).ramp_time_ns,
        7_200_000_000_000
    );
    assert!(read_as_fio("ramp_time", "1.5").1.contains("write 1500ms"));
}

#[test]
fn loops() {
    assert_eq!(with(&[("loops", Some("3"))]).loops, 3);
    assert!(refused("loops", Some("")).starts_with("loops=: empty value"));
}

#[test]
fn direct() {
    assert!(with(&[("direct", Some("1"))]).direct);
    assert!(with(&[("direct", None)]).direct);
    assert!(refused("direct", Some("2")).contains("use 1 or 0"));
}

#[test]
fn buffered() {
    assert!(!with(&[("direct", Some("1")), ("buffered", Some("1"))]).direct);
    assert!(with(&[("buffered", Some("0"))]).direct);
    assert!(refused("buffered", Some("true")).contains("use 1 or 0"));
}

#[test]
fn ioengine() {
    let cases = [
        ("io_uring", EngineKind::IoUring),
        ("libaio", EngineKind::Libaio),
        ("psync", EngineKind::Psync),
        ("pvsync", EngineKind::Psync),
        ("sync", EngineKind::Psync),
        ("null", EngineKind::Null),
    ];
    for (text, engine) in cases {
        assert_eq!(with(&[("ioengine", Some(text))]).ioengine, engine, "{text}");
    }
    assert!(refused("ioengine", Some("libiao")).ends_with("(did you mean 'libaio'?)"));
    assert!(refused("ioengine", Some("mmap")).starts_with("ioengine=mmap: use one of io_uring"));
}

#[test]
fn rate() {
    let spec = with(&[("rate", Some("100m"))]);
    assert_eq!(spec.rate_bytes_per_sec, PerDirection::both(Some(100 << 20)));
    let spec = with(&[("rate", Some(",20m"))]);
    assert_eq!(
        spec.rate_bytes_per_sec,
        PerDirection {
            read: None,
            write: Some(20 << 20)
        }
    );
    let spec = with(&[("rate", Some("1m")), ("rate", Some("0,2m"))]);
    assert_eq!(
        spec.rate_bytes_per_sec,
        PerDirection {
            read: None,
            write: Some(2 << 20)
        }
    );
    assert!(read_as_fio("rate", "100mb/s")
        .1
        .contains("fio reads 'm' and ignores what follows"));
}

#[test]
fn rate_iops() {
    let spec = with(&[("rate_iops", Some("3200"))]);
    assert_eq!(spec.rate_iops, PerDirection::both(Some(3200)));
    let spec = with(&[("rate_iops", Some("5000,3200"))]);
    assert_eq!(
        spec.rate_iops,
        PerDirection {
            read: Some(5000),
            write: Some(3200)
        }
    );
    // fio reads "3k" as 3072 here too.
    assert_eq!(
        with(&[("rate_iops", Some("3k"))]).rate_iops.read,
        Some(3072)
    );
    assert!(
        refused("rate_iops", Some("lots")).starts_with("rate_iops=lots: 'lots' is not an integer")
    );
}

#[test]
fn group_reporting() {
    assert!(with(&[("group_reporting", None)]).group_reporting);
    assert!(refused("group_reporting", Some("on")).contains("use 1 or 0"));
}

#[test]
fn randseed() {
    assert_eq!(with(&[("randseed", Some("42"))]).randseed, 42);
    assert_eq!(with(&[("randseed", Some("0xff"))]).randseed, 255);
    assert!(refused("randseed", Some("seed")).starts_with("randseed=seed:"));
}

#[test]
fn norandommap() {
    assert!(with(&[("norandommap", None)]).norandommap);
    assert!(refused("norandommap", Some("x")).contains("use 1 or 0"));
}

#[test]
fn unlink() {
    assert!(!with(&[("unlink", Some("0"))]).unlink);
    assert!(with(&[("unlink", Some("0")), ("unlink", None)]).unlink);
    assert!(refused("unlink", Some("no")).contains("use 1 or 0"));
}

#[test]
fn fixedbufs() {
    assert!(with(&[("fixedbufs", None)]).fixedbufs);
    assert!(refused("fixedbufs", Some("11")).contains("use 1 or 0"));
}

#[test]
fn registerfiles() {
    assert!(with(&[("registerfiles", Some("1"))]).registerfiles);
    assert!(refused("registerfiles", Some("")).contains("empty value"));
}

#[test]
fn cpus_allowed() {
    assert_eq!(
        with(&[("cpus_allowed", Some("0-3,6"))]).cpus_allowed,
        Some(vec![0, 1, 2, 3, 6])
    );
    assert!(refused("cpus_allowed", Some("3-1")).contains("runs backwards"));
}

#[test]
fn zero_buffers() {
    assert!(with(&[("zero_buffers", None)]).zero_buffers);
    assert!(refused("zero_buffers", Some("zero")).contains("use 1 or 0"));
}

#[test]
fn percentile_list() {
    let spec = with(&[("percentile_list", Some("50:99:99.9:99.99"))]);
    assert_eq!(spec.percentile_list, [50.0, 99.0, 99.9, 99.99]);
    assert!(refused("percentile_list", Some("50,99")).contains("plain decimal number"));
    assert_eq!(
        refused("percentile_list", Some("50:101")),
        "percentile_list=50:101: 101 is not a percentile; use values from 0 to 100"
    );
    let many = vec!["1"; 21].join(":");
    assert!(refused("percentile_list", Some(&many)).contains("at most 20"));
}

#[test]
fn percentage_random() {
    assert_eq!(
        with(&[("percentage_random", Some("60"))]).percentage_random,
        60
    );
    assert_eq!(
        read_as_fio("percentage_random", "60.5").0.percentage_random,
        60
    );
}

#[test]
fn stonewall_and_new_group() {
    assert!(with(&[("stonewall", None)]).stonewall);
    assert!(with(&[("wait_for_previous", None)]).stonewall);
    assert!(with(&[("new_group", Some("1"))]).new_group);
}

#[test]
fn startdelay_randrepeat_invalidate() {
    assert_eq!(
        with(&[("startdelay", Some("2"))]).startdelay_ns,
        2_000_000_000
    );
    assert!(!with(&[("randrepeat", Some("0"))]).randrepeat);
    assert!(!with(&[("invalidate", Some("0"))]).invalidate);
}

#[test]
fn sync() {
    use crate::SyncMode;
    assert_eq!(with(&[("sync", Some("1"))]).sync, SyncMode::Sync);
    assert_eq!(with(&[("sync", Some("sync"))]).sync, SyncMode::Sync);
    assert_eq!(with(&[("sync", Some("dsync"))]).sync, SyncMode::Dsync);
    assert_eq!(with(&[("sync", Some("0"))]).sync, SyncMode::None);
    assert!(refused("sync", Some("osync")).contains("osync"));
}

#[test]
fn thread_and_refill_buffers_are_what_diskmeter_always_does() {
    assert_eq!(
        with(&[("thread", None), ("refill_buffers", Some("1"))]),
        JobSpec::default()
    );
    assert!(refused("thread", Some("yes")).contains("use 1 or 0"));
}

#[test]
fn size_and_offset_as_percentages() {
    let spec = with(&[("size", Some("25%")), ("offset", Some("50%"))]);
    assert_eq!((spec.size_percent, spec.size_bytes), (Some(25.0), None));
    assert_eq!((spec.offset_percent, spec.offset_bytes), (Some(50.0), 0));
    let spec = with(&[("size", Some("25%")), ("size", Some("1m"))]);
    assert_eq!((spec.size_percent, spec.size_bytes), (None, Some(1 << 20)));
    assert!(refused("size", Some("0%")).contains("from 1 to 100"));
    assert!(refused("offset", Some("150%")).contains("between 0 and 100"));
}
