//! Read or write: the two directions every workload option and every statistic is split by.
//! Here, in the shared vocabulary crate, so the workload model, the runner and the statistics
//! name a direction with one type instead of a 0/1 index.

use serde::{Deserialize, Serialize};

/// Read or write: the two directions every statistic is split by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Data moves from the device to memory.
    Read,
    /// Data moves from memory to the device.
    Write,
}

impl Direction {
    /// Both directions, read first (the order fio prints them in).
    pub const BOTH: [Direction; 2] = [Direction::Read, Direction::Write];

    /// `"read"` or `"write"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }

    /// 0 for read, 1 for write: the index into a two-element per-direction array (and fio's
    /// `ddir` number in its log files).
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Direction::Read => 0,
            Direction::Write => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Direction;

    #[test]
    fn reads_come_first_and_index_the_pair() {
        assert_eq!(Direction::BOTH.map(Direction::index), [0, 1]);
        assert_eq!(Direction::BOTH.map(Direction::as_str), ["read", "write"]);
    }
}
