//! Solver parameters and capacities at their edges: one answer for every solver. A value outside a
//! parameter's declared range is an error naming the parameter and the range, never a silent
//! clamp; the ends of each range are accepted.

use memplan::Range;
use memplan::run::registry as solvers;
use memplan::{Buffer, Params, Problem, SolveError, SolveOptions, Stopped, run};

fn tiny() -> Problem {
    Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4)], None).unwrap()
}

/// Values of a parameter that its range refuses: below, above, and not numbers at all.
fn outside(range: Range) -> Vec<String> {
    let mut values = vec!["many".to_string(), "-1".to_string(), String::new()];
    match range {
        Range::Int { min, max } => {
            values.extend(min.checked_sub(1).map(|v| v.to_string()));
            values.push(max.checked_add(1).map_or("18446744073709551616".to_string(), |v| v.to_string()));
            values.push("2.5".into());
        }
        Range::Float { min, max } => {
            values.push((min - 1.0).to_string());
            values.extend(max.map(|max| (max + 1.0).to_string()));
            values.extend(["NaN".to_string(), "inf".to_string()]);
        }
    }
    values
}

#[test]
fn out_of_range_values_are_refused_by_name_and_range() {
    let problem = tiny();
    for solver in solvers::all() {
        for parameter in solver.parameters() {
            let Some(range) = parameter.range else {
                let error = parameter.check("maybe").unwrap_err();
                assert!(error.to_string().contains(parameter.name), "{error}");
                continue;
            };
            for value in outside(range) {
                let options = SolveOptions { params: Params::new().with(parameter.name, &value), ..Default::default() };
                // Through the shared entry point, and straight to the solver (a library caller).
                for result in [
                    run::solve(&problem, solver.name(), &options).map(|run| run.outcome),
                    solver.solve(&problem, &options),
                ] {
                    match result {
                        Err(error @ SolveError::InvalidParameter { .. }) => {
                            let message = error.to_string();
                            assert!(message.contains(parameter.name), "{message}");
                            assert!(message.contains(&range.to_string()), "{message}");
                        }
                        other => {
                            panic!("{} {}={value:?}: {:?}", solver.name(), parameter.name, other.map(|s| s.makespan()))
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn defaults_and_the_ends_of_each_range_are_accepted() {
    for solver in solvers::all() {
        for parameter in solver.parameters() {
            assert_eq!(parameter.check(&parameter.default), Ok(()), "{} {}", solver.name(), parameter.name);
            match parameter.range {
                Some(Range::Int { min, max }) => {
                    assert_eq!(parameter.check(&min.to_string()), Ok(()));
                    assert_eq!(parameter.check(&max.to_string()), Ok(()));
                }
                Some(Range::Float { min, max }) => {
                    assert_eq!(parameter.check(&min.to_string()), Ok(()));
                    if max.is_none() {
                        assert_eq!(parameter.check("1e300"), Ok(()));
                    }
                }
                None => {
                    assert_eq!(parameter.check("true"), Ok(()));
                    assert_eq!(parameter.check("false"), Ok(()));
                }
            }
        }
    }
    // Solving at the low end of every integer range works (small values are the risky ones: a
    // single candidate, one ordering, a budget of 0 nodes).
    let problem = tiny();
    for solver in solvers::all() {
        for parameter in solver.parameters() {
            if let Some(Range::Int { min, .. }) = parameter.range {
                let options =
                    SolveOptions { params: Params::new().with(parameter.name, min.to_string()), ..Default::default() };
                let outcome = solver
                    .solve(&problem, &options)
                    .unwrap_or_else(|e| panic!("{} {}: {e}", solver.name(), parameter.name));
                assert!(outcome.plan.is_some(), "{} {}: {:?}", solver.name(), parameter.name, outcome.stopped);
                assert!(memplan::validate::validate_outcome(&problem, &outcome).is_valid());
            }
        }
    }
}

#[test]
fn ranges_are_listed_for_the_page() {
    let infos = serde_json::to_value(solvers::infos()).unwrap();
    let minimalloc = infos.as_array().unwrap().iter().find(|s| s["name"] == "minimalloc").unwrap();
    let orderings = minimalloc["parameters"].as_array().unwrap().iter().find(|p| p["name"] == "orderings").unwrap();
    assert_eq!(orderings["range"], serde_json::json!({ "min": "1", "max": "6", "text": "1 to 6" }));
    let budget = minimalloc["parameters"].as_array().unwrap().iter().find(|p| p["name"] == "budget").unwrap();
    assert_eq!(budget["range"], serde_json::json!({ "min": "0", "max": null, "text": "at least 0" }));
}

/// Capacity 0 has one answer from every solver: an empty instance gets the empty plan, which fits;
/// a non-empty one is proven infeasible (`stopped = infeasible`, the proven bound above 0), with or
/// without a plan above the capacity (planners that do not steer by the capacity have one).
#[test]
fn capacity_zero_has_one_answer() {
    let empty = Problem::new(Vec::new(), None).unwrap();
    let busy = tiny();
    let mut every = solvers::all();
    every.extend(["greedy-start-top", "greedy-random-best"].map(|name| solvers::by_name(name).unwrap()));
    for solver in &every {
        let options = SolveOptions { capacity: Some(0), ..Default::default() };
        let outcome = solver.solve(&empty, &options).unwrap_or_else(|e| panic!("{}: {e}", solver.name()));
        assert!(
            outcome.feasible() && outcome.offsets().is_empty() && outcome.makespan() == Some(0),
            "{}",
            solver.name()
        );
        let outcome = solver.solve(&busy, &options).unwrap_or_else(|e| panic!("{}: {e}", solver.name()));
        assert_eq!(outcome.stopped, Stopped::Infeasible, "{}", solver.name());
        assert!(!outcome.feasible() && outcome.lower_bound > 0, "{}", solver.name());
        assert!(memplan::validate::validate_outcome(&busy, &outcome).is_valid());
        // The same from a problem that carries the capacity itself, as an input file does.
        let mut carried = busy.clone();
        carried.set_capacity(Some(0));
        let outcome = solver.solve(&carried, &SolveOptions::default()).unwrap();
        assert_eq!(outcome.stopped, Stopped::Infeasible, "{}", solver.name());
    }
}

/// `Parameter::at_least` is an integer range with an open top: the same parameter as
/// `Parameter::int(.., u64::MAX, ..)`, listed for the page with `max: null` and read "at least N",
/// refusing only what is below its minimum.
#[test]
fn at_least_is_an_integer_range_open_at_the_top() {
    use memplan::Parameter;
    let open = Parameter::at_least("budget", 7, 1, "how much");
    assert_eq!(open, Parameter::int("budget", 7, 1, u64::MAX, "how much"));
    assert_eq!(open.range, Some(Range::Int { min: 1, max: u64::MAX }));
    assert_eq!(
        serde_json::to_value(&open).unwrap()["range"],
        serde_json::json!({ "min": "1", "max": null, "text": "at least 1" })
    );
    assert_eq!(open.check("1"), Ok(()));
    assert_eq!(open.check(&u64::MAX.to_string()), Ok(()));
    let below = open.check("0").unwrap_err().to_string();
    assert!(below.contains("budget") && below.contains("at least 1"), "{below}");
}
