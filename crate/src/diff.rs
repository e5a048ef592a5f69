//! Two plans of one instance side by side: a plan read from a file matched to the instance's
//! buffers by id ([`plan_for`]), and what changed from one plan to the other ([`PlanDiff`]: the
//! peaks, the bytes saved, the buffers that moved). The CLI's `diff` and `solve --warm`, and the
//! page's model comparison, all read plans through here.

use std::collections::HashMap;

use serde::Serialize;

use crate::model::{Problem, wire};
use crate::validate;

/// Why a plan cannot be used for an instance: a buffer missing or different, or the plan invalid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanMismatch {
    /// The plan file has no offset for every buffer (no `offset` column, or blanks in it).
    #[error("it is not a plan: not every buffer has an offset")]
    NoOffsets,
    /// A buffer of the instance that the plan does not have, by id.
    #[error("the plan has no buffer {0}")]
    Missing(String),
    /// A buffer of the plan that the instance does not have, by id.
    #[error("the plan has a buffer {0} that the instance does not")]
    Extra(String),
    /// The same id with another size or lifetime.
    #[error("buffer {id} is {found} in the plan but {expected} in the instance")]
    Differs { id: String, expected: String, found: String },
    /// The offsets break a rule of the instance (an overlap, an alignment, a pinned offset).
    #[error("the plan is not valid for the instance: {0}")]
    Invalid(String),
}

/// The offsets of a plan read from a file (its own problem and an offset per buffer, or `None`
/// when the file has none) for `problem`'s buffers, matched by id. Every buffer must be in the
/// plan with the same size and lifetime, and the offsets must pass the validator (no capacity).
///
/// ```
/// use memplan::diff::{PlanMismatch, plan_for};
/// use memplan::{Buffer, Problem};
///
/// let problem = Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4)], None).unwrap();
/// // The plan's file lists the buffers in another order.
/// let file = Problem::new(vec![Buffer::new("b", 1, 3, 4), Buffer::new("a", 0, 2, 4)], None).unwrap();
/// assert_eq!(plan_for(&problem, &file, Some(&[4, 0])), Ok(vec![0, 4]));
/// assert!(matches!(plan_for(&problem, &file, None), Err(PlanMismatch::NoOffsets)));
/// ```
pub fn plan_for(problem: &Problem, plan: &Problem, offsets: Option<&[u64]>) -> Result<Vec<u64>, PlanMismatch> {
    let offsets = offsets.filter(|o| o.len() == plan.len()).ok_or(PlanMismatch::NoOffsets)?;
    let by_id: HashMap<&str, usize> = plan.buffers().iter().enumerate().map(|(i, b)| (b.id.as_str(), i)).collect();
    let mut found = Vec::with_capacity(problem.len());
    for buffer in problem.buffers() {
        let index = *by_id.get(buffer.id.as_str()).ok_or_else(|| PlanMismatch::Missing(buffer.id.to_string()))?;
        let theirs = &plan.buffers()[index];
        let shape = |b: &crate::Buffer| format!("{} bytes over [{}, {})", b.size, b.start, b.end);
        if (theirs.size, theirs.start, theirs.end) != (buffer.size, buffer.start, buffer.end) {
            return Err(PlanMismatch::Differs {
                id: buffer.id.to_string(),
                expected: shape(buffer),
                found: shape(theirs),
            });
        }
        found.push(offsets[index]);
    }
    if plan.len() > problem.len() {
        let ours: HashMap<&str, ()> = problem.buffers().iter().map(|b| (b.id.as_str(), ())).collect();
        if let Some(extra) = plan.buffers().iter().find(|b| !ours.contains_key(b.id.as_str())) {
            return Err(PlanMismatch::Extra(extra.id.to_string()));
        }
    }
    check(problem, &found)?;
    Ok(found)
}

/// The offsets pass the validator for `problem` (no capacity): the first violation otherwise.
pub fn check(problem: &Problem, offsets: &[u64]) -> Result<(), PlanMismatch> {
    let report = validate::validate(problem, offsets, None);
    match report.violations.first() {
        Some(violation) => Err(PlanMismatch::Invalid(violation.describe(problem))),
        None => Ok(()),
    }
}

/// A buffer at another offset in plan B than in plan A.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MovedBuffer {
    /// Its index in the instance.
    pub index: usize,
    pub id: String,
    pub name: Option<String>,
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub size: u64,
    /// Its offset in plan A.
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub from: u64,
    /// Its offset in plan B.
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub to: u64,
}

/// What plan B changes from plan A on one instance (A is the reference, e.g. the compiler's plan;
/// B the candidate, e.g. memplan's). Integers follow `wire`'s rule.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PlanDiff {
    pub buffers: usize,
    /// The most bytes alive at once (L): no plan's peak is lower.
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub max_load: u64,
    /// Plan A's peak address (its makespan).
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub peak_a: u64,
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub peak_b: u64,
    /// peak_a − peak_b: negative when B needs more.
    #[serde(serialize_with = "wire::serialize_i128")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub saved_bytes: i128,
    /// `saved_bytes` as a percentage of peak_a (0 when peak_a is 0).
    #[serde(serialize_with = "wire::serialize_f64")]
    pub saved_pct: f64,
    /// How many buffers are at another offset in B.
    pub moved: usize,
    /// Those buffers, in instance order.
    pub moved_buffers: Vec<MovedBuffer>,
}

impl PlanDiff {
    /// The difference of two plans of `problem` (an offset per buffer each; check them first with
    /// [`check`] or [`plan_for`]).
    ///
    /// ```
    /// use memplan::diff::PlanDiff;
    /// use memplan::{Buffer, Problem};
    ///
    /// let problem = Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4)], None).unwrap();
    /// let diff = PlanDiff::new(&problem, &[0, 8], &[0, 4]);
    /// assert_eq!((diff.peak_a, diff.peak_b, diff.saved_bytes), (12, 8, 4));
    /// assert_eq!(diff.moved, 1);
    /// assert_eq!(diff.moved_buffers[0].id, "b");
    /// ```
    pub fn new(problem: &Problem, a: &[u64], b: &[u64]) -> PlanDiff {
        let peak_a = crate::model::load::makespan(problem.buffers(), a);
        let peak_b = crate::model::load::makespan(problem.buffers(), b);
        let saved_bytes = peak_a as i128 - peak_b as i128;
        let moved_buffers: Vec<MovedBuffer> = problem
            .buffers()
            .iter()
            .enumerate()
            .filter(|&(i, _)| a.get(i) != b.get(i))
            .map(|(index, buffer)| MovedBuffer {
                index,
                id: buffer.id.to_string(),
                name: buffer.name.clone(),
                size: buffer.size,
                from: a.get(index).copied().unwrap_or(0),
                to: b.get(index).copied().unwrap_or(0),
            })
            .collect();
        PlanDiff {
            buffers: problem.len(),
            max_load: problem.max_load(),
            peak_a,
            peak_b,
            saved_bytes,
            saved_pct: if peak_a == 0 { 0.0 } else { 100.0 * saved_bytes as f64 / peak_a as f64 },
            moved: moved_buffers.len(),
            moved_buffers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Buffer;

    fn problem() -> Problem {
        Problem::new(
            vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4).named("t1"), Buffer::new("c", 2, 4, 4)],
            None,
        )
        .unwrap()
    }

    #[test]
    fn a_plan_is_matched_by_id_whatever_its_order() {
        let p = problem();
        let reordered =
            Problem::new(vec![Buffer::new("c", 2, 4, 4), Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4)], None)
                .unwrap();
        assert_eq!(plan_for(&p, &reordered, Some(&[0, 0, 4])), Ok(vec![0, 4, 0]));
    }

    #[test]
    fn a_plan_of_other_buffers_or_an_invalid_one_is_refused_by_name() {
        let p = problem();
        let short = Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4)], None).unwrap();
        assert_eq!(plan_for(&p, &short, Some(&[0, 4])), Err(PlanMismatch::Missing("c".into())));
        let bigger =
            Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 8), Buffer::new("c", 2, 4, 4)], None)
                .unwrap();
        assert!(matches!(plan_for(&p, &bigger, Some(&[0, 4, 0])), Err(PlanMismatch::Differs { id, .. }) if id == "b"));
        assert!(matches!(plan_for(&p, &p, Some(&[0, 0, 0])), Err(PlanMismatch::Invalid(_))));
        assert_eq!(plan_for(&p, &p, None), Err(PlanMismatch::NoOffsets));
    }

    #[test]
    fn the_diff_counts_bytes_saved_and_buffers_moved() {
        let p = problem();
        let diff = PlanDiff::new(&p, &[0, 4, 8], &[0, 4, 0]);
        assert_eq!((diff.peak_a, diff.peak_b, diff.saved_bytes, diff.moved), (12, 8, 4, 1));
        assert!((diff.saved_pct - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(diff.moved_buffers[0].id, "c");
        let json = serde_json::to_string(&PlanDiff::new(&p, &[0, 4, 0], &[0, 4, 8])).unwrap();
        assert!(json.contains(r#""saved_bytes":-4"#), "{json}");
    }
}
