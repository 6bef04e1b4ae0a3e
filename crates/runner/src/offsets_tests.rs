//! Tests of `offsets.rs`: the permutation, the random map, sequential and random offsets,
//! the read/write choice.

use super::*;

#[test]
fn permutation_covers_every_block_once_per_pass() {
    for n in [1u64, 2, 3, 7, 100, 1000, 4097] {
        let mut p = BlockPermutation::new(n, 42);
        for _pass in 0..3 {
            let mut seen = vec![false; n as usize];
            for _ in 0..n {
                let b = p.next_block();
                assert!(!seen[b as usize], "block {b} twice in one pass (n={n})");
                seen[b as usize] = true;
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}

#[test]
fn block_map_takes_free_runs_and_finds_the_next_free_block() {
    let mut map = BlockMap::new(200);
    assert_eq!(map.take_run(10, 5), 5);
    // A run stops at the first block done (fio's axmap_set_nr), across words too.
    assert_eq!(map.take_run(60, 100), 100);
    assert_eq!(map.take_run(5, 10), 5);
    assert_eq!(
        map.take_run(195, 10),
        5,
        "a run stops at the end of the map"
    );
    assert_eq!(map.take_run(12, 1), 0);
    assert!(map.is_free(4) && !map.is_free(5) && !map.is_free(159) && map.is_free(160));
    assert_eq!(map.next_free(5), Some(15));
    assert_eq!(map.next_free(60), Some(160));
    assert_eq!(map.next_free(4), Some(4));
    assert_eq!(map.next_free(196), Some(0), "wraps to the start");
    assert_eq!(map.take_run(0, 200), 5);
    assert_eq!(map.take_run(15, 45), 45);
    assert_eq!(map.take_run(160, 35), 35);
    assert_eq!(map.next_free(100), None);
    assert_eq!(map.next_free(0), None);
    map.reset();
    assert_eq!(map.next_free(199), Some(199));
}

#[test]
fn the_shrinking_map_covers_each_block_once_per_pass() {
    let regions = [FileRegion {
        start_bytes: 4096,
        len_bytes: 1 << 20,
    }];
    let sizes = [512u64, 4096, 65536, 1024, 8192];
    let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 512, 3)
        .with_shrinking_map(true, [512, 512]);
    let mut done = vec![0u8; 2048];
    let (mut bytes, mut ios) = (0u64, 0u64);
    while bytes < 1 << 20 {
        let drawn = sizes[(ios % 5) as usize];
        let (file, off, len) = g.next_shrunk((ios % 2) as usize, drawn, 512);
        assert_eq!(file, 0);
        assert!(len <= drawn && len % 512 == 0 && len > 0);
        assert!(off >= 4096 && off + len <= 4096 + (1 << 20));
        for b in (off - 4096) / 512..(off - 4096 + len) / 512 {
            done[b as usize] += 1;
        }
        bytes += len;
        ios += 1;
    }
    assert_eq!(bytes, 1 << 20, "the pass ends exactly full");
    assert!(done.iter().all(|&n| n == 1), "every block exactly once");
    // Shrinking makes the mean IO well below the drawn mean (15,974 bytes).
    assert!(bytes / ios < 12_000, "mean {} bytes", bytes / ios);
    // The next IO starts a new pass.
    let (_, _, len) = g.next_shrunk(0, 8192, 512);
    assert_eq!(len, 8192);
}

#[test]
fn a_size_based_map_ends_each_file_after_its_passes_even_short_of_the_size() {
    // IO sizes not whole blocks (fio's bsrange=1000-9000 blocksize_unaligned): the map
    // of 1000-byte blocks fills before the region's bytes are done, and the file is
    // done then (fio's get_next_rand_block fails on a full map).
    let regions = [
        FileRegion {
            start_bytes: 0,
            len_bytes: 100_000,
        },
        FileRegion {
            start_bytes: 0,
            len_bytes: 50_000,
        },
    ];
    let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 1000, 5)
        .with_shrinking_map(true, [1000, 1000])
        .with_pass_limit(Some(2));
    let mut bytes = [0u64; 2];
    let mut ios = 0u64;
    while !g.exhausted() {
        let drawn = 1000 + (ios * 3_777) % 8001;
        let (file, _, len) = g.next_shrunk(1, drawn, 1);
        bytes[file as usize] += len;
        ios += 1;
        assert!(ios < 10_000, "never exhausted");
    }
    // Two passes of each file, short of 2 x its bytes: most IOs were not whole blocks.
    assert!(bytes[0] < 200_000 && bytes[0] > 100_000, "{bytes:?}");
    assert!(bytes[1] < 100_000 && bytes[1] > 50_000, "{bytes:?}");
    // Without the limit (time-based, io_size) the map starts again.
    let mut g = OffsetGenerator::new(&regions[..1], OffsetPattern::RandomMap, 1000, 5)
        .with_shrinking_map(true, [1000, 1000])
        .with_pass_limit(None);
    for _ in 0..1_000 {
        g.next_shrunk(1, 4500, 1);
    }
    assert!(!g.exhausted());
}

#[test]
fn a_holed_pass_ends_at_the_region_end_unless_the_region_is_the_whole_file() {
    // fio 3.33, rw=write:112k bs=16k size=4m: with offset=120k 32 writes (the pass ends
    // at the region's end); with no offset on a file of the region's size it wraps.
    let pass = |start_bytes: u64, file_size: u64, limit: Option<u64>| {
        let regions = [FileRegion {
            start_bytes,
            len_bytes: 4 << 20,
        }];
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 1)
            .with_offset_modifier(112 << 10)
            .with_pass_limit(limit)
            .with_file_sizes(&[file_size]);
        let mut ios = 0u64;
        while !g.exhausted() && ios < 256 {
            let (_, at) = g.next(1, 16 << 10, 4096);
            assert_eq!((at - start_bytes) % (128 << 10), 0);
            ios += 1;
        }
        ios
    };
    assert_eq!(pass(120 << 10, (120 << 10) + (4 << 20), Some(1)), 32);
    assert_eq!(
        pass(120 << 10, (120 << 10) + (4 << 20), Some(2)),
        64,
        "loops=2"
    );
    assert_eq!(pass(0, 8 << 20, Some(1)), 32, "a larger file: no wrap");
    assert_eq!(pass(0, 4 << 20, Some(1)), 256, "the whole file wraps");
    assert_eq!(pass(120 << 10, 8 << 20, None), 256, "io_size: passes go on");
}

#[test]
fn a_direction_of_one_size_never_shrinks_beside_a_split() {
    // bssplit=4k/50:64k/50,64k/100: reads shrink on their 4 KiB blocks, the writes are
    // whole 64 KiB blocks of their own map, each once per pass.
    let regions = [FileRegion {
        start_bytes: 0,
        len_bytes: 1 << 20,
    }];
    let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 4096, 5)
        .with_shrinking_map(true, [4096, 65536]);
    let mut shrunk_reads = 0;
    let mut writes = std::collections::BTreeSet::new();
    for i in 0..16 * 8 {
        let (_, off, len) = g.next_shrunk(0, if i % 2 == 0 { 4096 } else { 65536 }, 4096);
        shrunk_reads += u32::from(len < 4096 || (i % 2 == 1 && len < 65536));
        assert!(off + len <= 1 << 20);
        if i < 16 {
            let (_, off, len) = g.next_shrunk(1, 65536, 65536);
            assert_eq!((len, off % 65536), (65536, 0));
            assert!(writes.insert(off), "each 64 KiB block once per pass");
        }
    }
    assert_eq!(writes.len(), 16);
    assert!(shrunk_reads > 0);
}

#[test]
fn without_the_shrinking_map_lengths_are_kept() {
    let regions = [FileRegion {
        start_bytes: 0,
        len_bytes: 1 << 20,
    }];
    for pattern in [OffsetPattern::RandomMap, OffsetPattern::Uniform] {
        let mut g = OffsetGenerator::new(&regions, pattern, 512, 3);
        assert!((0..5000).all(|_| g.next_shrunk(0, 65536, 512).2 == 65536));
    }
}

#[test]
fn passes_differ() {
    let mut p = BlockPermutation::new(1000, 7);
    let first: Vec<u64> = (0..1000).map(|_| p.next_block()).collect();
    let second: Vec<u64> = (0..1000).map(|_| p.next_block()).collect();
    assert_ne!(first, second);
}

#[test]
fn random_offsets_are_aligned_and_inside_the_region() {
    let regions = [FileRegion {
        start_bytes: 8192,
        len_bytes: 1 << 20,
    }];
    for pattern in [OffsetPattern::RandomMap, OffsetPattern::Uniform] {
        let mut g = OffsetGenerator::new(&regions, pattern, 4096, 1);
        for _ in 0..10_000 {
            let (file, off) = g.next(0, 65536, 65536);
            assert_eq!(file, 0);
            assert_eq!((off - 8192) % 65536, 0);
            assert!(off + 65536 <= 8192 + (1 << 20));
        }
    }
}

#[test]
fn percentage_random_mixes_random_jumps_with_sequential_runs() {
    let regions = [FileRegion {
        start_bytes: 0,
        len_bytes: 1 << 30,
    }];
    for percent in [0u8, 60, 100] {
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 4096, 9)
            .with_random_percent(percent);
        let mut end = g.next(0, 4096, 4096).1 + 4096;
        let mut jumps = 0;
        for _ in 0..20_000 {
            let (_, off) = g.next(0, 4096, 4096);
            if off != end {
                jumps += 1;
            }
            end = off + 4096;
        }
        let share = f64::from(jumps) / 20_000.0 * 100.0;
        assert!(
            (share - f64::from(percent)).abs() < 1.5,
            "{percent}%: {share}% random"
        );
    }
}

#[test]
fn sequential_wraps_and_files_alternate() {
    let regions = [
        FileRegion {
            start_bytes: 0,
            len_bytes: 8192,
        },
        FileRegion {
            start_bytes: 0,
            len_bytes: 8192,
        },
    ];
    let mut g = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 1);
    let got: Vec<(u32, u64)> = (0..6).map(|_| g.next(0, 4096, 4096)).collect();
    assert_eq!(
        got,
        vec![(0, 0), (1, 0), (0, 4096), (1, 4096), (0, 0), (1, 0)]
    );
}

#[test]
fn offset_modifier_gives_runs_and_holes() {
    let regions = [FileRegion {
        start_bytes: 0,
        len_bytes: 1 << 30,
    }];
    // rw=randread:8: a jump every 8th IO, sequential in between.
    let mut g =
        OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 4096, 4).with_offset_modifier(8);
    let got: Vec<u64> = (0..64).map(|_| g.next(0, 4096, 4096).1).collect();
    for (i, pair) in got.windows(2).enumerate() {
        let sequential = pair[1] == pair[0] + 4096;
        assert_eq!(sequential, (i + 1) % 8 != 0, "IO {}", i + 1);
    }
    // rw=write:4k: every IO skips 4 KiB after itself.
    let mut g = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 4)
        .with_offset_modifier(4096);
    let got: Vec<u64> = (0..4).map(|_| g.next(0, 4096, 4096).1).collect();
    assert_eq!(got, vec![0, 8192, 16384, 24576]);
}

#[test]
fn a_negative_skip_reads_backwards_like_fio() {
    // fio 3.33, bs=4k rw=read:-8k size=32k: 0, 24k, 20k, 16k, 12k, 8k, 4k, 0
    // (its write_iolog for the same job).
    let regions = [FileRegion {
        start_bytes: 1 << 20,
        len_bytes: 32 << 10,
    }];
    let mut g = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 4)
        .with_offset_modifier(-8192);
    let got: Vec<u64> = (0..9)
        .map(|_| g.next(0, 4096, 4096).1 - (1 << 20))
        .collect();
    let k = 1024;
    assert_eq!(
        got,
        vec![0, 24 * k, 20 * k, 16 * k, 12 * k, 8 * k, 4 * k, 0, 24 * k]
    );
}

#[test]
fn random_offsets_follow_blockalign_not_the_block_size() {
    let regions = [FileRegion {
        start_bytes: 0,
        len_bytes: 1 << 24,
    }];
    let mut g = OffsetGenerator::new(&regions, OffsetPattern::Uniform, 512, 6);
    let offsets: Vec<u64> = (0..10_000).map(|_| g.next(0, 8192, 512).1).collect();
    assert!(offsets.iter().all(|o| o % 512 == 0 && o + 8192 <= 1 << 24));
    assert!(offsets.iter().any(|o| o % 8192 != 0), "not on 8 KiB blocks");
}

#[test]
fn shared_positions_interleave_workers_on_one_sequence() {
    let regions = [FileRegion {
        start_bytes: 0,
        len_bytes: 1 << 20,
    }];
    let shared: Arc<[AtomicU64]> = vec![AtomicU64::new(0)].into();
    let mut a = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 1)
        .with_shared_positions(Arc::clone(&shared));
    let mut b = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 2)
        .with_shared_positions(shared);
    let got: Vec<u64> = (0..3)
        .flat_map(|_| [a.next(0, 4096, 4096).1, b.next(0, 4096, 4096).1])
        .collect();
    assert_eq!(got, vec![0, 4096, 8192, 12288, 16384, 20480]);
}

#[test]
fn mix_holds_within_half_a_percent() {
    for percent in [0u8, 1, 30, 50, 70, 99, 100] {
        let mut m = MixChooser::new(percent, 3);
        let reads = (0..10_000).filter(|_| m.next_is_read()).count() as f64;
        assert!(
            (reads / 100.0 - percent as f64).abs() <= 0.5,
            "{percent}: {reads}"
        );
    }
}
