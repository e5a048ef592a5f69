//! A second exact search for `auto`'s timed minimisations on several threads: MiniMalloc's
//! feasibility search asked at capacities that bisect the range between the bound and the best
//! plan, each probe a fresh search with a time slice that doubles every round.
//!
//! Why beside MiniMalloc's own descent rather than instead of it: the descent probes one unit
//! below the best plan and creeps down, where some capacities cost far more than others; on
//! challenging D it ended at 1,007 units of 1,024 bytes in 60 s, while single searches at 1,000
//! and 994 units found plans in 3 and 16 s (990: nothing in 30 s). Bisection lands on such
//! capacities from above and below, and a fresh search at each keeps one hard capacity from
//! holding the thread. The two searches together cover what either finds.

use crate::model::{Outcome, Plan, Problem, StatValue};
use crate::options::{Halt, SolveOptions};
use crate::solvers::minimalloc::{self, Decision, Settings};
use crate::solvers::minimise::{self, Deadlines, Incumbent, Probe, Schedule};

/// The first probe gets a sixteenth of the time left, as TelaMalloc's bisection does.
const SCHEDULE: Schedule = Schedule::Bisection { first_shift: 4 };

/// The name the race reports this search under.
pub(super) const NAME: &str = "minimalloc-bisection";

/// Whether it takes `problem`: its probes ask the exact search about the buffers as they are,
/// which with gaps is the solver's to arrange (it plans windows piecewise).
pub(super) fn takes(problem: &Problem) -> bool {
    !problem.has_gaps()
}

/// Minimises `problem`'s makespan from `start` until the options' deadline (it needs a time
/// limit: its probes have time slices, not node budgets).
/// It shares its best makespan and bound with the descent beside it through `incumbent`.
pub(super) fn minimise(
    problem: &Problem,
    options: &SolveOptions,
    start: Plan,
    incumbent: Option<&Incumbent>,
) -> Result<Outcome, Halt> {
    let deadline = options.deadline();
    let settings = Settings::default();
    // Nodes counted by the probes' budgets, and searched by every thread.
    let (mut nodes, mut explored) = (0, 0);
    let minimised = minimise::minimise(
        NAME,
        problem,
        options,
        Deadlines { caller: &deadline, driver: &deadline },
        start,
        SCHEDULE,
        incumbent,
        |capacity, allotment| match minimalloc::decide(problem, capacity, &settings, allotment.deadline) {
            Ok(report) => {
                nodes += report.counters.nodes;
                explored += report.explored;
                match report.decision {
                    Decision::Feasible { offsets, placement_order } => Probe::Feasible { offsets, placement_order },
                    Decision::Infeasible(_) => Probe::InfeasibleBelow(report.refuted_below),
                    Decision::Unknown => Probe::Unknown,
                }
            }
            Err(_) => Probe::Unknown,
        },
    );
    let mut stats = crate::model::Stats::new();
    stats.insert("nodes".into(), StatValue::Count(nodes));
    stats.insert("nodes_explored".into(), StatValue::Count(explored));
    minimised.write_stats(&mut stats);
    let mut outcome = Outcome::new(NAME, problem, None, Some(minimised.plan), minimised.lower_bound, minimised.stopped);
    outcome.stats = stats;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Buffer;
    use std::time::Duration;

    /// From a stacked plan (13), the bisection finds the optimum (the max load, 9) and says it is
    /// optimal (every probe here answers at once).
    #[test]
    fn finds_and_proves_the_optimum_of_a_small_instance() {
        let problem = Problem::new(
            vec![
                Buffer::new("a", 0, 2, 3),
                Buffer::new("b", 0, 2, 5),
                Buffer::new("c", 2, 4, 4),
                Buffer::new("d", 1, 3, 1),
            ],
            None,
        )
        .unwrap();
        let stacked = Plan::new(&problem, vec![0, 3, 9, 8], vec![0, 1, 3, 2]);
        let options = SolveOptions { time_limit: Some(Duration::from_secs(30)), ..SolveOptions::default() };
        let outcome = minimise(&problem, &options, stacked, None).unwrap();
        assert_eq!(outcome.makespan(), Some(9));
        assert!(outcome.optimal(), "{:?}", outcome.stopped);
    }
}
