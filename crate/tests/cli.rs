//! The `memplan` command end to end: outputs and exit codes (0 ok, 1 infeasible or invalid,
//! 2 bad input or usage).

use std::path::PathBuf;
use std::process::{Command, Output};

fn memplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memplan")).args(args).output().expect("memplan runs")
}

fn example(path: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../public/examples");
    root.join(path).to_string_lossy().into_owned()
}

fn scratch(name: &str, contents: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_string_lossy().into_owned()
}

fn json_line(output: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.lines().next().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn solve_prints_one_json_line_and_exits_0() {
    let output =
        memplan(&["solve", &example("minimalloc/examples/input.12.csv"), "--solver", "slff", "--capacity", "12"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let line = json_line(&output);
    for key in [
        "solver",
        "buffers",
        "max_load",
        "makespan",
        "fragmentation",
        "fragmentation_pct",
        "lower_bound",
        "optimal",
        "feasible",
        "elapsed_ms",
    ] {
        assert!(line.get(key).is_some(), "missing {key} in {line}");
    }
    assert_eq!(line["solver"], "slff");
    assert_eq!(line["buffers"], 5);
    assert_eq!(line["feasible"], true);
}

#[test]
fn auto_names_its_winner() {
    let output =
        memplan(&["solve", &example("minimalloc/challenging/C.1048576.csv"), "--effort", "low", "--seed", "3"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let line = json_line(&output);
    assert_eq!(line["solver"], "auto");
    // Low effort searches too: the exact search proves C's bound from the greedy start.
    assert!(line["winner"].as_str().is_some_and(|w| w.starts_with("greedy-") || w == "minimalloc"), "{line}");
}

#[test]
fn a_capacity_below_the_plan_exits_1() {
    let output =
        memplan(&["solve", &example("minimalloc/challenging/A.1048576.csv"), "--solver", "slff", "--capacity", "1MiB"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json_line(&output)["feasible"], false);
    // slff does not search, so its plan above the capacity is no proof that nothing fits.
    assert!(stderr(&output).contains("no plan within the capacity 1048576 found by slff"), "{}", stderr(&output));
    assert!(stderr(&output).contains("not proven infeasible"), "{}", stderr(&output));
}

#[test]
fn a_capacity_below_the_max_load_is_proven_infeasible() {
    // A's max load is 1048576: one byte less cannot hold it, whatever the planner.
    let output = memplan(&[
        "solve",
        &example("minimalloc/challenging/A.1048576.csv"),
        "--solver",
        "slff",
        "--capacity",
        "1048575",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("infeasible (proven)"), "{}", stderr(&output));
    assert!(stderr(&output).contains("at least 1048576 bytes are needed"), "{}", stderr(&output));
    assert_eq!(json_line(&output)["stopped"], "infeasible");
}

#[test]
fn bad_input_exits_2_naming_file_and_line() {
    let file = scratch("bad.csv", "id,lower,upper,size\n0,0,4,8\n1,9,4,8\n");
    let output = memplan(&["solve", &file, "--solver", "slff"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("bad.csv") && message.contains("line 3"), "{message}");
}

#[test]
fn usage_errors_exit_2() {
    let file = example("minimalloc/examples/input.12.csv");
    for args in [
        vec!["solve", file.as_str(), "--solver", "nonsense"],
        vec!["solve", file.as_str(), "--capacity", "12 parsecs"],
        vec!["solve", file.as_str(), "--effort", "extreme"],
        vec!["solve", file.as_str(), "--time-limit", "-1"],
        vec!["solve", file.as_str(), "--threads", "0"],
        vec!["solve", "/nonexistent/file.csv"],
        vec!["frobnicate"],
    ] {
        let output = memplan(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
    }
}

#[test]
fn a_written_plan_checks_valid_in_both_formats() {
    for extension in ["csv", "json"] {
        let out = scratch(&format!("plan.{extension}"), "");
        let output =
            memplan(&["solve", &example("minimalloc/challenging/B.1048576.csv"), "--solver", "xla", "--out", &out]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let makespan = json_line(&output)["makespan"].clone();
        let check = memplan(&["check", &out]);
        assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
        let report = json_line(&check);
        assert_eq!(report["valid"], true);
        assert_eq!(report["makespan"], makespan);
        // The plan does not fit in a smaller capacity: invalid, exit 1.
        let tight = memplan(&["check", &out, "--capacity", "1000"]);
        assert_eq!(tight.status.code(), Some(1));
        assert_eq!(json_line(&tight)["valid"], false);
    }
}

/// The plan of an instance with no buffers was written without its `offset` column,
/// which `check` rejected.
#[test]
fn an_empty_instance_solves_to_a_plan_that_checks() {
    for (name, contents) in [("empty.csv", "id,lower,upper,size\n"), ("empty.json", "{\"buffers\": []}")] {
        let input = scratch(name, contents);
        for extension in ["csv", "json"] {
            let out = scratch(&format!("empty-plan-of-{name}.{extension}"), "");
            let output = memplan(&["solve", &input, "--out", &out]);
            assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
            assert_eq!(json_line(&output)["makespan"], 0);
            if extension == "csv" {
                assert_eq!(std::fs::read_to_string(&out).unwrap(), "id,lower,upper,size,offset\n");
            }
            let check = memplan(&["check", &out]);
            assert_eq!(check.status.code(), Some(0), "{name} -> {extension}: {}", stderr(&check));
            assert_eq!(json_line(&check)["makespan"], 0);
        }
    }
}

#[test]
fn an_empty_file_is_bad_input_saying_so() {
    for name in ["nothing.csv", "nothing.json"] {
        let output = memplan(&["stats", &scratch(name, "")]);
        assert_eq!(output.status.code(), Some(2));
        let message = stderr(&output);
        assert!(message.contains(&format!("{name}: line 1: empty input")), "{message}");
    }
}

/// `--capacity 170141183460469231731687303715884105733.0` (2^127 + 5) was read as 5.
#[test]
fn a_capacity_past_64_bits_is_a_usage_error() {
    let file = example("minimalloc/examples/input.12.csv");
    for capacity in ["170141183460469231731687303715884105733.0", "18446744073709551616", "16777216TiB"] {
        let output = memplan(&["solve", &file, "--capacity", capacity]);
        assert_eq!(output.status.code(), Some(2), "{capacity}: {}", stderr(&output));
        assert!(stderr(&output).contains("does not fit in 64 bits"), "{capacity}: {}", stderr(&output));
    }
}

#[test]
fn check_reports_overlaps_with_exit_1() {
    let plan = scratch("overlap.csv", "id,lower,upper,size,offset\na,0,4,8,0\nb,2,6,8,4\n");
    let output = memplan(&["check", &plan]);
    assert_eq!(output.status.code(), Some(1));
    let report = json_line(&output);
    assert_eq!(report["valid"], false);
    assert!(report["violations"][0].as_str().unwrap().contains("overlaps"), "{report}");
    let unplanned = scratch("unplanned.csv", "id,lower,upper,size\na,0,4,8\n");
    assert_eq!(memplan(&["check", &unplanned]).status.code(), Some(2));
}

/// An invalid plan proves nothing: `check` called one "optimal" at a lower bound below the max
/// load (its own makespan), "feasible", and with a capacity "proven infeasible" by that bound.
#[test]
fn check_claims_nothing_of_an_invalid_plan() {
    let plan = scratch("invalid-claims.csv", "id,lower,upper,size,offset\na,0,2,4,0\nb,1,3,4,2\n");
    for capacity in [None, Some("3"), Some("100")] {
        let mut args = vec!["check", plan.as_str()];
        args.extend(capacity.iter().flat_map(|c| ["--capacity", c]));
        let output = memplan(&args);
        assert_eq!(output.status.code(), Some(1), "{capacity:?}: {}", stderr(&output));
        let report = json_line(&output);
        assert_eq!(report["stopped"], "given", "{report}");
        assert_eq!(
            (&report["optimal"], &report["feasible"], &report["valid"]),
            (&false.into(), &false.into(), &false.into())
        );
        // The instance's own bound (the max load), never the invalid plan's makespan.
        assert_eq!((&report["lower_bound"], &report["max_load"]), (&8.into(), &8.into()), "{report}");
        assert_eq!(report["makespan"], serde_json::Value::Null, "{report}");
        assert!(report["verdict"].as_str().unwrap().contains("invalid"), "{report}");
        assert!(report["detail"].as_str().unwrap().contains("invalid"), "{report}");
        let violations = report["violations"].as_array().unwrap();
        assert!(violations.iter().all(|v| !v.as_str().unwrap().contains("claims")), "{report}");
        assert!(!stderr(&output).contains("infeasible (proven)"), "{}", stderr(&output));
    }
    // A valid plan at the bound is optimal, still `given`; one above it is not.
    let at_bound = scratch("valid-at-bound.csv", "id,lower,upper,size,offset\na,0,2,4,0\nb,1,3,4,4\n");
    let report = json_line(&memplan(&["check", &at_bound]));
    assert_eq!(
        (&report["stopped"], &report["optimal"], &report["valid"]),
        (&"given".into(), &true.into(), &true.into())
    );
    assert!(report["verdict"].as_str().unwrap().contains("optimal"), "{report}");
    let above = scratch("valid-above.csv", "id,lower,upper,size,offset\na,0,2,4,0\nb,1,3,4,5\n");
    let report = json_line(&memplan(&["check", &above]));
    assert_eq!(
        (&report["stopped"], &report["optimal"], &report["lower_bound"]),
        (&"given".into(), &false.into(), &8.into())
    );
    assert_eq!(report["makespan"], 9);
}

/// A file that is not text says where it stops being UTF-8 (it said only "stream did not contain
/// valid UTF-8"), and a model file says to import it.
#[test]
fn a_file_that_is_not_text_says_where_or_what_it_is() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    };
    let latin1 = write("latin1.csv", b"id,lower,upper,size\nb\xe9,0,4,16\n");
    let output = memplan(&["solve", &latin1]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("line 2, column 2") && stderr(&output).contains("UTF-8"), "{}", stderr(&output));
    let tflite = write("model.tflite", b"\x1c\x00\x00\x00TFL3\x00\x00\xff\xfe\x00");
    let hlo = write("module.hlo.pb", b"\x0a\x05\xff\xfe\x00");
    for (model, kind) in [(tflite, "TFLite"), (hlo, "HloProto")] {
        let output = memplan(&["solve", &model]);
        assert_eq!(output.status.code(), Some(2));
        assert!(stderr(&output).contains(kind) && stderr(&output).contains("memplan import"), "{}", stderr(&output));
    }
}

/// Many unknown columns give one note (a million gave a million lines on standard error).
#[test]
fn unknown_columns_get_one_note() {
    let extra: Vec<String> = (0..1000).map(|k| format!("extra{k}")).collect();
    let header = format!("id,lower,upper,size,{}\n", extra.join(","));
    let row = format!("a,0,4,16,{}\n", vec!["1"; 1000].join(","));
    let file = scratch("wide.csv", &(header + &row));
    let output = memplan(&["stats", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let notes: Vec<&str> = std::str::from_utf8(&output.stderr).unwrap().lines().collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("1000 unknown columns, 'extra0' (column 5)") && notes[0].contains("and 995 more"),
        "{}",
        notes[0]
    );
}

/// Lines ended by a carriage return alone read as lines (they read as one header line, "missing
/// column 'size'").
#[test]
fn carriage_return_line_endings_are_read() {
    let file = scratch("mac.csv", "id,lower,upper,size\ra,0,4,16\rb,2,6,8\r");
    let output = memplan(&["stats", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(json_line(&output)["buffers"], 2);
}

/// The validator's sentence for a false bound names the bound and the max load in that order.
#[test]
fn a_false_bound_is_described_in_order() {
    use memplan::validate::{Claim, Violation};
    let problem = memplan::Problem::new(vec![memplan::Buffer::new("a", 0, 2, 8)], None).unwrap();
    let sentence = Violation::WrongClaim { what: Claim::BoundBelowMaxLoad, claimed: 6, actual: 8 }.describe(&problem);
    assert_eq!(sentence, "the solution claims a lower bound of 6, below the max load 8");
}

#[test]
fn stats_counts_conflicts_and_max_load() {
    let output = memplan(&["stats", &example("minimalloc/examples/input.12.csv")]);
    assert_eq!(output.status.code(), Some(0));
    let stats = json_line(&output);
    assert_eq!(stats["buffers"], 5);
    assert!(stats["max_load"].as_u64().unwrap() <= 12);
    assert!(stats.get("conflicts").is_some());
}

#[test]
fn inclusive_semantics_changes_the_conflicts() {
    let file = scratch("touching.csv", "id,lower,upper,size\na,0,2,8\nb,2,4,8\n");
    let half_open = json_line(&memplan(&["stats", &file]));
    let inclusive = json_line(&memplan(&["stats", &file, "--semantics", "inclusive"]));
    assert_eq!(half_open["max_load"], 8);
    assert_eq!(inclusive["max_load"], 16);
}

#[test]
fn bench_prints_a_row_per_instance_and_solver() {
    let files = [example("minimalloc/challenging/A.1048576.csv"), example("minimalloc/challenging/K.1048576.csv")];
    let output = memplan(&["bench", &files[0], &files[1], "--solvers", "slff,tvm"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let table = String::from_utf8_lossy(&output.stdout);
    assert_eq!(table.lines().filter(|l| l.starts_with("| A.") || l.starts_with("| K.")).count(), 4, "{table}");
    let csv = memplan(&["bench", &files[0], "--solvers", "slff", "--csv"]);
    let csv = String::from_utf8_lossy(&csv.stdout);
    assert!(csv.starts_with("instance,buffers,max_load,bound,solver,makespan,frag_%,best_peer"), "{csv}");
    assert_eq!(csv.lines().count(), 2);
}

/// One unreadable file among several: it is named, the others are benched, and the exit status
/// says something was left out.
#[test]
fn bench_reports_a_bad_file_and_benches_the_others() {
    let good = example("minimalloc/challenging/A.1048576.csv");
    let bad = scratch("bench-bad.csv", "id,lower,upper,size\na,0,1,x\n");
    let output = memplan(&["bench", &bad, &good, "--solvers", "slff"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let table = String::from_utf8_lossy(&output.stdout);
    assert_eq!(table.lines().filter(|l| l.starts_with("| A.")).count(), 1, "{table}");
    assert!(stderr(&output).contains("bench-bad.csv"), "{}", stderr(&output));
    assert!(stderr(&output).contains("1 of 2 files could not be read"), "{}", stderr(&output));
}

#[test]
fn bench_sets_the_peers_best_figure_beside_each_row() {
    let a = example("minimalloc/challenging/A.1048576.csv");
    let peers = example("peers.json");
    // Within MiniMalloc's capacity the paper's figure applies; without one there is none for A.
    let within = memplan(&["bench", &a, "--solvers", "slff", "--capacity", "1048576", "--peers", &peers]);
    assert_eq!(within.status.code(), Some(0), "{}", stderr(&within));
    assert!(String::from_utf8_lossy(&within.stdout).contains("| MiniMalloc fits, 4910 ms |"));
    let minimising = memplan(&["bench", &a, "--solvers", "slff", "--peers", &peers]);
    assert!(String::from_utf8_lossy(&minimising.stdout).contains("| 29.004 | - |"), "{}", stderr(&minimising));
    let bad = scratch("peers.json", "[{\"instance\": \"A.1048576.csv\", \"peer\": \"x\",\n \"source\": \"s\"}]");
    let refused = memplan(&["bench", &a, "--solvers", "slff", "--peers", &bad]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("entry 0 (A.1048576.csv, x): give exactly one of"), "{}", stderr(&refused));
}

#[test]
fn solvers_lists_every_preset() {
    let output = memplan(&["solvers"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    for name in
        ["auto", "slff", "tflite", "xla", "tvm", "first-fit-start", "zant", "executorch-greedy", "greedy-<order>-<fit>"]
    {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name} missing from:\n{text}");
    }
    // A budget without a limit reads "none", not the largest u64.
    assert!(!text.contains(&u64::MAX.to_string()), "{text}");
    assert!(text.contains("--param budget=<int> (default none"), "{text}");
}

#[test]
fn standard_input_is_read_for_dash() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(["solve", "-", "--solver", "slff"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"buffers\":[{\"id\":\"a\",\"start\":0,\"end\":2,\"size\":\"1KiB\"}]}")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(json_line(&output)["makespan"], 1024);
}

#[test]
fn generate_writes_a_trace_that_reads_back() {
    let out = scratch("trace.csv", "");
    let output = memplan(&["generate", "--buffers", "300", "--seed", "9", "--out", &out]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains(&format!("300 buffers written to {out}")), "{}", stderr(&output));
    let stats = json_line(&memplan(&["stats", &out]));
    assert_eq!(stats["buffers"], 300);
    let again = memplan(&["generate", "--buffers", "300", "--seed", "9"]);
    assert_eq!(String::from_utf8_lossy(&again.stdout), std::fs::read_to_string(&out).unwrap());
}

/// Thread counts beyond the core's maximum and limits that are not a number of seconds are usage
/// errors (exit 2) before anything runs: 100000 threads once hung building its pool, and
/// `--time-limit 1e20` panicked converting to a `Duration`.
#[test]
fn out_of_range_threads_and_time_limits_are_usage_errors() {
    let input = example("minimalloc/examples/input.12.csv");
    for option in ["--threads=100000", "--threads=0", "--time-limit=-1", "--time-limit=NaN", "--time-limit=-inf"] {
        let output = memplan(&["solve", &input, "--solver", "slff", option]);
        assert_eq!(output.status.code(), Some(2), "{option}: {}", stderr(&output));
        assert!(stderr(&output).contains("invalid option"), "{option}: {}", stderr(&output));
    }
    assert!(stderr(&memplan(&["solve", &input, "--threads=257"])).contains("outside 1 to 256"));
    let bench = memplan(&["bench", &input, "--solvers", "slff", "--threads=100000"]);
    assert_eq!(bench.status.code(), Some(2), "{}", stderr(&bench));
    // A limit too long for a Duration is no limit; zero has passed at once, and `auto` still plans.
    for option in ["--time-limit=1e20", "--time-limit=inf", "--time-limit=0", "--threads=256"] {
        let output = memplan(&["solve", &input, option]);
        assert_eq!(output.status.code(), Some(0), "{option}: {}", stderr(&output));
        assert_eq!(json_line(&output)["feasible"], true);
    }
}

/// Capacity 0: every solver says a non-empty instance is infeasible (exit 1), from the flag and
/// from the file alike; an empty instance fits it.
#[test]
fn capacity_zero_is_infeasible_for_every_solver() {
    let input = scratch("zero.json", r#"{"capacity": 0, "buffers": [{"id": "a", "start": 0, "end": 2, "size": 4}]}"#);
    let empty = scratch("empty.json", r#"{"capacity": 0, "buffers": []}"#);
    for solver in ["auto", "slff", "zant-buddy", "minimalloc", "idealloc", "telamalloc", "greedy-size-top"] {
        for args in [
            vec!["solve", input.as_str(), "--solver", solver],
            vec!["solve", input.as_str(), "--solver", solver, "--capacity", "0"],
        ] {
            let output = memplan(&args);
            assert_eq!(output.status.code(), Some(1), "{args:?}: {}", stderr(&output));
            assert!(stderr(&output).contains("infeasible"), "{args:?}: {}", stderr(&output));
        }
        let output = memplan(&["solve", &empty, "--solver", solver]);
        assert_eq!(output.status.code(), Some(0), "{solver}: {}", stderr(&output));
        assert_eq!(json_line(&output)["feasible"], true);
    }
}

/// Every run prints its JSON line, also without a plan, and says why it stopped.
#[test]
fn a_run_without_a_plan_still_prints_its_line() {
    // MiniMalloc proves that A (L = 1048576) does not fit 1000000 bytes.
    let a = example("minimalloc/challenging/A.1048576.csv");
    let output = memplan(&["solve", &a, "--solver", "minimalloc", "--capacity", "1000000"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let line = json_line(&output);
    assert_eq!(line["stopped"], "infeasible");
    assert_eq!(line["makespan"], serde_json::Value::Null);
    assert_eq!(line["feasible"], false);
    assert!(line["verdict"].as_str().unwrap().contains("infeasible"), "{line}");
    assert!(stderr(&output).contains("infeasible (proven)"), "{}", stderr(&output));
}

#[test]
fn the_line_says_why_the_run_stopped() {
    let small = scratch("contract.csv", "id,lower,upper,size\nb0,2,3,2\nb1,0,1,2\nb2,1,2,1\nb3,0,2,1\nb4,1,3,1\n");
    // A MiniMalloc unit test's instance: default auto fits 3 bytes (a plan at L).
    let output = memplan(&["solve", &small, "--capacity", "3"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(json_line(&output)["stopped"], "lower_bound");
    assert_eq!(json_line(&output)["makespan"], 3);
    // A heuristic alone proves nothing.
    let output = memplan(&["solve", &small, "--solver", "first-fit-start"]);
    let line = json_line(&output);
    assert!(["completed", "lower_bound"].contains(&line["stopped"].as_str().unwrap()), "{line}");
    // A work budget that runs out says so.
    let d = example("minimalloc/challenging/D.1048576.csv");
    let output = memplan(&["solve", &d, "--solver", "minimalloc", "--param", "budget=100"]);
    assert_eq!(json_line(&output)["stopped"], "budget");
}

#[test]
fn out_dash_prints_the_plan_and_the_line_goes_to_stderr() {
    let input = example("minimalloc/examples/input.12.csv");
    let output = memplan(&["solve", &input, "--solver", "slff", "--out", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let plan = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(plan.lines().next().unwrap().contains("offset"), "{plan}");
    let line: serde_json::Value = serde_json::from_str(stderr(&output).lines().next().unwrap()).unwrap();
    assert_eq!(line["solver"], "slff");
    let file = scratch("dash-plan.csv", &plan);
    assert_eq!(memplan(&["check", &file]).status.code(), Some(0));
    // Without --out the plan is not kept, and the user is told.
    let output = memplan(&["solve", &input, "--solver", "slff"]);
    assert!(stderr(&output).contains("plan not written"), "{}", stderr(&output));
}

/// One rule for numbers: a JSON number up to 2^53 - 1, a decimal string beyond; no float noise.
#[test]
fn numbers_follow_one_rule() {
    let big = scratch("big.csv", "id,lower,upper,size\na,0,2,9007199254740993\nb,1,3,5\n");
    let output = memplan(&["solve", &big, "--solver", "slff"]);
    let line = json_line(&output);
    assert_eq!(line["max_load"], "9007199254740998");
    assert_eq!(line["buffers"], 2);
    let stats = json_line(&memplan(&["stats", &big]));
    assert_eq!(stats["total_size"], "9007199254740998");
    let stats = json_line(&memplan(&["stats", &example("minimalloc/examples/input.12.csv")]));
    assert!(stats["total_size"].is_u64(), "{stats}");
    // Floats carry at most six significant digits.
    let output = memplan(&["solve", &example("minimalloc/challenging/C.1048576.csv")]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    for number in text.split([',', ':', '{', '}']).filter(|t| t.contains('.') && t.parse::<f64>().is_ok()) {
        let digits: String = number.chars().filter(char::is_ascii_digit).collect();
        let digits = digits.trim_matches('0').len();
        assert!(digits <= 6, "{number} in {text}");
    }
}

fn tflite_fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tflite").join(name).to_string_lossy().into_owned()
}

/// `memplan import` writes the instance and LiteRT's own plan; the plan checks valid
/// and needs the arena LiteRT allocates (recorded in the fixture's `.litert.json`).
#[test]
fn import_writes_the_instance_and_the_compiler_plan() {
    let model = tflite_fixture("hand_recrop.tflite");
    let (instance, plan) = (scratch("hand_recrop.csv", ""), scratch("hand_recrop.plan.json", ""));
    let output = memplan(&["import", &model, "-o", &instance, "--compiler-plan", &plan]);
    assert!(output.status.success(), "{}", stderr(&output));
    let line = json_line(&output);
    assert_eq!(
        (line["tensors"].as_u64(), line["buffers"].as_u64(), line["shared"].as_u64()),
        (Some(152), Some(58), Some(6))
    );
    assert_eq!(line["compiler_makespan"], 2_359_296);
    let written = std::fs::read_to_string(&instance).unwrap();
    assert!(
        written.starts_with("id,lower,upper,size,alignment,name,category\n0,0,64,786432,64,input_1,input\n"),
        "{written}"
    );
    let check = memplan(&["check", &plan]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert_eq!(json_line(&check)["makespan"], 2_359_296);
    // The TFLite Micro instance, solved, writes back into the model.
    let micro = scratch("hand_recrop.micro.csv", "");
    assert!(memplan(&["import", &model, "--for", "micro", "-o", &micro]).status.success());
    let solved = scratch("hand_recrop.solved.csv", "");
    assert!(memplan(&["solve", &micro, "--out", &solved]).status.success());
    let out = scratch("hand_recrop.offline.tflite", "");
    let output = memplan(&["import", &model, "--for", "micro", "--write-model", &out, "--plan", &solved]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(json_line(&output)["offline_makespan"], 1_572_864);
    assert!(std::fs::read(&out).unwrap().len() > std::fs::read(&model).unwrap().len());
    // The LiteRT instance's plan shares memory in place, which TFLite Micro does not.
    let solved = scratch("hand_recrop.litert.csv", "");
    assert!(memplan(&["solve", &instance, "--out", &solved]).status.success());
    let output = memplan(&["import", &model, "--write-model", &out, "--plan", &solved]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--for micro"), "{}", stderr(&output));
}

#[test]
fn import_refuses_what_it_cannot_plan_with_exit_2() {
    let output = memplan(&["import", &tflite_fixture("selfie_segmentation.tflite")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("custom operators 'Convolution2DTransposeBias'"), "{}", stderr(&output));
    let output = memplan(&["import", &scratch("not-a-model.tflite", "id,lower,upper,size\n")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not a readable TFLite model"), "{}", stderr(&output));
    // A plan for another instance is refused before anything is written.
    let plan = scratch("other.plan.csv", "id,lower,upper,size,offset\n0,0,1,8,0\n");
    let out = scratch("never.tflite", "");
    let output = memplan(&["import", &tflite_fixture("hand_recrop.tflite"), "--write-model", &out, "--plan", &plan]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("in the plan but 786432 bytes over [0, 64) in the instance"),
        "{}",
        stderr(&output)
    );
    let output = memplan(&["import", &tflite_fixture("hand_recrop.tflite"), "--write-model", &out]);
    assert_eq!(output.status.code(), Some(2), "--write-model needs --plan");
    let plan = scratch("micro.plan.csv", "");
    let output =
        memplan(&["import", &tflite_fixture("hand_recrop.tflite"), "--for", "micro", "--compiler-plan", &plan]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("leave out --for micro"), "{}", stderr(&output));
}

fn xla_fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/xla").join(name).to_string_lossy().into_owned()
}

/// `memplan import DUMP.hlo.pb` reads an XLA dump: the instance of its heap simulator
/// trace and XLA's own offsets, which check valid at XLA's heap size.
#[test]
fn import_reads_an_xla_dump_and_its_buffer_assignment() {
    let dump = xla_fixture("while_loop.hlo.pb");
    let (instance, plan) = (scratch("while_loop.csv", ""), scratch("while_loop.plan.csv", ""));
    let output = memplan(&["import", &dump, "-o", &instance, "--compiler-plan", &plan]);
    assert!(output.status.success(), "{}", stderr(&output));
    let line = json_line(&output);
    assert_eq!(
        (line["buffers"].as_u64(), line["values"].as_u64(), line["traces"].as_u64()),
        (Some(4), Some(8), Some(1))
    );
    assert_eq!((line["compiler_makespan"].as_u64(), line["compiler_allocation"].as_u64()), (Some(8260), Some(8352)));
    let written = std::fs::read_to_string(&instance).unwrap();
    // The loop state's group is idle at tick 10: a gap, written in MiniMalloc's gaps column.
    assert!(written.starts_with("id,lower,upper,size,alignment,gaps,name,category\n"), "{written}");
    assert!(written.contains(",10-11,copy.10,temporary\n"), "{written}");
    let check = memplan(&["check", &plan]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert_eq!(json_line(&check)["makespan"], 8260);
    let solve = memplan(&["solve", &instance, "--solver", "xla"]);
    assert_eq!(json_line(&solve)["makespan"], 8260);
    // TFLite's options are refused for a dump, and --trace for a model.
    let output = memplan(&["import", &dump, "--for", "micro"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--for is for TFLite models"), "{}", stderr(&output));
    let output = memplan(&["import", &dump, "--trace", "3"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("trace 3: the dump has 1 traces"), "{}", stderr(&output));
    let output = memplan(&["import", &tflite_fixture("hand_recrop.tflite"), "--trace", "0"]);
    assert_eq!(output.status.code(), Some(2));
    let output = memplan(&["import", &scratch("not-a-dump.hlo.pb", "id,lower,upper,size\n")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not a readable XLA HloProto"), "{}", stderr(&output));
}

/// `solve --warm` starts from a plan of the same buffers and never answers higher; every
/// solver, the greedy ones included (they cannot start from it, so the run keeps the better).
#[test]
fn solve_warm_is_never_above_the_warm_plan() {
    let instance = example("minimalloc/challenging/C.1048576.csv");
    // A good height: auto's own plan.
    let warm = scratch("C.warm.csv", "");
    assert!(memplan(&["solve", &instance, "--out", &warm]).status.success());
    let height = json_line(&memplan(&["check", &warm]))["makespan"].as_u64().unwrap();
    for solver in ["auto", "slff", "tflite", "xla", "minimalloc", "telamalloc", "idealloc"] {
        let output = memplan(&["solve", &instance, "--solver", solver, "--warm", &warm, "--effort", "low"]);
        assert!(output.status.success(), "{solver}: {}", stderr(&output));
        let line = json_line(&output);
        assert!(line["makespan"].as_u64().unwrap() <= height, "{solver}: {line}");
        assert_eq!(line["warm_start"], height, "{solver}: {line}");
        assert_eq!(line["valid"], true);
    }
    // A greedy pass cannot beat auto's plan here: the warm plan is the answer, and says so.
    let line = json_line(&memplan(&["solve", &instance, "--solver", "slff", "--warm", &warm]));
    assert_eq!((line["winner"].as_str(), line["makespan"].as_u64()), (Some("warm"), Some(height)), "{line}");
}

#[test]
fn an_invalid_warm_plan_is_an_error_naming_the_problem() {
    let instance = scratch("warm.csv", "id,lower,upper,size\na,0,2,4\nb,1,3,4\n");
    let overlapping = scratch("warm.overlap.csv", "id,lower,upper,size,offset\na,0,2,4,0\nb,1,3,4,2\n");
    // The warm plan is part of the input: a bad one is bad input (exit 2), whatever is wrong.
    let output = memplan(&["solve", &instance, "--warm", &overlapping]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--warm") && stderr(&output).contains("overlaps"), "{}", stderr(&output));
    let other = scratch("warm.other.csv", "id,lower,upper,size,offset\na,0,2,4,0\nc,1,3,4,4\n");
    let output = memplan(&["solve", &instance, "--warm", &other]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no buffer b"), "{}", stderr(&output));
    let no_offsets = memplan(&["solve", &instance, "--warm", &instance]);
    assert_eq!(no_offsets.status.code(), Some(2));
    assert!(stderr(&no_offsets).contains("missing column 'offset'"), "{}", stderr(&no_offsets));
}

/// `memplan diff` on a model's instance, LiteRT's plan and memplan's.
#[test]
fn diff_reports_the_bytes_saved_and_the_buffers_moved() {
    let model = tflite_fixture("face_detection_short_range.tflite");
    let (instance, compiler, best) = (scratch("fd.csv", ""), scratch("fd.tflite.csv", ""), scratch("fd.best.csv", ""));
    let output = memplan(&["import", &model, "-o", &instance, "--compiler-plan", &compiler]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = memplan(&["solve", &instance, "--warm", &compiler, "--out", &best]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = memplan(&["diff", &instance, &compiler, &best]);
    assert!(output.status.success(), "{}", stderr(&output));
    let line = json_line(&output);
    let (peak_a, peak_b) = (line["peak_a"].as_u64().unwrap(), line["peak_b"].as_u64().unwrap());
    assert_eq!(peak_a, 1_769_472, "LiteRT's arena");
    assert!(peak_b < peak_a, "{line}");
    assert_eq!(line["saved_bytes"].as_u64(), Some(peak_a - peak_b));
    let moved = line["moved"].as_u64().unwrap();
    assert!(moved > 0 && moved as usize == line["moved_buffers"].as_array().unwrap().len());
    assert!(line["moved_buffers"][0]["name"].is_string(), "{line}");
    assert!(stderr(&output).contains("saves"), "{}", stderr(&output));
    // The same plan twice: nothing saved, nothing moved.
    let same = json_line(&memplan(&["diff", &instance, &compiler, &compiler]));
    assert_eq!((same["saved_bytes"].as_i64(), same["moved"].as_u64()), (Some(0), Some(0)));
    // Reversed, B needs more: a negative saving.
    let reversed = json_line(&memplan(&["diff", &instance, &best, &compiler]));
    assert!(reversed["saved_bytes"].as_i64().unwrap() < 0, "{reversed}");
    // Both plans are checked: one of other buffers is bad input.
    let other = scratch("fd.other.csv", "id,lower,upper,size,offset\n0,0,1,8,0\n");
    let output = memplan(&["diff", &instance, &compiler, &other]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("fd.other.csv"), "{}", stderr(&output));
}

/// Parameter names are kebab-case; the underscore spelling some had before still works, with a
/// note naming the new one.
#[test]
fn parameter_names_are_kebab_case_and_old_spellings_still_work() {
    let text = String::from_utf8_lossy(&memplan(&["solvers"]).stdout).into_owned();
    assert!(text.contains("--param max-steps=") && text.contains("--param subtree-limit="), "{text}");
    assert!(!text.contains("max_steps") && !text.contains("subtree_limit"), "{text}");
    let input = example("minimalloc/examples/input.12.csv");
    let new = memplan(&["solve", &input, "--solver", "telamalloc", "--param", "max-steps=50", "--out", "-"]);
    let old = memplan(&["solve", &input, "--solver", "telamalloc", "--param", "max_steps=50", "--out", "-"]);
    assert_eq!(new.status.code(), Some(0), "{}", stderr(&new));
    assert_eq!(old.status.code(), Some(0), "{}", stderr(&old));
    assert_eq!(new.stdout, old.stdout, "the same plan under either spelling");
    assert!(stderr(&old).contains("--param max_steps is spelled max-steps now"), "{}", stderr(&old));
    assert!(!stderr(&new).contains("spelled"), "{}", stderr(&new));
}
