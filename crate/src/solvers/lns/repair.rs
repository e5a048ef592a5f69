//! Repairing a plan down to a target height: while some buffer sits above the target, free a
//! neighbourhood around it and let the exact search place the freed buffers under the target,
//! with their neighbours pinned. Every step keeps the plan valid, so a repair that gives up still
//! leaves a plan no higher than it found.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::neighbourhood::{self, Shape, Timeline};
use crate::model::Problem;
use crate::options::{Deadline, Halt};
use crate::solvers::minimalloc::{self, Decision, Settings};

/// How a repair spends its effort.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Buffers freed by a first try around a buffer; each further try frees half as many again.
    pub first_free: usize,
    /// The most buffers one neighbourhood frees.
    pub most_free: usize,
    /// Tries around one buffer before the repair gives up on it.
    pub tries: usize,
    /// Exact-search nodes one neighbourhood may spend.
    pub nodes_per_try: u64,
    /// Buffers the repair may give up on before it gives up on the target.
    pub give_ups: usize,
}

/// What a repair did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub neighbourhoods: u64,
    pub repaired: u64,
    pub nodes: u64,
}

/// Lowers every buffer of `offsets` (a valid plan) to at most `target`, spending at most `nodes`
/// search nodes. Returns whether it got there; `offsets` is valid and no higher either way.
pub fn repair(
    problem: &Problem,
    timeline: &Timeline,
    offsets: &mut [u64],
    target: u64,
    limits: &Limits,
    nodes: u64,
    rng: &mut ChaCha8Rng,
    deadline: &Deadline,
    tally: &mut Tally,
) -> Result<bool, Halt> {
    let buffers = problem.buffers();
    let settings = Settings { budget: limits.nodes_per_try, orderings: 2, ..Settings::default() };
    let spent_before = tally.nodes;
    let mut given_up = vec![false; buffers.len()];
    let mut give_ups = 0;
    loop {
        if let Some(halt) = deadline.expired() {
            return Err(halt);
        }
        let above: Vec<usize> =
            (0..buffers.len()).filter(|&i| !given_up[i] && offsets[i] + buffers[i].size > target).collect();
        if above.is_empty() {
            return Ok(give_ups == 0);
        }
        if tally.nodes - spent_before >= nodes {
            return Ok(false);
        }
        let seed = above[rng.random_range(0..above.len())];
        let mut wanted = limits.first_free;
        let mut placed = false;
        for attempt in 0..limits.tries {
            let shape = if attempt % 2 == 0 { Shape::Band } else { Shape::Window };
            let Some(around) =
                neighbourhood::around(problem, timeline, offsets, target, seed, shape, wanted, limits.most_free, rng)
            else {
                if std::env::var_os("LNS_DEBUG").is_some() { eprintln!("target {target}: no neighbourhood around {seed} ({wanted})"); }
                continue;
            };
            tally.neighbourhoods += 1;
            if let Some(path) = std::env::var_os("LNS_DUMP") {
                let old: Vec<u64> = around.free.iter().map(|&i| offsets[i]).chain(around.problem.buffers()[around.free.len()..].iter().map(|b| b.pinned.unwrap())).collect();
                let mut text = String::from("id,lower,upper,size,offset,old\n");
                for (k, b) in around.problem.buffers().iter().enumerate() {
                    text += &format!("{},{},{},{},{},{}\n", b.id, b.start, b.end, b.size, b.pinned.map(|p| p.to_string()).unwrap_or_default(), old[k]);
                }
                std::fs::write(&path, text).unwrap();
            }
            let report = minimalloc::decide(&around.problem, target, &settings, deadline)?;
            tally.nodes += report.counters.nodes;
            if std::env::var_os("LNS_DEBUG").is_some() { eprintln!("target {target}: {shape:?} around {seed}: {} free, {} buffers, {:?} after {} nodes", around.free.len(), around.problem.len(), std::mem::discriminant(&report.decision), report.counters.nodes); if let Decision::Infeasible(r) = &report.decision { eprintln!("  {r}"); } }
            if let Decision::Feasible { offsets: placed_at, .. } = report.decision {
                for (k, &i) in around.free.iter().enumerate() {
                    offsets[i] = placed_at[k];
                }
                tally.repaired += 1;
                placed = true;
                break;
            }
            if attempt % 2 == 1 {
                wanted = (wanted + wanted / 2).min(limits.most_free);
            }
        }
        if !placed {
            given_up[seed] = true;
            give_ups += 1;
            if give_ups > limits.give_ups {
                return Ok(false);
            }
        }
    }
}
