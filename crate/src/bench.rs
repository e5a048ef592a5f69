//! `memplan bench`: every solver on every instance, one row each, as a markdown or CSV table.
//! The caller reads the files; this module runs, validates and renders.

use std::time::Duration;

use crate::model::Problem;
use crate::options::SolveOptions;
use crate::{run, validate};

/// One solver on one instance. Time is the median over the repeats.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub instance: String,
    pub buffers: usize,
    pub max_load: u64,
    pub solver: String,
    /// `None` when the solver returned no plan (then `error` says why).
    pub makespan: Option<u64>,
    pub fragmentation_pct: Option<f64>,
    pub time: Duration,
    pub valid: bool,
    pub feasible: bool,
    pub optimal: bool,
    /// The portfolio member that won, for `auto`.
    pub winner: Option<String>,
    pub error: Option<String>,
}

/// Runs each solver on each instance `repeats` times (at least once) and validates every plan.
pub fn run_all(
    instances: &[(String, Problem)],
    solvers: &[String],
    options: &SolveOptions,
    repeats: usize,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (name, problem) in instances {
        for solver in solvers {
            let options = &options_for(solver, options);
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..repeats.max(1) {
                let started = web_time::Instant::now();
                let result = run::solve(problem, solver, options);
                times.push(started.elapsed());
                let failed = result.is_err();
                last = Some(result);
                if failed {
                    break;
                }
            }
            times.sort();
            let time = times[times.len() / 2];
            let row = match last.expect("at least one repeat ran") {
                Ok(solution) => {
                    let capacity = options.capacity.or(problem.capacity());
                    let report =
                        validate::validate_solution(problem, &solution, capacity.filter(|_| solution.feasible));
                    Row {
                        instance: name.clone(),
                        buffers: problem.len(),
                        max_load: problem.max_load(),
                        solver: solver.clone(),
                        makespan: Some(solution.makespan),
                        fragmentation_pct: Some(solution.fragmentation_pct()),
                        time,
                        valid: report.is_valid(),
                        feasible: solution.feasible,
                        optimal: solution.optimal,
                        winner: match solution.stats.get("winner") {
                            Some(crate::model::StatValue::Text(w)) => Some(w.clone()),
                            _ => None,
                        },
                        error: (!report.is_valid()).then(|| report.describe(problem)),
                    }
                }
                Err(error) => Row {
                    instance: name.clone(),
                    buffers: problem.len(),
                    max_load: problem.max_load(),
                    solver: solver.clone(),
                    makespan: None,
                    fragmentation_pct: None,
                    time,
                    valid: false,
                    feasible: false,
                    optimal: false,
                    winner: None,
                    error: Some(error.to_string()),
                },
            };
            rows.push(row);
        }
    }
    rows
}

/// A bench runs several solvers with one set of options: each gets the parameters it declares
/// (an unknown solver keeps them all, and `run::solve` reports it).
fn options_for(solver: &str, options: &SolveOptions) -> SolveOptions {
    let Ok(declared) = crate::solvers::by_name(solver).map(|s| s.parameters()) else {
        return options.clone();
    };
    let mut params = crate::options::Params::new();
    for name in options.params.names().filter(|name| declared.iter().any(|p| p.name == *name)) {
        if let Ok(Some(value)) = options.params.get::<String>(name) {
            params.set(name, value);
        }
    }
    SolveOptions { params, ..options.clone() }
}

fn cells(row: &Row) -> [String; 10] {
    [
        row.instance.clone(),
        row.buffers.to_string(),
        row.max_load.to_string(),
        match &row.winner {
            Some(w) => format!("{} ({w})", row.solver),
            None => row.solver.clone(),
        },
        row.makespan.map_or_else(|| "-".into(), |m| m.to_string()),
        row.fragmentation_pct.map_or_else(|| "-".into(), |f| format!("{f:.3}")),
        {
            // Three decimals below 10 ms, where one would hide the difference between solvers.
            let ms = row.time.as_secs_f64() * 1000.0;
            if ms < 10.0 { format!("{ms:.3}") } else { format!("{ms:.1}") }
        },
        if row.valid { "yes".into() } else { "NO".into() },
        if row.optimal { "yes".into() } else { "".into() },
        row.error.clone().unwrap_or_default().replace(['\n', '|'], " "),
    ]
}

const HEADER: [&str; 10] =
    ["instance", "buffers", "max load", "solver", "makespan", "frag %", "time ms", "valid", "optimal", "note"];

/// A markdown table, one row per instance and solver.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = format!("| {} |\n", HEADER.join(" | "));
    out.push_str("|---|---:|---:|---|---:|---:|---:|---|---|---|\n");
    for row in rows {
        out.push_str(&format!("| {} |\n", cells(row).join(" | ")));
    }
    out
}

/// The same table as CSV.
pub fn csv(rows: &[Row]) -> String {
    let quote = |cell: &str| {
        if cell.contains([',', '"', '\n']) { format!("\"{}\"", cell.replace('"', "\"\"")) } else { cell.to_string() }
    };
    let mut out = HEADER.iter().map(|h| h.replace(' ', "_")).collect::<Vec<_>>().join(",") + "\n";
    for row in rows {
        out.push_str(&cells(row).iter().map(|c| quote(c)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}
