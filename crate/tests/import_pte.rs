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
        // The data segments (constants, when the program carries them) moved with the program
        // and kept their bytes.
        let base = |b: &[u8]| u64::from_le_bytes(b[24..32].try_into().unwrap()) as usize;
        if &bytes[8..12] == b"eh00" && base(&bytes) > 0 {
            assert!(written[base(&written)..] == bytes[base(&bytes)..], "{name}: the segments changed");
        }
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
            Err(ImportError::Malformed(..)) => refused += 1,
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
/// the arena and every offset of a tensor with bytes, on every program ExecuTorch planned.
#[test]
fn the_executorch_greedy_preset_reproduces_executorch_s_plan() {
    let preset = memplan::run::registry::by_name("executorch-greedy").unwrap();
    for (name, bytes) in programs() {
        let instance = pte::import(&bytes, &ImportOptions::default()).unwrap();
        // The programs memplan planned (`*.memplan.pte`) hold memplan's plan, not greedy's.
        if name.ends_with(".memplan.pte") {
            continue;
        }
        let outcome = preset.solve(&instance.problem, &Default::default()).unwrap();
        let plan = outcome.plan.unwrap_or_else(|| panic!("{name}: no plan"));
        assert_eq!(plan.makespan, instance.arena, "{name}: executorch-greedy's arena");
        // Zero-size tensors go apart in memplan (they occupy nothing); every other offset is
        // ExecuTorch's.
        for (i, buffer) in instance.problem.buffers().iter().enumerate() {
            if buffer.size > 0 {
                assert_eq!(plan.offsets[i], instance.compiler_plan[i], "{name}: buffer {}", buffer.id);
            }
        }
    }
}

/// The instance is the one ExecuTorch planned: every tensor of ExecuTorch's own record
/// (`MODEL.greedy.csv`, written from the planner's specs while the program was lowered; ids are
/// value indices) is in a buffer of its size at its offset, and two tensors ExecuTorch saw alive
/// together (its node lifetimes) are alive together here (instruction lifetimes), and the reverse.
#[test]
fn the_instance_has_executorch_s_tensors_and_conflicts() {
    for (name, bytes) in programs() {
        let Some(model) = name.strip_suffix(".pte").filter(|m| !m.ends_with(".memplan")) else { continue };
        let Ok(text) = std::fs::read_to_string(fixtures().join(format!("{model}.greedy.csv"))) else { continue };
        let record = memplan::format::read(&text, &Default::default()).unwrap().problem;
        let recorded_offsets: Vec<u64> =
            text.lines().skip(1).map(|line| line.split(',').nth(5).unwrap().parse().unwrap()).collect();
        let instance = pte::import(&bytes, &ImportOptions::default()).unwrap();
        let buffer_of = |value: usize| instance.values.iter().position(|values| values.contains(&value));
        let mut ours = Vec::new();
        for (k, tensor) in record.buffers().iter().enumerate() {
            let value: usize = tensor.id.parse().unwrap();
            let b = buffer_of(value).unwrap_or_else(|| panic!("{name}: value {value} is not planned"));
            assert_eq!(instance.compiler_plan[b], recorded_offsets[k], "{name}: value {value}'s offset");
            if tensor.size > 0 {
                assert_eq!(instance.problem.buffers()[b].size, tensor.size, "{name}: value {value}'s size");
            }
            ours.push(b);
        }
        for i in 0..record.len() {
            for j in 0..i {
                let (a, b) = (&record.buffers()[i], &record.buffers()[j]);
                let (x, y) = (&instance.problem.buffers()[ours[i]], &instance.problem.buffers()[ours[j]]);
                assert_eq!(
                    a.overlaps_in_time(b),
                    ours[i] == ours[j] || x.overlaps_in_time(y),
                    "{name}: values {} and {}",
                    a.id,
                    b.id
                );
            }
        }
    }
}
