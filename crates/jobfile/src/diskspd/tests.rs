//! The DiskSpd front-end's tests: how switches map onto jobs, and how a switch that cannot
//! be taken is refused (naming the switch as the user gave it).

use super::*;
use diskmeter_workload::RwMode;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_guides_write_test_maps_to_one_job_of_four_threads() {
    let p = parse(&args(
        "-c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh -L testfile.dat",
    ))
    .unwrap();
    assert_eq!(p.jobs().len(), 1);
    let jobs = p.jobs();
    let j = &jobs[0];
    assert_eq!(j.rw, RwMode::RandWrite);
    assert_eq!((j.bs_bytes.read, j.bs_bytes.write), (8192, 8192));
    assert_eq!((j.numjobs, j.iodepth), (4, 128));
    assert!(j.direct && j.time_based);
    assert_eq!(j.runtime_ns, Some(30_000_000_000));
    assert_eq!(j.ramp_time_ns, 30_000_000_000);
    assert_eq!(j.size_bytes, Some(200 << 30));
    assert_eq!(j.filenames, vec!["testfile.dat".to_string()]);
    assert!(p.time_spans[0].measure_latency && p.time_spans[0].targets[0].write_through);
    assert_eq!(j.sync, diskmeter_workload::SyncMode::Dsync);
    let w = parse(&args("-Sw t")).unwrap();
    assert!(!w.jobs()[0].direct);
    assert_eq!(w.jobs()[0].sync, diskmeter_workload::SyncMode::Dsync);
}

#[test]
fn threads_per_target_give_a_job_per_target_and_mixes_map() {
    let p = parse(&args("-t2 -o8 -w30 -rs60 -b4K -d5 -W0 a.dat b.dat")).unwrap();
    assert_eq!(p.jobs().len(), 2);
    for j in &p.jobs() {
        assert_eq!(j.rw, RwMode::RandRw);
        assert_eq!(j.rwmixread, 70);
        assert_eq!(j.percentage_random, 60);
        assert_eq!((j.numjobs, j.iodepth), (2, 8));
        assert!(!j.direct, "DiskSpd caches by default");
    }
    let f = parse(&args("-F3 -o8 -s a.dat b.dat")).unwrap();
    assert_eq!(f.jobs().len(), 1);
    assert_eq!((f.jobs()[0].numjobs, f.jobs()[0].iodepth), (3, 16));
    assert_eq!(f.jobs()[0].rw, RwMode::Read);
}

#[test]
fn alignment_strides_cool_down_and_interlocked_sequential_map() {
    let p = parse(&args("-b4K -r512 -C3 -d5 t")).unwrap();
    let jobs = p.jobs();
    let j = &jobs[0];
    assert_eq!(j.blockalign_bytes.read, Some(512));
    assert_eq!(j.cooldown_ns, 3_000_000_000);
    let p = parse(&args("-b4K -si16K -t4 -T4K t")).unwrap();
    let jobs = p.jobs();
    let j = &jobs[0];
    assert!(j.shared_sequential);
    assert_eq!((j.rw, j.rw_offset_modifier), (RwMode::Read, 12 << 10i64));
    assert_eq!(j.offset_increment_bytes, 4096);
    let plain = parse(&args("-b4K -s4K t")).unwrap();
    assert_eq!(plain.jobs()[0].rw_offset_modifier, 0);
    assert!(!plain.jobs()[0].shared_sequential);
}

#[test]
fn sizes_in_blocks_throttles_and_defaults() {
    let p = parse(&args("-b16K -c100b -g50i -B2b t")).unwrap();
    let jobs = p.jobs();
    let j = &jobs[0];
    // The file is 100 blocks (-c); IO covers it from -B on, as DiskSpd.
    assert_eq!(j.size_bytes, Some(98 * 16384));
    assert_eq!(j.offset_bytes, 2 * 16384);
    assert_eq!(j.rate_iops.read, Some(50));
    let p = parse(&args("-g1024 t")).unwrap();
    assert_eq!(p.jobs()[0].rate_bytes_per_sec.read, Some(1_024_000));
    let d = parse(&args("t")).unwrap();
    let (span, t) = (&d.time_spans[0], &d.time_spans[0].targets[0]);
    assert_eq!(
        (
            t.block_size_bytes,
            t.outstanding,
            span.duration_s,
            span.warmup_s
        ),
        (65536, 2, 10, 5)
    );
    assert_eq!(d.jobs()[0].rw, RwMode::Read);
    assert_eq!(parse(&args("-Rxml t")).unwrap().output, OutputForm::Xml);
    assert_eq!(parse(&args("-R xml t")).unwrap().output, OutputForm::Xml);
}

#[test]
fn windows_only_and_unsupported_switches_say_why() {
    for (line, needle) in [
        ("-Sm t", "memory-mapped"),
        ("-p t", "same offset"),
        ("-yeEvent", "nothing to run"),
        ("-ag1,0 t", "processor groups"),
        ("-Z1M,src.bin t", "from a file"),
        ("-I4 t", "priorities"),
        ("-i8 t", "needs a think time"),
        ("-rdpct90/10 t", "add -r"),
        ("D:\\data\\f.dat", "Windows drive"),
        ("E:", "Windows drive"),
        ("#1", "disk numbers"),
        ("-r0 t", "more than 0"),
        ("-w120 t", "0 to 100"),
        ("-b0 t", "more than 0"),
        ("-bX t", "not a size"),
        ("-q t", "unknown switch"),
        ("-b4K", "at least one target"),
    ] {
        let e = parse(&args(line)).unwrap_err().to_string();
        assert!(e.contains(needle), "{line}: {e}");
    }
}

#[test]
fn a_throttle_too_large_for_its_targets_is_refused_naming_g_not_a_panic() {
    // -g is bytes per millisecond: x1000 (and x targets for -F) overflowed.
    let e = parse(&args("-g18446744073709551615 t")).unwrap_err();
    assert_eq!(e.switch, "-g18446744073709551615");
    assert!(e.to_string().contains("is more than"), "{e}");
    let e = parse(&args("-g18446744073709551615i -F2 a b")).unwrap_err();
    assert_eq!(e.switch, "-g18446744073709551615i");
    assert_eq!(
        parse(&args("-g9223372036854775807i -F2 a b"))
            .unwrap()
            .jobs()[0]
            .rate_iops
            .read,
        Some(u64::MAX - 1)
    );
}

#[test]
fn thread_and_depth_counts_beyond_32_bits_are_refused_not_wrapped() {
    // 4294967297 was cut to 32 bits: one thread, silently.
    for line in ["-t4294967297 t", "-F4294967296 t", "-o4294967297 t"] {
        let e = parse(&args(line)).unwrap_err();
        assert!(
            e.to_string().contains("is more than 4294967295"),
            "{line}: {e}"
        );
    }
}

#[test]
fn a_value_the_job_cannot_take_names_the_switch_that_gave_it() {
    for (line, switch, option) in [
        ("-o100000 t", "-o100000", "iodepth=100000"),
        (
            "-d18446744073709551615 t",
            "-d18446744073709551615",
            "runtime=",
        ),
        ("-o8 -o70000 t", "-o70000", "iodepth="),
        (
            "-b4K -s18446744073709551615 t",
            "-s18446744073709551615",
            "rw=read:",
        ),
    ] {
        let e = parse(&args(line)).unwrap_err();
        assert_eq!(e.switch, switch, "{line}: {e}");
        assert!(e.to_string().contains(option), "{line}: {e}");
    }
}

#[test]
fn an_empty_argument_is_refused_not_taken_for_a_target() {
    let given = vec!["-F2".to_string(), String::new(), "b".to_string()];
    let e = parse(&given).unwrap_err();
    assert_eq!(e.problem, DiskSpdProblem::EmptyTarget);
    assert_eq!(e.switch, "");
}
