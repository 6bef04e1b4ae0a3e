//! The planner's terminal view: plain text for each answer, built from the same structs the
//! JSON output serialises, so the two never disagree.

use diskmeter_plan::cost::CITED_FIGURES;
use diskmeter_plan::model::{group, Basis, PointPrediction};
use diskmeter_plan::{Answer, Candidate, Demand, Evaluation, IoSizeRow, NotPossible, Optimisation};
use std::fmt::Write;

/// `plan --help`: the modes, the keys and the exit codes.
pub const LONG_ABOUT: &str =
    "Plan storage from published limits: the caps each IO counts against (host cache, VM \
             uncached, disks), the binding limit, headroom, monthly cost by component, queue \
             depth and stripe advice, and the document behind every figure. The catalog is what \
             Azure, AWS, Google Cloud and DigitalOcean sell today (--builtin-catalog guides: the \
             guides' 2019 figures).\n\n\
             Optimise:  diskmeter plan --require iops=16000,bs=8k,read=70%,latency=1ms \
             --optimize cost [--cloud azure,aws] [--family Dsv5,m7i]\n\
             Evaluate:  diskmeter plan --vm Standard_D8s_v5 --disks 4xP30 --workload \
             iops=16000,bs=8k,read=70%,cache-hit=0.8\n\
             IO sizes:  diskmeter plan --disks 1xP30 --io-sizes [8k,32k,64k,1m]\n\
             Rehearse:  diskmeter plan --vm Standard_D8s_v5 --disks 4xP30 --workload \
             iops=16000,bs=8k --rehearse (root: the disks emulated and striped, the workload \
             run on them, predicted against measured per disk, VM cap and total; \
             docs/guide/5-rehearse.md)\n\
             Capture:   diskmeter plan --from-capture last --level p99 --growth 30% --optimize \
             cost (the capture's checklist at the level is the demand; --workload keys replace \
             its figures)\n\n\
             Scaled and provisioned disk types (gp3, io2, Premium SSD v2, pd-ssd) are sized: \
             count, size, IOPS and MiB/s at the least cost. A per-IO latency bound (latency=, or \
             a traced capture's) excludes disk types whose published class lies above it; \
             without one the answer says latency was not judged. With --duration or \
             --from-capture the load is played through the burst credit buckets: a bursting \
             configuration meets it only if its credits last. Unpriced configurations, and \
             those with an unpublished cap on their path, are never ranked cheapest. A plan \
             made --from-capture is kept in the history (saved as plan N on stderr), linked \
             to its capture (diskmeter report ID --with-replays).\n\n\
             Keys: iops (k = 1,000), mibps, bs (bs=4k,64k: read,write), read= or write= \
             (default 100 % reads), cache-hit (share of reads from the host cache), local (share \
             of IOs to the local SSD), latency (per IO, default unit ms), qd, capacity, random. \
             A share is N%, a fraction from 0 to 1, or a percentage above 1 (50%, 50 and 0.5 \
             are half). iops and mibps are separate peaks. docs/guide/4-plan.md has the model.\n\n\
             A missing figure is reported, never assumed; what the published figures rule out \
             (too many data disks, a premium disk on a standard size) is \"not possible\". Exit \
             codes: 0 met (or nothing required); 1 not met, not possible, or nothing meets it; \
             2 usage error.";

/// `8 KiB`, `1 MiB`, `1536 B`: IO sizes as people write them.
pub fn io_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

pub(crate) fn usd(value: f64) -> String {
    let cents = (value * 100.0).round() as i64;
    format!("${}.{:02}", group((cents / 100) as f64), cents % 100)
}

/// "16,000 IOPS at 8 KiB, 70 % reads, 80 % of reads from the host cache".
pub fn describe_demand(d: &Demand) -> String {
    let mut parts = Vec::new();
    if let Some(iops) = d.iops {
        parts.push(format!("{} IOPS", group(iops)));
    }
    if let Some(mibps) = d.mibps {
        parts.push(format!("{} MiB/s", group(mibps)));
    }
    if parts.is_empty() {
        parts.push("the most it can do".to_string());
    }
    let at = match d.io_sizes() {
        Some((r, w)) if r == w => format!(" at {}", io_size(r)),
        Some((r, w)) => format!(" at {} reads / {} writes", io_size(r), io_size(w)),
        None => String::new(),
    };
    let mut parts = vec![parts.join(" and ") + &at];
    let reads = group(d.read_fraction * 100.0);
    parts.push(if d.mix_given {
        format!("{reads}% reads")
    } else {
        format!("{reads}% reads (assumed: give read= or write=)")
    });
    if d.cache_hit_fraction > 0.0 {
        parts.push(format!(
            "{}% of reads from the host cache",
            group(d.cache_hit_fraction * 100.0)
        ));
    }
    if d.local_fraction > 0.0 {
        parts.push(format!(
            "{}% of IOs to the local SSD",
            group(d.local_fraction * 100.0)
        ));
    }
    if let Some(random) = d.random_fraction {
        parts.push(format!("{}% random", group(random * 100.0)));
    }
    if let Some(ns) = d.latency_ns {
        parts.push(format!(
            "latency target {}",
            diskmeter_units::format_duration_ns(ns)
        ));
    }
    if let Some(qd) = d.queue_depth {
        parts.push(format!("QD {qd}"));
    }
    if let Some(bytes) = d.capacity_bytes {
        parts.push(format!(
            "{} GiB of space",
            group(bytes as f64 / f64::from(1u32 << 30))
        ));
    }
    let mut text = parts.join(", ");
    if let Some(level) = &d.level {
        text.push_str(&format!(" (the capture's {level} level"));
        if let Some(growth) = d.growth_fraction {
            text.push_str(&format!(" + {}% growth", group(growth * 100.0)));
        }
        text.push(')');
    } else if let Some(growth) = d.growth_fraction {
        text.push_str(&format!(" (with {}% growth)", group(growth * 100.0)));
    }
    text
}

/// "From the capture" lines: where each figure of the demand came from.
fn origin_lines(out: &mut String, d: &Demand) {
    if d.origins.is_empty() {
        return;
    }
    let _ = writeln!(out, "Figures from the capture:");
    for origin in &d.origins {
        let _ = writeln!(out, "  {:<9} {}", origin.key, origin.text);
    }
}

fn point_title(p: &PointPrediction, possible: bool) -> String {
    let at = match p.basis {
        Basis::Iops {
            read_bs_bytes: Some(r),
            write_bs_bytes: Some(w),
        } if r == w => format!(" at {}", io_size(r)),
        Basis::Iops {
            read_bs_bytes: Some(r),
            write_bs_bytes: Some(w),
        } => format!(" at {}/{}", io_size(r), io_size(w)),
        Basis::Iops { .. } => " (no IO size: MiB/s caps not checked)".to_string(),
        Basis::Bandwidth => " (bandwidth, any IO size: IOPS caps not checked)".to_string(),
    };
    let asked = match (p.required_iops, p.required_mibps, p.basis) {
        (_, Some(m), Basis::Bandwidth) => format!("{} MiB/s", group(m)),
        (Some(i), Some(m), _) => format!("{} IOPS ({} MiB/s)", group(i), group(m)),
        (Some(i), None, _) => format!("{} IOPS", group(i)),
        _ => "capacity".to_string(),
    };
    let verdict = match (p.meets, p.headroom_percent) {
        (Some(true), Some(h)) if !possible => format!(
            ": the caps would allow it (headroom {h:+.1}%), but the configuration is not possible"
        ),
        (Some(true), Some(h)) => format!(": meets it, headroom {:+.1}%", h),
        (Some(false), Some(h)) => format!(": DOES NOT MEET it, short by {:.1}%", -h),
        _ => String::new(),
    };
    format!("{asked}{at}{verdict}")
}

/// The view of any answer of `diskmeter plan`.
pub fn answer(answer: &Answer) -> String {
    match answer {
        Answer::Optimisation(o) => optimisation(o),
        Answer::IoSizes(v) => io_sizes(&v.configuration, &v.rows, &v.not_possible),
        Answer::Evaluation(e) => evaluation(e),
    }
}

/// The evaluate view.
pub fn evaluation(e: &Evaluation) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Plan: {}", e.configuration);
    let _ = writeln!(out, "Demand: {}", describe_demand(&e.demand));
    origin_lines(&mut out, &e.demand);
    not_possible_lines(&mut out, &e.not_possible);
    let _ = writeln!(out, "\nCaps");
    for cap in &e.caps {
        let value = cap.value.map_or("not in catalog".to_string(), group);
        let _ = writeln!(
            out,
            "  {:<16} {:>14} {:<5}  {}",
            cap.kind.label(),
            value,
            if cap.value.is_some() {
                cap.kind.unit()
            } else {
                ""
            },
            cap.basis
        );
    }
    for p in &e.points {
        let _ = writeln!(out, "\n{}", point_title(p, e.possible));
        let capacity = p.capacity_text();
        match &p.limit {
            Some(limit) => {
                let _ = writeln!(out, "  capacity {capacity}, limited by the {limit}");
            }
            None => {
                let _ = writeln!(out, "  capacity {capacity}");
            }
        }
        if !p.paths.is_empty() {
            let predicted = if p.meets == Some(false) {
                "at capacity"
            } else {
                "at the demand"
            };
            let _ = writeln!(
                out,
                "  {:<14} {:>12} {:>12}   ({predicted})",
                "path", "IOPS", "MiB/s"
            );
            let cell = |v: Option<f64>| v.map_or("-".to_string(), group);
            for path in &p.paths {
                let _ = writeln!(
                    out,
                    "  {:<14} {:>12} {:>12}",
                    path.path,
                    cell(path.iops),
                    cell(path.mibps)
                );
            }
            if p.per_disk_iops.is_some() || p.per_disk_mibps.is_some() {
                let _ = writeln!(
                    out,
                    "  {:<14} {:>12} {:>12}",
                    "each disk",
                    cell(p.per_disk_iops),
                    cell(p.per_disk_mibps)
                );
            }
        }
    }
    if let Some(gib) = e.capacity_gib {
        let _ = writeln!(out, "\nSpace: {} GiB", group(gib));
    }
    let _ = write!(out, "\nCost: ");
    match (e.cost.total_usd, e.cost.vm_usd, e.cost.disks_usd) {
        (Some(total), Some(vm), Some(disks)) => {
            let _ = writeln!(
                out,
                "{} a month (VM {} + disks {})",
                usd(total),
                usd(vm),
                usd(disks)
            );
        }
        (Some(total), None, _) => {
            let _ = writeln!(out, "{} a month", usd(total));
        }
        _ => {
            let _ = writeln!(
                out,
                "unknown (no price in the catalog for {})",
                e.cost.missing.join(", ")
            );
        }
    }
    for part in &e.cost.parts {
        let _ = writeln!(out, "  {part}");
    }
    let _ = writeln!(out, "Latency: {}", e.latency.text);
    if let Some(burst) = &e.burst {
        let _ = writeln!(out, "Bursts ({}):", burst.load);
        for line in diskmeter_plan::burst::describe(burst) {
            let _ = writeln!(out, "  {line}");
        }
    }
    let qd = &e.queue_depth;
    let _ = writeln!(
        out,
        "Queue depth: {}-{} outstanding IOs for peak rates ({}-{} per disk x {} disk{})",
        qd.for_peak.0,
        qd.for_peak.1,
        qd.for_peak.0 / e.disk_count,
        qd.for_peak.1 / e.disk_count,
        e.disk_count,
        if e.disk_count == 1 { "" } else { "s" }
    );
    if let Some(basis) = &qd.for_latency_basis {
        let _ = writeln!(out, "  for the latency target: {basis}");
    }
    if let Some(per_disk) = qd.app_qd_per_disk {
        let _ = writeln!(
            out,
            "  the application's QD gives {} per disk",
            group(per_disk)
        );
    }
    if let Some(stripe) = &e.stripe {
        let _ = writeln!(out, "Stripe: {} KiB ({})", stripe.stripe_kib, stripe.reason);
    }
    if !e.warnings.is_empty() {
        let _ = writeln!(out, "\nWarnings");
        for w in &e.warnings {
            let _ = writeln!(out, "  - {w}");
        }
    }
    if !e.sources.is_empty() {
        let _ = writeln!(out, "\nSources");
        for source in &e.sources {
            let _ = writeln!(out, "  {source}");
        }
    }
    if !e.fixes.is_empty() {
        let _ = writeln!(out, "\nConfigurations that meet it");
        candidates(&mut out, &e.fixes);
    }
    let reasons: Vec<String> = e.not_possible.iter().map(ToString::to_string).collect();
    let verdict = match e.meets {
        _ if !e.possible => format!("is NOT POSSIBLE: {}", reasons.join("; ")),
        Some(true)
            if e.burst.as_ref().is_some_and(|b| {
                !b.runs_dry && e.points.iter().any(|p| p.meets == Some(false))
            }) =>
        {
            "meets the demand by bursting (its credits last the whole load)".to_string()
        }
        Some(true) => "meets the demand".to_string(),
        Some(false) => "does NOT meet the demand".to_string(),
        None => "no requirement to check (capacity shown)".to_string(),
    };
    let _ = writeln!(out, "\nVerdict: {} {verdict}", e.configuration);
    out
}

/// "Not possible: 40 data disks, but Standard_DS14 takes at most 32", one line per reason.
fn not_possible_lines(out: &mut String, reasons: &[NotPossible]) {
    for reason in reasons {
        let _ = writeln!(out, "Not possible: {reason}");
    }
}

/// The documents candidates cite, numbered once for a list: (citation, number).
#[derive(Default)]
struct Citations(Vec<String>);

impl Citations {
    /// "pd-ssd limits [1], price [2]; c3d-standard-8 limits [3], price [2]" for `sources`
    /// lines ("what: citation").
    fn refer(&mut self, sources: &[String]) -> String {
        let mut by_owner: Vec<(String, Vec<String>)> = Vec::new();
        for line in sources {
            let Some((what, citation)) = line.split_once(": ") else {
                continue;
            };
            let number = match self.0.iter().position(|c| c == citation) {
                Some(i) => i + 1,
                None => {
                    self.0.push(citation.to_string());
                    self.0.len()
                }
            };
            let (owner, figure) = CITED_FIGURES
                .iter()
                .find_map(|f| Some((what.strip_suffix(f)?.trim_end(), *f)))
                .unwrap_or((what, ""));
            let entry = format!("{figure} [{number}]");
            match by_owner.iter_mut().find(|(o, _)| o == owner) {
                Some((_, list)) => list.push(entry),
                None => by_owner.push((owner.to_string(), vec![entry])),
            }
        }
        by_owner
            .into_iter()
            .map(|(owner, list)| format!("{owner} {}", list.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn write(&self, out: &mut String) {
        if self.0.is_empty() {
            return;
        }
        let _ = writeln!(out, "\nSources");
        for (i, citation) in self.0.iter().enumerate() {
            let _ = writeln!(out, "  [{}] {citation}", i + 1);
        }
    }
}

fn candidates(out: &mut String, list: &[Candidate]) {
    let mut citations = Citations::default();
    candidates_citing(out, list, &mut citations);
    citations.write(out);
}

fn candidates_citing(out: &mut String, list: &[Candidate], citations: &mut Citations) {
    for (i, c) in list.iter().enumerate() {
        let price = c.total_usd.map_or("price unknown".to_string(), |p| {
            format!("{} a month", usd(p))
        });
        let _ = writeln!(out, "  {}. {}: {price}", i + 1, c.configuration);
        for capacity in &c.capacity {
            let _ = writeln!(out, "       {capacity}");
        }
        for part in &c.price {
            let _ = writeln!(out, "       price: {part}");
        }
        if !c.latency.starts_with("latency not judged") {
            let _ = writeln!(out, "       {}", c.latency);
        }
        for line in &c.burst {
            let _ = writeln!(out, "       burst: {line}");
        }
        if !c.sources.is_empty() {
            let _ = writeln!(out, "       sources: {}", citations.refer(&c.sources));
        }
        for w in &c.warnings {
            let _ = writeln!(out, "       note: {w}");
        }
    }
}

/// The optimiser view.
pub fn optimisation(o: &Optimisation) -> String {
    let mut out = String::new();
    let mut citations = Citations::default();
    let _ = writeln!(out, "Requirement: {}", describe_demand(&o.requirement));
    origin_lines(&mut out, &o.requirement);
    let _ = writeln!(
        out,
        "Searched {} VM size x disk type pairs: per pair the cheapest configuration that meets \
         it (the fewest disks of a fixed tier; the count, size and provisioned performance of a \
         scaled or provisioned type).",
        o.pairs_searched
    );
    let _ = writeln!(out, "{}", o.latency);
    if o.priced.is_empty() && o.unpriced.is_empty() && o.unbounded.is_empty() {
        let _ = writeln!(
            out,
            "\nNo configuration in the catalog meets the requirement."
        );
    }
    if !o.priced.is_empty() {
        let _ = writeln!(out, "\nCheapest first");
        candidates_citing(&mut out, &o.priced, &mut citations);
    }
    if !o.ran_dry.is_empty() {
        let _ = writeln!(
            out,
            "\nCheaper, but their burst credits run dry over the load (not answers)"
        );
        candidates_citing(&mut out, &o.ran_dry, &mut citations);
    }
    if !o.unbounded.is_empty() {
        let _ = writeln!(
            out,
            "\nAlso meet it on their published caps, but a cap on their path is not published \
             (never ranked cheapest)"
        );
        candidates_citing(&mut out, &o.unbounded, &mut citations);
    }
    if !o.unpriced.is_empty() {
        let _ = writeln!(
            out,
            "\nAlso meet it, no price in the catalog (never ranked cheapest)"
        );
        candidates_citing(&mut out, &o.unpriced, &mut citations);
    }
    for note in &o.notes {
        let _ = writeln!(out, "\nnote: {note}");
    }
    citations.write(&mut out);
    out
}

/// The IO-size view; `not_possible` lists why the configuration cannot be built, if it
/// cannot (its caps are shown all the same).
pub fn io_sizes(configuration: &str, rows: &[IoSizeRow], not_possible: &[NotPossible]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "IO-size view: {configuration}");
    not_possible_lines(&mut out, not_possible);
    let with_cache = rows
        .iter()
        .any(|r| r.cache_iops.is_some() || r.cache_mibps.is_some());
    let cell = |v: Option<f64>| v.map_or("-".to_string(), group);
    if with_cache {
        let _ = writeln!(
            out,
            "{:>8} {:>10} {:>10}  {:<34} {:>10} {:>10}  cache path limit",
            "IO size", "disk IOPS", "MiB/s", "disk path limit", "hit IOPS", "MiB/s",
        );
    } else {
        let _ = writeln!(
            out,
            "{:>8} {:>10} {:>10}  limit",
            "IO size", "IOPS", "MiB/s"
        );
    }
    for r in rows {
        let limit = r.limit.clone().unwrap_or_else(|| "-".to_string());
        if with_cache {
            let _ = writeln!(
                out,
                "{:>8} {:>10} {:>10}  {:<34} {:>10} {:>10}  {}",
                io_size(r.bs_bytes),
                cell(r.iops),
                cell(r.mibps),
                short_limit(&limit),
                cell(r.cache_iops),
                cell(r.cache_mibps),
                short_limit(r.cache_limit.as_deref().unwrap_or("-"))
            );
        } else {
            let _ = writeln!(
                out,
                "{:>8} {:>10} {:>10}  {}",
                io_size(r.bs_bytes),
                cell(r.iops),
                cell(r.mibps),
                limit
            );
        }
    }
    out
}

/// "disk cap 5,000 IOPS (1 x 5,000 (P30))" -> "disk cap 5,000 IOPS" for narrow columns.
fn short_limit(limit: &str) -> &str {
    limit.split(" (").next().unwrap_or(limit)
}

pub(crate) fn opt(v: Option<f64>, unit: &str) -> String {
    v.map_or("-".to_string(), |v| format!("{}{unit}", group(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_prices_read_as_people_write_them() {
        assert_eq!(io_size(8192), "8 KiB");
        assert_eq!(io_size(1 << 20), "1 MiB");
        assert_eq!(io_size(1536), "1536 B");
        assert_eq!(usd(1548.0), "$1,548.00");
        assert_eq!(usd(136.085 * 4.0), "$544.34");
        assert_eq!(usd(3208.98), "$3,208.98");
    }

    /// The random share is shown with the demand (the evaluation's stripe advice follows it).
    #[test]
    fn an_evaluation_says_the_random_share() {
        let catalog =
            diskmeter_plan::Catalog::builtin_slice(diskmeter_plan::catalog::Slice::Guides);
        let (disk, disk_count) = diskmeter_plan::parse_disks(&catalog, "4xP30").unwrap();
        let config = diskmeter_plan::Configuration {
            vm: None,
            disk,
            disk_count,
            cache: diskmeter_plan::HostCache::None,
        };
        let demand = Demand::parse("iops=5000,bs=8k,random=10%").unwrap();
        let sequential = diskmeter_plan::evaluate(&catalog, &config, &demand).unwrap();
        assert!(evaluation(&sequential).contains("10% random"));
    }
}
