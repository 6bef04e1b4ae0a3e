//! The modes a job picks from fio's word lists: `rw=` ([`RwMode`]), `ioengine=`
//! ([`EngineKind`]) and `sync=` ([`SyncMode`]). Part of [`crate::JobSpec`].

use serde::{Deserialize, Serialize};

/// fio's `rw=`: which directions, and sequential or random offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    /// Sequential reads (`read`).
    Read,
    /// Sequential writes (`write`).
    Write,
    /// Sequential mixed reads and writes (`rw`, `readwrite`).
    ReadWrite,
    /// Random reads (`randread`).
    RandRead,
    /// Random writes (`randwrite`).
    RandWrite,
    /// Random mixed reads and writes (`randrw`).
    RandRw,
    /// Sequential trims (`trim`): BLKDISCARD on block devices, punched holes in files.
    Trim,
    /// Random trims (`randtrim`).
    RandTrim,
    /// Sequential writes, each block trimmed just before it is written (`trimwrite`).
    TrimWrite,
    /// Random writes, each block trimmed just before it is written (`randtrimwrite`).
    RandTrimWrite,
}

impl RwMode {
    /// Parses fio's spelling (`read`, `write`, `rw`, `readwrite`, `randread`, `randwrite`,
    /// `randrw`, `trim`, `randtrim`, `trimwrite`, `randtrimwrite`).
    pub fn parse(text: &str) -> Option<RwMode> {
        Some(match text {
            "read" => RwMode::Read,
            "write" => RwMode::Write,
            "rw" | "readwrite" => RwMode::ReadWrite,
            "randread" => RwMode::RandRead,
            "randwrite" => RwMode::RandWrite,
            "randrw" => RwMode::RandRw,
            "trim" => RwMode::Trim,
            "randtrim" => RwMode::RandTrim,
            "trimwrite" => RwMode::TrimWrite,
            "randtrimwrite" => RwMode::RandTrimWrite,
            _ => return None,
        })
    }

    /// fio's canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::ReadWrite => "rw",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::RandRw => "randrw",
            RwMode::Trim => "trim",
            RwMode::RandTrim => "randtrim",
            RwMode::TrimWrite => "trimwrite",
            RwMode::RandTrimWrite => "randtrimwrite",
        }
    }

    /// True when offsets are random rather than sequential.
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwMode::RandRead
                | RwMode::RandWrite
                | RwMode::RandRw
                | RwMode::RandTrim
                | RwMode::RandTrimWrite
        )
    }

    /// True when the job issues reads.
    pub fn reads(self) -> bool {
        matches!(
            self,
            RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRw
        )
    }

    /// True when the job changes the target's contents: writes, and trims too (a trim
    /// discards data, so it opens the target for writing and passes the same safety checks).
    /// The IO of a trim-only job is chosen like writes (write block size, write offsets).
    pub fn writes(self) -> bool {
        !self.reads() || self.is_mixed_rw()
    }

    /// True when the job issues trims (`trim`, `randtrim`, `trimwrite`, `randtrimwrite`).
    pub fn trims(self) -> bool {
        matches!(
            self,
            RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite | RwMode::RandTrimWrite
        )
    }

    /// True when every IO of the job is a trim (`trim`, `randtrim`).
    pub fn trims_only(self) -> bool {
        matches!(self, RwMode::Trim | RwMode::RandTrim)
    }

    fn is_mixed_rw(self) -> bool {
        matches!(self, RwMode::ReadWrite | RwMode::RandRw)
    }

    /// True when the job mixes reads and writes (rwmixread applies).
    pub fn is_mixed(self) -> bool {
        self.is_mixed_rw()
    }
}

/// fio's `ioengine=`: how IO reaches the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// io_uring (the default): one ring per worker, batched submit and reap.
    IoUring,
    /// Linux native AIO through io_setup/io_submit/io_getevents.
    Libaio,
    /// pread/pwrite, one IO at a time per worker.
    Psync,
    /// No IO at all: measures diskmeter's own overhead.
    Null,
}

impl EngineKind {
    /// Parses fio's engine names (`io_uring`, `libaio`, `psync`, `pvsync`, `pvsync2`, `sync`,
    /// `vsync`, `posixaio`, `null`); the synchronous ones run as psync, posixaio as io_uring.
    pub fn parse(text: &str) -> Option<EngineKind> {
        Some(match text {
            "io_uring" | "uring" => EngineKind::IoUring,
            "libaio" => EngineKind::Libaio,
            "psync" | "pvsync" | "pvsync2" | "sync" | "vsync" => EngineKind::Psync,
            // POSIX AIO keeps iodepth IOs in flight, buffered or direct: io_uring does too.
            "posixaio" => EngineKind::IoUring,
            "null" => EngineKind::Null,
            _ => return None,
        })
    }

    /// fio's name for the engine.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Psync => "psync",
            EngineKind::Null => "null",
        }
    }
}

/// fio's `sync=`: how writes reach stable storage before they complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    /// Plain writes (`sync=0`, `none`).
    #[default]
    None,
    /// `O_SYNC`: data and metadata (`sync=1`, `sync`).
    Sync,
    /// `O_DSYNC`: data, and the metadata needed to read it (`sync=dsync`).
    Dsync,
}

impl SyncMode {
    /// fio's spellings.
    pub fn parse(text: &str) -> Option<SyncMode> {
        match text {
            "0" | "none" => Some(SyncMode::None),
            "1" | "sync" => Some(SyncMode::Sync),
            "dsync" => Some(SyncMode::Dsync),
            _ => None,
        }
    }

    /// The spelling `describe` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            SyncMode::None => "none",
            SyncMode::Sync => "sync",
            SyncMode::Dsync => "dsync",
        }
    }
}
