//! Where and how a job's threads and engine run: CPU and NUMA placement, priorities, io_uring and libaio engine options, commands run before and after, and the accepted reporting options (`gtod_reduce`, `clocksource`, histogram logs, ...).
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_system.rs`.

pub mod cmdprio;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A job's placement, priority, engine and reporting settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SystemOptions {
    /// Write fio's completion-latency histogram log to `PREFIX_clat_hist.N.log` (fio
    /// `write_hist_log`); an empty prefix is the job's name. Lines only with `log_hist_msec`.
    pub write_hist_log: Option<String>,
    /// A histogram line per direction every this many ms (fio `log_hist_msec`); 0 = none.
    pub log_hist_msec: u32,
    /// 2^this of fio's latency bins per histogram-log column (fio `log_hist_coarseness`,
    /// 0 to 6: 1856 to 29 columns).
    pub log_hist_coarseness: u32,
    /// Log times are Unix ms instead of ms since the measurement start (fio
    /// `log_unix_epoch`).
    pub log_unix_epoch: bool,
    /// Averaged latency log lines carry the window's largest value instead of its mean (fio
    /// `log_max_value`).
    pub log_max_value: bool,
    /// fio's initial number of log entries (`log_entries`): accepted; diskmeter's logs
    /// grow and write out in chunks on their own.
    pub log_entries: u32,
    /// The logs' priority column is the IO's priority value (`0x%04x`) instead of 1 for the
    /// realtime class and 0 otherwise (fio `log_prio`).
    pub log_prio: bool,
    /// How the clones of a job share `cpus_allowed` (fio `cpus_allowed_policy`).
    pub cpus_allowed_policy: CpusAllowedPolicy,
    /// Run on the CPUs of these NUMA nodes (fio `numa_cpu_nodes`); `None` = any.
    pub numa_cpu_nodes: Option<NodeList>,
    /// Where the worker's memory (its IO buffers) is allocated (fio `numa_mem_policy`).
    pub numa_mem_policy: Option<NumaMemPolicy>,
    /// The worker thread's nice value, -20 to 19 (fio `nice`); 0 leaves it.
    pub nice: i32,
    /// The IO priority level, 0 (highest) to 7 (fio `prio`); `None` leaves it.
    pub prio: Option<u8>,
    /// The IO priority class: 1 realtime, 2 best effort, 3 idle, 0 none (fio `prioclass`);
    /// `None` leaves it.
    pub prioclass: Option<u8>,
    /// io_uring `sqthread_poll`: a kernel thread polls the submission queue.
    pub sqthread_poll: bool,
    /// io_uring `sqthread_poll_cpu`: the CPU of that thread; `None` = the kernel's choice.
    pub sqthread_poll_cpu: Option<u32>,
    /// io_uring `hipri`: polled completions (IORING_SETUP_IOPOLL).
    pub hipri: bool,
    /// io_uring `nonvectored`: 0 = READV/WRITEV, 1 = READ/WRITE, -1 (fio's default) = READ/WRITE
    /// where the kernel has them (every kernel diskmeter runs on).
    pub nonvectored: i32,
    /// io_uring `uncached`: only 0 (RWF_UNCACHED was never merged into Linux).
    pub uncached: u32,
    /// io_uring and libaio `nowait`: RWF_NOWAIT on reads and writes.
    pub nowait: bool,
    /// io_uring `force_async=N`: IOSQE_ASYNC on every Nth request; 0 = never.
    pub force_async: u32,
    /// libaio `userspace_reap`: non-blocking reaps read the completion ring in user space.
    pub userspace_reap: bool,
    /// io_uring and libaio per-IO priorities (`cmdprio_*`).
    pub cmdprio: cmdprio::CmdPrio,
    /// A shell command each worker runs before its IO (fio `exec_prerun`); output in
    /// `NAME.prerun.txt`. Runs only with `--allow-exec`.
    pub exec_prerun: Option<String>,
    /// A shell command each worker runs after its IO (fio `exec_postrun`); output in
    /// `NAME.postrun.txt`. Runs only with `--allow-exec`.
    pub exec_postrun: Option<String>,
}

impl Default for SystemOptions {
    /// The options' defaults, as [`crate::JobSpec::default`] has them (from the option rows).
    fn default() -> Self {
        crate::JobSpec::default().system
    }
}

impl SystemOptions {
    /// The option fields hold placeholders, which [`crate::JobSpec::default`] replaces with
    /// the rows' defaults (as for `JobSpec::blank`).
    pub(crate) fn blank() -> Self {
        SystemOptions {
            write_hist_log: None,
            log_hist_msec: 0,
            log_hist_coarseness: 0,
            log_unix_epoch: false,
            log_max_value: false,
            log_entries: 0,
            log_prio: false,
            cpus_allowed_policy: Default::default(),
            numa_cpu_nodes: None,
            numa_mem_policy: None,
            nice: 0,
            prio: None,
            prioclass: None,
            sqthread_poll: false,
            sqthread_poll_cpu: None,
            hipri: false,
            nonvectored: 0,
            uncached: 0,
            nowait: false,
            force_async: 0,
            userspace_reap: false,
            cmdprio: Default::default(),
            exec_prerun: None,
            exec_postrun: None,
        }
    }
}

/// How the clones of a job use the CPUs of `cpus_allowed` (fio `cpus_allowed_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CpusAllowedPolicy {
    /// Every worker may run on every CPU of the set.
    #[default]
    Shared,
    /// Each worker gets one CPU of the set: the worker numbered N (from 1, over the whole run,
    /// as fio's thread numbers) takes the set's ((N - 1) mod size)-th CPU.
    Split,
}

/// NUMA nodes as fio writes them: `all`, or numbers and ranges (`0,2-3`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeList {
    /// Every node of the machine.
    All,
    /// These nodes, sorted, without duplicates.
    Nodes(Vec<usize>),
}

/// fio's `numa_mem_policy`: `MODE[:NODES]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "mode", content = "nodes")]
pub enum NumaMemPolicy {
    /// The system's default policy (no nodes).
    Default,
    /// Prefer this one node.
    Prefer(usize),
    /// Only these nodes.
    Bind(NodeList),
    /// Interleaved over these nodes.
    Interleave(NodeList),
    /// The node of the CPU the thread runs on (no nodes).
    Local,
}

/// Why a system option's value cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SystemValueError {
    /// A node list that is not `all` or numbers and ranges.
    #[error("'{text}' is not a NUMA node list; use all, or numbers and ranges like 0,2-3")]
    NodeList {
        /// The text given.
        text: String,
    },
    /// A `numa_mem_policy` mode fio does not have.
    #[error("'{mode}' is not a memory policy; use default, prefer, bind, interleave or local")]
    MemPolicyMode {
        /// The mode given.
        mode: String,
    },
    /// `prefer` takes exactly one node; `bind` and `interleave` need nodes.
    #[error("{0}")]
    MemPolicyNodes(&'static str),
    /// `uncached=1`: a flag Linux never had.
    #[error(
        "uncached=1 asks for RWF_UNCACHED, a flag Linux never merged (its bit is RWF_ATOMIC on \
         kernels since 6.11), so diskmeter does not send it; use direct=1 to bypass the page \
         cache"
    )]
    Uncached,
    /// A `cmdprio_bssplit` problem.
    #[error(transparent)]
    CmdPrio(#[from] cmdprio::CmdPrioError),
    /// A per-direction number out of its range (`cmdprio_class=4`).
    #[error("each value must be from {min} to {max}")]
    PairOutside {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
    },
    /// `log_compression`: fio's compressed log chunks.
    #[error(
        "log_compression makes fio keep its logs zlib-compressed in chunks that only \
         `fio --inflate-log` reads back; diskmeter writes plain-text logs in chunks as they \
         fill, so memory stays bounded without it: leave it out"
    )]
    LogCompression,
    /// A number outside a signed range (`nice`).
    #[error("must be a whole number from {min} to {max}")]
    Signed {
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
    },
}

/// Parses fio's node list: `all`, or numbers and ranges.
pub fn parse_node_list(text: &str) -> Result<NodeList, SystemValueError> {
    let text = text.trim();
    if text == "all" {
        return Ok(NodeList::All);
    }
    diskmeter_units::parse_cpu_list(text)
        .map(NodeList::Nodes)
        .map_err(|_| SystemValueError::NodeList {
            text: text.to_string(),
        })
}

/// Prints a node list back as fio writes it.
pub fn format_node_list(nodes: &NodeList) -> String {
    match nodes {
        NodeList::All => "all".to_string(),
        NodeList::Nodes(nodes) => diskmeter_units::format_cpu_list(nodes),
    }
}

/// Parses fio's `numa_mem_policy=MODE[:NODES]`.
pub fn parse_mem_policy(text: &str) -> Result<NumaMemPolicy, SystemValueError> {
    let (mode, nodes) = match text.trim().split_once(':') {
        Some((mode, nodes)) => (mode.trim(), Some(nodes)),
        None => (text.trim(), None),
    };
    let need_nodes = |nodes: Option<&str>| match nodes {
        Some(nodes) => parse_node_list(nodes),
        None => Err(SystemValueError::MemPolicyNodes(
            "bind and interleave need nodes: bind:0 or interleave:0-1",
        )),
    };
    match mode {
        "default" | "local" if nodes.is_some_and(|n| !n.trim().is_empty()) => Err(
            SystemValueError::MemPolicyNodes("default and local take no nodes"),
        ),
        "default" => Ok(NumaMemPolicy::Default),
        "local" => Ok(NumaMemPolicy::Local),
        "prefer" => match nodes.map(parse_node_list) {
            Some(Ok(NodeList::Nodes(nodes))) if nodes.len() == 1 => {
                Ok(NumaMemPolicy::Prefer(nodes[0]))
            }
            _ => Err(SystemValueError::MemPolicyNodes(
                "prefer takes exactly one node: prefer:0",
            )),
        },
        "bind" => need_nodes(nodes).map(NumaMemPolicy::Bind),
        "interleave" => need_nodes(nodes).map(NumaMemPolicy::Interleave),
        other => Err(SystemValueError::MemPolicyMode {
            mode: other.to_string(),
        }),
    }
}

/// Prints a memory policy back as fio writes it.
pub fn format_mem_policy(policy: &NumaMemPolicy) -> String {
    match policy {
        NumaMemPolicy::Default => "default".to_string(),
        NumaMemPolicy::Local => "local".to_string(),
        NumaMemPolicy::Prefer(node) => format!("prefer:{node}"),
        NumaMemPolicy::Bind(nodes) => format!("bind:{}", format_node_list(nodes)),
        NumaMemPolicy::Interleave(nodes) => format!("interleave:{}", format_node_list(nodes)),
    }
}
