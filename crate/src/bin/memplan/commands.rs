//! One function per subcommand.

use std::process::ExitCode;

use memplan::format::{self, Format, Offsets};
use memplan::run::{Capacity, Request, registry};
use memplan::solvers::greedy;
use memplan::{Outcome, SolveError, Stopped, bench, metrics, run};
use serde_json::json;

use crate::input::load;
use crate::{Failure, InputArgs, SolveArgs};

/// The solve flags as the core's request: a translation only, every value is read and checked by
/// [`Request::prepare`].
fn request(solver: &str, args: &SolveArgs) -> Request {
    Request {
        capacity: args.capacity.clone().map(Capacity::Text),
        time_limit: args.time_limit,
        seed: args.seed,
        threads: args.threads,
        effort: args.effort,
        params: params(args),
        ..Request::new(solver)
    }
}

/// `--param` assignments plus the sugar flags that stand for one.
fn params(args: &SolveArgs) -> memplan::Params {
    for (name, _) in &args.params {
        let canonical = memplan::Params::canonical_name(name);
        if canonical != name.trim() {
            eprintln!("memplan: note: --param {name} is spelled {canonical} now (the old name still works)");
        }
    }
    let mut params = args.params.iter().fold(memplan::Params::new(), |params, (name, value)| params.with(name, value));
    if let Some(iterations) = args.iterations {
        params.set("iterations", iterations.to_string());
    }
    if let Some(target) = args.target_frag {
        params.set("target-frag", target.to_string());
    }
    params
}

/// The core's refusal of a request as a usage error (exit 2), by kind.
fn solve_error(error: SolveError) -> Failure {
    match error {
        SolveError::UnknownSolver(name) => {
            Failure::bad_input(format!("no solver named '{name}' (run `memplan solvers` for the list)"))
        }
        invalid if invalid.is_invalid_option() => Failure::bad_input(format!("invalid option: {invalid}")),
        SolveError::UnknownParameter { .. } | SolveError::ThreadPool { .. } => {
            Failure::bad_input(format!("unsupported: {error}"))
        }
        other => Failure::bad_input(other.to_string()),
    }
}

/// A JSON line for standard output; serialising the core's own types cannot fail, and if it ever
/// did it would be memplan's fault, not the input's.
fn json_line<T: serde::Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string(value).map_err(|e| Failure::internal(format!("cannot write the JSON line: {e}")))
}

pub fn solve(
    file: &str,
    solver: &str,
    args: &SolveArgs,
    input: &InputArgs,
    out: Option<&str>,
    warm: Option<&str>,
) -> Result<ExitCode, Failure> {
    let prepared = request(solver, args).prepare().map_err(solve_error)?;
    let out_format = match out {
        Some("-") | None => None,
        Some(path) => Some(
            Format::from_path(path)
                .ok_or_else(|| Failure::bad_input(format!("--out {path}: use a .csv or .json file name, or -")))?,
        ),
    };
    let document = load(file, input, Offsets::Pinned)?;
    let problem = &document.problem;
    let warm = match warm {
        Some(path) => Some(
            plan_of(problem, path, input)
                .map_err(|failure| Failure { code: 2, message: format!("--warm {}", failure.message) })?,
        ),
        None => None,
    };
    let run = prepared.run_from(problem, warm.as_deref().map(|offsets| (offsets, &[][..]))).map_err(solve_error)?;
    let summary = run.summary(problem);
    let line = json_line(&summary)?;
    // The summary goes to standard output, unless the plan does (`--out -`).
    if out == Some("-") {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    // Never write a wrong answer: the independent validator has seen every plan.
    if !run.is_valid() {
        return Err(Failure::internal(format!(
            "solver {} produced an invalid plan:\n{}",
            summary.winner.as_deref().unwrap_or(&summary.solver),
            run.violations.join("\n")
        )));
    }
    let outcome = &run.outcome;
    match (&outcome.plan, out) {
        (Some(plan), Some("-")) => write_out(None, &document, &plan.offsets, document.format)?,
        (Some(plan), Some(path)) => {
            let format = out_format.unwrap_or(document.format);
            write_out(Some(path), &document, &plan.offsets, format)?;
            eprintln!("memplan: plan written to {path}");
        }
        (Some(_), None) => {
            eprintln!("memplan: plan not written (--out PLAN.csv or PLAN.json keeps it, --out - prints it)")
        }
        (None, Some(path)) => eprintln!("memplan: no plan, so nothing written to {path}"),
        (None, None) => {}
    }
    if outcome.feasible() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("memplan: {}", no_plan(outcome));
        Ok(ExitCode::from(1))
    }
}

/// Writes `document` with `offsets` to the file at `path` (standard output without one) as the
/// writer makes it: a plan of millions of buffers is never held as one text.
fn write_out(path: Option<&str>, document: &format::Document, offsets: &[u64], format: Format) -> Result<(), Failure> {
    use std::io::Write;
    let failed = |e: std::io::Error| Failure::bad_input(format!("{}: {e}", path.unwrap_or("standard output")));
    let sink: Box<dyn Write> = match path {
        Some(path) => Box::new(std::fs::File::create(path).map_err(failed)?),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, sink);
    format::write_to(document, offsets, format, &mut out).map_err(failed)?;
    out.flush().map_err(failed)
}

/// Why no plan within the capacity came back: a proof that nothing fits, or only that this run
/// found nothing that fits (a heuristic, a search that ran out of budget or time). A compiler
/// engineer acts differently on the two, so the message never calls the second "infeasible".
fn no_plan(outcome: &Outcome) -> String {
    let capacity = outcome.capacity.map_or_else(String::new, |c| format!(" within the capacity {c}"));
    if outcome.stopped == Stopped::Infeasible {
        let why = outcome.detail.as_deref().map_or_else(String::new, |d| format!(": {d}"));
        return format!("infeasible (proven): no plan{capacity} exists{why}");
    }
    let best = outcome.makespan().map_or_else(String::new, |m| format!("; the best needs {m} bytes"));
    format!(
        "no plan{capacity} found by {} ({}){best} (not proven infeasible)",
        outcome.winner.as_deref().unwrap_or(&outcome.solver),
        outcome.verdict()
    )
}

pub fn check(path: &str, capacity: Option<&str>, input: &InputArgs) -> Result<ExitCode, Failure> {
    let capacity = Capacity::resolve(capacity.map(Capacity::from).as_ref()).map_err(solve_error)?;
    let document = load(path, input, Offsets::Plan)?;
    let problem = &document.problem;
    let checked = run::given(problem, document.plan.clone().unwrap_or_default(), capacity);
    println!("{}", json_line(&checked.summary(problem))?);
    if checked.is_valid() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Failure::invalid_plan(format!("{path}: invalid plan:\n{}", checked.violations.join("\n"))))
    }
}

pub fn stats(file: &str, input: &InputArgs) -> Result<ExitCode, Failure> {
    let document = load(file, input, Offsets::Pinned)?;
    let summary = metrics::summary(&document.problem);
    println!("{}", json_line(&summary)?);
    Ok(ExitCode::SUCCESS)
}

pub fn bench(
    files: &[String],
    solvers: &[String],
    args: &SolveArgs,
    input: &InputArgs,
    csv: bool,
    repeat: usize,
    peers: &[String],
) -> Result<ExitCode, Failure> {
    // The shared settings once; each solver is looked up (and its parameters given) per row.
    let options = request("auto", args).options().map_err(solve_error)?;
    // Read before the runs, so that a bad peers file fails at once and not after an hour of bench.
    let mut figures = Vec::new();
    for path in peers {
        let text = std::fs::read_to_string(path).map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
        figures.extend(bench::peers::parse(&text).map_err(|e| Failure::bad_input(format!("{path}: {e}")))?);
    }
    let mut declared = Vec::new();
    for name in solvers {
        declared.extend(registry::by_name(name).map_err(solve_error)?.parameters().into_iter().map(|p| p.name));
    }
    // Each solver of a bench gets the parameters it declares; one that none declares is a typo.
    if let Some(unknown) = options.params.names().find(|name| !declared.contains(name)) {
        return Err(Failure::bad_input(format!("none of the solvers has a parameter {unknown}")));
    }
    // A file that cannot be read is reported and left out; the others are benched, and the exit
    // status says that something was left out (a table that silently lacks rows misleads).
    let mut instances = Vec::new();
    let mut unread = Vec::new();
    for file in files {
        match load(file, input, Offsets::Pinned) {
            Ok(document) => {
                let name =
                    std::path::Path::new(file).file_name().map_or(file.clone(), |n| n.to_string_lossy().into_owned());
                instances.push((name, document.problem));
            }
            Err(failure) => {
                eprintln!("memplan: {}", failure.message);
                unread.push(file.as_str());
            }
        }
    }
    let mut rows = bench::run_all_metered(&instances, solvers, &options, repeat, Some(&crate::HEAP));
    bench::attach_peers(&mut rows, &figures);
    if !instances.is_empty() {
        print!("{}", if csv { bench::csv(&rows) } else { bench::markdown(&rows) });
    }
    if !unread.is_empty() {
        return Err(Failure::bad_input(format!(
            "{} of {} files could not be read and were not benched: {}",
            unread.len(),
            files.len(),
            unread.join(", ")
        )));
    }
    if rows.iter().any(|r| r.makespan.is_some() && !r.valid) {
        return Err(Failure::invalid_plan("some plans were invalid (see the table)"));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn solvers(as_json: bool) -> Result<ExitCode, Failure> {
    let infos = registry::infos();
    if as_json {
        println!("{}", json!({ "solvers": infos, "combinations": greedy::describe_combinations() }));
        return Ok(ExitCode::SUCCESS);
    }
    let width = infos.iter().map(|i| i.name.len()).max().unwrap_or(0);
    for info in &infos {
        println!("{:width$}  {}", info.name, info.description);
        for parameter in &info.parameters {
            let range = parameter.range.map(|range| format!(", {range}")).unwrap_or_default();
            // A count whose default is the largest u64 has no limit: say so, not 20 digits.
            let default = if parameter.default == u64::MAX.to_string() { "none" } else { parameter.default.as_str() };
            println!(
                "{:width$}    --param {}=<{}> (default {default}{range}): {}",
                "", parameter.name, parameter.kind, parameter.description
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
    let count = problem.len();
    let document = format::Document::new(problem, format);
    write_out(out, &document, &[], format)?;
    if let Some(path) = out {
        eprintln!("memplan: {count} buffers written to {path}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Where `memplan import` writes what it makes.
pub struct ImportFiles<'a> {
    pub out: Option<&'a str>,
    pub compiler_plan: Option<&'a str>,
    pub write_model: Option<&'a str>,
    pub plan: Option<&'a str>,
}

impl ImportFiles<'_> {
    /// The formats of the instance (`--out`; `-` is CSV) and of the compiler's plan, from their
    /// names: checked before anything is read, so that a bad name fails at once.
    fn formats(&self) -> Result<(Option<Format>, Option<Format>), Failure> {
        let out = match self.out {
            Some("-") => Some(Format::Csv),
            Some(path) => Some(format_of("--out", path)?),
            None => None,
        };
        let plan = self.compiler_plan.map(|path| format_of("--compiler-plan", path)).transpose()?;
        Ok((out, plan))
    }
}

fn format_of(flag: &str, path: &str) -> Result<Format, Failure> {
    Format::from_path(path).ok_or_else(|| Failure::bad_input(format!("{flag} {path}: use a .csv or .json file name")))
}

pub fn import(
    model: &str,
    subgraph: usize,
    options: &memplan::import::tflite::ImportOptions,
    files: &ImportFiles,
    input: &InputArgs,
) -> Result<ExitCode, Failure> {
    use memplan::import::tflite;
    let (out_format, plan_format) = files.formats()?;
    if plan_format.is_some() && options.runtime != tflite::Runtime::Litert {
        return Err(Failure::bad_input(
            "--compiler-plan is LiteRT's arena planner (the tflite preset), for the LiteRT instance: leave out --for micro",
        ));
    }
    let bytes = std::fs::read(model).map_err(|e| Failure::bad_input(format!("{model}: {e}")))?;
    let instance =
        tflite::import(&bytes, subgraph, options).map_err(|e| Failure::bad_input(format!("{model}: {e}")))?;
    let document = format::Document::new(instance.problem.clone(), Format::Csv);
    let mut summary = serde_json::to_value(instance.summary()).map_err(|e| Failure::internal(e.to_string()))?;
    summary["subgraphs"] = json!(tflite::read(&bytes).map(|m| m.subgraphs.len()).unwrap_or(0));
    if let (Some(path), Some(format)) = (files.compiler_plan, plan_format) {
        let offsets = tflite::compiler_plan(&instance);
        summary["compiler_makespan"] = json!(memplan::metrics::makespan(instance.problem.buffers(), &offsets));
        std::fs::write(path, format::write(&document, &offsets, format))
            .map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
        eprintln!("memplan: LiteRT's plan (the tflite preset) written to {path}");
    }
    if let (Some(path), Some(plan)) = (files.write_model, files.plan) {
        let read = load(plan, input, Offsets::Plan)?;
        let offsets = memplan::diff::plan_for(&instance.problem, &read.problem, read.plan.as_deref())
            .map_err(|e| Failure::bad_input(format!("{plan}: {e}")))?;
        let written =
            tflite::with_offline_plan(&bytes, &instance, &offsets).map_err(|e| Failure::bad_input(e.to_string()))?;
        std::fs::write(path, written).map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
        summary["offline_makespan"] = json!(memplan::metrics::makespan(instance.problem.buffers(), &offsets));
        eprintln!("memplan: {path} written with the plan of {plan} as its OfflineMemoryAllocation metadata");
    }
    emit_import(&summary.to_string(), &document, files.out, out_format)
}

/// An import's JSON line and instance: the instance to `out` (`-`: standard output, the line then
/// goes to standard error), else only the line.
fn emit_import(
    line: &str,
    document: &format::Document,
    out: Option<&str>,
    format: Option<Format>,
) -> Result<ExitCode, Failure> {
    match (out, format) {
        (Some("-"), _) => {
            eprintln!("{line}");
            print!("{}", format::write(document, &[], Format::Csv));
        }
        (Some(path), Some(format)) => {
            println!("{line}");
            std::fs::write(path, format::write(document, &[], format))
                .map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
            eprintln!("memplan: instance written to {path}");
        }
        _ => println!("{line}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The kind of model `path` holds, told as the page tells it ([`memplan::import::ModelKind`]):
/// anything not told apart goes to the TFLite importer, which says what it expected.
pub fn model_kind(path: &str) -> Result<memplan::import::ModelKind, Failure> {
    use std::io::Read;
    let mut head = Vec::with_capacity(8);
    let file = std::fs::File::open(path).map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
    file.take(8).read_to_end(&mut head).map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
    Ok(memplan::import::ModelKind::detect(&head, path).unwrap_or(memplan::import::ModelKind::Tflite))
}

/// The import flags, before it is known which kind of model they are for.
pub struct ImportSettings {
    pub subgraph: usize,
    pub trace: Option<usize>,
    pub dynamic_dim: u64,
    pub alignment: Option<u64>,
    pub memory_id: Option<u32>,
    pub runtime: memplan::import::tflite::Runtime,
}

/// `memplan import MODEL`: the kind told from the file, each flag checked to belong to that kind
/// (one for another kind is a mistake to say, not to ignore), then that kind's importer.
pub fn import_any(
    model: &str,
    settings: &ImportSettings,
    files: &ImportFiles,
    input: &InputArgs,
) -> Result<ExitCode, Failure> {
    use memplan::import::{ModelKind, pte, tflite, xla};
    let kind = model_kind(model)?;
    let given = [
        (settings.subgraph != 0, "--subgraph", [ModelKind::Tflite].as_slice()),
        (settings.dynamic_dim != 1, "--dynamic-dim", &[ModelKind::Tflite]),
        (settings.runtime != tflite::Runtime::Litert, "--for", &[ModelKind::Tflite]),
        (settings.trace.is_some(), "--trace", &[ModelKind::Xla]),
        (settings.memory_id.is_some(), "--memory-id", &[ModelKind::Pte]),
        (files.write_model.is_some(), "--write-model", &[ModelKind::Tflite, ModelKind::Pte]),
    ];
    if let Some((_, flag, kinds)) = given.iter().find(|(given, _, kinds)| *given && !kinds.contains(&kind)) {
        // (plural, singular) names of each kind.
        let name = |kind: &ModelKind| match kind {
            ModelKind::Tflite => ("TFLite models", "a TFLite model"),
            ModelKind::Xla => ("XLA dumps", "an XLA dump"),
            ModelKind::Pte => ("ExecuTorch programs", "an ExecuTorch program"),
        };
        let owners: Vec<&str> = kinds.iter().map(|kind| name(kind).0).collect();
        return Err(Failure::bad_input(format!(
            "{model}: {flag} is for {}; this is {}",
            owners.join(" and "),
            name(&kind).1
        )));
    }
    match kind {
        ModelKind::Tflite => {
            let options = tflite::ImportOptions {
                dynamic_dim: settings.dynamic_dim,
                alignment: settings.alignment.unwrap_or(64),
                runtime: settings.runtime,
            };
            import(model, settings.subgraph, &options, files, input)
        }
        ModelKind::Xla => {
            let options = xla::ImportOptions { alignment: settings.alignment.unwrap_or(64) };
            import_xla(model, settings.trace, &options, files)
        }
        ModelKind::Pte => {
            let defaults = pte::ImportOptions::default();
            let options = pte::ImportOptions {
                memory_id: settings.memory_id.unwrap_or(defaults.memory_id),
                alignment: settings.alignment.unwrap_or(defaults.alignment),
            };
            import_pte(model, &options, files, input)
        }
    }
}

/// `memplan import PROGRAM.pte`: the instance of one planned memory of an ExecuTorch program,
/// ExecuTorch's own offsets (`--compiler-plan`), and the program rewritten with a plan
/// (`--write-model` with `--plan`).
pub fn import_pte(
    model: &str,
    options: &memplan::import::pte::ImportOptions,
    files: &ImportFiles,
    input: &InputArgs,
) -> Result<ExitCode, Failure> {
    use memplan::import::pte;
    let (out_format, plan_format) = files.formats()?;
    let bytes = std::fs::read(model).map_err(|e| Failure::bad_input(format!("{model}: {e}")))?;
    let instance = pte::import(&bytes, options).map_err(|e| Failure::bad_input(format!("{model}: {e}")))?;
    let document = format::Document::new(instance.problem.clone(), Format::Csv);
    let mut summary = serde_json::to_value(instance.summary()).map_err(|e| Failure::internal(e.to_string()))?;
    summary["kind"] = json!("pte");
    if let (Some(path), Some(format)) = (files.compiler_plan, plan_format) {
        std::fs::write(path, format::write(&document, &instance.compiler_plan, format))
            .map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
        eprintln!("memplan: ExecuTorch's plan (the program's own offsets) written to {path}");
    }
    if let (Some(path), Some(plan)) = (files.write_model, files.plan) {
        let read = load(plan, input, Offsets::Plan)?;
        let offsets = memplan::diff::plan_for(&instance.problem, &read.problem, read.plan.as_deref())
            .map_err(|e| Failure::bad_input(format!("{plan}: {e}")))?;
        let written = pte::with_plan(&bytes, &instance, &offsets).map_err(|e| Failure::bad_input(e.to_string()))?;
        std::fs::write(path, written).map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
        summary["written_makespan"] = json!(memplan::metrics::makespan(instance.problem.buffers(), &offsets));
        eprintln!("memplan: {path} written with the plan of {plan} as its tensors' allocations");
    }
    emit_import(&summary.to_string(), &document, files.out, out_format)
}

/// `memplan import DUMP.hlo.pb`: the instance XLA's heap simulator solved for one trace, and
/// (`--compiler-plan`) XLA's own offsets for it.
pub fn import_xla(
    dump: &str,
    trace: Option<usize>,
    options: &memplan::import::xla::ImportOptions,
    files: &ImportFiles,
) -> Result<ExitCode, Failure> {
    use memplan::import::xla;
    let (out_format, plan_format) = files.formats()?;
    let bytes = std::fs::read(dump).map_err(|e| Failure::bad_input(format!("{dump}: {e}")))?;
    let traces = xla::traces(&bytes).map_err(|e| Failure::bad_input(format!("{dump}: {e}")))?;
    let instance = xla::import(&bytes, trace, options).map_err(|e| Failure::bad_input(format!("{dump}: {e}")))?;
    let document = format::Document::new(instance.problem.clone(), Format::Csv);
    let mut summary =
        serde_json::to_value(instance.summary(traces.len())).map_err(|e| Failure::internal(e.to_string()))?;
    summary["trace_list"] = json!(traces);
    match xla::compiler_plan(&instance) {
        Ok(plan) => {
            summary["compiler_makespan"] = json!(plan.heap_size);
            summary["compiler_allocation"] = json!(plan.allocation_size);
            if let (Some(path), Some(format)) = (files.compiler_plan, plan_format) {
                std::fs::write(path, format::write(&document, &plan.offsets, format))
                    .map_err(|e| Failure::bad_input(format!("{path}: {e}")))?;
                eprintln!(
                    "memplan: XLA's plan (its buffer assignment, allocation {}) written to {path}",
                    plan.allocation
                );
            }
        }
        Err(error) if files.compiler_plan.is_some() => {
            return Err(Failure::bad_input(format!("{dump}: XLA's plan: {error}")));
        }
        Err(error) => summary["compiler_plan_error"] = json!(error.to_string()),
    }
    emit_import(&summary.to_string(), &document, files.out, out_format)
}

/// The offsets of the plan file at `path` for `problem`'s buffers (matched by id), checked: exit 2
/// when it is not a plan of these buffers, 1 when its offsets break a rule of the instance.
fn plan_of(problem: &memplan::Problem, path: &str, input: &InputArgs) -> Result<Vec<u64>, Failure> {
    use memplan::diff::{PlanMismatch, plan_for};
    let document = load(path, input, Offsets::Plan)?;
    plan_for(problem, &document.problem, document.plan.as_deref()).map_err(|mismatch| match mismatch {
        PlanMismatch::Invalid(_) => Failure::invalid_plan(format!("{path}: {mismatch}")),
        _ => Failure::bad_input(format!("{path}: {mismatch}")),
    })
}

pub fn diff(instance: &str, a: &str, b: &str, list: usize, input: &InputArgs) -> Result<ExitCode, Failure> {
    let document = load(instance, input, Offsets::Pinned)?;
    let problem = &document.problem;
    let plan_a = plan_of(problem, a, input)?;
    let plan_b = plan_of(problem, b, input)?;
    let diff = memplan::diff::PlanDiff::new(problem, &plan_a, &plan_b);
    let line = json_line(&diff)?;
    println!("{line}");
    eprint!("{}", diff_table(&diff, a, b, list));
    Ok(ExitCode::SUCCESS)
}

/// The diff for people: the peaks, the saving, and the first `list` buffers that moved.
fn diff_table(diff: &memplan::diff::PlanDiff, a: &str, b: &str, list: usize) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    let width = a.len().max(b.len()).max(9);
    let _ = writeln!(text, "{:width$}  {:>14}", "plan", "peak (bytes)");
    let _ = writeln!(text, "{a:width$}  {:>14}", diff.peak_a);
    let _ = writeln!(text, "{b:width$}  {:>14}", diff.peak_b);
    let _ = writeln!(text, "{:width$}  {:>14}", "max load", diff.max_load);
    let verb = if diff.saved_bytes >= 0 { "saves" } else { "needs more:" };
    let _ = writeln!(
        text,
        "{b} {verb} {} bytes ({:.2} %) of {a}; {} of {} buffers moved",
        diff.saved_bytes.unsigned_abs(),
        diff.saved_pct.abs(),
        diff.moved,
        diff.buffers
    );
    if diff.moved > 0 && list > 0 {
        let _ = writeln!(text, "  {:>10}  {:>12}  {:>12}  {:>12}  name", "id", "size", "offset in A", "offset in B");
        for moved in diff.moved_buffers.iter().take(list) {
            let _ = writeln!(
                text,
                "  {:>10}  {:>12}  {:>12}  {:>12}  {}",
                moved.id,
                moved.size,
                moved.from,
                moved.to,
                moved.name.as_deref().unwrap_or("")
            );
        }
        if diff.moved > list {
            let _ = writeln!(text, "  … and {} more (all are in the JSON line)", diff.moved - list);
        }
    }
    text
}
