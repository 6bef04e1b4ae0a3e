//! Tests of the switches issue 19 added: each one's mapping onto jobs, the notes of those
//! that change nothing here, and DiskSpd's own checks.

use super::*;
use diskmeter_workload::{RandomDistribution, RwMode};

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

fn described(p: &DiskSpdProfile, option: &str) -> Option<String> {
    diskmeter_workload::describe(&p.jobs()[0])
        .into_iter()
        .find(|(k, _)| k == option)
        .map(|(_, v)| v)
}

#[test]
fn rdpct_completes_the_distribution_as_diskspd_does() {
    // DiskSpd's usage: 90% of IO in 10% of the target, none in the next 10%, 5% in the next
    // 20%, and the remaining 5% in the last 60%.
    let p = parse(&args("-r -rdpct90/10:0/10:5/20 t")).unwrap();
    let d = p.time_spans[0].targets[0].distribution.clone().unwrap();
    assert_eq!(d.ranges, vec![(90, 10), (0, 10), (5, 20), (5, 60)]);
    let RandomDistribution::Zoned { zones } = &p.jobs()[0].random_distribution else {
        panic!("{:?}", p.jobs()[0].random_distribution);
    };
    let shares: Vec<(u8, u8)> = zones
        .iter()
        .map(|z| (z.access_percent, z.size_percent))
        .collect();
    assert_eq!(shares, vec![(90, 10), (0, 10), (5, 20), (5, 60)]);
    for (line, needle) in [
        ("-r -rdpct90/100 t", "covered with 10% IO left"),
        ("-r -rdpct60/10:60/10 t", "add up to 120"),
        ("-r -rdpct100/50 t", "add up to 50, not 100"),
        ("-r -rdpct90/0 t", "not a target percentage"),
        ("-r -rdxyz t", "pct and abs"),
        ("-rdpct90/10 t", "add -r"),
    ] {
        let e = parse(&args(line)).unwrap_err();
        assert!(e.to_string().contains(needle), "{line}: {e}");
        assert!(e.switch.starts_with("-rd"), "{line}: {}", e.switch);
    }
}

#[test]
fn rdabs_gives_the_rest_of_the_target_to_the_io_left() {
    let p = parse(&args("-r -b4K -rdabs90/10G:0/10G:5/20G t")).unwrap();
    let RandomDistribution::ZonedAbs { zones, past_end } = &p.jobs()[0].random_distribution else {
        panic!("not zoned_abs");
    };
    // Ranges past the target's end follow DiskSpd's rule, not fio's.
    assert_eq!(*past_end, diskmeter_workload::ZonesPastEnd::Reweighted);
    let sizes: Vec<(u8, u64)> = zones
        .iter()
        .map(|z| (z.access_percent, z.size_bytes))
        .collect();
    assert_eq!(
        sizes,
        vec![(90, 10 << 30), (0, 10 << 30), (5, 20 << 30), (5, 1 << 60)]
    );
}

#[test]
fn outstanding_per_thread_bursts_priority_hints_and_affinity_map() {
    let p = parse(&args("-F2 -O8 -o4 a b")).unwrap();
    assert_eq!(p.jobs()[0].iodepth, 8, "-O replaces -o x targets");
    assert_eq!(parse(&args("-F2 -o4 a b")).unwrap().jobs()[0].iodepth, 8);
    let p = parse(&args("-i10 -j5 t")).unwrap();
    assert_eq!(described(&p, "thinktime").as_deref(), Some("5ms"));
    assert_eq!(described(&p, "thinktime_blocks").as_deref(), Some("10"));
    assert!(parse(&args("-j5 t"))
        .unwrap_err()
        .to_string()
        .contains("burst"));
    let low = parse(&args("-I1 t")).unwrap();
    assert_eq!(described(&low, "prioclass").as_deref(), Some("3"));
    let p = parse(&args("-I2 t")).unwrap();
    assert_eq!(described(&p, "prio").as_deref(), Some("7"));
    let p = parse(&args("-fr t")).unwrap();
    assert_eq!(described(&p, "fadvise_hint").as_deref(), Some("random"));
    let p = parse(&args("-t4 -a0,2 t")).unwrap();
    assert_eq!(p.time_spans[0].affinity_cpus, vec![0, 2]);
    assert_eq!(described(&p, "cpus_allowed").as_deref(), Some("0,2"));
    assert_eq!(
        described(&p, "cpus_allowed_policy").as_deref(),
        Some("split")
    );
    let p = parse(&args("-ag0,1,3 t")).unwrap();
    assert_eq!(p.time_spans[0].affinity_cpus, vec![1, 3]);
    assert!(parse(&args("-n -a1 t")).is_err());
}

#[test]
fn base_with_length_and_the_linux_ports_switches() {
    let p = parse(&args("-B1M:4M t")).unwrap();
    let j = &p.jobs()[0];
    assert_eq!((j.offset_bytes, j.size_bytes), (1 << 20, Some(4 << 20)));
    let p = parse(&args("-Sd -Zrs t")).unwrap();
    assert!(p.jobs()[0].direct);
    let p = parse(&args("-Ss -w100 -Zz t")).unwrap();
    assert_eq!(p.jobs()[0].sync, diskmeter_workload::SyncMode::Sync);
    assert!(p.jobs()[0].zero_buffers);
    let p = parse(&args("-b8K -si4K -t2 t")).unwrap();
    assert_eq!(
        (p.jobs()[0].rw, p.jobs()[0].rw_offset_modifier),
        (RwMode::Read, -4096)
    );
    assert_eq!(parse(&args("-w t")).unwrap().jobs()[0].rw, RwMode::Read);
}

#[test]
fn switches_that_change_nothing_here_are_accepted_with_one_note_each() {
    let p = parse(&args(
        "-n -e -Sr -v -P1000 -l -x -ag -D500 -ysStart -z -:1 t",
    ))
    .unwrap();
    for switch in [
        "-n", "-e", "-Sr", "-v", "-P1000", "-l", "-x", "-ag", "-ysStart", "-z",
    ] {
        assert_eq!(
            p.notes
                .iter()
                .filter(|n| n.starts_with(&format!("{switch}:")))
                .count(),
            1,
            "{switch}: {:?}",
            p.notes
        );
    }
    assert_eq!(p.time_spans[0].iops_interval_ms, Some(500));
}

#[test]
fn d_sets_the_series_interval_of_every_job_without_a_note() {
    let p = parse(&args("-D100 -t2 a b")).unwrap();
    assert!(
        p.notes.iter().all(|n| !n.starts_with("-D")),
        "{:?}",
        p.notes
    );
    assert!(p.jobs().iter().all(|j| j.series_interval_ms == 100));
    // -D alone is DiskSpd's default bucket, a second; no -D keeps the series per second.
    assert_eq!(
        parse(&args("-D t")).unwrap().jobs()[0].series_interval_ms,
        1000
    );
    assert_eq!(
        parse(&args("t")).unwrap().jobs()[0].series_interval_ms,
        1000
    );
}

#[test]
fn typographic_dashes_read_as_dashes_with_a_note() {
    let p = parse(&args("\u{2013}b8K \u{2014}o4 \u{2212}r t")).unwrap();
    let t = &p.time_spans[0].targets[0];
    assert_eq!((t.block_size_bytes, t.outstanding), (8192, 4));
    assert_eq!(t.access, Access::Random);
    assert_eq!(p.notes.len(), 3, "{:?}", p.notes);
    assert!(p.notes[0].contains("read as -b8K"), "{:?}", p.notes);
    let e = parse(&args("\u{2013}b0 t")).unwrap_err();
    assert_eq!(e.switch, "\u{2013}b0");
}

#[test]
fn windows_drives_are_refused_unless_the_path_exists_here() {
    let e = parse(&args("-b4K D:\\data\\f.dat")).unwrap_err();
    assert_eq!(e.problem, DiskSpdProblem::WindowsDrive);
    let env = Env {
        path_exists: |path| path == "D:\\data\\f.dat",
        ..Env::pure()
    };
    let p = parse_with(&args("-b4K D:\\data\\f.dat"), &env).unwrap();
    assert_eq!(p.time_spans[0].targets[0].path, "D:\\data\\f.dat");
}

#[test]
fn f_caps_the_region_and_c_sizes_it_per_target() {
    let p = parse(&args("-f10G -B1G t")).unwrap();
    let job = &p.jobs()[0];
    assert!(job.size_capped_by_target, "-f is at most, as DiskSpd");
    assert_eq!(job.size_bytes, Some(9 << 30));
    // -c creates the file at that size: the region ends there, not past it.
    let p = parse(&args("-c2G -f10G -B1G t")).unwrap();
    assert!(!p.jobs()[0].size_capped_by_target);
    assert_eq!(p.jobs()[0].size_bytes, Some(1 << 30));
    // -F: one job over both files, each with the whole region (fio splits size over files).
    let p = parse(&args("-F2 -c1G a b")).unwrap();
    assert_eq!(p.jobs()[0].size_bytes, Some(2 << 30));
}
