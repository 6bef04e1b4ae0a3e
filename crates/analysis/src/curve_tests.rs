//! Tests of the curve's options, step names, bisection and SLO answer.

use super::*;

#[test]
fn shares_are_percentages_sorted_once() {
    assert_eq!(parse_shares("50,10,100,10%").unwrap(), [10.0, 50.0, 100.0]);
    for bad in ["", "0", "101", "half", "10,-5"] {
        let error = parse_shares(bad).unwrap_err().to_string();
        assert!(error.starts_with("--curve-shares"), "{bad}: {error}");
    }
}

#[test]
fn an_slo_is_a_latency_bound_and_garbage_names_the_option() {
    let slo = parse_slo("p99=2ms").unwrap();
    assert_eq!(
        slo.measure,
        Measure::LatencyMs {
            scope: Scope::Total,
            statistic: LatencyStatistic::Percentile(99.0)
        }
    );
    assert_eq!(slo.threshold, 2.0);
    assert_eq!(slo.origin, "--slo");
    assert_eq!(parse_slo("p99.9=500us").unwrap().threshold, 0.5);
    assert_eq!(parse_slo("p99=2.5ms").unwrap().threshold, 2.5);
    assert_eq!(parse_slo("p99=1.5us").unwrap().threshold, 0.0015);
    assert!(matches!(
        parse_slo("read-p50=1").unwrap().measure,
        Measure::LatencyMs {
            scope: Scope::Read,
            ..
        }
    ));
    for bad in [
        "garbage",
        "p99",
        "p99=soon",
        "iops=5000",
        "q99=2ms",
        "p200=2ms",
    ] {
        let error = parse_slo(bad).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("--slo {bad}:")),
            "{bad}: {error}"
        );
    }
}

#[test]
fn step_names_parse_back() {
    for (role, rate) in [
        (CurveRole::Max, None),
        (CurveRole::Share(50.0), Some(1000)),
        (CurveRole::Share(12.5), Some(250)),
        (CurveRole::Bisect, Some(1850)),
    ] {
        let name = curve_step_name(role, rate.unwrap_or(0));
        assert_eq!(parse_curve_step_name(&name), Some((role, rate)), "{name}");
    }
    assert_eq!(
        curve_step_name(CurveRole::Share(50.0), 1000),
        "curve 50% 1000iops"
    );
    assert_eq!(parse_curve_step_name("randread 4k QD8 x1"), None);
    assert_eq!(share_rate(1999.6, 50.0), 1000);
}

use Verdict::{Met, Missed, WithinNoise};

#[test]
fn the_bisection_halves_the_bracket_until_it_is_within_two_percent() {
    // Shares of 2,000: 1,800 met, 2,000 missed -> 1,900; then 1,950; then 1,975 (50/2,000
    // = 2.5 % is not yet within 2 %), then done (25/2,000 = 1.25 %).
    let mut decided = vec![(1000, Met), (1800, Met), (2000, Missed)];
    assert_eq!(next_bisect_rate(&decided, 0), Some(1900));
    decided.push((1900, Met));
    assert_eq!(next_bisect_rate(&decided, 1), Some(1950));
    decided.push((1950, Met));
    assert_eq!(next_bisect_rate(&decided, 2), Some(1975));
    decided.push((1975, Met));
    assert_eq!(next_bisect_rate(&decided, 3), None);
    // A within-noise point is not under the bound: it is the bracket's top.
    let decided = [(1000, Met), (1800, WithinNoise), (2000, Missed)];
    assert_eq!(next_bisect_rate(&decided, 0), Some(1400));
    // Every rate met: nothing to bisect. The step limit holds.
    assert_eq!(next_bisect_rate(&[(1000, Met), (2000, Met)], 0), None);
    assert_eq!(
        next_bisect_rate(&[(1000, Met), (2000, Missed)], MAX_BISECT_STEPS),
        None
    );
    // Even the lowest share missed: bisect down from it.
    assert_eq!(
        next_bisect_rate(&[(200, Missed), (400, Missed)], 0),
        Some(100)
    );
}

fn point(rate: Option<u64>, verdict: Verdict, partial: bool) -> CurvePoint {
    let requirement = parse_slo("p99=2ms").unwrap();
    let mut judgement = Judgement::not_measured(&requirement, String::new());
    judgement.verdict = verdict;
    CurvePoint {
        step: curve_step_name(
            rate.map_or(CurveRole::Max, |_| CurveRole::Bisect),
            rate.unwrap_or(0),
        ),
        role: rate.map_or(CurveRole::Max, |_| CurveRole::Bisect),
        target_iops: rate,
        iops: rate.unwrap_or(2000) as f64,
        latency_ms: vec![None; 3],
        clock: LatencyClock::Intended,
        partial: partial.then(|| "interrupted".to_string()),
        slo: Some(judgement),
    }
}

fn answer_of(points: &[CurvePoint]) -> SloAnswer {
    answer(&parse_slo("p99=2ms").unwrap(), points, Some(2000.0))
}

#[test]
fn the_answer_is_the_highest_met_rate_below_the_first_that_is_not() {
    let a = answer_of(&[
        point(None, Met, false),
        point(Some(1000), Met, false),
        point(Some(1500), Met, false),
        point(Some(1800), Missed, false),
        // Met again above the first miss (noise): not the answer.
        point(Some(1900), Met, false),
    ]);
    assert_eq!((a.verdict, a.rate_iops), (Met, Some(1500)));
    assert_eq!(a.first_over.as_ref().map(|(r, _)| *r), Some(1800));
    assert_eq!(a.share_of_max_percent, Some(75.0));
    // Every rate met: the highest.
    let a = answer_of(&[point(Some(1000), Met, false), point(Some(2000), Met, false)]);
    assert_eq!((a.verdict, a.rate_iops), (Met, Some(2000)));
}

#[test]
fn no_met_rate_is_within_noise_or_missed_and_partial_points_never_decide() {
    let a = answer_of(&[
        point(Some(1000), WithinNoise, false),
        point(Some(2000), Missed, false),
    ]);
    assert_eq!((a.verdict, a.rate_iops), (WithinNoise, Some(1000)));
    assert!(
        a.first_over.is_none(),
        "the answer is not its own first rate over"
    );
    let a = answer_of(&[point(Some(1000), Missed, false)]);
    assert_eq!((a.verdict, a.rate_iops), (Missed, None));
    // The partial point's "met" is not an answer.
    let a = answer_of(&[
        point(Some(1000), Missed, false),
        point(Some(500), Met, true),
    ]);
    assert_eq!((a.verdict, a.rate_iops), (Missed, None));
    let a = answer_of(&[point(Some(500), Met, true)]);
    assert_eq!(a.verdict, Verdict::NotMeasured);
}
