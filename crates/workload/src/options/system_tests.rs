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

#[test]
fn cpus_allowed_policy() {
    use crate::system::CpusAllowedPolicy;
    let spec = with(&[("cpus_allowed_policy", Some("split"))]);
    assert_eq!(spec.system.cpus_allowed_policy, CpusAllowedPolicy::Split);
    assert!(refused("cpus_allowed_policy", Some("spread")).contains("use one of shared, split"));
}

#[test]
fn cpumask() {
    assert_eq!(
        with(&[("cpumask", Some("5"))]).cpus_allowed,
        Some(vec![0, 2])
    );
    assert_eq!(
        with(&[("cpumask", Some("0x3")), ("cpus_allowed", Some("4"))]).cpus_allowed,
        Some(vec![4]),
        "the later option wins"
    );
    assert!(refused("cpumask", Some("0")).contains("must be at least 1"));
}

#[test]
fn numa_cpu_nodes() {
    use crate::system::NodeList;
    let spec = with(&[("numa_cpu_nodes", Some("0-1,3"))]);
    assert_eq!(
        spec.system.numa_cpu_nodes,
        Some(NodeList::Nodes(vec![0, 1, 3]))
    );
    let spec = with(&[("numa_cpu_nodes", Some("all"))]);
    assert_eq!(spec.system.numa_cpu_nodes, Some(NodeList::All));
    assert!(refused("numa_cpu_nodes", Some("x")).contains("is not a NUMA node list"));
}

#[test]
fn numa_mem_policy() {
    use crate::system::{NodeList, NumaMemPolicy};
    let policy = |text| {
        with(&[("numa_mem_policy", Some(text))])
            .system
            .numa_mem_policy
    };
    assert_eq!(
        policy("bind:0"),
        Some(NumaMemPolicy::Bind(NodeList::Nodes(vec![0])))
    );
    assert_eq!(
        policy("interleave:all"),
        Some(NumaMemPolicy::Interleave(NodeList::All))
    );
    assert_eq!(policy("prefer:1"), Some(NumaMemPolicy::Prefer(1)));
    assert_eq!(policy("local"), Some(NumaMemPolicy::Local));
    assert_eq!(policy("default"), Some(NumaMemPolicy::Default));
    assert!(refused("numa_mem_policy", Some("prefer:0-1")).contains("exactly one node"));
    assert!(refused("numa_mem_policy", Some("bind")).contains("need nodes"));
    assert!(refused("numa_mem_policy", Some("spread:0")).contains("is not a memory policy"));
}

#[test]
fn nice() {
    assert_eq!(with(&[("nice", Some("-5"))]).system.nice, -5);
    assert_eq!(with(&[("nice", Some("19"))]).system.nice, 19);
    assert_eq!(
        refused("nice", Some("20")),
        "nice=20: must be a whole number from -20 to 19"
    );
}

#[test]
fn prio_and_prioclass() {
    let spec = with(&[("prio", Some("7")), ("prioclass", Some("3"))]);
    assert_eq!(
        (spec.system.prio, spec.system.prioclass),
        (Some(7), Some(3))
    );
    assert_eq!(refused("prio", Some("8")), "prio=8: must be from 0 to 7");
    assert_eq!(
        refused("prioclass", Some("4")),
        "prioclass=4: must be from 0 to 3"
    );
}

#[test]
fn sqthread_poll_and_its_cpu() {
    let spec = with(&[("sqthread_poll", None), ("sqthread_poll_cpu", Some("1"))]);
    assert!(spec.system.sqthread_poll);
    assert_eq!(spec.system.sqthread_poll_cpu, Some(1));
}

#[test]
fn hipri() {
    assert!(with(&[("hipri", None)]).system.hipri);
    assert!(!with(&[("hipri", Some("0"))]).system.hipri);
}

#[test]
fn nonvectored() {
    assert_eq!(crate::JobSpec::default().system.nonvectored, -1);
    assert_eq!(with(&[("nonvectored", Some("0"))]).system.nonvectored, 0);
    assert_eq!(
        refused("nonvectored", Some("2")),
        "nonvectored=2: must be a whole number from -1 to 1"
    );
}

#[test]
fn uncached() {
    assert_eq!(with(&[("uncached", Some("0"))]).system.uncached, 0);
    assert!(refused("uncached", Some("1")).contains("RWF_UNCACHED, a flag Linux never merged"));
}

#[test]
fn nowait_force_async_userspace_reap() {
    let spec = with(&[
        ("nowait", Some("1")),
        ("force_async", Some("4")),
        ("userspace_reap", None),
    ]);
    assert!(spec.system.nowait && spec.system.userspace_reap);
    assert_eq!(spec.system.force_async, 4);
}

#[test]
fn log_unix_epoch_max_value_prio_entries() {
    let spec = with(&[
        ("log_unix_epoch", None),
        ("log_max_value", Some("1")),
        ("log_prio", Some("1")),
        ("log_entries", Some("4096")),
    ]);
    let system = &spec.system;
    assert!(system.log_unix_epoch && system.log_max_value && system.log_prio);
    assert_eq!(system.log_entries, 4096);
    assert_eq!(
        refused("log_entries", Some("10")),
        "log_entries=10: must be from 1024 to 1048576"
    );
}

#[test]
fn log_compression() {
    assert!(refused("log_compression", Some("1m")).contains("fio --inflate-log"));
}

#[test]
fn cmdprio_percentage_class_and_level() {
    let spec = with(&[
        ("cmdprio_percentage", Some("20,5")),
        ("cmdprio_class", Some("1,3")),
        ("cmdprio", Some("2")),
    ]);
    let cmdprio = &spec.system.cmdprio;
    assert_eq!(cmdprio.percentage, Some([20, 5]));
    assert_eq!((cmdprio.class, cmdprio.level), ([1, 3], [2, 2]));
    assert_eq!(
        refused("cmdprio_class", Some("4")),
        "cmdprio_class=4: each value must be from 1 to 3"
    );
    assert!(refused("cmdprio_percentage", Some("101")).contains("from 0 to 100"));
}

#[test]
fn cmdprio_bssplit() {
    use crate::system::cmdprio::CmdPrioSplit;
    let spec = with(&[("cmdprio_bssplit", Some("64k/25/1/1:64k/75:1m/0,1m/100"))]);
    let split = spec.system.cmdprio.bssplit.unwrap();
    assert_eq!(
        split[0][0],
        CmdPrioSplit {
            bs_bytes: 65536,
            percent: 25,
            class_level: Some((1, 1))
        }
    );
    assert_eq!(split[0].len(), 3);
    assert_eq!(split[1][0].percent, 100);
    assert!(refused("cmdprio_bssplit", Some("1M/10/2/0/1"))
        .contains("a priority hint (command duration limits), which fio 3.36 added"));
    assert!(
        refused("cmdprio_bssplit", Some("64k/25/4/0")).contains("the class must be from 0 to 3")
    );
    assert!(refused("cmdprio_bssplit", Some("64k")).contains("is not BS/PERCENT"));
}
