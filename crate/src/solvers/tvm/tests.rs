//! TVM's planners on TVM's own conflict graphs, as its unit tests give them (`apache/tvm`,
//! `tests/python/unittest/test_tir_usmp_algo.py`, Apache License 2.0, The Apache Software
//! Foundation): the graphs that lifetimes cannot express (one-sided lists, a buffer listing
//! itself) and, as a cross-check, those that `crate/tests/fixtures/tvm/` writes as lifetimes.
//! The expected figures are the ones TVM's tests assert.

use super::*;
use crate::options::Deadline;

/// Buffers named and sized as TVM's test builds them, with its conflict lists by name.
fn tvm_graph(buffers: &[(&str, u64)], lists: &[&[&str]]) -> (Vec<Buffer>, Graph) {
    let index = |name: &str| buffers.iter().position(|(n, _)| *n == name).expect("a listed buffer exists");
    let lists: Vec<Vec<usize>> = lists.iter().map(|list| list.iter().map(|&n| index(n)).collect()).collect();
    let made = buffers.iter().map(|&(name, size)| Buffer::new(name, 0, 1, size)).collect();
    (made, Graph::from_lists(&lists))
}

fn greedy_offsets(priority: Priority, buffers: &[Buffer], graph: &Graph) -> Vec<u64> {
    let mut placed = Placed::new(graph);
    let all: Vec<usize> = (0..buffers.len()).collect();
    let order = priority.arrange(buffers, &placed, &all);
    let mut offsets = vec![0; buffers.len()];
    place_on_top(buffers, &order, &mut placed, &mut offsets, &Deadline::none()).unwrap();
    offsets
}

/// The hill climb as TVM's tests call it: seed 0 (TVM's state), memory pressure `desired`.
fn climb_offsets(buffers: &[Buffer], graph: &Graph, desired: u64, hint: Option<u64>) -> Vec<u64> {
    let placed = Placed::new(graph);
    let all: Vec<usize> = (0..buffers.len()).collect();
    let order = Priority::Size.arrange(buffers, &placed, &all);
    let settings = Settings { attempts: ATTEMPTS, desired, hint, seed: 0, budget: BUDGET };
    let pinned = vec![None; buffers.len()];
    climb(buffers, graph, &pinned, order, &settings, &Deadline::none()).unwrap().offsets
}

/// The highest top, as TVM's `_check_max_workspace_size` measures it.
fn peak(buffers: &[Buffer], offsets: &[u64]) -> u64 {
    buffers.iter().zip(offsets).map(|(b, &o)| o + b.size).max().unwrap_or(0)
}

const FANOUT: [(&str, u64); 7] =
    [("bi_a", 10), ("bi_b", 20), ("bi_c", 100), ("bi_d", 40), ("bi_e", 50), ("bi_f", 60), ("bi_g", 70)];
const FANOUT_LISTS: [&[&str]; 7] = [
    &["bi_b", "bi_c"],
    &["bi_a", "bi_c", "bi_e"],
    &["bi_e", "bi_a", "bi_b", "bi_d"],
    &["bi_b", "bi_f", "bi_c", "bi_e"],
    &["bi_c", "bi_f", "bi_b", "bi_d"],
    &["bi_d", "bi_e", "bi_f"],
    &["bi_f"],
];

/// `test_fanout`: 190 by size, 320 by conflicts, 190 by the hill climb (memory pressure 0).
#[test]
fn fanout_as_tvm() {
    let (buffers, graph) = tvm_graph(&FANOUT, &FANOUT_LISTS);
    assert_eq!(peak(&buffers, &greedy_offsets(Priority::Size, &buffers, &graph)), 190);
    assert_eq!(peak(&buffers, &greedy_offsets(Priority::Conflicts, &buffers, &graph)), 320);
    assert_eq!(peak(&buffers, &climb_offsets(&buffers, &graph, 0, None)), 190);
}

/// `test_name_based_ordering`: equal sizes and conflicts, so names decide: `bi_c` first.
#[test]
fn name_based_ordering_as_tvm() {
    let buffers = [("bi_a", 10), ("bi_b", 10), ("bi_c", 10)];
    let (buffers, graph) = tvm_graph(&buffers, &[&["bi_b", "bi_c"], &["bi_c", "bi_a"], &["bi_a", "bi_b"]]);
    for priority in [Priority::Size, Priority::Conflicts] {
        assert_eq!(greedy_offsets(priority, &buffers, &graph), [20, 10, 0], "{priority:?}");
    }
    assert_eq!(climb_offsets(&buffers, &graph, 0, None), [20, 10, 0]);
}

/// `test_linear`: 140 for all three.
#[test]
fn linear_as_tvm() {
    let buffers = [("bi_a", 10), ("bi_b", 20), ("bi_c", 100), ("bi_d", 40), ("bi_e", 50), ("bi_f", 50)];
    let lists: [&[&str]; 6] =
        [&["bi_b"], &["bi_a", "bi_c"], &["bi_b", "bi_d"], &["bi_c", "bi_e"], &["bi_d", "bi_f"], &["bi_e"]];
    let (buffers, graph) = tvm_graph(&buffers, &lists);
    for priority in [Priority::Size, Priority::Conflicts] {
        assert_eq!(peak(&buffers, &greedy_offsets(priority, &buffers, &graph)), 140, "{priority:?}");
    }
    assert_eq!(peak(&buffers, &climb_offsets(&buffers, &graph, 0, None)), 140);
}

/// `test_no_pool_error`: three 10-byte buffers, each listing one other, in a 10-byte pool: TVM
/// fails; memplan's greedy plan passes the pool (TVM's failure), and no hill-climb pass fits.
#[test]
fn no_pool_as_tvm() {
    let buffers = [("bi_a", 10), ("bi_b", 10), ("bi_c", 10)];
    let (buffers, graph) = tvm_graph(&buffers, &[&["bi_b"], &["bi_c"], &["bi_a"]]);
    assert!(peak(&buffers, &greedy_offsets(Priority::Size, &buffers, &graph)) > 10);
    assert!(peak(&buffers, &climb_offsets(&buffers, &graph, 0, Some(10))) > 10);
}

/// `test_resnet_subgraph`'s buffers, sizes and conflict lists, as TVM's test gives them: the
/// fixture `crate/tests/fixtures/tvm/` shares with the lifetime-based test in `crate/tests/tvm.rs`.
const RESNET: &str = include_str!("../../../tests/fixtures/tvm/resnet_subgraph_conflicts.txt");

/// Reads that fixture: `name size: conflict ...` a line, `#` comments.
fn named_lists(text: &str) -> (Vec<(&str, u64)>, Vec<Vec<&str>>) {
    let lines = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    lines
        .map(|line| {
            let (head, list) = line.split_once(':').expect("name size: conflicts");
            let (name, size) = head.split_once(' ').expect("name size");
            ((name, size.parse::<u64>().expect("a size")), list.split_whitespace().collect::<Vec<_>>())
        })
        .unzip()
}

/// `test_resnet_subgraph`: 7,920,256 by size, 7,200,256 by conflicts and by the hill climb
/// (given the memory pressure, 7,200,256).
#[test]
fn resnet_subgraph_as_tvm() {
    let (named, lists) = named_lists(RESNET);
    let lists: Vec<&[&str]> = lists.iter().map(Vec::as_slice).collect();
    let (buffers, graph) = tvm_graph(&named, &lists);
    assert_eq!(peak(&buffers, &greedy_offsets(Priority::Size, &buffers, &graph)), 7_920_256);
    assert_eq!(peak(&buffers, &greedy_offsets(Priority::Conflicts, &buffers, &graph)), 7_200_256);
    assert_eq!(peak(&buffers, &climb_offsets(&buffers, &graph, 7_200_256, None)), 7_200_256);
}

/// The hill climb's draws: another seed starts another `rand_r` sequence, the same seed the same.
#[test]
fn the_climb_is_a_function_of_its_seed() {
    let (buffers, graph) = tvm_graph(&FANOUT, &FANOUT_LISTS);
    let placed = Placed::new(&graph);
    let all: Vec<usize> = (0..buffers.len()).collect();
    let order = Priority::Size.arrange(&buffers, &placed, &all);
    let pinned = vec![None; buffers.len()];
    let run = |seed| {
        let settings = Settings { attempts: ATTEMPTS, desired: 0, hint: None, seed, budget: BUDGET };
        let climbed = climb(&buffers, &graph, &pinned, order.clone(), &settings, &Deadline::none()).unwrap();
        (climbed.offsets, climbed.order, climbed.accepted)
    };
    assert_eq!(run(7), run(7));
    assert_eq!(run(0), run(0));
}

/// The climb's first plan alone (for instances whose conflicts are too many to list) goes through
/// the greedy engine, which no other solver hands zero-size buffers: it places them, pinned or
/// not, in a valid plan.
#[test]
fn the_first_plan_alone_places_zero_size_buffers() {
    let buffers = vec![
        Buffer::new("a", 0, 4, 100),
        Buffer::new("z", 1, 3, 0),
        Buffer::new("b", 2, 6, 50),
        Buffer::new("p", 0, 6, 0).pinned_at(40),
        Buffer::new("q", 0, 6, 10).pinned_at(200),
    ];
    let problem = crate::model::Problem::new(buffers, None).unwrap();
    let free = [0, 1, 2];
    let outcome = first_pass_only(&problem, &SolveOptions::default(), &free, 1).unwrap();
    let plan = outcome.plan.expect("a plan");
    assert!(crate::validate::validate(&problem, &plan.offsets, None).is_valid(), "{:?}", plan.offsets);
    assert_eq!((plan.offsets[3], plan.offsets[4]), (40, 200));
}
