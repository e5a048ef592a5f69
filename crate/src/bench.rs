//! `memplan bench`: every solver on every instance, one row each, as a markdown or CSV table.
//! The caller reads the files; this module runs, validates and renders.

use std::time::Duration;

use crate::model::{Problem, Stopped};
use crate::options::SolveOptions;
use crate::run;

pub mod peers;

/// One solver on one instance. Time is the median over the repeats.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub instance: String,
    pub buffers: usize,
    pub max_load: u64,
    /// The lowest height this run proved no plan can go below (at least the max load; more when
    /// the solver refuted heights above it). With the makespan it brackets the optimum.
    pub lower_bound: u64,
    pub solver: String,
    /// The capacity the run was held to (the bench's or the instance's own), if any.
    pub capacity: Option<u64>,
    /// `None` when the solver returned no plan (then `stopped` or `error` says why).
    pub makespan: Option<u64>,
    pub fragmentation_pct: Option<f64>,
    pub time: Duration,
    /// The most heap the run held above what was allocated before it (the last repeat's; the
    /// solve and the check of its plan), in bytes, when the caller measures it ([`Meter`]).
    pub peak_heap: Option<usize>,
    /// CPU time of the last repeat, all threads together, when the caller measures it.
    pub cpu_time: Option<Duration>,
    /// The most memory the whole process held resident during the last repeat (the operating
    /// system's count, instances read and allocator slack included), in bytes, where the caller
    /// can tell ([`Meter::peak_resident`]).
    pub peak_resident: Option<usize>,
    pub valid: bool,
    pub feasible: bool,
    /// Why the run stopped (`None` when it could not run: see `error`).
    pub stopped: Option<Stopped>,
    /// The portfolio member that won, for `auto`.
    pub winner: Option<String>,
    pub error: Option<String>,
    /// The best published figure of another planner on this instance ([`peers::best`]), as the
    /// table shows it; `None` when the bench was given none.
    pub best_peer: Option<String>,
}

/// Peak heap and CPU time of a run, from the program that runs it (the CLI binary counts its
/// allocations). The library cannot measure them itself: only the program's global allocator sees
/// every allocation, and CPU time is the operating system's.
pub trait Meter: Sync {
    /// Starts a heap measurement: returns the bytes allocated now and makes that the peak.
    fn reset(&self) -> usize;
    /// The most bytes allocated at once since the last reset.
    fn peak(&self) -> usize;
    /// CPU time the process has used so far, every thread's (`None` where unknown). On a loaded
    /// machine it says what a run costs better than wall time, which includes waiting for a core.
    fn cpu_time(&self) -> Option<Duration>;
    /// The most memory the process has held resident since the last [`Meter::reset`] (since it
    /// started, where the high-water mark cannot be reset), in bytes; `None` where unknown.
    fn peak_resident(&self) -> Option<usize> {
        None
    }
}

/// Runs each solver on each instance `repeats` times (at least once) and validates every plan.
pub fn run_all(
    instances: &[(String, Problem)],
    solvers: &[String],
    options: &SolveOptions,
    repeats: usize,
) -> Vec<Row> {
    run_all_metered(instances, solvers, options, repeats, None)
}

/// [`run_all`], with each row's peak heap from `meter`.
pub fn run_all_metered(
    instances: &[(String, Problem)],
    solvers: &[String],
    options: &SolveOptions,
    repeats: usize,
    meter: Option<&dyn Meter>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (name, problem) in instances {
        for solver in solvers {
            let options = &options_for(solver, options);
            let mut times = Vec::new();
            let mut last = None;
            let mut peak_heap = None;
            let mut cpu_time = None;
            let mut peak_resident = None;
            for _ in 0..repeats.max(1) {
                // The previous repeat's result is dropped first, so that it does not count.
                drop(last.take());
                let baseline = meter.map(|m| m.reset());
                let cpu_before = meter.and_then(|m| m.cpu_time());
                let started = web_time::Instant::now();
                let result = run::solve(problem, solver, options);
                times.push(started.elapsed());
                let cpu_after = meter.and_then(|m| m.cpu_time());
                cpu_time = cpu_before.zip(cpu_after).map(|(before, after)| after.saturating_sub(before));
                peak_heap = meter.zip(baseline).map(|(m, baseline)| m.peak().saturating_sub(baseline));
                peak_resident = meter.and_then(|m| m.peak_resident());
                let failed = result.is_err();
                last = Some(result);
                if failed {
                    break;
                }
            }
            times.sort();
            let time = times[times.len() / 2];
            let mut row = Row {
                instance: name.clone(),
                buffers: problem.len(),
                max_load: problem.max_load(),
                lower_bound: problem.lower_bound(),
                solver: solver.clone(),
                capacity: options.capacity.or(problem.capacity()),
                makespan: None,
                fragmentation_pct: None,
                time,
                peak_heap,
                cpu_time,
                peak_resident,
                valid: false,
                feasible: false,
                stopped: None,
                winner: None,
                error: None,
                best_peer: None,
            };
            match last.expect("at least one repeat ran") {
                Ok(run) => {
                    let summary = run.summary(problem);
                    row.lower_bound = summary.lower_bound;
                    row.makespan = summary.makespan;
                    row.fragmentation_pct = summary.fragmentation_pct;
                    row.valid = summary.valid;
                    row.feasible = summary.feasible;
                    row.stopped = Some(summary.stopped);
                    row.winner = summary.winner;
                    row.error = (!summary.valid).then(|| summary.violations.join("; "));
                }
                Err(error) => row.error = Some(error.to_string()),
            }
            rows.push(row);
        }
    }
    rows
}

/// Sets each row's best peer figure from `figures`: the best under the capacity the row ran with.
pub fn attach_peers(rows: &mut [Row], figures: &[peers::PeerFigure]) {
    for row in rows {
        let best = peers::best(figures, &row.instance, row.capacity, row.max_load);
        row.best_peer = best.map(|f| f.describe(row.max_load));
    }
}

/// A bench runs several solvers with one set of options: each gets the parameters it declares
/// (an unknown solver keeps them all, and `run::solve` reports it).
fn options_for(solver: &str, options: &SolveOptions) -> SolveOptions {
    let Ok(declared) = run::registry::by_name(solver).map(|s| s.parameters()) else {
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

fn cells(row: &Row) -> [String; 15] {
    [
        row.instance.clone(),
        row.buffers.to_string(),
        row.max_load.to_string(),
        row.lower_bound.to_string(),
        match &row.winner {
            Some(w) => format!("{} ({w})", row.solver),
            None => row.solver.clone(),
        },
        row.makespan.map_or_else(|| "-".into(), |m| m.to_string()),
        row.fragmentation_pct.map_or_else(|| "-".into(), |f| format!("{f:.3}")),
        row.best_peer.clone().unwrap_or_else(|| "-".into()),
        {
            // Three decimals below 10 ms, where one would hide the difference between solvers.
            let ms = row.time.as_secs_f64() * 1000.0;
            if ms < 10.0 { format!("{ms:.3}") } else { format!("{ms:.1}") }
        },
        row.cpu_time.map_or_else(|| "-".into(), |cpu| format!("{:.0}", cpu.as_secs_f64() * 1000.0)),
        row.peak_heap.map_or_else(|| "-".into(), |bytes| format!("{:.1}", bytes as f64 / (1u64 << 20) as f64)),
        row.peak_resident.map_or_else(|| "n/a".into(), |bytes| format!("{:.1}", bytes as f64 / (1u64 << 20) as f64)),
        if row.valid { "yes".into() } else { "NO".into() },
        row.stopped.map_or_else(String::new, |s| {
            serde_json::to_value(s).map_or_else(|_| String::new(), |v| v.as_str().unwrap_or_default().to_string())
        }),
        row.error.clone().unwrap_or_default().replace(['\n', '|'], " "),
    ]
}

const HEADER: [&str; 15] = [
    "instance",
    "buffers",
    "max load",
    "bound",
    "solver",
    "makespan",
    "frag %",
    "best peer",
    "time ms",
    "cpu ms",
    "peak MiB",
    "resident MiB",
    "valid",
    "stopped",
    "note",
];

/// A markdown table, one row per instance and solver.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = format!("| {} |\n", HEADER.join(" | "));
    out.push_str("|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---|---|---|\n");
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A meter that says the heap stood at 1000 bytes at each reset and peaked 4096 above it, and
    /// that every run took 3 ms of CPU.
    struct Fake {
        calls: AtomicUsize,
    }

    impl Meter for Fake {
        fn reset(&self) -> usize {
            1000
        }
        fn peak(&self) -> usize {
            1000 + 4096
        }
        fn cpu_time(&self) -> Option<Duration> {
            let k = self.calls.fetch_add(1, Ordering::Relaxed) as u64;
            Some(Duration::from_millis(3 * k.div_ceil(2)))
        }
        fn peak_resident(&self) -> Option<usize> {
            Some(3 << 20)
        }
    }

    #[test]
    fn a_meter_fills_the_peak_and_cpu_columns() {
        let problem =
            Problem::new(vec![crate::Buffer::new("a", 0, 2, 8), crate::Buffer::new("b", 1, 3, 8)], None).unwrap();
        let instances = [("two".to_string(), problem)];
        let meter = Fake { calls: AtomicUsize::new(0) };
        let rows = run_all_metered(&instances, &["slff".into()], &SolveOptions::default(), 1, Some(&meter));
        assert_eq!(rows[0].makespan, Some(16));
        assert_eq!(rows[0].peak_heap, Some(4096));
        assert_eq!(rows[0].cpu_time, Some(Duration::from_millis(3)));
        let table = markdown(&rows);
        assert_eq!(rows[0].peak_resident, Some(3 << 20));
        assert!(table.contains("| 3 | 0.0 | 3.0 | yes |"), "{table}");
        let unmetered = run_all(&instances, &["slff".into()], &SolveOptions::default(), 1);
        assert!(markdown(&unmetered).contains("| - | - | n/a | yes |"));
    }

    #[test]
    fn rows_carry_the_proven_bound_and_the_best_peer_under_their_capacity() {
        // Three buffers alive together at time 1: load 17, which the exact solver reaches.
        let problem = Problem::new(
            vec![crate::Buffer::new("a", 0, 2, 8), crate::Buffer::new("b", 1, 3, 8), crate::Buffer::new("c", 1, 2, 1)],
            None,
        )
        .unwrap();
        let instances = [("three.csv".to_string(), problem)];
        let figures = peers::parse(
            r#"[{"instance": "three.csv", "peer": "P", "makespan": 20, "source": "s"},
                {"instance": "three.csv", "peer": "Q", "capacity": 17, "fits": true, "time_ms": 5, "source": "s"}]"#,
        )
        .unwrap();
        let minimise = SolveOptions::default();
        let mut rows = run_all(&instances, &["minimalloc".into()], &minimise, 1);
        attach_peers(&mut rows, &figures);
        assert_eq!((rows[0].lower_bound, rows[0].makespan), (17, Some(17)));
        assert_eq!(rows[0].best_peer.as_deref(), Some("P 20 (17.647 %)"));
        assert!(markdown(&rows).contains("| three.csv | 3 | 17 | 17 | minimalloc | 17 | 0.000 | P 20 (17.647 %) |"));
        let within = SolveOptions { capacity: Some(17), ..SolveOptions::default() };
        let mut rows = run_all(&instances, &["minimalloc".into()], &within, 1);
        attach_peers(&mut rows, &figures);
        assert_eq!(rows[0].best_peer.as_deref(), Some("Q fits, 5 ms"));
    }
}
