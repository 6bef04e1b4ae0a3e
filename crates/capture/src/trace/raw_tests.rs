//! Pages of the ring buffer built byte by byte with this kernel's own layout (the
//! `header_page` and `format` files of Linux 6.18, copied below), decoded back.

use super::*;

const HEADER_PAGE: &str = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;
";

const ISSUE: &str = "name: block_rq_issue
ID: 2104
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;
\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;
\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;
\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;
\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;
\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;
\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;
\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;
";

const COMPLETE: &str = "name: block_rq_complete
ID: 2107
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;
\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;
\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;
\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;
\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;
\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;
\tfield:__data_loc char[] cmd;\toffset:44;\tsize:4;\tsigned:0;
";

const PRINT: &str = "name: print
ID: 5
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;
\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;
";

fn layout() -> RawLayout {
    RawLayout::parse(HEADER_PAGE, ISSUE, COMPLETE, PRINT, 4096).expect("this kernel's layout")
}

/// A page being written: entries appended after the 16-byte header.
struct Page(Vec<u8>);

impl Page {
    fn new(timestamp_ns: u64) -> Page {
        let mut bytes = timestamp_ns.to_ne_bytes().to_vec();
        bytes.extend_from_slice(&0u64.to_ne_bytes());
        Page(bytes)
    }

    fn word(&mut self, type_len: u32, delta: u32) {
        self.0
            .extend_from_slice(&(type_len | (delta << 5)).to_ne_bytes());
    }

    /// A record of `len` bytes (a multiple of 4, at most 112) `delta` ns after the last.
    fn record(&mut self, delta: u32, record: &[u8]) {
        assert_eq!(record.len() % 4, 0);
        self.word(record.len() as u32 / 4, delta);
        self.0.extend_from_slice(record);
    }

    fn finish(mut self) -> Vec<u8> {
        let commit = (self.0.len() - 16) as u64;
        self.0[8..16].copy_from_slice(&commit.to_ne_bytes());
        // The rest of the page as the kernel leaves it: unused.
        self.0.resize(4096, 0);
        self.0
    }
}

fn issue_record(pid: i32, dev: u32, rwbs: &str, sector: u64, bytes: u32, comm: &str) -> Vec<u8> {
    let mut r = vec![0u8; 68];
    r[0..2].copy_from_slice(&2104u16.to_ne_bytes());
    r[4..8].copy_from_slice(&pid.to_ne_bytes());
    r[8..12].copy_from_slice(&dev.to_ne_bytes());
    r[16..24].copy_from_slice(&sector.to_ne_bytes());
    r[24..28].copy_from_slice(&(bytes / 512).to_ne_bytes());
    r[28..32].copy_from_slice(&bytes.to_ne_bytes());
    r[34..34 + rwbs.len()].copy_from_slice(rwbs.as_bytes());
    r[44..44 + comm.len()].copy_from_slice(comm.as_bytes());
    r
}

fn complete_record(dev: u32, rwbs: &str, sector: u64, sectors: u32, error: i32) -> Vec<u8> {
    let mut r = vec![0u8; 52];
    r[0..2].copy_from_slice(&2107u16.to_ne_bytes());
    r[8..12].copy_from_slice(&dev.to_ne_bytes());
    r[16..24].copy_from_slice(&sector.to_ne_bytes());
    r[24..28].copy_from_slice(&sectors.to_ne_bytes());
    r[28..32].copy_from_slice(&error.to_ne_bytes());
    r[34..34 + rwbs.len()].copy_from_slice(rwbs.as_bytes());
    r
}

fn marker_record(text: &str) -> Vec<u8> {
    let mut r = vec![0u8; 16];
    r[0..2].copy_from_slice(&5u16.to_ne_bytes());
    r.extend_from_slice(text.as_bytes());
    r.push(b'\n');
    r.push(0);
    r.resize(r.len().next_multiple_of(4), 0);
    r
}

const LOOP0: u32 = 7 << 20;

#[test]
fn a_page_decodes_to_its_records_with_their_times() {
    let mut page = Page::new(1_000_000);
    page.record(0, &marker_record(super::super::reader::START_MARKER));
    page.record(
        10,
        &issue_record(4242, LOOP0 | 3, "WS", 388_112, 65536, "fio"),
    );
    // A delta too large for 27 bits comes as a time extend first.
    page.word(TYPE_TIME_EXTEND, 5);
    page.0.extend_from_slice(&1u32.to_ne_bytes());
    page.record(7, &complete_record(LOOP0 | 3, "WS", 388_112, 128, -5));
    let mut out = Vec::new();
    let unreadable = layout().decode_page(&page.finish(), &mut out);
    assert_eq!(unreadable, 0);
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].kind, RawKind::Marker(true));
    assert_eq!(out[0].timestamp_ns, 1_000_000);
    assert_eq!(out[1].timestamp_ns, 1_000_010);
    assert_eq!(out[1].pid, 4242);
    let mut comm = [0u8; 16];
    comm[..3].copy_from_slice(b"fio");
    assert_eq!(
        out[1].kind,
        RawKind::Block {
            major: 7,
            minor: 3,
            direction: Direction::Write,
            sector: 388_112,
            sectors: 128,
            issue: Some((65536, comm)),
            error: 65536,
        }
    );
    assert_eq!(comm_str(&comm), "fio");
    assert_eq!(out[2].timestamp_ns, 1_000_010 + (1 << 27) + 5 + 7);
    let RawKind::Block { issue, error, .. } = out[2].kind else {
        panic!("a block record");
    };
    assert_eq!((issue, error), (None, -5));
}

#[test]
fn long_records_padding_and_foreign_events_are_handled() {
    let mut page = Page::new(0);
    // type_len 0: the length (with its own 4 bytes) in the next word.
    let record = issue_record(1, LOOP0, "R", 8, 4096, "dd");
    page.word(0, 3);
    page.0
        .extend_from_slice(&(record.len() as u32 + 4).to_ne_bytes());
    page.0.extend_from_slice(&record);
    // Padding left by a discarded event: skipped, its delta kept.
    page.word(TYPE_PADDING, 2);
    page.0.extend_from_slice(&8u32.to_ne_bytes());
    page.0.extend_from_slice(&[0u8; 4]);
    // An event this tracer did not enable: counted as unreadable.
    let mut foreign = vec![0u8; 16];
    foreign[0..2].copy_from_slice(&999u16.to_ne_bytes());
    page.record(1, &foreign);
    page.record(1, &complete_record(LOOP0, "R", 8, 8, 0));
    let mut out = Vec::new();
    let unreadable = layout().decode_page(&page.finish(), &mut out);
    assert_eq!(unreadable, 1);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].timestamp_ns, 3);
    assert_eq!(out[1].timestamp_ns, 3 + 2 + 1 + 1);
}

#[test]
fn the_running_kernels_layout_is_read_whole() {
    // Needs tracefs mounted (root); skipped quietly elsewhere: the integration tests in
    // tests/alone/trace.rs run the raw source on a real device.
    let tracing = Path::new("/sys/kernel/tracing");
    if !tracing.join("events/block/block_rq_issue/format").exists() {
        return;
    }
    let layout = RawLayout::load(tracing, tracing).expect("this kernel's layout reads");
    assert_eq!(layout.data_offset, 16);
}

#[test]
fn the_layout_follows_the_format_files() {
    let layout = layout();
    assert_eq!(layout.page_bytes, 4096);
    assert_eq!((layout.commit.offset, layout.commit.size), (8, 8));
    assert_eq!(layout.data_offset, 16);
    assert_eq!(layout.issue.id, 2104);
    assert_eq!(layout.issue.comm.map(|c| c.offset), Some(44));
    assert_eq!(layout.complete.size_or_error.offset, 28);
    assert_eq!(layout.print_buf, 16);
    assert!(RawLayout::parse(HEADER_PAGE, "name: x\n", COMPLETE, PRINT, 4096).is_none());
}
