//! Which jobs Theorem 16 boxes in each round, and into boxes of which height, worked out from the
//! job heights alone; the legal range of ε (inequality 11), its calibration (§5.6) and sampling
//! (§7.2.1).
//!
//! A round of Theorem 16 boxes every job of height at most μH into boxes of height H and leaves the
//! others alone, so the heights after a round are {H} ∪ {h > μH}: the whole schedule, and the ratio
//! r* it ends with, follow from the distinct heights without boxing anything. That makes the
//! calibration of §5.6 (one partial run of Theorem 16 per candidate ε) a few float operations per
//! candidate.

use std::collections::BTreeSet;

/// (√5 − 1)/2: the largest μ for which the last Corollary 15 call cannot give a size class a
/// zero box-height parameter (inequality 10, §3.2).
pub(crate) const MU_MAX: f64 = 0.618_033_988_749_894_9;

/// The smallest h_max / h_min for which inequality 12 holds, so that the legal range of ε is not
/// empty (§3.2); below it the prelude adds a dummy job (§5.6).
pub(crate) const MIN_RATIO: f64 = 2216.53;

/// More rounds than any real input needs (each one raises h_min past μH); a guard, not a knob.
const MAX_ROUNDS: usize = 64;

/// Steps of the calibration of §5.6: each adds 1 % of the range still above ε.
const CALIBRATION_STEPS: usize = 100;

/// One application of Corollary 15: jobs of height at most `threshold` go into boxes of height
/// `box_height`, with error parameter `mu`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Round {
    pub mu: f64,
    pub box_height: u64,
    pub threshold: u64,
}

/// Theorem 16 for one ε: the small-job rounds of its top branch, then the last call of
/// Corollary 15 on everything (threshold `u64::MAX`), and the ratio r* before that call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Schedule {
    pub epsilon: f64,
    pub rounds: Vec<Round>,
    pub last: Round,
    pub final_ratio: f64,
}

/// The legal range of ε for a height ratio r, inequality 11:
/// ((log₂ r)¹⁴ / r)^(1/6) ≤ ε ≤ μ_max (log₂ r)². `None` when it is empty (r below inequality 12).
pub(crate) fn epsilon_range(ratio: f64) -> Option<(f64, f64)> {
    if !ratio.is_finite() || ratio <= 1.0 {
        return None;
    }
    let log = ratio.log2();
    let low = ((14.0 * log.ln() - ratio.ln()) / 6.0).exp();
    let high = MU_MAX * log * log;
    (low.is_finite() && high.is_finite() && low > 0.0 && low <= high).then_some((low, high))
}

/// The ratio of the largest to the smallest height.
fn ratio(heights: &BTreeSet<u64>) -> f64 {
    match (heights.first(), heights.last()) {
        (Some(&low), Some(&high)) if low > 0 => high as f64 / low as f64,
        _ => 1.0,
    }
}

/// `ceil(value)` as a height of at least 1 (saturating at u64::MAX, 1 for NaN).
fn height(value: f64) -> u64 {
    if value.is_nan() { 1 } else { (value.ceil() as u64).max(1) }
}

impl Schedule {
    /// Theorem 16's rounds for `epsilon` on jobs with these heights (not empty), with the repairs
    /// of §3.2: μ never above [`MU_MAX`], the loop stops when a round would box nothing (it would
    /// never end), and the last call uses μ* = ε / (log₂ r*)² instead of ε.
    pub(crate) fn plan(heights: &[u64], epsilon: f64) -> Schedule {
        let mut heights: BTreeSet<u64> = heights.iter().copied().filter(|&h| h > 0).collect();
        if heights.is_empty() {
            heights.insert(1);
        }
        let mut rounds = Vec::new();
        while rounds.len() < MAX_ROUNDS {
            let ratio = ratio(&heights);
            let log_squared = ratio.log2().powi(2);
            // The top branch runs while (log₂ r)² ≥ 1/ε.
            if ratio <= 1.0 || log_squared * epsilon < 1.0 {
                break;
            }
            let mu = (epsilon / log_squared).min(MU_MAX);
            let highest = *heights.last().unwrap_or(&1) as f64; // not empty: refilled above
            let box_height = height(mu.powi(5) * highest / log_squared);
            let threshold = (mu * box_height as f64).floor() as u64;
            if heights.first().is_none_or(|&lowest| lowest > threshold) {
                break; // X_s would be empty and the loop would never end (§3.2)
            }
            // Heights at most the threshold are boxed into boxes of `box_height`.
            let kept = heights.split_off(&(threshold.saturating_add(1)));
            heights = kept;
            heights.insert(box_height);
            rounds.push(Round { mu, box_height, threshold });
        }
        let final_ratio = ratio(&heights);
        let log_squared = final_ratio.log2().powi(2);
        let mu = if log_squared > 0.0 { (epsilon / log_squared).min(MU_MAX) } else { MU_MAX };
        let mu = if mu.is_finite() && mu > 0.0 { mu } else { MU_MAX };
        let highest = *heights.last().unwrap_or(&1) as f64;
        let last = Round { mu, box_height: height(highest / mu), threshold: u64::MAX };
        Schedule { epsilon, rounds, last, final_ratio }
    }

    /// §5.6: from the low end of the legal range, each step adds 1 % of what is left of it; the ε
    /// whose schedule ends with the smallest r* wins (the first on ties).
    pub(crate) fn calibrated(heights: &[u64], range: (f64, f64)) -> Schedule {
        let (low, high) = range;
        let mut epsilon = low;
        let mut best = Schedule::plan(heights, epsilon);
        for _ in 0..CALIBRATION_STEPS {
            epsilon += 0.01 * (high - epsilon);
            let candidate = Schedule::plan(heights, epsilon);
            if candidate.final_ratio < best.final_ratio {
                best = candidate;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legal_range_opens_at_inequality_12() {
        assert!(epsilon_range(2000.0).is_none());
        let (low, high) = epsilon_range(2300.0).unwrap();
        assert!(low <= high);
        let (low, high) = epsilon_range(1e7).unwrap();
        // ((log2 1e7)^14 / 1e7)^(1/6) ≈ 105, μ_max (log2 1e7)^2 ≈ 334.
        assert!((low - 105.0).abs() < 2.0, "{low}");
        assert!((high - 334.0).abs() < 2.0, "{high}");
        assert!(epsilon_range(1.0).is_none());
        assert!(epsilon_range(f64::NAN).is_none());
    }

    #[test]
    fn every_round_raises_the_smallest_height_and_boxes_fit_their_class() {
        let heights: Vec<u64> = (0..24).map(|e| 1u64 << e).collect();
        let (low, high) = epsilon_range((1u64 << 23) as f64).unwrap();
        for step in 0..=10 {
            let epsilon = low + (high - low) * step as f64 / 10.0;
            let schedule = Schedule::plan(&heights, epsilon);
            let mut lowest = 1u64;
            for round in &schedule.rounds {
                assert!(round.mu > 0.0 && round.mu <= MU_MAX);
                assert!(round.threshold >= lowest, "a round that boxes nothing");
                // The largest rounded height (below (1 + μ) μH) still fits a box of height H.
                assert!((1.0 + round.mu) * round.threshold as f64 <= round.box_height as f64);
                lowest = round.threshold + 1;
            }
            let last = schedule.last;
            assert!(last.mu > 0.0 && last.mu <= MU_MAX);
            // Inequality 10: the largest job, rounded up by (1 + μ*), fits a box of h_max / μ*.
            assert!((1.0 + last.mu) * (1u64 << 23) as f64 <= last.box_height as f64 + 1.0);
        }
    }

    #[test]
    fn calibration_never_ends_with_a_larger_ratio_than_the_low_end() {
        let heights = [4u64, 8, 100, 5000, 70_000, 51_380_224];
        let range = epsilon_range(51_380_224.0 / 4.0).unwrap();
        let calibrated = Schedule::calibrated(&heights, range);
        assert!(calibrated.final_ratio <= Schedule::plan(&heights, range.0).final_ratio);
        assert!(calibrated.epsilon >= range.0 && calibrated.epsilon <= range.1);
    }

    #[test]
    fn one_height_needs_no_round() {
        let schedule = Schedule::plan(&[64], 0.5);
        assert!(schedule.rounds.is_empty());
        assert_eq!(schedule.last.mu, MU_MAX);
        assert_eq!(schedule.last.box_height, (64.0 / MU_MAX).ceil() as u64);
    }
}
