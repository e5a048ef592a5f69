//! One function per subcommand.

use std::process::ExitCode;

use memplan::format::{self, Format, Offsets};
use memplan::model::StatValue;
use memplan::solvers::{self, greedy};
use memplan::{Solution, SolveError, SolveOptions, bench, metrics, run, validate};
use serde_json::json;

use crate::input::load;
use crate::{Failure, InputArgs, SolveArgs};

fn options(args: &SolveArgs) -> Result<SolveOptions, Failure> {
    let time_limit = match args.time_limit {
        Some(secs) => memplan::options::time_limit_from_secs(secs).map_err(invalid_option)?,
        None => None,
    };
    let options = SolveOptions {
        capacity: args.capacity,
        time_limit,
        seed: args.seed,
        threads: args.threads,
        effort: args.effort,
        params: params(args),
        ..SolveOptions::default()
    };
    options.check().map_err(invalid_option)?;
    Ok(options)
}

/// The core's refusal of an option value, as a usage error.
fn invalid_option(error: SolveError) -> Failure {
    match error {
        SolveError::Unsupported(what) => Failure::bad_input(format!("invalid option: {what}")),
        other => solve_error(other),
    }
}

/// `--param` assignments plus the sugar flags that stand for one.
fn params(args: &SolveArgs) -> memplan::Params {
    let mut params = args.params.iter().fold(memplan::Params::new(), |params, (name, value)| params.with(name, value));
    if let Some(iterations) = args.iterations {
        params.set("iterations", iterations.to_string());
    }
    if let Some(target) = args.target_frag {
        params.set("target-frag", target.to_string());
    }
    params
}

fn solve_error(error: SolveError) -> Failure {
    match error {
        SolveError::UnknownSolver(name) => {
            Failure::bad_input(format!("no solver named '{name}' (run `memplan solvers` for the list)"))
        }
        SolveError::Unsupported(what) => Failure::bad_input(format!("unsupported: {what}")),
        other => Failure::infeasible(other.to_string()),
    }
}

fn summary_line(solution: &Solution, buffers: usize) -> serde_json::Value {
    let mut line = json!({
        "solver": solution.solver,
        "buffers": buffers,
        "max_load": solution.max_load,
        "makespan": solution.makespan,
        "fragmentation": solution.fragmentation(),
        "fragmentation_pct": (solution.fragmentation_pct() * 1000.0).round() / 1000.0,
        "lower_bound": solution.lower_bound,
        "optimal": solution.optimal,
        "feasible": solution.feasible,
        "elapsed_ms": (solution.elapsed.as_secs_f64() * 1e6).round() / 1000.0,
        "seed": solution.seed,
        "stats": solution.stats,
    });
    if let Some(winner) = solution.stats.get("winner") {
        line["winner"] = json!(winner);
    }
    line
}

pub fn solve(
    file: &str,
    solver: &str,
    args: &SolveArgs,
    input: &InputArgs,
    out: Option<&str>,
) -> Result<ExitCode, Failure> {
    let options = options(args)?;
    let out_format = match out {
        Some(path) => Some(
            Format::from_path(path)
                .ok_or_else(|| Failure::bad_input(format!("--out {path}: use a .csv or .json file name")))?,
        ),
        None => None,
    };
    let document = load(file, input, Offsets::Pinned)?;
    let problem = &document.problem;
    let solution = run::solve(problem, solver, &options).map_err(solve_error)?;
    let capacity = options.capacity.or(problem.capacity());
    // Never print a wrong answer: the independent validator sees every plan first.
    let report = validate::validate_solution(problem, &solution, capacity.filter(|_| solution.feasible));
    if !report.is_valid() {
        return Err(Failure::infeasible(format!(
            "internal error: solver {} produced an invalid plan:\n{}",
            solution.solver,
            report.describe(problem)
        )));
    }
    println!("{}", summary_line(&solution, problem.len()));
    if let (Some(path), Some(format)) = (out, out_format) {
        std::fs::write(path, format::write(&document, &solution.plan.offsets, format))
            .map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
    }
    if solution.feasible {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("memplan: {}", over_capacity(&solution, capacity.unwrap_or(0)));
        Ok(ExitCode::from(1))
    }
}

/// Why a plan above the capacity came back: a proof that nothing fits, or only that this run found
/// nothing that fits (a greedy planner, or a search that ran out of time). A compiler engineer
/// acts differently on the two, so the message never calls the second "infeasible".
fn over_capacity(solution: &Solution, capacity: u64) -> String {
    if solution.lower_bound > capacity {
        format!(
            "infeasible: at least {} bytes are needed (proven), more than the capacity {capacity}",
            solution.lower_bound
        )
    } else {
        let why = match solution.stats.get("status") {
            Some(StatValue::Text(status)) if status == "timeout" => " (the search ran out of time)",
            Some(StatValue::Text(status)) if status == "cancelled" => " (the search was cancelled)",
            _ => "",
        };
        format!(
            "no plan within the capacity {capacity} found by {}{why}; the best needs {} bytes (not proven infeasible)",
            solution.solver, solution.makespan
        )
    }
}

pub fn check(path: &str, capacity: Option<u64>, input: &InputArgs) -> Result<ExitCode, Failure> {
    let document = load(path, input, Offsets::Plan)?;
    let problem = &document.problem;
    let offsets = document.plan.as_deref().unwrap_or_default();
    let capacity = capacity.or(problem.capacity());
    let report = validate::validate(problem, offsets, capacity);
    let violations: Vec<String> = report.violations.iter().map(|v| v.describe(problem)).collect();
    println!(
        "{}",
        json!({
            "valid": report.is_valid(),
            "buffers": problem.len(),
            "max_load": problem.max_load(),
            "makespan": report.makespan,
            "fragmentation": report.makespan.saturating_sub(problem.max_load()),
            "capacity": capacity,
            "violations": violations,
        })
    );
    if report.is_valid() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Failure::infeasible(format!("{path}: invalid plan:\n{}", violations.join("\n"))))
    }
}

pub fn stats(file: &str, input: &InputArgs) -> Result<ExitCode, Failure> {
    let document = load(file, input, Offsets::Pinned)?;
    let summary = metrics::summary(document.problem.buffers());
    println!(
        "{}",
        json!({
            "buffers": summary.buffers,
            "max_load": summary.max_load,
            "total_size": summary.total_size.to_string(),
            "min_size": summary.min_size,
            "max_size": summary.max_size,
            "first_start": summary.first_start,
            "last_end": summary.last_end,
            "conflicts": summary.conflicts,
            "pinned": summary.pinned,
            "aligned": summary.aligned,
            "capacity": document.problem.capacity(),
        })
    );
    Ok(ExitCode::SUCCESS)
}

pub fn bench(
    files: &[String],
    solvers: &[String],
    args: &SolveArgs,
    input: &InputArgs,
    csv: bool,
    repeat: usize,
) -> Result<ExitCode, Failure> {
    let options = options(args)?;
    let mut declared = Vec::new();
    for name in solvers {
        declared.extend(solvers::by_name(name).map_err(solve_error)?.parameters().into_iter().map(|p| p.name));
    }
    // Each solver of a bench gets the parameters it declares; one that none declares is a typo.
    if let Some(unknown) = options.params.names().find(|name| !declared.contains(name)) {
        return Err(Failure::bad_input(format!("none of the solvers has a parameter {unknown}")));
    }
    let mut instances = Vec::new();
    for file in files {
        let document = load(file, input, Offsets::Pinned)?;
        let name = std::path::Path::new(file).file_name().map_or(file.clone(), |n| n.to_string_lossy().into_owned());
        instances.push((name, document.problem));
    }
    let rows = bench::run_all(&instances, solvers, &options, repeat);
    print!("{}", if csv { bench::csv(&rows) } else { bench::markdown(&rows) });
    if rows.iter().any(|r| r.makespan.is_some() && !r.valid) {
        return Err(Failure::infeasible("some plans were invalid (see the table)"));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn solvers(as_json: bool) -> Result<ExitCode, Failure> {
    let infos = solvers::infos();
    if as_json {
        println!("{}", json!({ "solvers": infos, "combinations": greedy::describe_combinations() }));
        return Ok(ExitCode::SUCCESS);
    }
    let width = infos.iter().map(|i| i.name.len()).max().unwrap_or(0);
    for info in &infos {
        println!("{:width$}  {}", info.name, info.description);
        for parameter in &info.parameters {
            let range = parameter.range.map(|range| format!(", {range}")).unwrap_or_default();
            println!(
                "{:width$}    --param {}=<{}> (default {}{range}): {}",
                "", parameter.name, parameter.kind, parameter.default, parameter.description
            );
        }
    }
    println!("{}", greedy::describe_combinations());
    Ok(ExitCode::SUCCESS)
}

pub fn generate(
    buffers: usize,
    seed: u64,
    shape: memplan::generate::Shape,
    out: Option<&str>,
) -> Result<ExitCode, Failure> {
    let format = match out {
        Some(path) => Format::from_path(path)
            .ok_or_else(|| Failure::bad_input(format!("--out {path}: use a .csv or .json file name")))?,
        None => Format::Csv,
    };
    let problem = shape.generate(buffers, seed);
    let document = format::Document { problem, plan: None, format, csv_layout: None };
    let text = format::write(&document, &[], format);
    match out {
        Some(path) => std::fs::write(path, text).map_err(|e| Failure::bad_input(format!("{path}: {e}")))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
