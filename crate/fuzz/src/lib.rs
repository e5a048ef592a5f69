//! What the fuzz targets check beyond "no panic": an input that reads writes back to text that
//! reads as the same problem and plan, in the format it came in and in the other one.

use memplan::format::{self, Document, Format, Offsets, ReadOptions};
use memplan::{Buffer, Semantics};

/// The reading options from the input's first byte (semantics and what offsets mean), so that
/// every combination is explored, and the rest of the input as text (`None` if it is not UTF-8,
/// which the CLI refuses before parsing).
pub fn options_and_text(data: &[u8], format: Option<Format>) -> Option<(ReadOptions, &str)> {
    let (&first, rest) = data.split_first()?;
    let semantics = Semantics::ALL[usize::from(first % 3)];
    let offsets = if first & 0x80 == 0 { Offsets::Pinned } else { Offsets::Plan };
    Some((ReadOptions { format, semantics, offsets }, std::str::from_utf8(rest).ok()?))
}

/// The buffers without their input lines, which depend on the layout of the text.
fn unlocated(document: &Document) -> Vec<Buffer> {
    document.problem.buffers().iter().cloned().map(|b| b.with_line(None)).collect()
}

/// Writes `document` as `out` and reads it back: the same buffers (ids, names, every field), plan
/// and semantics, and the same capacity when `out` can hold one (CSV cannot). Writing what was
/// read back gives the same text again. The semantics is passed when reading back, since CSV does not record it.
pub fn assert_round_trip(document: &Document, offsets: Offsets, out: Format) {
    let plan = document.plan.clone().unwrap_or_default();
    let written = format::write(document, &plan, out);
    let semantics = document.problem.semantics();
    for format in [Some(out), None] {
        let options = ReadOptions { format, semantics, offsets };
        let back = format::read(&written, &options)
            .unwrap_or_else(|errors| panic!("the {out:?} written does not read back: {errors}\n{written}"));
        assert_eq!(back.format, out, "sniffed the wrong format:\n{written}");
        assert_eq!(unlocated(&back), unlocated(document), "buffers changed:\n{written}");
        assert_eq!(back.plan, document.plan, "plan changed:\n{written}");
        assert_eq!(back.problem.semantics(), semantics, "semantics changed:\n{written}");
        if out == Format::Json {
            assert_eq!(back.problem.capacity(), document.problem.capacity(), "capacity changed:\n{written}");
        }
        let again = format::write(&back, &plan, out);
        assert_eq!(again, written, "writing what was read back gave other text");
    }
}

/// Reads `data` with options from its first byte; when it reads, checks the round trip in both
/// formats.
pub fn read_and_round_trip(data: &[u8], format: Option<Format>) {
    let Some((options, text)) = options_and_text(data, format) else { return };
    let Ok(document) = format::read(text, &options) else { return };
    if let Some(plan) = &document.plan {
        assert_eq!(plan.len(), document.problem.len(), "a plan read has an offset per buffer");
    }
    assert_round_trip(&document, options.offsets, Format::Csv);
    assert_round_trip(&document, options.offsets, Format::Json);
}

/// Imports `data` as a TFLite model for both runtimes: no panic, and what imports is planned by
/// the `tflite` preset into a valid plan; a one-subgraph model written back with that plan as its
/// offline plan imports to the same instance and reads back the same offsets.
pub fn import_tflite(data: &[u8]) {
    use memplan::import::tflite::{self, ImportOptions, Runtime};
    for runtime in [Runtime::Litert, Runtime::Micro] {
        let options = ImportOptions { runtime, ..ImportOptions::default() };
        let Ok(instances) = tflite::import_all(data, &options) else { continue };
        for instance in instances {
            let offsets = tflite::compiler_plan(&instance);
            let report = memplan::validate::validate(&instance.problem, &offsets, None);
            assert!(report.violations.is_empty(), "the tflite preset's plan is invalid: {:?}", report.violations);
            let Ok(written) = tflite::with_offline_plan(data, &instance, &offsets) else { continue };
            let again = tflite::import(&written, instance.subgraph, &options).expect("a model written back imports");
            assert_eq!(again.problem.buffers(), instance.problem.buffers(), "writing the plan changed the instance");
            let plan = tflite::offline_plan(&written).expect("the plan reads back").expect("the plan is there");
            let expected: Vec<i32> =
                instance.tensor_offsets(&offsets).iter().map(|o| o.map_or(-1, |o| o as i32)).collect();
            assert_eq!(plan.offsets, expected, "the offsets read back differ");
        }
    }
}

/// Imports `data` as an ExecuTorch program: no panic; what imports is a valid problem, and a
/// program written back with a plan (every buffer stacked, so a plan that differs from the
/// program's own) imports to the same instance with that plan as its offsets.
pub fn import_pte(data: &[u8]) {
    use memplan::import::pte::{self, ImportOptions};
    let options = ImportOptions::default();
    let Ok(instance) = pte::import(data, &options) else { return };
    let mut top = 0u64;
    let mut stacked = Vec::with_capacity(instance.problem.len());
    for buffer in instance.problem.buffers() {
        stacked.push(top);
        let Some(next) = top.checked_add(buffer.size) else { return };
        top = next;
    }
    let Ok(written) = pte::with_plan(data, &instance, &stacked) else { return };
    let again = pte::import(&written, &options).expect("a program written back imports");
    assert_eq!(again.problem.buffers(), instance.problem.buffers(), "writing the plan changed the instance");
    assert_eq!(again.compiler_plan, stacked, "the offsets read back differ");
}

/// The XLA importer on arbitrary bytes: no panic; every trace listed; what imports is a valid
/// problem whose `xla` preset plan is valid, and the traces' summaries agree with the instance.
pub fn import_xla(data: &[u8]) {
    use memplan::import::xla::{self, ImportOptions};
    let Ok(traces) = xla::traces(data) else { return };
    for summary in &traces {
        let Ok(instance) = xla::import(data, Some(summary.trace), &ImportOptions::default()) else { continue };
        assert_eq!(instance.problem.len(), summary.buffers, "the listing and the instance disagree");
        if let Ok(plan) = xla::compiler_plan(&instance) {
            // XLA's offsets may be anything in a fuzzed file: the validator must judge them
            // without panicking; the heap it reports is the plan's.
            let report = memplan::validate::validate(&instance.problem, &plan.offsets, None);
            if report.violations.is_empty() {
                assert_eq!(report.makespan, plan.heap_size, "the heap of XLA's plan");
            }
        }
        // Sizes near 2^64 may overflow every placement: an error, not a panic.
        if let Ok(run) = memplan::run::solve(&instance.problem, "xla", &memplan::SolveOptions::default()) {
            assert!(run.is_valid(), "the xla preset's plan is invalid: {:?}", run.violations);
        }
    }
}
