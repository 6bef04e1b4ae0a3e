//! Unit tests of the verify crate: every kind round-trips, and each failure class an
//! injected fault should produce is the one reported, with its offset.

use crate::*;

const BLOCK: usize = 64 * 1024;

pub(crate) fn setup(kind: VerifyKind) -> VerifySetup {
    VerifySetup {
        kind,
        interval_bytes: None,
        header_offset_bytes: 0,
        pattern: None,
    }
}

pub(crate) fn stamp(offset: u64, generation: u64) -> Stamp {
    Stamp {
        offset,
        generation,
        seed: 0x5eed,
        job: 3,
    }
}

pub(crate) fn filled(verifier: &Verifier, stamp: &Stamp, len: usize) -> Vec<u8> {
    let mut block = vec![0u8; len];
    verifier.fill(&mut block, stamp);
    block
}

pub(crate) fn failure_of(verifier: &Verifier, block: &[u8], expected: &Stamp) -> Mismatch {
    *verifier
        .check(block, expected)
        .expect_err("the check should fail")
}

#[test]
fn every_kind_parses_by_fio_name_and_crc32c_intel_is_crc32c() {
    for kind in ALL_KINDS {
        assert_eq!(VerifyKind::parse(kind.name()), Ok(*kind));
    }
    assert_eq!(VerifyKind::parse("crc32c-intel"), Ok(VerifyKind::Crc32c));
    assert_eq!(VerifyKind::parse("SHA256"), Ok(VerifyKind::Sha256));
    assert!(matches!(
        VerifyKind::parse("crc8"),
        Err(VerifyError::UnknownKind { .. })
    ));
}

#[test]
fn checksums_match_their_published_check_values() {
    // The "123456789" check values of each algorithm's specification or catalog entry.
    let check = b"123456789";
    assert_eq!(digest(VerifyKind::Crc32c, check).to_string(), "e3069283");
    assert_eq!(digest(VerifyKind::Crc32, check).to_string(), "cbf43926");
    assert_eq!(digest(VerifyKind::Crc16, check).to_string(), "bb3d");
    assert_eq!(digest(VerifyKind::Crc7, check).to_string(), "75");
    assert_eq!(
        digest(VerifyKind::Crc64, check).to_string(),
        "995dc9bbdf1939fa"
    );
    assert_eq!(digest(VerifyKind::Xxhash, b"").to_string(), "02cc5d05");
    assert_eq!(
        digest(VerifyKind::Md5, b"").to_string(),
        "d41d8cd98f00b204e9800998ecf8427e"
    );
    assert_eq!(
        digest(VerifyKind::Sha1, b"abc").to_string(),
        "a9993e364706816aba3e25717850c26c9cd0d89d"
    );
    assert_eq!(
        digest(VerifyKind::Sha256, b"abc").to_string(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        digest(VerifyKind::Sha3_256, b"").to_string(),
        "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"
    );
    for kind in ALL_KINDS {
        assert_eq!(digest(*kind, check).as_bytes().len(), kind.digest_len());
    }
}

#[test]
fn a_filled_block_checks_clean_for_every_kind() {
    for kind in ALL_KINDS {
        let mut setup = setup(*kind);
        if *kind == VerifyKind::Pattern {
            setup.pattern = Some(VerifyPattern::parse("0xdeadbeef").unwrap());
        }
        let verifier = Verifier::new(setup).unwrap();
        let stamp = stamp(1 << 20, 7);
        let block = filled(&verifier, &stamp, BLOCK);
        assert_eq!(verifier.check(&block, &stamp), Ok(()), "verify={kind}");
    }
}

#[test]
fn a_flipped_bit_in_the_data_is_flipped_bits_at_its_offset() {
    for kind in [
        VerifyKind::Md5,
        VerifyKind::Crc32c,
        VerifyKind::Xxhash,
        VerifyKind::Sha256,
    ] {
        let verifier = Verifier::new(setup(kind)).unwrap();
        let stamp = stamp(4 << 20, 1);
        let mut block = filled(&verifier, &stamp, BLOCK);
        let expected = block[5000];
        block[5000] ^= 0x10;
        let mismatch = failure_of(&verifier, &block, &stamp);
        assert_eq!(
            mismatch.failure,
            Failure::FlippedBits {
                at: (4 << 20) + 5000,
                bits: 1,
                expected,
                found: expected ^ 0x10,
            },
            "verify={kind}"
        );
    }
}

#[test]
fn a_flipped_bit_in_the_header_is_flipped_bits_at_its_offset() {
    let verifier = Verifier::new(setup(VerifyKind::Crc32c)).unwrap();
    let stamp = stamp(8192, 2);
    let mut block = filled(&verifier, &stamp, 4096);
    block[20] ^= 0x01;
    let mismatch = failure_of(&verifier, &block, &stamp);
    assert_eq!(mismatch.class(), FailureClass::FlippedBits);
    assert!(matches!(
        mismatch.failure,
        Failure::FlippedBits {
            at: 8212,
            bits: 1,
            ..
        }
    ));
}

#[test]
fn a_torn_4k_write_inside_a_64k_block_is_torn_at_the_torn_sector() {
    for kind in [
        VerifyKind::Md5,
        VerifyKind::Crc32c,
        VerifyKind::Xxhash,
        VerifyKind::Sha256,
    ] {
        let verifier = Verifier::new(setup(kind)).unwrap();
        let old = filled(&verifier, &stamp(0, 1), BLOCK);
        let mut block = filled(&verifier, &stamp(0, 2), BLOCK);
        block[16384..20480].copy_from_slice(&old[16384..20480]);
        let mismatch = failure_of(&verifier, &block, &stamp(0, 2));
        assert_eq!(
            mismatch.failure,
            Failure::Torn {
                at: 16384,
                foreign_bytes: 4096,
                header_generation: Some(2),
            },
            "verify={kind}"
        );
    }
}

#[test]
fn a_torn_write_whose_first_sector_is_old_names_the_old_header_generation() {
    let verifier = Verifier::new(setup(VerifyKind::Md5)).unwrap();
    let old = filled(&verifier, &stamp(0, 1), BLOCK);
    let mut block = filled(&verifier, &stamp(0, 2), BLOCK);
    block[..4096].copy_from_slice(&old[..4096]);
    let mismatch = failure_of(&verifier, &block, &stamp(0, 2));
    assert_eq!(mismatch.damage_offset(), 4096);
    assert_eq!(
        mismatch.failure,
        Failure::Torn {
            at: 4096,
            foreign_bytes: BLOCK as u64 - 4096,
            header_generation: Some(1),
        }
    );
}

#[test]
fn a_torn_write_over_a_never_written_header_sector_is_torn() {
    let verifier = Verifier::new(setup(VerifyKind::Xxhash)).unwrap();
    let mut block = filled(&verifier, &stamp(0, 1), BLOCK);
    block[..4096].fill(0);
    let mismatch = failure_of(&verifier, &block, &stamp(0, 1));
    assert!(matches!(
        mismatch.failure,
        Failure::Torn {
            at: 0,
            foreign_bytes: 4096,
            ..
        }
    ));
}

#[test]
fn an_older_valid_block_is_a_lost_write() {
    for kind in [VerifyKind::Sha256, VerifyKind::Meta] {
        let verifier = Verifier::new(setup(kind)).unwrap();
        let block = filled(&verifier, &stamp(65536, 3), BLOCK);
        let mismatch = failure_of(&verifier, &block, &stamp(65536, 4));
        assert_eq!(
            mismatch.failure,
            Failure::LostWrite {
                expected_generation: 4,
                found_generation: 3
            }
        );
        assert_eq!(mismatch.offset, 65536);
        assert_eq!(mismatch.damage_offset(), 65536);
        assert_eq!(
            verifier.check_with(&block, &stamp(65536, 4), GenerationCheck::Any),
            Ok(())
        );
    }
}

#[test]
fn a_valid_block_of_another_offset_is_a_misdirected_write() {
    let verifier = Verifier::new(setup(VerifyKind::Crc32c)).unwrap();
    let block = filled(&verifier, &stamp(131072, 1), BLOCK);
    let mismatch = failure_of(&verifier, &block, &stamp(196608, 1));
    assert_eq!(
        mismatch.failure,
        Failure::Misdirected {
            found_offset: 131072,
            found_generation: Some(1)
        }
    );
    assert_eq!(mismatch.offset, 196608);
}

#[test]
fn zeros_are_unwritten_and_garbage_is_a_bad_header() {
    let verifier = Verifier::new(setup(VerifyKind::Md5)).unwrap();
    let zeros = vec![0u8; 4096];
    assert_eq!(
        failure_of(&verifier, &zeros, &stamp(0, 1)).failure,
        Failure::Unwritten
    );
    let garbage = vec![0xa5u8; 4096];
    assert!(matches!(
        failure_of(&verifier, &garbage, &stamp(0, 1)).failure,
        Failure::BadHeader {
            fault: HeaderFault::Magic { .. }
        }
    ));
}

#[test]
fn another_jobs_block_is_other_job() {
    let verifier = Verifier::new(setup(VerifyKind::Crc32c)).unwrap();
    let mut theirs = stamp(0, 1);
    theirs.seed = 99;
    theirs.job = 8;
    let block = filled(&verifier, &theirs, 4096);
    assert_eq!(
        failure_of(&verifier, &block, &stamp(0, 1)).failure,
        Failure::OtherJob {
            expected_seed: 0x5eed,
            found_seed: 99,
            found_job: 8
        }
    );
}

#[test]
fn intervals_are_checked_each_and_counted() {
    let verifier = Verifier::new(VerifySetup {
        interval_bytes: Some(4096),
        ..setup(VerifyKind::Crc32c)
    })
    .unwrap();
    let stamp = stamp(0, 1);
    let mut block = filled(&verifier, &stamp, BLOCK);
    assert_eq!(verifier.check(&block, &stamp), Ok(()));
    // Every interval has its own header naming its own offset.
    assert_eq!(&block[4096..4100], b"dmVH");
    block[8200] ^= 1;
    block[40000] ^= 1;
    let mismatch = failure_of(&verifier, &block, &stamp);
    assert_eq!(mismatch.offset, 8192);
    assert_eq!(mismatch.len, 4096);
    assert_eq!((mismatch.bad_intervals, mismatch.intervals), (2, 16));
}

#[test]
fn verify_offset_puts_the_header_inside_the_interval() {
    let verifier = Verifier::new(VerifySetup {
        header_offset_bytes: 512,
        ..setup(VerifyKind::Sha1)
    })
    .unwrap();
    let stamp = stamp(0, 1);
    let block = filled(&verifier, &stamp, 4096);
    assert_eq!(&block[512..516], b"dmVH");
    assert_eq!(verifier.check(&block, &stamp), Ok(()));
}

#[test]
fn layouts_that_cannot_hold_the_header_are_refused() {
    assert_eq!(
        Verifier::new(VerifySetup {
            interval_bytes: Some(64),
            ..setup(VerifyKind::Sha512)
        })
        .unwrap_err(),
        VerifyError::IntervalTooShort {
            interval_bytes: 64,
            header_bytes: 112,
            header_offset_bytes: 0
        }
    );
    let verifier = Verifier::new(VerifySetup {
        interval_bytes: Some(4096),
        ..setup(VerifyKind::Md5)
    })
    .unwrap();
    assert!(verifier.check_block_len(8192).is_ok());
    assert_eq!(
        verifier.check_block_len(6144),
        Err(VerifyError::BlockNotMultipleOfInterval {
            block_bytes: 6144,
            interval_bytes: 4096
        })
    );
    assert_eq!(
        Verifier::new(setup(VerifyKind::Pattern)).unwrap_err(),
        VerifyError::PatternKindWithoutPattern
    );
}

#[test]
fn a_block_too_short_for_the_header_is_reported_not_a_panic() {
    let verifier = Verifier::new(setup(VerifyKind::Sha512)).unwrap();
    let mut block = vec![0u8; 100];
    verifier.fill(&mut block, &stamp(0, 1));
    assert_eq!(
        failure_of(&verifier, &block, &stamp(0, 1)).failure,
        Failure::BadHeader {
            fault: HeaderFault::Short {
                needed: 112,
                found: 100
            }
        }
    );
}

#[test]
fn the_null_kind_never_fails() {
    let verifier = Verifier::new(setup(VerifyKind::Null)).unwrap();
    assert_eq!(verifier.check(&[0u8; 4096], &stamp(0, 1)), Ok(()));
}

#[test]
fn verify_pattern_reads_fios_forms() {
    let pattern = VerifyPattern::parse(r#"0xff%o"abcd"-12"#).unwrap();
    assert_eq!(pattern.len(), 1 + 8 + 4 + 4);
    assert!(pattern.has_offset());
    assert_eq!(pattern.offset_position(), Some(1));
    let mut block = vec![0u8; 34];
    pattern.fill(&mut block, 0x0102);
    assert_eq!(
        block[..17],
        [0xff, 0x02, 0x01, 0, 0, 0, 0, 0, 0, b'a', b'b', b'c', b'd', 0xf4, 0xff, 0xff, 0xff]
    );
    assert_eq!(block[17..], block[..17]);
}

/// The byte layouts of the examples in fio's lib/pattern.c (parse_and_fill_pattern).
#[test]
fn verify_pattern_bytes_match_fios_examples() {
    let bytes = |text: &str| {
        let pattern = VerifyPattern::parse(text).unwrap();
        let mut out = vec![0u8; pattern.len()];
        pattern.fill(&mut out, 0);
        out
    };
    assert_eq!(bytes(r#""abcd""#), [0x61, 0x62, 0x63, 0x64]);
    assert_eq!(bytes("-1024"), [0x00, 0xfc, 0xff, 0xff]);
    assert_eq!(bytes("66"), [0x42]);
    assert_eq!(bytes("0xFF0X1"), [0xff, 0x01]);
    assert_eq!(bytes("%o"), [0; 8]);
    assert_eq!(
        bytes(r#""123"0xFFeeCC"#),
        [0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]
    );
    assert_eq!(
        bytes(r#"-100xab"1"%o"2""#),
        [0xf6, 0xff, 0xff, 0xff, 0xab, 0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0x32]
    );
    assert_eq!(bytes("0"), [0]);
    assert_eq!(bytes("0xdeadface"), [0xde, 0xad, 0xfa, 0xce]);
    assert_eq!(bytes("0xabc"), [0x0a, 0xbc]);
    assert_eq!(bytes("256"), [0x00, 0x01]);
}

#[test]
fn verify_pattern_refuses_what_fio_refuses_with_the_reason() {
    assert!(matches!(
        VerifyPattern::parse("0xzz"),
        Err(VerifyError::BadPattern { .. })
    ));
    assert!(matches!(
        VerifyPattern::parse("\"abc"),
        Err(VerifyError::UnclosedQuote { .. })
    ));
    assert!(matches!(
        VerifyPattern::parse("2147483648"),
        Err(VerifyError::PatternNumberTooLarge { .. })
    ));
    assert!(matches!(
        VerifyPattern::parse("'pattern.bin'"),
        Err(VerifyError::PatternFile { .. })
    ));
    assert_eq!(VerifyPattern::parse(""), Err(VerifyError::EmptyPattern));
    assert!(matches!(
        VerifyPattern::parse(&format!("0x{}", "ab".repeat(513))),
        Err(VerifyError::PatternTooLong { len: 513, .. })
    ));
}

#[test]
fn verify_pattern_round_trips_through_serde_as_its_text() {
    let pattern = VerifyPattern::parse("0x55aa%o").unwrap();
    let json = serde_json::to_string(&pattern).unwrap();
    assert_eq!(json, r#""0x55aa%o""#);
    assert_eq!(
        serde_json::from_str::<VerifyPattern>(&json).unwrap(),
        pattern
    );
    assert!(serde_json::from_str::<VerifyPattern>(r#""0xq""#).is_err());
    let kind = serde_json::to_string(&VerifyKind::Sha3_256).unwrap();
    assert_eq!(kind, r#""sha3-256""#);
}

#[test]
fn the_pattern_kind_finds_a_changed_byte_and_a_torn_sector() {
    let verifier = Verifier::new(VerifySetup {
        pattern: Some(VerifyPattern::parse("0x55").unwrap()),
        ..setup(VerifyKind::Pattern)
    })
    .unwrap();
    let stamp = stamp(1 << 30, 1);
    let mut block = filled(&verifier, &stamp, 8192);
    assert!(block.iter().all(|byte| *byte == 0x55));
    block[100] = 0x54;
    assert!(matches!(
        failure_of(&verifier, &block, &stamp).failure,
        Failure::FlippedBits { at, bits: 1, expected: 0x55, found: 0x54 } if at == (1 << 30) + 100
    ));
    block[100] = 0x55;
    block[4096..4608].fill(0xaa);
    assert!(matches!(
        failure_of(&verifier, &block, &stamp).failure,
        Failure::Torn { at, foreign_bytes: 512, .. } if at == (1 << 30) + 4096
    ));
}

#[test]
fn the_pattern_kind_with_offsets_finds_a_misdirected_block() {
    let verifier = Verifier::new(VerifySetup {
        pattern: Some(VerifyPattern::parse("\"ab\"%o").unwrap()),
        ..setup(VerifyKind::Pattern)
    })
    .unwrap();
    let block = filled(&verifier, &stamp(8192, 1), 4096);
    assert_eq!(verifier.check(&block, &stamp(8192, 1)), Ok(()));
    let mismatch = failure_of(&verifier, &block, &stamp(16384, 1));
    assert_eq!(
        mismatch.failure,
        Failure::Misdirected {
            found_offset: 8192,
            found_generation: None
        }
    );
    assert_eq!(
        mismatch.to_string(),
        "verify failed at offset 16384 (interval of 4096 bytes): misdirected write: found the \
         block written for offset 8192"
    );
}

#[test]
fn a_short_tail_joins_the_last_interval_and_a_long_one_has_its_own_header() {
    let verifier = Verifier::new(VerifySetup {
        interval_bytes: Some(4096),
        ..setup(VerifyKind::Crc32c)
    })
    .unwrap();
    let stamp = stamp(0, 1);
    // 8 KiB + 40 bytes: the tail cannot hold a 52-byte header, so it joins interval 2.
    let mut block = filled(&verifier, &stamp, 8192 + 40);
    assert_eq!(verifier.check(&block, &stamp), Ok(()));
    block[8192 + 10] ^= 1;
    let mismatch = failure_of(&verifier, &block, &stamp);
    assert_eq!(
        (mismatch.offset, mismatch.len, mismatch.intervals),
        (4096, 4136, 2)
    );
    // 8 KiB + 1 KiB: the tail is its own interval with its own header.
    let block = filled(&verifier, &stamp, 9216);
    assert_eq!(&block[8192..8196], b"dmVH");
    assert_eq!(verifier.check(&block, &stamp), Ok(()));
}

#[test]
fn a_pattern_with_a_checksum_kind_keeps_the_pattern_outside_the_header() {
    let verifier = Verifier::new(VerifySetup {
        pattern: Some(VerifyPattern::parse("\"xy\"").unwrap()),
        ..setup(VerifyKind::Md5)
    })
    .unwrap();
    let stamp = stamp(0, 1);
    let mut block = filled(&verifier, &stamp, 4096);
    assert_eq!(&block[0..4], b"dmVH");
    assert_eq!(&block[64..68], b"xyxy");
    assert_eq!(verifier.check(&block, &stamp), Ok(()));
    block[1000] ^= 4;
    assert_eq!(
        failure_of(&verifier, &block, &stamp).class(),
        FailureClass::FlippedBits
    );
}

#[test]
fn mismatch_reports_read_with_offset_expected_and_found() {
    let verifier = Verifier::new(setup(VerifyKind::Sha256)).unwrap();
    let block = filled(&verifier, &stamp(65536, 3), 4096);
    let text = failure_of(&verifier, &block, &stamp(65536, 4)).to_string();
    assert_eq!(
        text,
        "verify failed at offset 65536 (interval of 4096 bytes): lost write: expected generation 4, found older generation 3"
    );
}
