//! What a solve returns: a plan (or none), the proven lower bound, and why the run stopped.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Problem;

/// An offset for every buffer, indexed like [`crate::Problem::buffers`], with the order in which
/// the solver chose them (for replaying a plan) and the makespan they give.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub offsets: Vec<u64>,
    /// Buffer indices in the order the solver placed them (may be empty when unknown).
    pub placement_order: Vec<usize>,
    /// The highest address in use: max over buffers of offset + size.
    pub makespan: u64,
}

impl Plan {
    /// A plan of `problem` with its makespan measured from the offsets.
    pub fn new(problem: &Problem, offsets: Vec<u64>, placement_order: Vec<usize>) -> Self {
        let makespan = super::load::makespan(problem.buffers(), &offsets);
        Plan { offsets, placement_order, makespan }
    }
}

/// A solver statistic: counters stay exact integers, ratios are floats. Statistics are for people
/// and benchmarks; nothing a caller must act on lives in them. In JSON they follow
/// `super::wire`'s rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StatValue {
    Count(
        #[serde(serialize_with = "super::wire::serialize_u64", deserialize_with = "super::wire::deserialize_u64")] u64,
    ),
    Ratio(#[serde(serialize_with = "super::wire::serialize_f64")] f64),
    Text(String),
}

impl From<u64> for StatValue {
    fn from(value: u64) -> Self {
        StatValue::Count(value)
    }
}

impl From<usize> for StatValue {
    fn from(value: usize) -> Self {
        StatValue::Count(value as u64)
    }
}

impl From<f64> for StatValue {
    fn from(value: f64) -> Self {
        StatValue::Ratio(value)
    }
}

impl From<&str> for StatValue {
    fn from(value: &str) -> Self {
        StatValue::Text(value.to_string())
    }
}

impl From<String> for StatValue {
    fn from(value: String) -> Self {
        StatValue::Text(value)
    }
}

/// Named solver statistics (nodes, backtracks, pool buffers, ...), sorted by name for stable output.
pub type Stats = BTreeMap<String, StatValue>;

/// Why a run ended. Every outcome has exactly one; the first two mean the plan is optimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// The plan's makespan meets the bound the instance itself gives (the max load L, a pinned
    /// buffer's top, or an alignment bound): no plan can be lower, and no search was needed to know.
    LowerBound,
    /// A search proved that no plan has a lower makespan than this one.
    Optimal,
    /// A plan within the capacity asked for was found and the run stopped there, as asked: it did
    /// not look for a lower one.
    Fits,
    /// A proof that no plan fits the capacity (a plan, when present, is the best known above it).
    Infeasible,
    /// A heuristic ran its course: one or more greedy passes, no search, so no proof either way.
    Completed,
    /// The plan came with the input (its offsets) and was checked, not searched for. It proves
    /// nothing beyond itself: an invalid one is no plan at all, and a valid one is optimal exactly
    /// when it meets the instance's own bound ([`Outcome::optimal`] says which).
    Given,
    /// The work budget (nodes, steps, iterations) ran out before a proof.
    Budget,
    /// The time limit passed before a proof.
    TimeLimit,
    /// The caller cancelled; the plan, when present, is the best found so far.
    Cancelled,
}

/// How a stop reason reads at a glance: proven (optimal, or fits the capacity as asked), a
/// heuristic's plan (no proof either way), interrupted before a proof (budget, time, cancel), or
/// proven infeasible. A plan that came with the input ([`Stopped::Given`]) is a heuristic's by its
/// reason; its own checks (valid, optimal) say more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum StopGroup {
    Proven,
    Heuristic,
    Interrupted,
    Infeasible,
}

impl StopGroup {
    /// The group's name, as the page and Python spell it.
    pub fn name(self) -> &'static str {
        match self {
            StopGroup::Proven => "proven",
            StopGroup::Heuristic => "heuristic",
            StopGroup::Interrupted => "interrupted",
            StopGroup::Infeasible => "infeasible",
        }
    }
}

impl Stopped {
    /// Every reason, in declaration order: for the edges that mirror the enum in another
    /// language (the Python package's `memplan.Stopped` is checked against it).
    pub const ALL: [Stopped; 9] = [
        Stopped::LowerBound,
        Stopped::Optimal,
        Stopped::Fits,
        Stopped::Infeasible,
        Stopped::Completed,
        Stopped::Given,
        Stopped::Budget,
        Stopped::TimeLimit,
        Stopped::Cancelled,
    ];

    /// The plan's makespan is proven to be the lowest possible.
    pub fn is_optimal(self) -> bool {
        matches!(self, Stopped::LowerBound | Stopped::Optimal)
    }

    /// The run ended before it could prove what it was asked (the plan may still be optimal or
    /// fit: a longer run could tell).
    pub fn is_interrupted(self) -> bool {
        self.group() == StopGroup::Interrupted
    }

    /// Which of the four groups the reason belongs to: the one definition the CLI, the page
    /// (generated into its TypeScript types) and Python (`memplan.Stopped.group`) read.
    ///
    /// ```
    /// use memplan::{StopGroup, Stopped};
    /// assert_eq!(Stopped::Fits.group(), StopGroup::Proven);
    /// assert_eq!(Stopped::TimeLimit.group(), StopGroup::Interrupted);
    /// assert!(Stopped::Optimal.is_optimal() && !Stopped::Fits.is_optimal());
    /// ```
    pub fn group(self) -> StopGroup {
        match self {
            Stopped::LowerBound | Stopped::Optimal | Stopped::Fits => StopGroup::Proven,
            Stopped::Completed | Stopped::Given => StopGroup::Heuristic,
            Stopped::Budget | Stopped::TimeLimit | Stopped::Cancelled => StopGroup::Interrupted,
            Stopped::Infeasible => StopGroup::Infeasible,
        }
    }

    /// The reason in a few words, as the CLI and the page show it next to a result.
    pub fn describe(self, has_plan: bool) -> &'static str {
        match (self, has_plan) {
            (Stopped::LowerBound, _) => "optimal: the plan meets the lower bound",
            (Stopped::Optimal, _) => "optimal, proven by search",
            (Stopped::Fits, _) => "fits the capacity (not minimised further)",
            (Stopped::Infeasible, _) => "proven infeasible: nothing fits the capacity",
            (Stopped::Completed, true) => "best plan of the heuristics (not proven optimal)",
            (Stopped::Completed, false) => "the heuristics found no plan",
            (Stopped::Given, true) => "the input's own plan, checked (not proven optimal)",
            (Stopped::Given, false) => "the input's own plan is invalid: it proves nothing",
            (Stopped::Budget, true) => "best found; the work budget ran out before a proof",
            (Stopped::Budget, false) => "no plan found before the work budget ran out",
            (Stopped::TimeLimit, true) => "best found; the time limit was reached before a proof",
            (Stopped::TimeLimit, false) => "no plan found before the time limit",
            (Stopped::Cancelled, true) => "cancelled: the best plan so far",
            (Stopped::Cancelled, false) => "cancelled before any plan was found",
        }
    }

    /// Of two reasons for one result, the one that says more: a proof beats a plain stop, and a
    /// stop the caller caused (cancel, time) beats one the solver chose (budget, a heuristic's end).
    pub fn stronger(self, other: Stopped) -> Stopped {
        if self.rank() >= other.rank() { self } else { other }
    }

    fn rank(self) -> u8 {
        match self {
            Stopped::Completed | Stopped::Given => 0,
            Stopped::Budget => 1,
            Stopped::TimeLimit => 2,
            Stopped::Cancelled => 3,
            Stopped::Fits => 4,
            Stopped::Infeasible => 5,
            Stopped::Optimal => 6,
            Stopped::LowerBound => 7,
        }
    }
}

/// The answer of one solve: the plan (or none), what is proven, and why the run stopped.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The solver that was asked.
    pub solver: String,
    /// For a portfolio (`auto`), the member whose plan this is.
    pub winner: Option<String>,
    pub plan: Option<Plan>,
    /// A proven lower bound on every plan's makespan (at least the instance's own bound); equal to
    /// the plan's makespan when the plan is optimal.
    pub lower_bound: u64,
    /// The capacity the run was held to (the caller's, else the instance's), if any.
    pub capacity: Option<u64>,
    pub stopped: Stopped,
    /// A sentence for people on what was proven or why no plan came back (e.g. "the max load 12
    /// exceeds the capacity 10"). Never needed to act: `stopped` says that.
    pub detail: Option<String>,
    pub stats: Stats,
    pub elapsed: Duration,
    pub seed: u64,
}

impl Outcome {
    /// An outcome with `plan`, its reason made as strong as the plan and bound allow (see
    /// [`Outcome::settle`]).
    pub fn new(
        solver: &str,
        problem: &Problem,
        capacity: Option<u64>,
        plan: Option<Plan>,
        lower_bound: u64,
        stopped: Stopped,
    ) -> Self {
        let mut outcome = Outcome {
            solver: solver.to_string(),
            winner: None,
            plan,
            lower_bound,
            capacity,
            stopped,
            detail: None,
            stats: Stats::new(),
            elapsed: Duration::ZERO,
            seed: 0,
        };
        outcome.settle(problem);
        outcome
    }

    /// Brings `lower_bound` and `stopped` in line with the plan, so that the reason is as strong
    /// as what is known: a bound above the capacity is [`Stopped::Infeasible`]; a plan at the
    /// instance's own bound is [`Stopped::LowerBound`], one at a bound a search proved is
    /// [`Stopped::Optimal`]. `lower_bound` is raised to the instance's own bound and capped at the
    /// plan's makespan. Call it after changing the plan or the bound.
    pub fn settle(&mut self, problem: &Problem) {
        let own = problem.lower_bound();
        self.lower_bound = self.lower_bound.max(own);
        if let Some(plan) = &self.plan {
            self.lower_bound = self.lower_bound.min(plan.makespan);
        }
        if let Some(capacity) = self.capacity.filter(|&capacity| self.lower_bound > capacity) {
            self.stopped = Stopped::Infeasible;
            if self.detail.is_none() {
                self.detail = Some(format!(
                    "at least {} bytes are needed (a proven lower bound), more than the capacity {capacity}",
                    self.lower_bound
                ));
            }
        } else if let Some(plan) = &self.plan {
            if plan.makespan <= own {
                self.stopped = Stopped::LowerBound;
            } else if plan.makespan <= self.lower_bound {
                self.stopped = Stopped::Optimal;
            }
        }
    }

    pub fn makespan(&self) -> Option<u64> {
        self.plan.as_ref().map(|p| p.makespan)
    }

    pub fn offsets(&self) -> &[u64] {
        self.plan.as_ref().map_or(&[], |p| &p.offsets)
    }

    /// A plan came back and it is within the capacity (any plan, without one).
    pub fn feasible(&self) -> bool {
        match (&self.plan, self.capacity) {
            (None, _) => false,
            (Some(plan), Some(capacity)) => plan.makespan <= capacity,
            (Some(_), None) => true,
        }
    }

    /// The plan's makespan is proven to be the lowest possible: by the reason, or for a plan that
    /// came with the input, by meeting the bound (the instance's own, as [`Outcome::given`] sets it).
    pub fn optimal(&self) -> bool {
        match &self.plan {
            None => false,
            Some(plan) if self.stopped == Stopped::Given => plan.makespan <= self.lower_bound,
            Some(_) => self.stopped.is_optimal(),
        }
    }

    /// makespan − L, the memory lost to fragmentation (`None` without a plan).
    pub fn fragmentation(&self, problem: &Problem) -> Option<u64> {
        self.makespan().map(|m| m.saturating_sub(problem.max_load()))
    }

    /// The reason in words (see [`Stopped::describe`]).
    pub fn verdict(&self) -> &'static str {
        if self.stopped == Stopped::Given && self.optimal() {
            return "the input's own plan, checked: optimal (it meets the lower bound)";
        }
        self.stopped.describe(self.plan.is_some())
    }

    /// The outcome of a plan that came with the input, which the validator accepted (`valid`,
    /// the capacity aside) or not. The reason stays [`Stopped::Given`] and the bound is the
    /// instance's own: a plan found by no search proves nothing beyond itself. An invalid plan is
    /// no plan (no makespan, not feasible, not optimal), whatever its offsets would measure.
    pub fn given(problem: &Problem, capacity: Option<u64>, plan: Plan, valid: bool) -> Self {
        let own = problem.lower_bound();
        let mut notes = Vec::new();
        if !valid {
            notes.push("the plan is invalid (see the violations)".to_string());
        } else if plan.makespan <= own {
            notes.push(format!("the plan meets the instance's lower bound {own}, so no plan is lower"));
        } else {
            notes.push(format!("the plan is {} bytes above the instance's lower bound {own}", plan.makespan - own));
        }
        if let Some(capacity) = capacity {
            if valid && plan.makespan > capacity {
                notes.push(format!("its makespan {} passes the capacity {capacity}", plan.makespan));
            }
            if own > capacity {
                notes.push(format!("no plan fits: at least {own} bytes are needed, more than the capacity {capacity}"));
            }
        }
        Outcome {
            solver: "input plan".to_string(),
            winner: None,
            plan: valid.then_some(plan),
            lower_bound: own,
            capacity,
            stopped: Stopped::Given,
            detail: Some(notes.join("; ")),
            stats: Stats::new(),
            elapsed: Duration::ZERO,
            seed: 0,
        }
    }
}
