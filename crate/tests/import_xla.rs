//! The XLA importer against XLA's own buffer assignment: for every fixture in
//! `tests/fixtures/xla/` (jax programs compiled by XLA:CPU, `scripts/fixtures/xla.sh`), the
//! imported instance is valid, XLA's offsets are a valid plan of it, memplan's `xla` preset
//! reproduces XLA's heap and allocation size, and memplan's `auto` never needs more. Also the
//! errors for files the importer refuses.

use std::path::{Path, PathBuf};

use memplan::import::xla::{self, ImportError, ImportOptions, Imported};
use memplan::{Category, SolveOptions, run};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/xla")
}

fn dump(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn import(name: &str) -> Imported {
    xla::import(&dump(name), None, &ImportOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn makespan(instance: &Imported, offsets: &[u64]) -> u64 {
    memplan::metrics::makespan(instance.problem.buffers(), offsets)
}

/// What each fixture's only trace holds and what XLA made of it: (file, buffers of the instance,
/// values of the trace, max load L, XLA's heap under its own offsets, XLA's allocation size).
const FIXTURES: [(&str, usize, usize, u64, u64, u64); 6] = [
    ("mlp.hlo.pb", 5, 8, 65536, 65536, 65536),
    ("convnet.hlo.pb", 11, 11, 266752, 266752, 266752),
    ("while_loop.hlo.pb", 4, 8, 8200, 8260, 8352),
    ("scan.hlo.pb", 6, 10, 3080, 3140, 3248),
    ("transformer.hlo.pb", 33, 42, 262144, 262144, 262144),
    ("resnet.hlo.pb", 6, 8, 98304, 98304, 98304),
];

#[test]
fn every_fixture_imports_as_recorded() {
    let mut found: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".hlo.pb"))
        .collect();
    found.sort();
    let mut listed: Vec<String> = FIXTURES.iter().map(|f| f.0.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "every fixture is in FIXTURES");
    for (name, buffers, values, max_load, heap, allocation) in FIXTURES {
        let instance = import(name);
        assert_eq!(xla::traces(&dump(name)).unwrap().len(), 1, "{name}");
        assert_eq!(instance.problem.len(), buffers, "{name}: buffers");
        assert_eq!(instance.simulation.values.len(), values, "{name}: values");
        assert_eq!(instance.problem.max_load(), max_load, "{name}: L");
        let plan = xla::compiler_plan(&instance).unwrap();
        assert_eq!(plan.heap_size, heap, "{name}: XLA's heap");
        assert_eq!(plan.allocation_size, allocation, "{name}: XLA's allocation");
        for buffer in instance.problem.buffers() {
            assert!(buffer.name.is_some(), "{name}: buffer {} has no name", buffer.id);
            assert_eq!(buffer.alignment(), 64);
        }
    }
}

/// XLA's offsets are a valid plan of the instance, checked by the independent validator: the
/// instance describes what XLA's heap had to respect.
#[test]
fn xla_offsets_are_a_valid_plan_of_the_instance() {
    for (name, ..) in FIXTURES {
        let instance = import(name);
        let plan = xla::compiler_plan(&instance).unwrap();
        let report = memplan::validate::validate(&instance.problem, &plan.offsets, None);
        assert!(report.violations.is_empty(), "{name}: {:?}", report.violations);
        assert_eq!(report.makespan, plan.heap_size, "{name}");
    }
}

/// memplan's `xla` preset (best fit in XLA's two orders, the smaller kept) on the instance needs
/// exactly XLA's heap, and so XLA's allocation size once the values outside the trace are put
/// above it. Its offsets may differ where the orders tie.
#[test]
fn the_xla_preset_reproduces_xla_allocation_size() {
    for (name, .., heap, allocation) in FIXTURES {
        let instance = import(name);
        let plan = xla::compiler_plan(&instance).unwrap();
        let run = run::solve(&instance.problem, "xla", &SolveOptions::default()).unwrap();
        assert!(run.is_valid(), "{name}: {:?}", run.violations);
        let offsets = run.outcome.plan.expect("a greedy pass without a capacity places every buffer").offsets;
        let ours = makespan(&instance, &offsets);
        assert_eq!(ours, heap, "{name}: the xla preset's heap");
        assert_eq!(plan.allocation_size_for(ours), allocation, "{name}: the allocation it makes");
    }
}

/// memplan's default planner: valid, at least L, and never above XLA's heap.
#[test]
fn auto_is_no_worse_than_xla() {
    for (name, .., heap, allocation) in FIXTURES {
        let instance = import(name);
        let plan = xla::compiler_plan(&instance).unwrap();
        let options = SolveOptions { threads: Some(1), ..SolveOptions::default() };
        let run = run::solve(&instance.problem, "auto", &options).unwrap();
        assert!(run.is_valid(), "{name}: {:?}", run.violations);
        let ours = run.outcome.makespan().expect("auto always has a plan without a capacity");
        assert!(ours <= heap, "{name}: auto needs {ours} bytes, XLA {heap}");
        assert!(ours >= instance.problem.max_load(), "{name}");
        assert!(plan.allocation_size_for(ours) <= allocation, "{name}");
    }
}

/// A `lax.fori_loop` shares its state with the loop's values (SHARE_WITH): one buffer per group,
/// at one offset in XLA's plan, and the group that carries the loop counter across the loop is
/// idle between two of its members: the buffer has a gap there. The tuple index tables of the loop state
/// are in the allocation but not in the trace: XLA puts them above the heap.
#[test]
fn loop_state_shares_memory_and_leaves_gaps() {
    let instance = import("while_loop.hlo.pb");
    let shared = instance.simulation.values.len() - instance.simulation.groups.len();
    assert_eq!(shared, 4);
    let gapped: Vec<_> = instance.simulation.groups.iter().filter(|g| g.has_gaps()).collect();
    assert_eq!(gapped.len(), 1);
    let group = gapped[0];
    assert_eq!(group.members.len(), 5);
    let buffer = &instance.problem.buffers()[instance.simulation.values[group.members[0]].group];
    assert_eq!((buffer.start, buffer.end), (group.pieces[0].0, group.pieces.last().unwrap().1));
    let gaps: Vec<_> = buffer.gaps.iter().map(|g| (g.start, g.end, g.window)).collect();
    let between: Vec<_> = group.pieces.windows(2).map(|p| (p[0].1, p[1].0, None)).collect();
    assert_eq!(gaps, between);
    let plan = xla::compiler_plan(&instance).unwrap();
    assert!(!plan.outside.is_empty());
    let above = plan.heap_size.div_ceil(64) * 64;
    assert!(plan.outside.iter().all(|o| o.offset >= above), "{:?}", plan.outside);
    assert_eq!(plan.allocation_size, above + plan.outside_bytes);
}

#[test]
fn values_are_named_after_their_defining_instruction() {
    let instance = import("while_loop.hlo.pb");
    let names: Vec<&str> = instance.simulation.values.iter().map(|v| v.name.as_str()).collect();
    assert!(names.contains(&"copy.10"), "{names:?}");
    // Elements of the loop's state tuple carry their shape index.
    assert!(names.contains(&"while.1{0}"), "{names:?}");
}

/// Categories come from XLA's allocation flags. XLA:CPU's heap traces pack the temp
/// allocation only (entry parameters and the result have allocations of their own), so every
/// buffer of these instances is a temporary; the flags' other cases are unit tests of the
/// importer.
#[test]
fn heap_trace_buffers_are_temporaries() {
    for name in ["mlp.hlo.pb", "convnet.hlo.pb", "while_loop.hlo.pb", "transformer.hlo.pb"] {
        let instance = import(name);
        assert!(
            instance.problem.buffers().iter().all(|b| b.category == Some(Category::Temporary)),
            "{name}: {:?}",
            instance.problem.buffers().iter().map(|b| b.category).collect::<Vec<_>>()
        );
    }
}

// ----- what the importer refuses -----

#[test]
fn every_truncation_of_a_dump_is_an_error() {
    let bytes = dump("while_loop.hlo.pb");
    for len in 0..bytes.len() {
        let error = xla::import(&bytes[..len], None, &ImportOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{len} bytes imported"));
        assert!(matches!(error, ImportError::Malformed(..)), "{len} bytes: {error}");
    }
    let error = xla::import(b"", None, &ImportOptions::default()).unwrap_err();
    assert!(error.to_string().contains("no buffer_assignment"), "{error}");
}

#[test]
fn every_byte_flip_of_a_dump_is_read_or_refused_without_panicking() {
    let bytes = dump("scan.hlo.pb");
    for at in 0..bytes.len() {
        for value in [0u8, 0x7f, 0x80, 0xff] {
            let mut changed = bytes.clone();
            changed[at] = value;
            if let Ok(instance) = xla::import(&changed, None, &ImportOptions::default())
                && let Ok(plan) = xla::compiler_plan(&instance)
            {
                memplan::validate::validate(&instance.problem, &plan.offsets, None);
            }
            let _ = xla::traces(&changed);
        }
    }
}

#[test]
fn a_tflite_model_or_a_missing_trace_is_refused() {
    let tflite = std::fs::read(fixtures().join("../tflite/generated_while.tflite")).unwrap();
    let error = xla::import(&tflite, None, &ImportOptions::default()).unwrap_err();
    assert!(matches!(error, ImportError::Malformed(..)), "{error}");
    let error = xla::import(&dump("mlp.hlo.pb"), Some(1), &ImportOptions::default()).unwrap_err();
    assert_eq!(error.to_string(), "trace 1: the dump has 1 traces");
    let error = xla::import(&dump("mlp.hlo.pb"), None, &ImportOptions { alignment: 3 }).unwrap_err();
    assert!(matches!(error, ImportError::Request(_)), "{error}");
}
