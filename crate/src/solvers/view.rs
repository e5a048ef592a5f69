//! What a solver is given: the problem as it can use it. Two cases need a view rather than the
//! problem itself, and both are handled here, once, for every solver:
//! - gaps, for a solver that cannot use them ([`Capabilities::gaps`]): it plans the buffers' hulls
//!   (alive over the whole lifetime, with the whole size). A plan of the hulls is a plan of the
//!   buffers, only looser, but what it proves of the hulls (a bound, infeasibility) is no proof
//!   for the buffers, so it is dropped. A solver that uses gaps but not windows
//!   ([`Capabilities::windows`]) is given windowed gaps as alive, with the same consequence;
//! - zero-size buffers, which occupy nothing: they are left out of the search and placed at their
//!   pinned offset, or 0. What is proven without them holds with them: they add no conflict, and
//!   a pinned one only its offset, already in the instance's own bound.

use std::sync::Arc;

use super::Capabilities;
use crate::model::{Buffer, Outcome, Plan, Problem, Stopped};
use crate::options::SolveOptions;
use crate::validate;

/// A problem a solver can use in place of the caller's, and how to bring its outcome back.
pub struct View {
    pub problem: Problem,
    pub options: SolveOptions,
    /// The caller's index of each buffer of the view.
    kept: Vec<usize>,
    /// The view's buffers occupy more than the caller's (hulls, or windowed gaps made alive):
    /// its plans are plans of the problem, but nothing the solver proves carries over.
    tighter: bool,
}

impl View {
    /// The view `capabilities` need of `problem`, or `None` when the solver can use it as it is;
    /// `Err` when the view has more bytes alive at once than 64 bits hold (hulls of huge buffers
    /// that only their gaps kept apart), which such a solver cannot plan.
    pub fn of(problem: &Problem, options: &SolveOptions, capabilities: Capabilities) -> Result<Option<View>, String> {
        let hull = problem.has_gaps() && !capabilities.gaps;
        let has_windows = problem.buffers().iter().any(|b| b.gaps.iter().any(|g| g.window.is_some()));
        let unwindow = has_windows && !capabilities.windows && !hull;
        let has_empty = problem.buffers().iter().any(|b| b.size == 0);
        if !hull && !unwindow && !has_empty {
            return Ok(None);
        }
        let kept: Vec<usize> = (0..problem.len()).filter(|&i| problem.buffers()[i].size > 0).collect();
        let view_of = |buffer: &Buffer| {
            if hull {
                buffer.hull()
            } else if unwindow {
                let gaps = buffer.gaps.iter().copied().filter(|g| g.window.is_none()).collect();
                buffer.clone().with_gaps(gaps)
            } else {
                buffer.clone()
            }
        };
        let buffers = kept.iter().map(|&i| view_of(&problem.buffers()[i])).collect();
        // A subset of a valid problem's buffers is valid; their hulls may have a load past u64.
        let mut view = Problem::new(buffers, problem.capacity())
            .map_err(|errors| format!("this planner does not use gaps, and without them {errors}"))?;
        view.set_semantics(problem.semantics());
        let mut options = options.clone();
        // The start plan, restricted to the view; dropped when it is not a plan of the view (a plan
        // that uses gaps is no plan of the hulls).
        options.start = options.start.take().and_then(|start| {
            let offsets: Vec<u64> = kept.iter().map(|&i| start.offsets.get(i).copied()).collect::<Option<_>>()?;
            validate::validate(&view, &offsets, None)
                .is_valid()
                .then(|| Arc::new(Plan::new(&view, offsets, Vec::new())))
        });
        Ok(Some(View { problem: view, options, kept, tighter: hull || unwindow }))
    }

    /// The view's outcome as an outcome of `problem`: the plan with every buffer back in place (a
    /// zero-size one at its pinned offset or 0), and, for hulls, only what holds for the buffers.
    pub fn lift(&self, problem: &Problem, mut outcome: Outcome) -> Outcome {
        if let Some(plan) = outcome.plan.take() {
            let mut offsets: Vec<u64> = problem.buffers().iter().map(|b| b.pinned.unwrap_or(0)).collect();
            for (&i, &offset) in self.kept.iter().zip(&plan.offsets) {
                offsets[i] = offset;
            }
            let order = plan.placement_order.iter().map(|&k| self.kept[k]).collect();
            outcome.plan = Some(Plan::new(problem, offsets, order));
        }
        if self.tighter {
            outcome.lower_bound = problem.lower_bound();
            match outcome.stopped {
                Stopped::Optimal | Stopped::LowerBound | Stopped::Infeasible => {
                    outcome.stopped = Stopped::Completed;
                    outcome.detail = Some(
                        "planned with the buffers alive over their gaps (this planner does not use them all): \
                         nothing is proven for the buffers themselves"
                            .to_string(),
                    );
                }
                _ => {}
            }
        }
        outcome.settle(problem);
        outcome
    }
}
