//! Property tests of the verify crate: every checksum kind classifies injected faults at
//! their offsets, any bytes give a verdict without a panic, patterns fill as written.

use crate::tests::{failure_of, filled, setup, stamp};
use crate::*;
use proptest::prelude::*;

/// Every kind with a header and a checksum.
fn checksum_kinds() -> impl Strategy<Value = VerifyKind> {
    proptest::sample::select(
        ALL_KINDS
            .iter()
            .copied()
            .filter(|kind| kind.digest_len() > 0)
            .collect::<Vec<_>>(),
    )
}

proptest! {
    // Each case fills 32 KiB four times; sha3 in a debug build makes more cases slow.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_checksum_kind_classifies_the_four_injected_faults(
        kind in checksum_kinds(),
        sector in 0usize..8,
        byte in 0usize..4096,
        bit in 0u8..8,
    ) {
        let verifier = Verifier::new(setup(kind)).unwrap();
        let len = 8 * 4096;
        let written = stamp(1 << 20, 2);
        let good = filled(&verifier, &written, len);
        prop_assert_eq!(verifier.check(&good, &written), Ok(()));

        let mut flipped = good.clone();
        flipped[sector * 4096 + byte] ^= 1 << bit;
        let found = failure_of(&verifier, &flipped, &written);
        prop_assert_eq!(found.class(), FailureClass::FlippedBits);
        let expected_at = (1 << 20) + (sector * 4096 + byte) as u64;
        let as_expected = matches!(found.failure, Failure::FlippedBits { at, bits: 1, .. } if at == expected_at);
        prop_assert!(as_expected, "{:?}", found);

        let older = filled(&verifier, &stamp(1 << 20, 1), len);
        let mut torn = good.clone();
        torn[sector * 4096..(sector + 1) * 4096]
            .copy_from_slice(&older[sector * 4096..(sector + 1) * 4096]);
        let found = failure_of(&verifier, &torn, &written);
        prop_assert_eq!(found.class(), FailureClass::Torn);
        if sector > 0 {
            let expected_at = (1 << 20) + (sector * 4096) as u64;
            let as_expected = matches!(found.failure, Failure::Torn { at, foreign_bytes: 4096, .. } if at == expected_at);
            prop_assert!(as_expected, "{:?}", found);
        }

        let found = failure_of(&verifier, &older, &written);
        prop_assert_eq!(found.failure, Failure::LostWrite {
            expected_generation: 2,
            found_generation: 1,
        });

        let elsewhere = filled(&verifier, &stamp(3 << 20, 2), len);
        let found = failure_of(&verifier, &elsewhere, &written);
        prop_assert_eq!(found.failure, Failure::Misdirected {
            found_offset: 3 << 20,
            found_generation: Some(2),
        });
    }
}

proptest! {
    #[test]
    fn any_bytes_give_a_verdict_and_never_a_panic(
        kind in proptest::sample::select(ALL_KINDS.to_vec()),
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        interval in prop_oneof![Just(None), Just(Some(128u32)), Just(Some(200u32))],
        header_offset in prop_oneof![Just(0u32), Just(40u32)],
    ) {
        let pattern = (kind == VerifyKind::Pattern)
            .then(|| VerifyPattern::parse("0x0102%o").unwrap());
        if let Ok(verifier) = Verifier::new(VerifySetup {
            kind,
            interval_bytes: interval,
            header_offset_bytes: header_offset,
            pattern,
        }) {
            let _ = verifier.check(&bytes, &stamp(0, 1));
            let mut block = bytes.clone();
            verifier.fill(&mut block, &stamp(0, 1));
            let _ = verifier.check(&block, &stamp(0, 1));
        }
    }

    #[test]
    fn any_single_bit_flip_is_caught_where_it_is(
        position in 0usize..8192,
        bit in 0u8..8,
        interval in prop_oneof![Just(None), Just(Some(4096u32)), Just(Some(1024u32))],
    ) {
        let verifier = Verifier::new(VerifySetup {
            interval_bytes: interval,
            ..setup(VerifyKind::Crc32c)
        }).unwrap();
        let stamp = stamp(1 << 20, 5);
        let mut block = filled(&verifier, &stamp, 8192);
        block[position] ^= 1 << bit;
        let mismatch = failure_of(&verifier, &block, &stamp);
        prop_assert_eq!(mismatch.class(), FailureClass::FlippedBits);
        match mismatch.failure {
            Failure::FlippedBits { at, bits, .. } => {
                prop_assert_eq!(at, (1 << 20) + position as u64);
                prop_assert_eq!(bits, 1);
            }
            other => prop_assert!(false, "{other:?}"),
        }
    }

    #[test]
    fn any_pattern_fill_matches_the_pattern_everywhere(
        bytes in proptest::collection::vec(any::<u8>(), 1..40),
        len in 0usize..3000,
    ) {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let pattern = VerifyPattern::parse(&format!("0x{hex}")).unwrap();
        let mut block = vec![0u8; len];
        pattern.fill(&mut block, 0);
        for (index, byte) in block.iter().enumerate() {
            prop_assert_eq!(*byte, bytes[index % bytes.len()]);
        }
        prop_assert_eq!(pattern.first_difference(&block, 0), None);
    }
}
