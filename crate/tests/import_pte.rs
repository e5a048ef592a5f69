//! The ExecuTorch importer on programs the real compiler wrote (`crate/tests/fixtures/executorch/`,
//! made by the scripts in `scripts/fixtures/executorch/`): ExecuTorch's own plan is a valid plan of
//! the imported instance with the program's arena size, a plan written back reads back, and
//! broken files are errors, never panics.

use std::path::PathBuf;

use memplan::Problem;
use memplan::import::pte::{self, ImportError, ImportOptions};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/executorch")
}

/// Every `.pte` of the fixtures, by name.
fn programs() -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<(String, Vec<u8>)> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "pte"))
        .map(|path| (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap()))
        .collect();
    found.sort();
    assert!(!found.is_empty(), "no .pte fixtures");
    found
}

fn makespan(problem: &Problem, offsets: &[u64]) -> u64 {
    memplan::metrics::makespan(problem.buffers(), offsets)
}

#[test]
fn executorch_s_own_plan_is_valid_with_the_program_s_arena() {
    for (name, bytes) in programs() {
        let instance = pte::import(&bytes, &ImportOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = memplan::validate::validate(&instance.problem, &instance.compiler_plan, None);
        assert!(report.is_valid(), "{name}: ExecuTorch's plan is invalid here: {}", report.describe(&instance.problem));
        assert_eq!(makespan(&instance.problem, &instance.compiler_plan), instance.arena, "{name}");
        assert!(instance.problem.max_load() <= instance.arena, "{name}");
    }
}

/// The MLP's result is reshaped by a view: value 21 (`f32[4,64]`) shares value 18's storage and
/// no instruction writes it, so both are one buffer, alive from 18's kernel to 21's reader.
#[test]
fn a_view_shares_its_base_s_buffer() {
    let bytes = std::fs::read(fixtures().join("mlp_with_view.pte")).unwrap();
    let instance = pte::import(&bytes, &ImportOptions::default()).unwrap();
    let at = instance.values.iter().position(|values| values.contains(&21)).expect("value 21 is planned");
    assert_eq!(instance.values[at], vec![18, 21]);
    let buffer = &instance.problem.buffers()[at];
    assert_eq!((buffer.id.as_str(), buffer.start, buffer.end, buffer.size), ("18", 5, 8, 1024));
    assert_eq!(buffer.name.as_deref(), Some("f32[8,32]"));
    // Its input and output are categorised, the rest are temporaries.
    let categories: Vec<_> = instance.problem.buffers().iter().map(|b| b.category.unwrap().name()).collect();
    assert_eq!(categories.first(), Some(&"input"));
    assert_eq!(categories.last(), Some(&"output"));
}

/// A plan written back (here every buffer stacked, far from ExecuTorch's) imports again with
/// that plan as the program's own, the arena at its makespan, and the instance unchanged; the
/// file keeps its constant data after the program.
#[test]
fn a_plan_written_back_reads_back() {
    for (name, bytes) in programs() {
        let instance = pte::import(&bytes, &ImportOptions::default()).unwrap();
        let mut top = 0;
        let stacked: Vec<u64> = instance
            .problem
            .buffers()
            .iter()
            .map(|b| {
                let offset = top;
                top += b.size;
                offset
            })
            .collect();
        let written = pte::with_plan(&bytes, &instance, &stacked).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = pte::import(&written, &ImportOptions::default()).unwrap();
        assert_eq!(again.problem.buffers(), instance.problem.buffers(), "{name}");
        assert_eq!(again.compiler_plan, stacked, "{name}");
        assert_eq!(again.arena, top, "{name}");
        // The data segments moved with the program and kept their bytes: the last ones are the same.
        let tail = bytes.len().min(4096);
        assert_eq!(written[written.len() - tail..], bytes[bytes.len() - tail..], "{name}");
    }
}

/// memplan's default plan is valid and never above ExecuTorch's on these programs.
#[test]
fn auto_is_no_worse_than_executorch() {
    for (name, bytes) in programs() {
        let instance = pte::import(&bytes, &ImportOptions::default()).unwrap();
        let run = memplan::run::solve(&instance.problem, "auto", &Default::default()).unwrap();
        assert!(run.is_valid(), "{name}: {:?}", run.violations);
        assert!(run.outcome.makespan().unwrap() <= instance.arena, "{name}");
    }
}

#[test]
fn a_plan_that_is_not_valid_is_refused_before_anything_is_written() {
    let bytes = std::fs::read(fixtures().join("mlp_with_view.pte")).unwrap();
    let instance = pte::import(&bytes, &ImportOptions::default()).unwrap();
    let everything_at_zero = vec![0; instance.problem.len()];
    let error = pte::with_plan(&bytes, &instance, &everything_at_zero).unwrap_err();
    assert!(matches!(error, ImportError::Request(_)) && error.to_string().contains("not valid"), "{error}");
    let error = pte::with_plan(&bytes, &instance, &[0]).unwrap_err();
    assert!(error.to_string().contains("offsets for the program's"), "{error}");
    let error = pte::import(&bytes, &ImportOptions { memory_id: 2, ..ImportOptions::default() }).unwrap_err();
    assert!(error.to_string().contains("no planned memory 2 (it has memory 1)"), "{error}");
}

#[test]
fn every_truncation_of_a_program_is_an_error_naming_the_problem() {
    let bytes = std::fs::read(fixtures().join("mlp_with_view.pte")).unwrap();
    // The program ends where its extended header says; past it is constant data the importer
    // does not read.
    let program_size = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let whole = pte::import(&bytes, &ImportOptions::default()).unwrap();
    let mut refused = 0;
    for len in 0..program_size {
        match pte::import(&bytes[..len], &ImportOptions::default()) {
            Err(ImportError::Malformed(_)) => refused += 1,
            // Only the FlatBuffer's closing padding may go without changing what is read.
            Ok(instance) => assert_eq!(instance.problem.buffers(), whole.problem.buffers(), "{len} bytes"),
            Err(error) => panic!("{len} bytes: {error}"),
        }
    }
    assert!(refused + 16 >= program_size, "only {refused} of {program_size} truncations refused");
    let error = pte::import(b"not a program at all", &ImportOptions::default()).unwrap_err();
    assert!(error.to_string().contains("not \"ET12\""), "{error}");
}

#[test]
fn every_byte_flip_of_a_program_is_read_or_refused_without_panicking() {
    let bytes = std::fs::read(fixtures().join("mlp_with_view.pte")).unwrap();
    let program_size = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    for at in 0..program_size {
        for value in [0u8, 0x7f, 0xff] {
            let mut changed = bytes.clone();
            changed[at] = value;
            if let Ok(instance) = pte::import(&changed, &ImportOptions::default()) {
                let offsets = memplan::run::registry::by_name("slff")
                    .ok()
                    .and_then(|solver| solver.solve(&instance.problem, &Default::default()).ok())
                    .and_then(|outcome| outcome.plan.map(|p| p.offsets));
                if let Some(offsets) = offsets {
                    let _ = pte::with_plan(&changed, &instance, &offsets);
                }
            }
        }
    }
}

#[test]
fn the_model_kind_is_told_by_the_identifier() {
    let bytes = std::fs::read(fixtures().join("mlp_with_view.pte")).unwrap();
    let model = memplan::import::import_model(&bytes, "renamed.bin").unwrap();
    assert_eq!(model.info.kind, memplan::import::ModelKind::Pte);
    assert_eq!(model.info.buffers, model.problem.len());
}

/// The `executorch-greedy` preset reproduces ExecuTorch's own plan from the imported instance:
/// the arena on every fixture, and every offset where the order among equal sizes (which
/// ExecuTorch takes from a Python set) does not matter, as on the MLP.
#[test]
fn the_executorch_greedy_preset_reproduces_executorch_s_plan() {
    let preset = memplan::run::registry::by_name("executorch-greedy").unwrap();
    for (name, bytes) in programs() {
        let instance = pte::import(&bytes, &ImportOptions::default()).unwrap();
        let outcome = preset.solve(&instance.problem, &Default::default()).unwrap();
        let plan = outcome.plan.unwrap_or_else(|| panic!("{name}: no plan"));
        assert_eq!(plan.makespan, instance.arena, "{name}: executorch-greedy's arena");
        if name == "mlp_with_view.pte" {
            assert_eq!(plan.offsets, instance.compiler_plan, "{name}");
        }
    }
}
