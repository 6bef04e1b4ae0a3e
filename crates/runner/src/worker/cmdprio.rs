//! Choosing each IO's own priority (fio's `cmdprio_percentage`, `cmdprio_bssplit` with
//! `cmdprio_class` and `cmdprio`): a draw per IO from the worker's own generator; the
//! engine puts the value in the IO (io_uring's SQE, libaio's iocb). A worker whose job has
//! none of these options has no chooser and makes no draw.

use diskmeter_workload::JobSpec;

/// The kernel's ioprio value of a class and level.
fn ioprio(class: u8, level: u8) -> u16 {
    (u16::from(class) << 13) | u16::from(level)
}

enum Mode {
    /// `cmdprio_percentage`: this share of each direction's IOs gets that direction's value.
    Percentage { percent: [u8; 2], value: [u16; 2] },
    /// `cmdprio_bssplit`: per direction, (block size, percentage, value) entries.
    BsSplit { entries: [Vec<(u64, u8, u16)>; 2] },
}

/// The per-IO priority draw of one worker.
pub(super) struct CmdPrioChooser {
    state: u64,
    mode: Mode,
}

impl CmdPrioChooser {
    /// The chooser of `job`, or `None` when its IOs carry no priority of their own.
    pub(super) fn new(job: &JobSpec, seed: u64) -> Option<Self> {
        let cmdprio = &job.system.cmdprio;
        let values = [0, 1].map(|d| ioprio(cmdprio.class[d], cmdprio.level[d]));
        let mode = match (&cmdprio.bssplit, cmdprio.percentage) {
            (Some(split), _) => Mode::BsSplit {
                entries: [0, 1].map(|d| {
                    split[d]
                        .iter()
                        .map(|e| {
                            let value = e
                                .class_level
                                .map_or(values[d], |(class, level)| ioprio(class, level));
                            (e.bs_bytes, e.percent, value)
                        })
                        .collect()
                }),
            },
            (None, Some(percent)) => Mode::Percentage {
                percent,
                value: values,
            },
            (None, None) => return None,
        };
        Some(CmdPrioChooser {
            state: seed ^ 0x2545_f491_4f6c_dd1d | 1,
            mode,
        })
    }

    /// A number from 0 to 99 (xorshift64*).
    fn percent_draw(&mut self) -> u8 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        ((self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) % 100) as u8
    }

    /// The priority of the next IO of `direction` (index) and `len_bytes`; 0 = the
    /// thread's own.
    #[inline]
    pub(super) fn choose(&mut self, direction: usize, len_bytes: u64) -> u16 {
        let draw = self.percent_draw();
        match &self.mode {
            Mode::Percentage { percent, value } => {
                if draw < percent[direction] {
                    value[direction]
                } else {
                    0
                }
            }
            Mode::BsSplit { entries } => {
                let mut cumulative = 0u32;
                for &(bs, percent, value) in &entries[direction] {
                    if bs != len_bytes {
                        continue;
                    }
                    cumulative += u32::from(percent);
                    if u32::from(draw) < cumulative {
                        return value;
                    }
                }
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_workload::apply_option;

    fn chooser(options: &[(&str, &str)]) -> Option<CmdPrioChooser> {
        let mut job = JobSpec::default();
        for (name, value) in options {
            apply_option(&mut job, name, Some(value)).unwrap();
        }
        CmdPrioChooser::new(&job, 7)
    }

    #[test]
    fn a_job_without_cmdprio_has_no_chooser() {
        assert!(chooser(&[]).is_none());
    }

    #[test]
    fn the_percentage_of_ios_gets_the_class_and_level() {
        let mut c = chooser(&[("cmdprio_percentage", "20,0"), ("cmdprio_class", "1")]).unwrap();
        let reads = (0..10_000).filter(|_| c.choose(0, 4096) == 1 << 13).count();
        assert!((1_700..2_300).contains(&reads), "{reads} of 10000");
        assert!((0..1000).all(|_| c.choose(1, 4096) == 0));
    }

    #[test]
    fn bssplit_entries_pick_by_block_size() {
        let mut c = chooser(&[("cmdprio_bssplit", "64k/25/1/1:64k/75/3/2:1m/0,1m/100")]).unwrap();
        let mut counts = std::collections::HashMap::new();
        for _ in 0..4000 {
            *counts.entry(c.choose(0, 65536)).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 2, "{counts:?}");
        assert!((800..1200).contains(&counts[&ioprio(1, 1)]), "{counts:?}");
        assert!((0..100).all(|_| c.choose(0, 1 << 20) == 0));
        assert!((0..100).all(|_| c.choose(1, 1 << 20) == ioprio(1, 0)));
    }
}
