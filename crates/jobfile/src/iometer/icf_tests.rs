//! Unit tests of the `.icf` reader and of the steps Iometer's test types give.

use super::icf::{parse_icf, StepType, TestType, WorkerCount};
use super::icf_run::{steps, target_key, ResolvedTarget, RunSettings};
use super::icf_workers::spawn_default_workers;

/// A file in the layout the public 2006.07.27 generators write (two-space indents, no
/// worker or disk cycling, `'Target Type`), with `workers` workers of `targets` targets.
fn generated(test_type: &str, workers: usize, targets: usize) -> String {
    let mut text = format!(
        "Version 2006.07.27 \n'TEST SETUP ====\n'Test Description\n  \n'Run Time\n' hours      minutes    seconds\n  0          0          5\n\
         'Ramp Up Time (s)\n  2\n'Default Disk Workers to Spawn\n  NUMBER_OF_CPUS\n'Default Network Workers to Spawn\n  0\n\
         'Record Results\n  ALL\n'Worker Cycling\n'  start step step type\n  1 1 LINEAR\n'Disk Cycling\n' start step step type\n  1 2 EXPONENTIAL\n\
         'Queue Depth Cycling\n' start       end       step        step type\n  1  61  10   LINEAR\n'Test Type\n  {test_type}\n'END test setup\n\
         'RESULTS DISPLAY ====\n'Update Frequency,Update Type\n  0,WHOLE_TEST\n'END results display\n\
         'ACCESS SPECIFICATIONS ====\n'Access specification name,default assignment\n  100% random; 0% read; 4KB,ALL\n\
         'size,% of size,% reads,% random,delay,burst,align,reply\n  4096,100,0,100,0,1,0,0\n'END access specifications\n\
         'MANAGER LIST ====\n'Manager ID, manager name\n  1, esx01\n'Manager network address\n  10.0.0.1\n"
    );
    for w in 1..=workers {
        text += &format!(
            "'Worker\n  ds1 {w}\n'Worker type\n  DISK\n'Default target settings for worker\n\
             'Number of outstanding IOs,test connection rate,transactions per connection\n  16,DISABLED,1\n\
             'Disk maximum size,starting sector\n  0,0\n'End default target settings for worker\n\
             'Assigned access specs\n100% random; 0% read; 4KB\n'End assigned access specs\n'Target assignments\n"
        );
        for t in 1..=targets {
            text += &format!(
                "'Target\n  {t}: \"VMware Virtual disk\"\n'Target Type\n  DISK\n'End target\n"
            );
        }
        text += "'End target assignments\n'End worker\n";
    }
    text + "'End manager\n'END manager list\nVersion 2006.07.27 \n"
}

fn run(text: &str) -> Vec<(usize, usize, u32)> {
    let icf = parse_icf("t.icf", text).unwrap();
    let settings = RunSettings {
        run_time_ns: None,
        ramp_ns: None,
        file_size_bytes: 1 << 20,
    };
    let resolve = |name: &str| {
        Some(ResolvedTarget {
            path: format!("/dev/{}", target_key(name)),
            is_dir: false,
        })
    };
    steps("t.icf", &icf, &settings, &resolve)
        .unwrap()
        .iter()
        .map(|s| {
            (
                s.workers.len(),
                s.workers.iter().map(|w| w.targets).sum(),
                s.workers[0].queue_depth,
            )
        })
        .collect()
}

#[test]
fn a_generated_file_reads_with_iometer_s_defaults_for_what_it_leaves_out() {
    let icf = parse_icf("t.icf", &generated("NORMAL", 2, 1)).unwrap();
    assert_eq!(icf.version, "2006.07.27");
    assert_eq!((icf.setup.run_time_s, icf.setup.ramp_up_s), (5, 2));
    assert_eq!(icf.setup.disk_workers, WorkerCount::NumberOfCpus);
    assert_eq!(icf.setup.target_cycling.step_type, StepType::Exponential);
    assert_eq!(
        icf.setup.queue_cycling.depths(),
        [1, 11, 21, 31, 41, 51, 61]
    );
    assert_eq!(icf.specs[0].name, "100% random; 0% read; 4KB");
    let manager = &icf.managers[0];
    assert_eq!(
        (manager.id, manager.name.as_str(), manager.address.as_str()),
        (1, "esx01", "10.0.0.1")
    );
    assert_eq!(manager.workers[1].targets, ["1: \"VMware Virtual disk\""]);
    assert_eq!(target_key(&manager.workers[1].targets[0]), "1:");
    assert_eq!(manager.workers[0].queue_depth, 16);
    assert_eq!(run(&generated("NORMAL", 2, 1)), [(2, 2, 16)]);
}

#[test]
fn test_types_step_as_iometer_s_do() {
    // Targets per worker 1, 2, 4 (exponential) up to the 3 each worker has.
    assert_eq!(
        run(&generated("CYCLE_TARGETS", 2, 3)),
        [(2, 2, 16), (2, 4, 16), (2, 6, 16)]
    );
    // Workers 1, 2, 3 per manager.
    assert_eq!(
        run(&generated("CYCLE_WORKERS", 3, 1)),
        [(1, 1, 16), (2, 2, 16), (3, 3, 16)]
    );
    // Targets handed down the workers: 1, 2, 4 of the 4 there are.
    assert_eq!(
        run(&generated("INCREMENT_TARGETS_PARALLEL", 2, 2)),
        [(1, 1, 16), (1, 2, 16), (2, 4, 16)]
    );
    assert_eq!(
        run(&generated("INCREMENT_TARGETS_SERIAL", 2, 2)),
        [(1, 1, 16), (1, 2, 16), (2, 4, 16)]
    );
    // For 1 then 2 workers, targets 1 then 2.
    assert_eq!(
        run(&generated("CYCLE_WORKERS_AND_TARGETS", 2, 2)),
        [(1, 1, 16), (1, 2, 16), (2, 2, 16), (2, 4, 16)]
    );
    let depths: Vec<u32> = run(&generated("CYCLE_OUTSTANDING_IOS", 1, 1))
        .iter()
        .map(|s| s.2)
        .collect();
    assert_eq!(depths, [1, 11, 21, 31, 41, 51, 61]);
    assert_eq!(
        run(&generated("CYCLE_OUTSTANDING_IOS_AND_TARGETS", 1, 2)).len(),
        14
    );
    assert_eq!(
        parse_icf("t.icf", &generated("5", 1, 1))
            .unwrap()
            .setup
            .test_type,
        TestType::CycleWorkersAndTargets
    );
}

#[test]
fn default_workers_are_spawned_when_the_file_has_none() {
    let text = generated("NORMAL", 0, 0);
    let mut icf = parse_icf("t.icf", &text).unwrap();
    spawn_default_workers(&mut icf, 4, &["/dev/sdb".to_string()]);
    let workers = &icf.managers[0].workers;
    assert_eq!(workers.len(), 4, "NUMBER_OF_CPUS");
    assert_eq!(
        workers[3].specs,
        ["100% random; 0% read; 4KB"],
        "the ALL-assigned spec"
    );
    assert_eq!(workers[3].targets, ["/dev/sdb"]);
}

#[test]
fn a_run_time_of_zero_needs_a_time() {
    let text = generated("NORMAL", 1, 1)
        .replace("  0          0          5\n", "  0          0          0\n");
    let icf = parse_icf("t.icf", &text).unwrap();
    let settings = RunSettings {
        run_time_ns: None,
        ramp_ns: None,
        file_size_bytes: 1 << 20,
    };
    let err = steps("t.icf", &icf, &settings, &|_| None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("give --time"), "{err}");
}
