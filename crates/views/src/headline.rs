//! The headline of a result, the one model every view starts with: a row of cards (IOPS,
//! bandwidth, latency p50 and p99 on the right clock, CPU per IO) and, where a requirement,
//! a suite expectation or a comparison judged the result, the verdicts with their evidence.
//! The terminal (`run`, `show`), the HTML report and dashboard ([`crate::Section::cards`])
//! and `report --png` (diskmeter-charts) render this model; none computes a figure itself.
//!
//! Every figure is printed by one formatter per kind: latencies and CPU time by
//! [`diskmeter_units::format_duration`] (1 to 999.9 of their unit, at most 4 significant
//! digits), IOPS by [`diskmeter_units::format_iops`], bandwidth in binary units.

use diskmeter_analysis::verdict::{Judgement, Verdict};
use diskmeter_report::{LatencyClock, RunResult};
use diskmeter_units::{format_duration, format_iops, format_rate_binary, Direction};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

use crate::Tone;

/// One card: a label, the figure and a line of detail (per direction, the clock).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Card {
    /// "IOPS", "bandwidth", "p99 latency".
    pub label: String,
    /// The figure with its unit: "18.0k", "70.5 MiB/s", "152 us".
    pub value: String,
    /// Under the figure: "read 8962 · write 9081", "from intended issue time".
    pub detail: String,
}

/// One verdict card: a requirement, expectation or comparison judged on the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictCard {
    /// "MET", "WITHIN NOISE", "MISSED", "NOT MEASURED".
    pub verdict: String,
    /// Met is good, missed bad, within noise and not measured neutral.
    pub tone: Tone,
    /// What was judged: "read-lat-p99 <= 2 ms".
    pub what: String,
    /// The evidence: the measured value with its interval and the margin (the judgement's
    /// own line, [`Judgement::line`]).
    pub evidence: String,
}

/// A result's headline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    /// The cards, in order: IOPS, bandwidth, p50, p99, CPU per IO.
    pub cards: Vec<Card>,
    /// The verdicts, when something judged the result.
    pub verdicts: Vec<VerdictCard>,
}

/// p50 and p99, the two percentiles the headline shows.
const PERCENTILES: [(f64, &str); 2] = [(50.0, "p50"), (99.0, "p99")];

impl Headline {
    /// The headline of `result`, reads and writes of all its jobs: IOPS and bandwidth
    /// summed, p50 and p99 the largest any job listed (per direction in the detail), on the
    /// intended clock for a paced or replayed run ([`RunResult::headline_latency`]), and
    /// the workers' user and system CPU time over the IOs done.
    pub fn of(result: &RunResult) -> Headline {
        let sum = |f: &dyn Fn(&diskmeter_report::JobResult) -> f64| -> f64 {
            result.jobs.iter().map(f).sum()
        };
        let (read_iops, write_iops) = (sum(&|j| j.read.iops), sum(&|j| j.write.iops));
        let read_bw = sum(&|j| j.read.bw_bytes_per_sec);
        let write_bw = sum(&|j| j.write.bw_bytes_per_sec);
        let reads = read_iops > 0.0 || read_bw > 0.0;
        let writes = write_iops > 0.0 || write_bw > 0.0;
        let both = reads && writes;
        let split = |read: String, write: String| match (reads, writes) {
            (true, true) => format!("read {read} · write {write}"),
            (true, false) => "read".to_string(),
            (false, true) => "write".to_string(),
            (false, false) => "no reads or writes".to_string(),
        };
        let mut cards = vec![
            Card {
                label: "IOPS".to_string(),
                value: format_iops(read_iops + write_iops),
                detail: split(format_iops(read_iops), format_iops(write_iops)),
            },
            Card {
                label: "bandwidth".to_string(),
                value: format_rate_binary(read_bw + write_bw),
                detail: split(format_rate_binary(read_bw), format_rate_binary(write_bw)),
            },
        ];
        let latency = result.headline_latency();
        let clock = match latency.clock {
            LatencyClock::Issue => "completion latency",
            LatencyClock::Intended => "from intended issue time",
        };
        for (percent, name) in PERCENTILES {
            let of = |d| result.headline_percentile_ns(d, percent);
            let (read, write) = (of(Direction::Read), of(Direction::Write));
            let text =
                |ns: Option<u64>| ns.map_or("-".to_string(), |ns| format_duration(ns as f64));
            let value = match (latency.unknown, read.max(write)) {
                (true, _) => "not known".to_string(),
                (false, ns) => text(ns),
            };
            // Per direction when both did IO; the clock is in the label when it is the
            // intended one, else in the detail of a one-direction step.
            let detail = if both && !latency.unknown {
                format!("read {} · write {}", text(read), text(write))
            } else {
                clock.to_string()
            };
            cards.push(Card {
                label: match latency.clock {
                    LatencyClock::Issue => format!("{name} latency"),
                    LatencyClock::Intended => format!("{name} latency (intended)"),
                },
                value,
                detail,
            });
        }
        let ios: u64 = result.jobs.iter().map(|j| j.read.ios + j.write.ios).sum();
        let cpu_ns: u64 = result
            .jobs
            .iter()
            .map(|j| j.cpu.user_ns + j.cpu.sys_ns)
            .sum();
        cards.push(Card {
            label: "CPU per IO".to_string(),
            value: match ios {
                0 => "-".to_string(),
                ios => format_duration(cpu_ns as f64 / ios as f64),
            },
            detail: "workers' usr+sys time / IOs".to_string(),
        });
        Headline {
            cards,
            verdicts: Vec::new(),
        }
    }

    /// The headline of a sweep's whole points (one pattern): the best IOPS and the best
    /// bandwidth with the point that reached each, the lowest mean latency and the p99 at the
    /// best IOPS point. `None` without a whole point.
    pub fn of_sweep(points: &[diskmeter_analysis::SweepPoint]) -> Option<Headline> {
        let by = |f: fn(&diskmeter_analysis::SweepPoint) -> f64| {
            points.iter().max_by(|a, b| f(a).total_cmp(&f(b)))
        };
        let at = |p: &diskmeter_analysis::SweepPoint| {
            let size =
                diskmeter_units::format_size_suffix(p.bs_bytes, diskmeter_units::KbBase::Binary);
            format!("{} at QD {}", size.to_uppercase(), p.qd)
        };
        let iops = by(|p| p.iops)?;
        let bandwidth = by(|p| p.bytes_per_sec)?;
        let fastest = by(|p| -p.lat_mean_ns)?;
        let card = |label: &str, value: String, detail: String| Card {
            label: label.to_string(),
            value,
            detail,
        };
        Some(Headline {
            cards: vec![
                card("best IOPS", format_iops(iops.iops), at(iops)),
                card(
                    "best bandwidth",
                    format_rate_binary(bandwidth.bytes_per_sec),
                    at(bandwidth),
                ),
                card(
                    "lowest mean latency",
                    format_duration(fastest.lat_mean_ns),
                    at(fastest),
                ),
                card(
                    "p99 at best IOPS",
                    format_duration(iops.lat_p99_ns),
                    at(iops),
                ),
            ],
            verdicts: Vec::new(),
        })
    }

    /// The headline of a run of several steps (a suite), as CrystalDiskMark shows one: a
    /// card per step with its bandwidth, and its IOPS and p99 latency (on the step's clock)
    /// under it.
    pub fn of_steps<'a>(steps: impl IntoIterator<Item = (&'a str, &'a RunResult)>) -> Headline {
        let cards = steps
            .into_iter()
            .map(|(name, result)| {
                let one = Headline::of(result);
                let figure = |label: &str| {
                    (one.cards.iter().find(|c| c.label.starts_with(label)))
                        .map_or("-".to_string(), |c| c.value.clone())
                };
                Card {
                    label: match result.is_partial() {
                        true => format!("{name} (partial)"),
                        false => name.to_string(),
                    },
                    value: figure("bandwidth"),
                    detail: format!("{} IOPS · p99 {}", figure("IOPS"), figure("p99 latency")),
                }
            })
            .collect();
        Headline {
            cards,
            verdicts: Vec::new(),
        }
    }

    /// The headline of a comparison: how many metrics are regressions, faster, slower and
    /// within noise, and a verdict card per regression with both runs' figures and the
    /// change (the analysis crate's outcomes, [`diskmeter_analysis::compare`]).
    pub fn of_comparison(c: &diskmeter_analysis::compare::Comparison) -> Headline {
        use diskmeter_analysis::compare::Outcome;
        let count = |o: Outcome| c.metrics.iter().filter(|m| m.outcome == o).count();
        let of = format!("of {} metrics", c.metrics.len());
        let card = |label: &str, n: usize| Card {
            label: label.to_string(),
            value: n.to_string(),
            detail: of.clone(),
        };
        let mut cards = vec![
            card("regressions", c.regressions()),
            card("faster", count(Outcome::Faster)),
            card("slower", count(Outcome::Slower)),
            card("within noise", count(Outcome::WithinNoise)),
        ];
        if count(Outcome::TooFewSamples) > 0 {
            cards.push(card("too few samples", count(Outcome::TooFewSamples)));
        }
        let verdicts = (c.metrics.iter().filter(|m| m.regression))
            .map(|m| VerdictCard {
                verdict: m.verdict_text().to_uppercase(),
                tone: Tone::Bad,
                what: format!("{} {}", m.step, m.metric),
                evidence: format!(
                    "{} {}: A {}, B {} ({}; noise floor {} %, threshold {} %)",
                    m.step,
                    m.metric,
                    m.format_value(m.baseline),
                    m.format_value(m.candidate),
                    m.format_change(),
                    c.options.noise_floor_percent,
                    c.options.threshold_percent
                ),
            })
            .collect();
        Headline { cards, verdicts }
    }

    /// This headline with the verdicts of `judgements` (check's requirements, a suite's
    /// expectations), as the analysis crate judged them.
    pub fn with_judgements(mut self, judgements: &[Judgement]) -> Headline {
        self.verdicts.extend(judgements.iter().map(VerdictCard::of));
        self
    }

    /// The cards as aligned terminal columns (label, figure, detail), then a line per
    /// verdict.
    pub fn text(&self) -> String {
        let columns: Vec<[&str; 3]> = self
            .cards
            .iter()
            .map(|c| [c.label.as_str(), c.value.as_str(), c.detail.as_str()])
            .collect();
        let mut out = String::new();
        // Label and figure share a column; the detail lines follow, one per card, so a
        // long detail never pushes the row past a terminal's width.
        for row in 0..2 {
            let mut line = String::new();
            for column in &columns {
                let width = column[0].len().max(column[1].len()) + 3;
                let _ = write!(line, "{:width$}", column[row]);
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        for card in &self.cards {
            let _ = writeln!(out, "  {}: {}", card.label, card.detail);
        }
        for v in &self.verdicts {
            let _ = writeln!(out, "{}", v.evidence);
        }
        out
    }
}

impl VerdictCard {
    /// The card of one judgement: its verdict, what was required and its line of evidence.
    pub fn of(judgement: &Judgement) -> VerdictCard {
        VerdictCard {
            verdict: judgement.verdict.label().to_string(),
            tone: match judgement.verdict {
                Verdict::Met => Tone::Good,
                Verdict::Missed => Tone::Bad,
                Verdict::WithinNoise | Verdict::NotMeasured => Tone::Neutral,
            },
            what: judgement.requirement.to_string(),
            evidence: judgement.line(),
        }
    }
}

/// Named steps' results in `format`, as `run`, `replay` and `merge` print them: the human
/// summary ("normal") opens each step with its headline, then fio's detail
/// ([`diskmeter_report::render_terminal`]); every machine format is
/// [`diskmeter_report::output_format::render_steps`]'s, unchanged.
pub fn render_steps(
    format: diskmeter_report::output_format::OutputFormat,
    names: &[String],
    results: &[RunResult],
    terse: diskmeter_report::TerseVersion,
) -> Result<String, serde_json::Error> {
    use diskmeter_report::output_format::OutputFormat;
    if !matches!(format, OutputFormat::Normal) {
        return diskmeter_report::output_format::render_steps(format, names, results, terse);
    }
    let single = results.len() == 1;
    let mut out = String::new();
    for (name, result) in names.iter().zip(results) {
        if !single {
            let _ = writeln!(out, "=== step: {name} ===");
        }
        // An interrupted run's banner stays the first line, above its headline.
        let detail = diskmeter_report::render_terminal(result);
        let (banner, detail) = match detail.split_once("\n\n") {
            Some((banner, rest)) if banner.starts_with("***") => (banner, rest),
            _ => ("", detail.as_str()),
        };
        if !banner.is_empty() {
            let _ = writeln!(out, "{banner}\n");
        }
        out.push_str(&Headline::of(result).text());
        out.push('\n');
        out.push_str(detail);
        if !single {
            out.push('\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_gets_five_cards_in_scaled_units() {
        let load = crate::tests::Load::randread(4096, 32, 20_000);
        let result = crate::tests::step("s", &load, 0).result;
        let headline = Headline::of(&result);
        let labels: Vec<&str> = headline.cards.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "IOPS",
                "bandwidth",
                "p50 latency",
                "p99 latency",
                "CPU per IO"
            ]
        );
        let text = headline.text();
        assert!(text.starts_with("IOPS"), "{text}");
        for card in &headline.cards {
            assert!(text.contains(&card.value), "{text}");
        }
    }

    #[test]
    fn a_paced_steps_latency_is_from_the_intended_issue_time_and_says_so() {
        let load = crate::tests::Load::randread(4096, 4, 1_000);
        let mut result = crate::tests::step("paced", &load, 0).result;
        let read = &mut result.jobs[0].read;
        read.lat_intended = read.lat.clone();
        for p in &mut read.lat_intended.percentiles {
            p.value_ns *= 3;
        }
        let want = read.lat_intended.percentile(99.0).unwrap();
        let headline = Headline::of(&result);
        let p99 = &headline.cards[3];
        assert_eq!(p99.value, format_duration(want as f64));
        assert_eq!(p99.detail, "from intended issue time");
        assert_eq!(p99.label, "p99 latency (intended)");
    }

    #[test]
    fn a_sweep_headlines_its_best_points() {
        let point = |bs_bytes, qd, iops: f64, lat_ns: f64| diskmeter_analysis::SweepPoint {
            bs_bytes,
            qd,
            iops,
            bytes_per_sec: iops * bs_bytes as f64,
            lat_mean_ns: lat_ns,
            lat_p99_ns: lat_ns * 3.0,
        };
        let points = [
            point(4096, 1, 9_000.0, 100_000.0),
            point(4096, 32, 120_000.0, 260_000.0),
            point(1 << 20, 8, 900.0, 8_800_000.0),
        ];
        let headline = Headline::of_sweep(&points).unwrap();
        let values: Vec<(&str, &str)> = (headline.cards.iter())
            .map(|c| (c.value.as_str(), c.detail.as_str()))
            .collect();
        assert_eq!(
            values,
            [
                ("120k", "4K at QD 32"),
                ("900.0 MiB/s", "1M at QD 8"),
                ("100.0 us", "4K at QD 1"),
                ("780.0 us", "4K at QD 32"),
            ]
        );
        assert!(Headline::of_sweep(&[]).is_none());
    }

    #[test]
    fn the_summary_opens_with_the_headline_after_an_interrupted_runs_banner() {
        use diskmeter_report::output_format::OutputFormat;
        let load = crate::tests::Load::randread(4096, 4, 1_000);
        let mut result = crate::tests::step("t", &load, 0).result;
        let names = ["t".to_string()];
        let text = |result: &RunResult| {
            let terse = diskmeter_report::TerseVersion::V3;
            render_steps(
                OutputFormat::Normal,
                &names,
                std::slice::from_ref(result),
                terse,
            )
            .unwrap()
        };
        assert!(text(&result).starts_with("IOPS "), "{}", text(&result));
        result.meta.partial = true;
        let partial = text(&result);
        assert!(partial.starts_with("*** PARTIAL RESULTS"), "{partial}");
        assert!(partial.contains(" ***\n\nIOPS "), "{partial}");
        assert_eq!(partial.matches("PARTIAL RESULTS").count(), 1, "{partial}");
    }
}
