//! The window bound: the buffers alive in a short stretch of time, their lifetimes cut
//! to it, form a small instance of their own, and its optimum bounds the whole instance's from
//! below.
//!
//! Why it is a bound: a plan of the whole instance, kept to the buffers alive in the window
//! `[t0, t1)`, places them without overlap wherever two are alive together inside the window (cut
//! lifetimes only drop conflicts), so it is a plan of the cut instance, no higher. So no plan of
//! the whole fits a capacity that the cut instance does not fit, and a refutation of the cut
//! instance (with the range of capacities it proves, [`super::Report::refuted_below`]) refutes the
//! whole.
//!
//! Why it helps: on random aligned instances of 20 to 30 buffers the optimum often sits above
//! every one-section stacking bound because of eight to fourteen buffers over a few consecutive
//! sections: the buffers alive in two neighbouring sections must sit at the same offset in both,
//! which no single section sees. The canonical search of the whole instance refutes the capacity
//! below the optimum only by walking every placement of the other buffers too (seconds), while the
//! same search on the cut instance refutes it in well under a millisecond.
//!
//! Which windows: every run of `width` consecutive sections, widths growing from two, as long as
//! a window holds at most [`MAX_WINDOW_BUFFERS`] unpinned buffers. Two windows whose buffers conflict in
//! the same pairs are the same instance (a plan is valid exactly when conflicting buffers do not
//! overlap), so each is solved once. The windows with the highest greedy plans go first (they are
//! the likeliest to need much). A window whose greedy plan already fits the bound cannot raise it
//! and is skipped; any other is probed from the top down, each probe just below its lowest plan,
//! until a probe refutes (the window needs that plan's height), a plan fits the bound (the window
//! cannot raise it) or its node budget ends.
//!
//! Searched once per problem: each window's probes are kept in the problem's memo
//! ([`Problem::memo`]), keyed by the window and what its probe was asked, so a run's solvers (the
//! stacking solver in `auto`'s first phase or in the warm start, then MiniMalloc) search each
//! window once. A window answered from the memo still counts the nodes its search took: the bound
//! and the nodes a run counts are then the same whichever solver ran before on the same problem,
//! and so are the answers of budgeted runs.

use std::collections::{HashMap, HashSet};

use super::feasibility::{Decider, Decision, Prepared, Settings};
use crate::model::{Buffer, Problem, Semantics};
use crate::options::{CancelFlag, Deadline};
use crate::solvers::greedy::best_quick_pass;

/// Above this many buffers the instance is not cut into windows: the bound is for small instances,
/// where a few windows are the hard core, and its cost grows with the sections times the widths.
pub(super) const MAX_BUFFERS: usize = 64;

/// The most unpinned buffers one window's instance may have (its search must stay cheap).
pub(super) const MAX_WINDOW_BUFFERS: usize = 16;

/// The node budget of one window's probes together.
const WINDOW_NODES: u64 = 20_000;

/// What the window bound found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct WindowBound {
    /// The bound: at least the `known` one it was given.
    pub bound: u64,
    /// The window that raised it last: `[t0, t1)` and how many buffers are alive in it.
    pub window: Option<(u64, u64, usize)>,
    /// Windows searched (not skipped), and the nodes their searches took.
    pub searched: u64,
    pub nodes: u64,
    /// Of the windows searched, those whose probes an earlier solver of the same problem had
    /// searched: their answers and nodes came from the memo (see [`window_bound`]).
    pub reused: u64,
}

impl WindowBound {
    /// Why no plan fits below the bound, in words, with the window's times as the input wrote
    /// them (`semantics`, [`Problem::semantics`]).
    pub(crate) fn detail(&self, semantics: Semantics) -> Option<String> {
        let (t0, t1, count) = self.window?;
        Some(format!(
            "the exact search proved that the {count} buffers alive in {}, their lifetimes cut to that window, alone need {} bytes",
            semantics.interval(t0, t1),
            self.bound
        ))
    }
}

/// The window probes searched for one problem, kept in its memo ([`Problem::memo`]): per
/// settings of the windows' searches, the answer of each probe by what it was asked.
#[derive(Default)]
struct Searched(Vec<(Settings, Probes)>);

/// The answers of window probes: the refuted bound and the nodes spent, by what was asked.
type Probes = HashMap<ProbeKey, (u64, u64)>;

/// What decides a window probe's answer: the window (its buffers and which pairs conflict, see
/// [`conflict_key`]), the bound it starts from, the greedy plan's makespan and the probe's node
/// budget. The search is deterministic, so the same key gives the same refuted bound and nodes.
#[derive(Clone, PartialEq, Eq, Hash)]
struct ProbeKey {
    window: Vec<u64>,
    from: u64,
    upper: u64,
    target: u64,
    nodes: u64,
}

/// At most this many settings are kept per problem (a run uses one or two).
const MAX_SETTINGS: usize = 4;

/// The settings the windows are searched with: the caller's, without the window bound itself
/// (a window is not cut again) and without a total budget (each probe gets its nodes).
fn window_settings(settings: &Settings) -> Settings {
    Settings { rules: super::Rules { windows: false, ..settings.rules }, budget: u64::MAX, ..*settings }
}

/// The window bound of `problem`, starting from the proven `known` and stopping once it reaches
/// `target` (nothing above it is asked for), the node `budget` is spent or `deadline` passes.
/// Instances with gaps (whose pieces would need cutting too) or with more than [`MAX_BUFFERS`]
/// buffers get `known` back.
///
/// Each window's probes are searched once per problem (see [`Searched`]): a probe asked again
/// takes its answer and its node count from the memo, so the result is the one a first
/// computation would give, and `reused` counts the windows answered that way. A probe that the
/// deadline cut short is not kept (its answer depends on timing).
pub(crate) fn window_bound(
    problem: &Problem,
    known: u64,
    target: u64,
    settings: &Settings,
    budget: u64,
    deadline: &Deadline,
) -> WindowBound {
    let settings = window_settings(settings);
    let mut found = WindowBound { bound: known, ..WindowBound::default() };
    let buffers = problem.buffers();
    if buffers.len() > MAX_BUFFERS
        || buffers.len() < 3
        || buffers.iter().any(Buffer::has_gaps)
        || known >= target
        || budget == 0
    {
        return found;
    }
    let mut times: Vec<u64> = buffers.iter().flat_map(|b| [b.start, b.end]).collect();
    times.sort_unstable();
    times.dedup();
    let windows = candidate_windows(problem, &times);
    for Window { t0, t1, members, key, instance, greedy } in windows {
        if found.bound >= target || found.nodes >= budget || deadline.expired().is_some() {
            return found;
        }
        // A window whose greedy plan already fits the bound cannot raise it.
        if greedy <= found.bound {
            continue;
        }
        found.searched += 1;
        let left = (budget - found.nodes).min(WINDOW_NODES);
        let key = ProbeKey { window: key, from: found.bound, upper: greedy, target, nodes: left };
        let kept = problem.memo().with(|searched: &mut Searched| {
            searched.0.iter().find(|(s, _)| *s == settings).and_then(|(_, probes)| probes.get(&key).copied())
        });
        let (refuted, nodes) = match kept {
            Some(answer) => {
                found.reused += 1;
                answer
            }
            None => {
                let answer = refute_from(&instance, found.bound, greedy, target, &settings, left, deadline);
                if deadline.expired().is_none() {
                    keep(problem, &settings, key, answer);
                }
                answer
            }
        };
        found.nodes += nodes;
        if refuted > found.bound {
            found.bound = refuted;
            found.window = Some((t0, t1, members));
        }
    }
    found
}

/// One window to search: its times, how many buffers are alive in it, its conflict key
/// ([`conflict_key`]), its buffers with their lifetimes cut to it, and its greedy plan's makespan.
struct Window {
    t0: u64,
    t1: u64,
    members: usize,
    key: Vec<u64>,
    instance: Problem,
    greedy: u64,
}

/// Every run of at least two consecutive sections (`times` are the section boundaries) with at
/// most [`MAX_WINDOW_BUFFERS`] unpinned buffers, each set of conflicts once, the highest greedy
/// plans first (then the narrowest windows, then the earliest): a window whose greedy plan is
/// high is likely to need much, and once the bound is up the windows whose greedy plans fit it
/// are skipped without a search.
fn candidate_windows(problem: &Problem, times: &[u64]) -> Vec<Window> {
    let buffers = problem.buffers();
    let sections = times.len().saturating_sub(1);
    let mut seen: HashSet<Vec<u64>> = HashSet::new();
    let mut windows = Vec::new();
    for width in 2..sections {
        let mut any_small = false;
        for i in 0..sections - width + 1 {
            let (t0, t1) = (times[i], times[i + width]);
            let members: Vec<usize> =
                (0..buffers.len()).filter(|&j| buffers[j].start < t1 && t0 < buffers[j].end).collect();
            // Pinned buffers are fixed obstacles to the window's search, not searched: only the
            // others make it costly.
            if members.iter().filter(|&&j| buffers[j].pinned.is_none()).count() > MAX_WINDOW_BUFFERS {
                continue;
            }
            any_small = true;
            let cut: Vec<Buffer> = members
                .iter()
                .map(|&j| {
                    let b = &buffers[j];
                    let mut piece = b.clone();
                    piece.start = b.start.max(t0);
                    piece.end = b.end.min(t1);
                    piece
                })
                .collect();
            let key = conflict_key(&members, &cut);
            if !seen.insert(key.clone()) {
                continue;
            }
            let Ok(instance) = Problem::new(cut, None) else { continue };
            let Ok(greedy) = best_quick_pass(&instance, &CancelFlag::new()) else { continue };
            windows.push(Window { t0, t1, members: members.len(), key, instance, greedy: greedy.makespan });
        }
        if !any_small {
            break;
        }
    }
    // A stable sort: among equal greedy plans the narrower window, then the earlier, goes first.
    windows.sort_by_key(|w| std::cmp::Reverse(w.greedy));
    windows
}

/// Keeps a probe's answer in the problem's memo.
fn keep(problem: &Problem, settings: &Settings, key: ProbeKey, answer: (u64, u64)) {
    problem.memo().with(|searched: &mut Searched| {
        let at = match searched.0.iter().position(|(s, _)| s == settings) {
            Some(at) => at,
            None => {
                if searched.0.len() >= MAX_SETTINGS {
                    searched.0.remove(0);
                }
                searched.0.push((*settings, HashMap::new()));
                searched.0.len() - 1
            }
        };
        searched.0[at].1.insert(key, answer);
    });
}

/// The buffers of a window and which pairs of them are alive together there: what decides its
/// optimum.
fn conflict_key(members: &[usize], cut: &[Buffer]) -> Vec<u64> {
    let mut key: Vec<u64> = members.iter().map(|&j| j as u64).collect();
    for (a, x) in cut.iter().enumerate() {
        let mut row = 0u64;
        for (b, y) in cut.iter().enumerate().skip(a + 1) {
            if x.start < y.end && y.start < x.end {
                row |= 1 << b;
            }
        }
        key.push(row);
    }
    key
}

/// The least capacity `window` may fit, as far as it matters: whether it is above `from`, up to
/// `target`. Probes descend from the lowest plan known (`upper` at first, the greedy plan's, or
/// `target` when that is lower): each probe just below it either finds a lower plan (cheap on
/// small windows, and the next probe goes just below that) or refutes that capacity, and with it
/// everything below, in one search; it stops once a plan fits `from`, a refutation settles the
/// window, a probe stops without an answer or `nodes` run out. A refutation from below would
/// need one proof per capacity refuted (or a bisection's proofs half way up), each nearly as
/// costly as the one just below the optimum that this descent needs alone. Returns the capacity
/// below which nothing fits (at least `from`) and the nodes spent.
fn refute_from(
    window: &Problem,
    from: u64,
    upper: u64,
    target: u64,
    settings: &Settings,
    nodes: u64,
    deadline: &Deadline,
) -> (u64, u64) {
    let Ok(prepared) = Prepared::new(window, settings) else { return (from, 0) };
    // Nothing fits below `low`; a plan fits `high`.
    let mut low = from.max(window.lower_bound());
    let mut high = upper;
    let mut spent = 0u64;
    while low < high.min(target) && spent < nodes && deadline.expired().is_none() {
        let capacity = high.min(target) - 1;
        let mut decider = Decider::new(window, &prepared, capacity, settings);
        decider.advance(nodes - spent, deadline);
        spent += decider.report.counters.nodes;
        match &decider.report.decision {
            Decision::Infeasible(_) => low = decider.report.refuted_below.max(capacity.saturating_add(1)),
            Decision::Feasible { offsets, .. } => {
                let top = window.buffers().iter().zip(offsets).map(|(b, &o)| o + b.size).max().unwrap_or(0);
                high = high.min(top.max(low));
            }
            Decision::Unknown => break,
        }
    }
    (low.max(from), spent)
}

#[cfg(test)]
mod tests;
