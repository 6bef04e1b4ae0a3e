//! A trace's figures as a replay needs them: the traced devices' sizes, random share, hot
//! set and queue depth, combined when several devices were traced.

use super::TracedShape;
use diskmeter_capture::{SizeShare, TraceProfile};

impl TracedShape {
    /// The shape of the traced devices' IO together: sizes summed per size, the random
    /// share weighted by IOs; the hot set only from a single trace (regions of different
    /// devices do not add up). `None` without a trace.
    pub fn from_traces(traces: &[&TraceProfile]) -> Option<TracedShape> {
        let (first, rest) = traces.split_first()?;
        let mut shape = TracedShape::default();
        let mut random_ios = 0.0;
        // Counts from stored profiles: 128 bits, so a damaged one cannot overflow the sums.
        let mut ios = 0u128;
        for trace in traces {
            add_sizes(&mut shape.read_sizes, &trace.read.sizes);
            add_sizes(&mut shape.write_sizes, &trace.write.sizes);
            add_sizes(&mut shape.sequential_write_sizes, &trace.sequential_writes);
            let traced = u128::from(trace.read.ios) + u128::from(trace.write.ios);
            random_ios += trace.random_fraction * traced as f64;
            ios += traced;
        }
        shape.random_fraction = if ios > 0 {
            random_ios / ios as f64
        } else {
            first.random_fraction
        };
        let depths: Vec<f64> = traces
            .iter()
            .filter(|t| t.queue_depth.count > 0 && t.queue_depth.p99.is_finite())
            .map(|t| t.queue_depth.p99)
            .collect();
        if !depths.is_empty() {
            shape.queue_depth_p99 = Some(depths.iter().sum());
        }
        // The devices' data writes per second add up (they ran over the same window).
        let rates: Vec<f64> = traces
            .iter()
            .filter(|t| t.duration_ns > 0)
            .map(|t| t.write.ios as f64 / (t.duration_ns as f64 / 1e9))
            .collect();
        if rates.len() == traces.len() {
            shape.write_ios_per_sec = Some(rates.iter().sum());
        }
        if rest.is_empty() && first.hot_set.working_set_bytes > 0 {
            shape.hot_share = Some(first.hot_set.share_for_80_percent_of_ios);
            shape.working_set_bytes = Some(first.hot_set.working_set_bytes);
        }
        Some(shape)
    }
}

/// Adds `sizes` to the (bytes, IOs) list `into`.
fn add_sizes(into: &mut Vec<(u64, u64)>, sizes: &[SizeShare]) {
    for size in sizes {
        match into.iter_mut().find(|(bytes, _)| *bytes == size.bytes) {
            // A count the size list holds in 64 bits; past that it stays at the most.
            Some((_, ios)) => *ios = ios.saturating_add(size.ios),
            None => into.push((size.bytes, size.ios)),
        }
    }
}
