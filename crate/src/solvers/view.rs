//! What a solver is given: the problem as it can use it. Three cases need a view rather than the
//! problem itself, and all are handled here, once, for every solver:
//! - gaps, for a solver that cannot use them ([`Capabilities::gaps`]): it plans the buffers' hulls
//!   (alive over the whole lifetime, with the whole size). A plan of the hulls is a plan of the
//!   buffers, only looser, but what it proves of the hulls (a bound, infeasibility) is no proof
//!   for the buffers, so it is dropped. A solver that uses gaps but not windows
//!   ([`Capabilities::windows`]) is given windowed gaps as alive, with the same consequence;
//! - pinned buffers with gaps, which do not move: each of their live pieces is given as a pinned
//!   buffer of its own, exactly where it is ([`PinnedPieces`]), since two pinned hulls may meet
//!   where the pieces do not, and the pins then determine a plan that the hulls refuse;
//! - buffers that occupy nothing, zero-size or never alive (gaps over the whole lifetime): they
//!   are left out of the search and placed at their pinned offset, or 0. What is proven without
//!   them holds with them: they add no conflict, and only their top (a pinned one's offset + size,
//!   an unpinned one's size at 0) to the makespan, which the instance's own bound includes. A
//!   solver that reproduces a compiler which counts zero-size buffers
//!   ([`Capabilities::zero_size`]) is given them.

use std::sync::Arc;

use super::capabilities::Capabilities;
use crate::model::{Buffer, Outcome, Plan, Problem, Stopped};
use crate::options::SolveOptions;
use crate::validate;

/// A problem a solver can use in place of the caller's, and how to bring its outcome back.
pub(super) struct View {
    pub problem: Problem,
    pub options: SolveOptions,
    /// The caller's index of each buffer of the view (a pinned buffer's pieces share it).
    owner: Vec<usize>,
    /// The view's buffers occupy more than the caller's (hulls, or windowed gaps made alive):
    /// its plans are plans of the problem, but nothing the solver proves carries over.
    tighter: bool,
}

/// How a view gives each buffer to a solver.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// As it is.
    Whole,
    /// Its hull: alive over its whole lifetime, with its whole size.
    Hull,
    /// Its windowed gaps made alive (plain gaps kept).
    Unwindowed,
}

impl View {
    /// The view `capabilities` need of `problem`, or `None` when the solver can use it as it is;
    /// `Err` when the view has more bytes alive at once than 64 bits hold (hulls of huge buffers
    /// that only their gaps kept apart), which such a solver cannot plan.
    pub(super) fn of(
        problem: &Problem,
        options: &SolveOptions,
        capabilities: Capabilities,
    ) -> Result<Option<View>, String> {
        let buffers = problem.buffers();
        let hull = problem.has_gaps() && !capabilities.gaps;
        let has_windows = buffers.iter().any(|b| b.gaps.iter().any(|g| g.window.is_some()));
        let shape = if hull {
            Shape::Hull
        } else if has_windows && !capabilities.windows {
            Shape::Unwindowed
        } else {
            Shape::Whole
        };
        let occupies_nothing =
            |b: &Buffer| (b.size == 0 && !capabilities.zero_size) || (b.has_gaps() && b.pieces().is_empty());
        let changes = |b: &Buffer| match shape {
            Shape::Whole => false,
            Shape::Hull => b.has_gaps(),
            Shape::Unwindowed => b.gaps.iter().any(|g| g.window.is_some()),
        };
        if !buffers.iter().any(|b| occupies_nothing(b) || changes(b)) {
            return Ok(None);
        }
        let mut view_buffers = Vec::with_capacity(buffers.len());
        let mut owner = Vec::with_capacity(buffers.len());
        let mut tighter = false;
        for (i, buffer) in buffers.iter().enumerate() {
            if occupies_nothing(buffer) {
                continue;
            }
            if !changes(buffer) {
                view_buffers.push(buffer.clone());
                owner.push(i);
            } else if let Some(offset) = buffer.pinned {
                for piece in pieces_pinned(buffer, offset) {
                    view_buffers.push(piece);
                    owner.push(i);
                }
            } else {
                tighter = true;
                view_buffers.push(match shape {
                    Shape::Unwindowed => {
                        let gaps = buffer.gaps.iter().copied().filter(|g| g.window.is_none()).collect();
                        buffer.clone().with_gaps(gaps)
                    }
                    Shape::Hull | Shape::Whole => buffer.hull(),
                });
                owner.push(i);
            }
        }
        // A subset of a valid problem's buffers, and pieces of them, is valid; their hulls may
        // have a load past u64.
        let mut view = Problem::new(view_buffers, problem.capacity())
            .map_err(|errors| format!("this planner does not use gaps, and without them {errors}"))?;
        view.set_semantics(problem.semantics());
        let mut options = options.clone();
        // The start plan, in the view's terms; dropped when it is not a plan of the view (a plan
        // that uses gaps is no plan of the hulls).
        options.start = options.start.take().and_then(|start| {
            let offsets = view_offsets(problem, &view, &owner, &start.offsets)?;
            validate::validate(&view, &offsets, None)
                .is_valid()
                .then(|| Arc::new(Plan::new(&view, offsets, Vec::new())))
        });
        Ok(Some(View { problem: view, options, owner, tighter }))
    }

    /// The view's outcome as an outcome of `problem`: the plan with every buffer back in place (one
    /// that occupies nothing at its pinned offset or 0, a pinned one at its pin), and, for hulls,
    /// only what holds for the buffers.
    pub(super) fn lift(&self, problem: &Problem, mut outcome: Outcome) -> Outcome {
        if let Some(plan) = outcome.plan.take() {
            let (offsets, order) = lift_offsets(problem, &self.owner, &plan.offsets, &plan.placement_order);
            outcome.plan = Some(Plan::new(problem, offsets, order));
        }
        // A capacity the instance itself refutes (a buffer left out of the view is larger, or
        // pinned above it): the answer is that proof, as the solver given the whole problem
        // gives it, without the view's plan, which cannot fit.
        if outcome.capacity.is_some_and(|capacity| problem.lower_bound() > capacity) {
            outcome.plan = None;
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

/// A problem with every pinned buffer that has gaps given as its live pieces, each a pinned
/// buffer without gaps, for a planner that places buffers by their lifetimes (the greedy ones):
/// it then honours the pins exactly (pinned hulls may meet where the pieces do not) and plans the
/// other buffers' hulls as before.
pub(super) struct PinnedPieces {
    pub problem: Problem,
    owner: Vec<usize>,
    /// The view's index of each unpinned buffer of the caller's.
    index: Vec<usize>,
}

impl PinnedPieces {
    /// `None` when no pinned buffer has gaps (the problem serves as it is).
    pub(super) fn of(problem: &Problem) -> Option<PinnedPieces> {
        let buffers = problem.buffers();
        if !buffers.iter().any(|b| b.pinned.is_some() && b.has_gaps()) {
            return None;
        }
        let mut view_buffers = Vec::with_capacity(buffers.len());
        let mut owner = Vec::with_capacity(buffers.len());
        let mut index = vec![usize::MAX; buffers.len()];
        for (i, buffer) in buffers.iter().enumerate() {
            match buffer.pinned {
                Some(offset) if buffer.has_gaps() => {
                    for piece in pieces_pinned(buffer, offset) {
                        view_buffers.push(piece);
                        owner.push(i);
                    }
                }
                _ => {
                    index[i] = view_buffers.len();
                    view_buffers.push(buffer.clone());
                    owner.push(i);
                }
            }
        }
        // Pieces of a valid problem's buffers, each within its buffer's bytes and lifetime: the load
        // is the problem's at most, and every other check passes as the buffer's did.
        let mut view = Problem::new(view_buffers, problem.capacity()).ok()?;
        view.set_semantics(problem.semantics());
        Some(PinnedPieces { problem: view, owner, index })
    }

    /// `order` (the caller's indices) as the view's, pinned buffers left out (they are placed
    /// first anyway).
    pub(super) fn order(&self, order: &[u32]) -> Vec<u32> {
        // (The pass numbers the view's buffers by u32, as it does any problem's.)
        order.iter().map(|&i| self.index[i as usize]).filter(|&k| k != usize::MAX).map(|k| k as u32).collect()
    }

    /// The view's offsets and placement order as the caller's.
    pub(super) fn lift(&self, problem: &Problem, offsets: &[u64], order: &[usize]) -> (Vec<u64>, Vec<usize>) {
        lift_offsets(problem, &self.owner, offsets, order)
    }
}

/// `buffer`'s live pieces as pinned buffers without gaps, each at `offset` + its lower byte. A
/// pinned buffer does not move, so its pieces occupy exactly what it does. (Alignment 1: a piece
/// of a window need not start at a multiple of its buffer's alignment, and its place is fixed.)
fn pieces_pinned(buffer: &Buffer, offset: u64) -> impl Iterator<Item = Buffer> + '_ {
    buffer.pieces().into_iter().enumerate().map(move |(k, piece)| {
        // An id that reads well where a clash of pins names it, and that no input is likely to hold.
        let id = format!("{} (live piece {})", buffer.id, k + 1);
        let mut part =
            Buffer::new(id, piece.start, piece.end, piece.upper - piece.lower).pinned_at(offset + piece.lower); // within offset + size, which Problem::new checked
        part.set_line(buffer.line());
        part
    })
}

/// The offsets of the caller's plan `offsets` for each view buffer (a pinned piece at its pin plus
/// its lower byte); `None` when the plan is too short or a piece's offset passes u64.
fn view_offsets(problem: &Problem, view: &Problem, owner: &[usize], offsets: &[u64]) -> Option<Vec<u64>> {
    owner
        .iter()
        .zip(view.buffers())
        .map(|(&i, part)| {
            let offset = *offsets.get(i)?;
            match (problem.buffers()[i].pinned, part.pinned) {
                // A piece: its place relative to its buffer's pin.
                (Some(pin), Some(at)) => offset.checked_add(at - pin),
                _ => Some(offset),
            }
        })
        .collect()
}

/// The caller's offsets from a view's: an unpinned buffer where the view put it, every other at
/// its pin, or 0; the placement order with each buffer once, where it first appears.
fn lift_offsets(problem: &Problem, owner: &[usize], offsets: &[u64], order: &[usize]) -> (Vec<u64>, Vec<usize>) {
    let buffers = problem.buffers();
    let mut lifted: Vec<u64> = buffers.iter().map(|b| b.pinned.unwrap_or(0)).collect();
    for (&i, &offset) in owner.iter().zip(offsets) {
        if buffers[i].pinned.is_none() {
            lifted[i] = offset;
        }
    }
    let mut seen = vec![false; buffers.len()];
    let order = order.iter().map(|&k| owner[k]).filter(|&i| !std::mem::replace(&mut seen[i], true)).collect();
    (lifted, order)
}
