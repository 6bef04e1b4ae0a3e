//! The rows of the options that say what a job works on and the shape of its IO (fio's
//! description, file, IO size, IO type, block size and IO depth options): its name and unit
//! base, files and folder, region, read/write mix, block sizes, queue depth and clones.
//!
//! Names, aliases and defaults are fio's (HOWTO "Job file parameters"), except where the help
//! says "diskmeter"; job files start from fio's own defaults instead
//! (`JobSpec::fio_job_file_default`: psync, unlink=0). The groups' order (`GROUPS` in
//! `mod.rs`) and the rows' order in each are the order `--help` and `describe` list them.

use super::limits::{Limits, Range, MAX_FILES_PER_RUN, MAX_WORKERS_PER_RUN};
use super::pattern_setters::*;
use super::setters::*;
use super::shape::plain;
use super::{Category, OptionDef, OptionKind};
use crate::KbBase;

/// `rw=` spellings, as fio accepts them.
pub(super) const RW_CHOICES: &[&str] = &[
    "read",
    "write",
    "rw",
    "readwrite",
    "randread",
    "randwrite",
    "randrw",
    "trim",
    "randtrim",
    "trimwrite",
    "randtrimwrite",
];

/// The job's subject and IO shape.
pub(super) static ROWS: &[OptionDef] = &[
    OptionDef {
        name: "name",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::Str,
        default: "job",
        unit: "",
        help: "Job name. On the command line each name= starts a new job that begins as a copy \
               of the options given before the first name (name=global starts a global section)",
        limits: None,
        set: set_name,
        show: Some(show_name),
    },
    plain!(
        "kb_base" => kb_base: Choice<KbBase>,
        category Workload,
        default "1024",
        help "How sizes and counts read unit prefixes (later ones on the command line, the \
              whole section in a job file): 1024 = k (and ki) is 1024 and KiB is 1000 (fio's \
              compatibility mode); 1000 = k (and ki) is 1000 and KiB is 1024",
    ),
    OptionDef {
        name: "filename",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "path",
        help: "Files or block devices to use, separated by ':' (write \\: for a ':' in a path); \
               unset = diskmeter creates files named after the job",
        limits: None,
        set: set_filename,
        show: Some(show_filename),
    },
    OptionDef {
        name: "directory",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "path",
        help: "Folder for the files diskmeter creates when no filename is given; unset = the \
               current folder",
        limits: None,
        set: set_directory,
        show: Some(show_directory),
    },
    plain!(
        "nrfiles" | "nr_files" => nrfiles: Count,
        category Files,
        default "1", unit "files",
        limits Limits {
            range: Range::Int {
                min: 1,
                max: Some(MAX_FILES_PER_RUN),
            },
            why: "",
        }
        .because("diskmeter plans every file before the run starts"),
        help "Files per job when diskmeter names them; size is split between them",
    ),
    OptionDef {
        name: "size",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::SizeOrPercent,
        default: "",
        unit: "bytes",
        help: "Bytes of the region each job works on, split over its files (e.g. 1g), or a \
               percentage of each existing file or device (25%); unset = the size of the given \
               files or devices",
        limits: Some(Limits {
            range: Range::Percent {
                min: 1.0,
                max: 100.0,
                whole: false,
            },
            why: "",
        }),
        set: set_size,
        show: Some(show_size),
    },
    OptionDef {
        name: "io_size",
        category: Category::Workload,
        aliases: &["io_limit"],
        kind: OptionKind::Size,
        default: "",
        unit: "bytes",
        help: "Bytes to transfer before the job stops, looping over the region if needed; \
               unset = size times loops",
        limits: None,
        set: set_io_size,
        show: Some(show_io_size),
    },
    OptionDef {
        name: "offset",
        category: Category::Workload,
        aliases: &["fileoffset"],
        kind: OptionKind::SizeOrPercent,
        default: "0",
        unit: "bytes",
        help: "Start of the region inside each file or device, in bytes or as a percentage of \
               an existing file or device (aligned down to the block size)",
        limits: Some(Limits {
            range: Range::Percent {
                min: 0.0,
                max: 100.0,
                whole: false,
            },
            why: "",
        }),
        set: set_offset,
        show: Some(show_offset),
    },
    plain!(
        "offset_increment" => offset_increment_bytes: Bytes,
        category Workload,
        default "0", unit "bytes",
        help "Clone k of a job (numjobs) starts its region at offset + k x offset_increment, \
              so clones split a file or device",
    ),
    OptionDef {
        name: "rw",
        category: Category::Workload,
        aliases: &["readwrite"],
        kind: OptionKind::Str,
        default: "read",
        unit: "",
        help: "IO pattern: read, write, rw (mixed), randread, randwrite, randrw, trim, randtrim, \
               trimwrite or randtrimwrite (each block trimmed, then written); a :N suffix skips N \
               bytes after each sequential IO (a negative N runs backwards), or takes a new \
               random offset every N IOs",
        limits: None,
        set: set_rw,
        show: Some(show_rw),
    },
    plain!(
        "rwmixread" => rwmixread: Percent,
        category Workload,
        default "50", unit "%",
        limits Limits {
            range: Range::Percent {
                min: 0.0,
                max: 100.0,
                whole: true,
            },
            why: "",
        },
        help "Share of reads in a mixed job (rw, randrw)",
    ),
    OptionDef {
        name: "rwmixwrite",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::Percent,
        default: "50",
        unit: "%",
        help: "Share of writes in a mixed job; sets rwmixread to 100 minus it",
        limits: Some(Limits {
            range: Range::Percent {
                min: 0.0,
                max: 100.0,
                whole: true,
            },
            why: "",
        }),
        set: set_rwmixwrite,
        show: None,
    },
    OptionDef {
        name: "bs",
        category: Category::Workload,
        aliases: &["blocksize"],
        kind: OptionKind::SizePair,
        default: "4k",
        unit: "bytes",
        help: "Block size of each IO: 4k for both directions, 4k,64k for read,write, ,64k for \
               writes only; a multiple of 512 with direct=1",
        limits: None,
        set: set_bs,
        show: Some(show_bs),
    },
    OptionDef {
        name: "bsrange",
        category: Category::Workload,
        aliases: &["blocksize_range"],
        kind: OptionKind::Str,
        default: "",
        unit: "bytes",
        help: "Block sizes drawn uniformly from a range, per direction: 4k-64k or 1k-4k,8k-64k; multiples of the smallest unless blocksize_unaligned",
        limits: None,
        set: set_bsrange,
        show: Some(show_bsrange),
    },
    OptionDef {
        name: "bssplit",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Weighted block sizes, per direction: 4k/10:64k/90 or 2k/50:4k/50,4k/90:8k/10; blank shares split what is left",
        limits: None,
        set: set_bssplit,
        show: Some(show_bssplit),
    },
    plain!(
        "blocksize_unaligned" | "bs_unaligned" => blocksize_unaligned: Flag,
        category Workload,
        default "0",
        help "Sizes from bsrange may be any byte count, not only multiples of the smallest (not with direct=1)",
    ),
    plain!(
        "blockalign" | "ba" => blockalign_bytes: SizeCap,
        category Workload,
        default "", unit "bytes",
        help "Random offsets fall on multiples of this, per direction (default: the smallest block size)",
    ),
    plain!(
        "iodepth" => iodepth: Count,
        category Workload,
        default "1", unit "IOs",
        limits Limits {
            range: Range::Int {
                min: 1,
                max: Some(65_536),
            },
            why: "",
        },
        help "IOs kept in flight per worker; the range is diskmeter's (fio sets none), and the \
              io_uring engine also stops at its kernel ring's size",
    ),
    plain!(
        "iodepth_batch_submit" | "iodepth_batch" => iodepth_batch_submit: Count,
        category Engine,
        default "0", unit "IOs",
        help "IOs handed to the kernel per submit call; 0 = diskmeter chooses, at most iodepth",
    ),
    plain!(
        "iodepth_batch_complete_min" | "iodepth_batch_complete" => iodepth_batch_complete_min: Count,
        category Engine,
        default "1", unit "IOs",
        help "Fewest completions to wait for per reap call",
    ),
    plain!(
        "numjobs" => numjobs: Count,
        category Workload,
        default "1", unit "workers",
        limits Limits {
            range: Range::Int {
                min: 1,
                max: Some(MAX_WORKERS_PER_RUN),
            },
            why: "",
        }
        .because("fio runs at most 4,096 jobs in all"),
        help "Identical workers (clones) running this job",
    ),
];
