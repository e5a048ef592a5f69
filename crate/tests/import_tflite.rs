//! The TFLite importer against the runtime: for every fixture in `tests/fixtures/tflite/`, LiteRT's
//! own plan (each tensor's offset in its arena after `allocate_tensors()`, and the arena's size)
//! was recorded by `scripts/fixtures/tflite.sh record` next to the model. The imported instance
//! plus the `tflite` preset must reproduce it; memplan's `auto` must never need more. Also the
//! errors for files the importer refuses, and the offline plan written back.

use std::path::{Path, PathBuf};

use memplan::diff::{PlanMismatch, plan_for};
use memplan::import::tflite::{self, ImportError, ImportOptions, Imported, Runtime, TensorRole};
use memplan::{Category, SolveOptions, run};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tflite")
}

fn model(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn recorded(name: &str) -> Value {
    let path = fixtures().join(name.replace(".tflite", ".litert.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The recorded subgraph `index`: (arena size, each tensor's offset if the runtime planned it in
/// the arena, the bytes of the kernels' scratch tensors).
fn runtime_plan(record: &Value, index: usize) -> (u64, Vec<Option<u64>>, Vec<u64>) {
    let subgraph = &record["subgraphs"][index];
    assert_eq!(subgraph["allocated"], true, "subgraph {index} was not allocated by the runtime");
    let offsets = subgraph["tensors"].as_array().unwrap().iter().map(|t| t["offset"].as_u64()).collect();
    let scratch = subgraph["scratch"].as_array().unwrap().iter().map(|s| s["bytes"].as_u64().unwrap()).collect();
    (subgraph["arena_size"].as_u64().unwrap(), offsets, scratch)
}

fn makespan(instance: &Imported, offsets: &[u64]) -> u64 {
    memplan::metrics::makespan(instance.problem.buffers(), offsets)
}

/// The instance has a buffer for exactly the tensors the runtime placed in its arena.
fn assert_same_tensors(name: &str, instance: &Imported, runtime: &[Option<u64>]) {
    assert_eq!(instance.tensors.len(), runtime.len(), "{name}: tensor count");
    for (t, (role, offset)) in instance.tensors.iter().zip(runtime).enumerate() {
        assert_eq!(
            role.buffer().is_some(),
            offset.is_some(),
            "{name}: tensor {t} is {role:?} but the runtime says {offset:?}"
        );
    }
}

/// Reproduces the runtime exactly: every tensor's offset and the arena size.
fn assert_reproduces(name: &str, index: usize) -> (Imported, u64) {
    let instance = tflite::import(&model(name), index, &ImportOptions::default()).unwrap();
    let (arena, runtime, scratch) = runtime_plan(&recorded(name), index);
    assert!(scratch.is_empty(), "{name}: the runtime added scratch tensors {scratch:?}");
    assert_same_tensors(name, &instance, &runtime);
    let plan = tflite::compiler_plan(&instance);
    assert_eq!(instance.tensor_offsets(&plan), runtime, "{name}: subgraph {index}: offsets differ from LiteRT's");
    assert_eq!(makespan(&instance, &plan), arena, "{name}: arena size");
    (instance, arena)
}

/// memplan's default planner on the instance: valid, and never above the runtime's arena.
fn assert_auto_no_worse(name: &str, instance: &Imported, arena: u64) {
    let run =
        run::solve(&instance.problem, "auto", &SolveOptions { threads: Some(1), ..SolveOptions::default() }).unwrap();
    assert!(run.is_valid(), "{name}: {:?}", run.violations);
    let makespan = run.outcome.makespan().expect("auto always has a plan without a capacity");
    assert!(makespan <= arena, "{name}: auto needs {makespan} bytes, LiteRT {arena}");
    assert!(makespan >= instance.problem.max_load());
}

#[test]
fn hand_recrop_matches_litert() {
    let (instance, arena) = assert_reproduces("hand_recrop.tflite", 0);
    assert_auto_no_worse("hand_recrop", &instance, arena);
}

#[test]
fn face_detection_short_range_matches_litert() {
    // DEQUANTIZE of float16 weights runs at prepare time; RESHAPE and ADD share in place.
    let (instance, arena) = assert_reproduces("face_detection_short_range.tflite", 0);
    assert!(instance.tensors.contains(&TensorRole::PrepareTime));
    assert!(instance.tensors.iter().any(|r| matches!(r, TensorRole::Shared { .. })));
    assert_auto_no_worse("face_detection_short_range", &instance, arena);
}

#[test]
fn face_detection_full_range_sparse_matches_litert() {
    // DENSIFY of sparse weights runs at prepare time, but the DEQUANTIZE of its output is planned.
    let (instance, arena) = assert_reproduces("face_detection_full_range_sparse.tflite", 0);
    assert_auto_no_worse("face_detection_full_range_sparse", &instance, arena);
}

#[test]
fn while_loop_subgraphs_match_litert() {
    let name = "generated_while.tflite";
    let all = tflite::import_all(&model(name), &ImportOptions::default()).unwrap();
    assert_eq!(all.len(), 3);
    for index in [0, 1, 2] {
        let (instance, arena) = assert_reproduces(name, index);
        assert_auto_no_worse(name, &instance, arena);
    }
    // The body's inputs come from the WHILE kernel, outside the body's arena.
    assert_eq!(all[2].tensors[..2], [TensorRole::FromLoop, TensorRole::FromLoop]);
    // The condition's inputs too; its arena holds one byte, the verdict.
    assert_eq!(all[1].problem.len(), 1);
    assert_eq!(all[1].problem.buffers()[0].name.as_deref(), Some("more"));
}

/// LiteRT's MEAN kernel asks for three scratch tensors at prepare time (an index, the resolved
/// axes, a sum), which the runtime plans in the same arena; the file does not describe them, so
/// the instance lacks them. What still holds: the same tensors are planned, the runtime's arena
/// is the instance's plan plus at most the scratch (each rounded up to the alignment), and the
/// tensors not alive during the MEAN keep the runtime's offsets.
#[test]
fn kernel_scratch_is_the_documented_difference() {
    let name = "generated_mean_scratch.tflite";
    let instance = tflite::import(&model(name), 0, &ImportOptions::default()).unwrap();
    let (arena, runtime, scratch) = runtime_plan(&recorded(name), 0);
    assert_eq!(scratch.len(), 3, "{scratch:?}");
    assert_same_tensors(name, &instance, &runtime);
    let plan = tflite::compiler_plan(&instance);
    let ours = makespan(&instance, &plan);
    let rounded: u64 = scratch.iter().map(|bytes| bytes.div_ceil(64) * 64).sum();
    assert!(ours < arena && arena <= ours + rounded, "instance plan {ours}, runtime {arena}, scratch {scratch:?}");
    let offsets = instance.tensor_offsets(&plan);
    let mean_step = 1;
    for (t, role) in instance.tensors.iter().enumerate() {
        let Some(buffer) = role.buffer() else { continue };
        let b = &instance.problem.buffers()[buffer];
        if !(b.start <= mean_step && mean_step < b.end) || b.start == 0 && b.end == instance.operators as u64 + 1 {
            assert_eq!(offsets[t], runtime[t], "tensor {t}");
        }
    }
    assert_auto_no_worse(name, &instance, arena);
}

// ----- what the importer refuses -----

#[test]
fn custom_operators_are_refused_by_name() {
    let error = tflite::import(&model("selfie_segmentation.tflite"), 0, &ImportOptions::default()).unwrap_err();
    assert!(matches!(error, ImportError::Unsupported(_)), "{error}");
    let message = error.to_string();
    assert!(message.contains("'Convolution2DTransposeBias' (operator 244)"), "{message}");
    assert!(message.contains("scratch memory"), "{message}");
    // LiteRT refuses it too (without the custom kernel), as recorded.
    assert!(recorded("selfie_segmentation.tflite")["error"].as_str().unwrap().contains("Convolution2DTransposeBias"));
}

#[test]
fn a_missing_subgraph_is_a_request_error() {
    let error = tflite::import(&model("hand_recrop.tflite"), 3, &ImportOptions::default()).unwrap_err();
    assert_eq!(error.to_string(), "the model has 1 subgraphs; there is no subgraph 3");
}

#[test]
fn every_truncation_of_a_model_is_an_error_naming_the_problem() {
    let bytes = model("generated_while.tflite");
    for len in 0..bytes.len() {
        let error = tflite::import_all(&bytes[..len], &ImportOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{len} bytes imported"));
        assert!(matches!(error, ImportError::Malformed(..)), "{len} bytes: {error}");
    }
    let error = tflite::import(b"not a model at all", 0, &ImportOptions::default()).unwrap_err();
    assert!(error.to_string().contains("not \"TFL3\""), "{error}");
}

#[test]
fn every_byte_flip_of_a_small_model_is_read_or_refused_without_panicking() {
    let bytes = model("generated_mean_scratch.tflite");
    for at in 0..bytes.len() {
        for value in [0u8, 0x7f, 0x80, 0xff] {
            let mut changed = bytes.clone();
            changed[at] = value;
            if let Ok(instances) = tflite::import_all(&changed, &ImportOptions::default()) {
                for instance in instances {
                    tflite::compiler_plan(&instance);
                }
            }
        }
    }
}

// ----- options -----

#[test]
fn dynamic_dimensions_take_the_option() {
    // The while model's tensors have static shapes: the option changes nothing there, and the
    // alignment option reaches every buffer.
    let bytes = model("generated_while.tflite");
    let options = ImportOptions { dynamic_dim: 7, alignment: 16, ..ImportOptions::default() };
    let instance = tflite::import(&bytes, 0, &options).unwrap();
    assert!(instance.problem.buffers().iter().all(|b| b.alignment() == 16));
    assert_eq!(
        instance.problem.max_load(),
        tflite::import(&bytes, 0, &ImportOptions::default()).unwrap().problem.max_load()
    );
    let error = tflite::import(&bytes, 0, &ImportOptions { alignment: 48, ..ImportOptions::default() }).unwrap_err();
    assert!(error.to_string().contains("not a power of two"), "{error}");
}

#[test]
fn for_tflite_micro_every_tensor_is_its_own_buffer() {
    let bytes = model("hand_recrop.tflite");
    let merged = tflite::import(&bytes, 0, &ImportOptions::default()).unwrap();
    let micro = ImportOptions { runtime: Runtime::Micro, ..ImportOptions::default() };
    let separate = tflite::import(&bytes, 0, &micro).unwrap();
    let shared = merged.tensors.iter().filter(|r| matches!(r, TensorRole::Shared { .. })).count();
    assert_eq!(shared, 6, "hand_recrop's six ADDs write over their first input");
    assert_eq!(separate.problem.len(), merged.problem.len() + shared);
    assert!(separate.tensors.iter().all(|r| !matches!(r, TensorRole::Shared { .. })));
}

// ----- the offline plan written back -----

#[test]
fn an_offline_plan_reads_back_with_every_tensor_at_its_offset() {
    let micro = ImportOptions { runtime: Runtime::Micro, ..ImportOptions::default() };
    for name in ["hand_recrop.tflite", "face_detection_short_range.tflite", "generated_mean_scratch.tflite"] {
        let bytes = model(name);
        let instance = tflite::import(&bytes, 0, &micro).unwrap();
        let run = run::solve(&instance.problem, "auto", &SolveOptions { threads: Some(1), ..SolveOptions::default() })
            .unwrap();
        let offsets = run.outcome.plan.unwrap().offsets;
        let written = tflite::with_offline_plan(&bytes, &instance, &offsets).unwrap();
        let plan = tflite::offline_plan(&written).unwrap().expect("the metadata is there");
        assert_eq!((plan.version, plan.subgraph), (1, 0));
        let expected: Vec<i32> = instance.tensor_offsets(&offsets).iter().map(|o| o.map_or(-1, |o| o as i32)).collect();
        assert_eq!(plan.offsets, expected, "{name}");
        assert!(expected.iter().filter(|&&o| o >= 0).count() >= instance.problem.len());
        // The rest of the model is as it was: the same instance, the same metadata besides.
        let again = tflite::import(&written, 0, &micro).unwrap();
        assert_eq!(again.problem.buffers(), instance.problem.buffers(), "{name}");
        assert_eq!(again.tensors, instance.tensors);
        let (before, after) = (tflite::read(&bytes).unwrap(), tflite::read(&written).unwrap());
        assert_eq!(after.buffers.len(), before.buffers.len() + 1);
        let names = |m: &tflite::Model| m.metadata.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&after), [names(&before), vec!["OfflineMemoryAllocation".to_string()]].concat());
        // Writing again replaces the plan instead of adding a second one.
        let twice = tflite::with_offline_plan(&written, &instance, &offsets).unwrap();
        assert_eq!(names(&tflite::read(&twice).unwrap()), names(&after));
        assert_eq!(tflite::offline_plan(&twice).unwrap(), Some(plan));
    }
}

/// TFLite Micro plans the tensors of every subgraph in one arena and wants an offset for each
/// (found with the `tflite-micro` package); memplan plans one subgraph at a time, and a plan for
/// subgraph 0 alone made TFLite Micro's arena larger on the loop (784 bytes instead of its own 688),
/// so a model of several subgraphs is refused.
#[test]
fn an_offline_plan_for_a_model_of_several_subgraphs_is_refused() {
    let bytes = model("generated_while.tflite");
    let micro = ImportOptions { runtime: Runtime::Micro, ..ImportOptions::default() };
    let instance = tflite::import(&bytes, 0, &micro).unwrap();
    let error = tflite::with_offline_plan(&bytes, &instance, &tflite::compiler_plan(&instance)).unwrap_err();
    assert!(matches!(error, ImportError::Unsupported(_)), "{error}");
    assert!(error.to_string().contains("3 subgraphs"), "{error}");
}

#[test]
fn an_offline_plan_that_shares_memory_in_place_is_refused() {
    let bytes = model("hand_recrop.tflite");
    let litert = tflite::import(&bytes, 0, &ImportOptions::default()).unwrap();
    let error = tflite::with_offline_plan(&bytes, &litert, &tflite::compiler_plan(&litert)).unwrap_err();
    assert!(error.to_string().contains("--for micro"), "{error}");
}

#[test]
fn a_plan_for_other_buffers_is_refused() {
    let bytes = model("hand_recrop.tflite");
    let instance = tflite::import(&bytes, 0, &ImportOptions::default()).unwrap();
    let offsets = tflite::compiler_plan(&instance);
    // Everything at offset 0 overlaps.
    let zeros = vec![0; offsets.len()];
    let error = plan_for(&instance.problem, &instance.problem, Some(&zeros)).unwrap_err();
    assert!(matches!(error, PlanMismatch::Invalid(_)), "{error}");
    let other = tflite::import(&model("face_detection_short_range.tflite"), 0, &ImportOptions::default()).unwrap();
    let error = plan_for(&instance.problem, &other.problem, Some(&tflite::compiler_plan(&other))).unwrap_err();
    assert!(
        matches!(error, PlanMismatch::Missing(_) | PlanMismatch::Differs { .. } | PlanMismatch::Extra(_)),
        "{error}"
    );
    assert_eq!(plan_for(&instance.problem, &instance.problem, Some(&offsets)).unwrap(), offsets);
}

/// The fuzz target's check (`crate/fuzz/src/lib.rs`) on a model it found: a model without a
/// `buffers` vector, whose tensors point at buffer 0, came back from writing its plan with every
/// tensor a constant, because the plan's buffer had become buffer 0. The writer now adds the empty
/// buffer 0 first.
#[test]
fn a_model_without_buffers_keeps_its_instance_when_its_plan_is_written() {
    let bytes = std::fs::read(fixtures().join("fuzz/no-buffers.bin")).unwrap();
    assert!(tflite::read(&bytes).unwrap().buffers.is_empty());
    for runtime in [Runtime::Litert, Runtime::Micro] {
        let options = ImportOptions { runtime, ..ImportOptions::default() };
        for instance in tflite::import_all(&bytes, &options).unwrap() {
            let offsets = tflite::compiler_plan(&instance);
            let Ok(written) = tflite::with_offline_plan(&bytes, &instance, &offsets) else { continue };
            let again = tflite::import(&written, instance.subgraph, &options).unwrap();
            assert_eq!(again.problem.buffers(), instance.problem.buffers());
            assert_eq!(tflite::read(&written).unwrap().buffers.len(), 2);
        }
    }
}

/// Each planned buffer says what it holds. Graph inputs and outputs are the
/// subgraph's own lists in the file; everything else the arena plans is an intermediate; a loop
/// body's inputs live outside its arena, so only its outputs and temporaries appear.
#[test]
fn buffers_are_categorised_as_graph_inputs_outputs_and_temporaries() {
    for name in ["hand_recrop.tflite", "face_detection_short_range.tflite", "generated_while.tflite"] {
        let bytes = model(name);
        let file = tflite::read(&bytes).unwrap();
        for instance in tflite::import_all(&bytes, &ImportOptions::default()).unwrap() {
            let subgraph = &file.subgraphs[instance.subgraph];
            for buffer in instance.problem.buffers() {
                let tensor: i32 = buffer.id.parse().unwrap();
                let expected = if subgraph.inputs.contains(&tensor) {
                    Category::Input
                } else if subgraph.outputs.contains(&tensor) {
                    Category::Output
                } else {
                    Category::Temporary
                };
                assert_eq!(buffer.category, Some(expected), "{name}: subgraph {}: tensor {tensor}", instance.subgraph);
            }
        }
    }
    let instance = tflite::import(&model("hand_recrop.tflite"), 0, &ImportOptions::default()).unwrap();
    let count = |category| instance.problem.buffers().iter().filter(|b| b.category == Some(category)).count();
    assert_eq!((count(Category::Input), count(Category::Output)), (1, 1));
    let body = tflite::import(&model("generated_while.tflite"), 2, &ImportOptions::default()).unwrap();
    assert!(body.problem.buffers().iter().all(|b| b.category != Some(Category::Input)));
}
