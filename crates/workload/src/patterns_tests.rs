//! `patterns.rs`'s tests: block-size ranges and splits as fio reads them, and the random
//! distributions.

use super::*;

#[test]
fn bssplit_fills_blank_shares_evenly() {
    let spread = parse_bssplit("4k/50:1k/:32k/", KbBase::Binary).unwrap();
    assert_eq!(
        spread,
        BlockSizeSpread::Split(vec![
            BlockSizeShare {
                bytes: 4096,
                percent: 50.0
            },
            BlockSizeShare {
                bytes: 1024,
                percent: 25.0
            },
            BlockSizeShare {
                bytes: 32768,
                percent: 25.0
            },
        ])
    );
    assert_eq!(spread.bounds(4096), (1024, 32768));
    let cut = parse_bssplit("4k/60:8k/50", KbBase::Binary).unwrap();
    let short = parse_bssplit("4k/50:8k/30", KbBase::Binary).unwrap();
    let percents = |s: &BlockSizeSpread| match s {
        BlockSizeSpread::Split(v) => v.iter().map(|x| x.percent).collect::<Vec<_>>(),
        _ => vec![],
    };
    assert_eq!(percents(&cut), vec![60.0, 40.0]);
    assert_eq!(percents(&short), vec![50.0, 50.0]);
    assert!(parse_bssplit("4k/90:8k/:16k/", KbBase::Binary).is_ok());
    assert!(parse_bssplit("4k/90:8k/20:16k/:1k/", KbBase::Binary).is_err());
    assert!(parse_bssplit("", KbBase::Binary).is_err());
}

/// Issue 28: fio reads a share with atoi, so `/0` is "no share given" and fills with the
/// blanks (fio 3.33 options.c `split_parse_ddir`, `bssplit_ddir`), in whole percents.
#[test]
fn bssplit_shares_read_as_fio_reads_them() {
    let percents = |text: &str| match parse_bssplit(text, KbBase::Binary).unwrap() {
        BlockSizeSpread::Split(v) => v.iter().map(|x| x.percent).collect::<Vec<_>>(),
        _ => vec![],
    };
    assert_eq!(percents("4k/0:8k/50"), vec![50.0, 50.0]);
    assert_eq!(percents("4k/0:8k/100"), vec![0.0, 100.0]);
    assert_eq!(percents("4k/50%:8k/50%"), vec![50.0, 50.0]);
    assert_eq!(percents("1k/:2k/:4k/"), vec![33.0, 33.0, 34.0]);
    assert_eq!(percents("4k/12.5:8k/"), vec![12.0, 88.0]);
    assert_eq!(percents("4k/1e1:8k/"), vec![1.0, 99.0]);
    let mut notes = Vec::new();
    parse_bssplit_noted("4k/12.5:1.5k/", KbBase::Binary, &mut notes).unwrap();
    assert_eq!(
        notes,
        [
            "'4k/12.5' read as fio 3.33 reads it, 4k/12 (fio reads a share with atoi: the \
             leading digits, so shares are whole percentages)",
            "'1.5k' read as fio 3.33 reads it, 1 (fio stops at the '.'; write 1536 for 1.5k)"
        ]
    );
    for text in ["4k/x", "4k/101", "4k/-5"] {
        assert!(parse_bssplit(text, KbBase::Binary).is_err(), "{text}");
    }
}

#[test]
fn spreads_print_back_to_themselves() {
    for text in ["4k/10:64k/50:32k/40", "512/100"] {
        let spread = parse_bssplit(text, KbBase::Binary).unwrap();
        let again = parse_bssplit(&show_spread(&spread, KbBase::Binary), KbBase::Binary);
        assert_eq!(again.unwrap(), spread);
    }
    let range = parse_bsrange("8k-1k", KbBase::Binary).unwrap();
    assert_eq!(show_spread(&range, KbBase::Binary), "1k-8k");
}

#[test]
fn distributions_parse_with_fios_defaults_and_limits() {
    assert_eq!(
        RandomDistribution::parse("zipf").unwrap(),
        RandomDistribution::Zipf {
            theta: 1.1,
            center: None
        }
    );
    assert_eq!(
        RandomDistribution::parse("zipf:1.2:0.25").unwrap().show(),
        "zipf:1.2:0.25"
    );
    assert_eq!(
        RandomDistribution::parse("normal:10").unwrap(),
        RandomDistribution::Normal {
            deviation_percent: 10.0,
            center: 0.5
        }
    );
    for bad in [
        "zipf:1",
        "pareto:1.5",
        "normal:150",
        "zipf:1.2:2",
        "zoned_abs:60/10m:30/90m",
        "zoned_abs:60/10m:40/",
        "zoned:60/10:30/90",
        "zoned:60/10:40/95",
        "zoned:60/10:40",
        "zoned:60/10,50/50:50/50",
        "zoned:",
    ] {
        assert!(RandomDistribution::parse(bad).is_err(), "{bad}");
    }
}
