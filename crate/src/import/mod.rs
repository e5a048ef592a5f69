//! Importers: a compiler's model file in (its bytes; the library does no I/O), instances out.
//! They sit on the edge floor with the CLI and the wasm facade: they build problems and may run
//! the solvers that reproduce the compiler's own planner.
//!
//! [`import_model`] is the one entry for a model of any kind: it tells the kind from the bytes
//! ([`ModelKind::detect`]) and returns the instance with the compiler's own plan.

pub(crate) mod flatbuffer;
pub mod pte;
pub mod tflite;
pub mod xla;

use serde::Serialize;

/// Why a model could not be imported or written, by every importer: the faces choose by kind
/// (the CLI's message, Python's `ModelError.kind`), never by message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// The bytes are not a well-formed model of this kind; the message says where.
    #[error("not a readable {kind}: {detail}", kind = .0.describe(), detail = .1)]
    Malformed(ModelKind, String),
    /// A well-formed model that cannot be planned from the file alone (custom operators, string
    /// tensors, a size past 64 bits, ...); the message names it.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The request does not fit the model (a subgraph, trace or memory it lacks, a plan for other
    /// buffers).
    #[error("{0}")]
    Request(String),
    /// Neither the content nor the name says what the file is.
    #[error(
        "{0}: not a model memplan reads (a TFLite .tflite file, an ExecuTorch .pte program or an XLA .hlo.pb dump; an instance is a .csv or .json)"
    )]
    NotAModel(String),
}

use crate::model::Problem;

/// The kinds of model memplan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// A TFLite (LiteRT) FlatBuffer.
    Tflite,
    /// An XLA `HloProto` dump with its buffer assignment (`*.hlo.pb`).
    Xla,
    /// An ExecuTorch program (`.pte`), a FlatBuffer with the identifier `ET12`.
    Pte,
}

impl ModelKind {
    /// What a file of this kind is called in messages.
    pub fn describe(self) -> &'static str {
        match self {
            ModelKind::Tflite => "TFLite model",
            ModelKind::Xla => "XLA HloProto",
            ModelKind::Pte => "ExecuTorch program",
        }
    }

    /// The kind of model the bytes hold, from their content (a TFLite FlatBuffer carries the file
    /// identifier `TFL3` at bytes 4..8, an ExecuTorch program `ET12`), else from the file name's
    /// extension (a protobuf carries no identifier: `.pb` is an XLA dump); `None` when neither tells.
    pub fn detect(bytes: &[u8], name: &str) -> Option<ModelKind> {
        let name = name.to_ascii_lowercase();
        if bytes.get(4..8) == Some(b"TFL3".as_slice()) {
            Some(ModelKind::Tflite)
        } else if bytes.get(4..8) == Some(b"ET12".as_slice()) || name.ends_with(".pte") {
            Some(ModelKind::Pte)
        } else if name.ends_with(".tflite") {
            Some(ModelKind::Tflite)
        } else if name.ends_with(".pb") {
            Some(ModelKind::Xla)
        } else {
            None
        }
    }
}

/// What an import of a whole model gives: the instance of its main graph and the plan the
/// model's compiler (or runtime) makes for it.
#[derive(Clone, Debug)]
pub struct ImportedModel {
    pub info: ModelInfo,
    /// One buffer per planned tensor; ids are the compiler's (a TFLite tensor's index).
    pub problem: Problem,
    /// The compiler's own offsets for `problem`'s buffers.
    pub compiler_plan: Vec<u64>,
}

/// A model at a glance, for the page and the CLI.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelInfo {
    pub kind: ModelKind,
    /// The file name it came with.
    pub name: String,
    /// Whose plan `compiler_plan` is, in words.
    pub compiler: String,
    /// The buffers of the instance.
    pub buffers: usize,
    /// The model's steps: a TFLite graph's operators; an XLA trace's values (logical buffers
    /// before sharing is merged).
    pub operators: usize,
}

/// Imports a model of any kind memplan reads: its main graph's instance, with the compiler's own
/// plan. The kind comes from the content ([`ModelKind::detect`]); the defaults are each
/// importer's (LiteRT's arena for TFLite: subgraph 0, alignment 64; for XLA the trace with the
/// most events, alignment 64).
///
/// ```
/// use memplan::import::{ModelKind, import_model};
///
/// let bytes = std::fs::read("tests/fixtures/executorch/mlp.pte").expect("the fixture");
/// let model = import_model(&bytes, "mlp.pte").expect("an ExecuTorch program");
/// assert_eq!(model.info.kind, ModelKind::Pte);
/// // The compiler's own plan is a valid plan of the instance.
/// assert_eq!(model.compiler_plan.len(), model.problem.len());
/// assert!(memplan::validate::validate(&model.problem, &model.compiler_plan, None).is_valid());
///
/// assert!(import_model(b"not a model", "notes.txt").is_err());
/// ```
pub fn import_model(bytes: &[u8], name: &str) -> Result<ImportedModel, ImportError> {
    match ModelKind::detect(bytes, name) {
        Some(ModelKind::Tflite) => {
            let instance = tflite::import(bytes, 0, &tflite::ImportOptions::default())?;
            let compiler_plan = tflite::compiler_plan(&instance);
            let info = ModelInfo {
                kind: ModelKind::Tflite,
                name: name.to_string(),
                compiler: "LiteRT's arena planner (the tflite preset)".to_string(),
                buffers: instance.problem.len(),
                operators: instance.summary().operators,
            };
            Ok(ImportedModel { info, problem: instance.problem, compiler_plan })
        }
        Some(ModelKind::Xla) => {
            let instance = xla::import(bytes, None, &xla::ImportOptions::default())?;
            let compiler_plan = xla::compiler_plan(&instance)?.offsets.clone();
            let info = ModelInfo {
                kind: ModelKind::Xla,
                name: name.to_string(),
                compiler: format!("XLA's buffer assignment (heap simulator trace {})", instance.trace),
                buffers: instance.problem.len(),
                operators: instance.simulation.values.len(),
            };
            Ok(ImportedModel { info, problem: instance.problem, compiler_plan })
        }
        Some(ModelKind::Pte) => {
            let instance = pte::import(bytes, &pte::ImportOptions::default())?;
            let info = ModelInfo {
                kind: ModelKind::Pte,
                name: name.to_string(),
                compiler: "ExecuTorch's memory planner (the program's own offsets)".to_string(),
                buffers: instance.problem.len(),
                operators: instance.instructions,
            };
            Ok(ImportedModel { info, problem: instance.problem, compiler_plan: instance.compiler_plan })
        }
        None => Err(ImportError::NotAModel(name.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tflite_model_is_told_by_its_content_and_imported_with_litert_s_plan() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tflite/hand_recrop.tflite");
        let bytes = std::fs::read(path).unwrap();
        let model = import_model(&bytes, "renamed.bin").unwrap();
        assert_eq!((model.info.kind, model.info.buffers), (ModelKind::Tflite, 58));
        assert_eq!(crate::model::load::makespan(model.problem.buffers(), &model.compiler_plan), 2_359_296);
        let refused = import_model(b"id,lower,upper,size\n", "instance.csv").unwrap_err();
        assert!(matches!(refused, ImportError::NotAModel(_)), "{refused}");
        assert!(refused.to_string().contains("not a model"), "{refused}");
    }

    #[test]
    fn an_xla_dump_is_told_by_its_name_and_imported_with_xla_s_plan() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/xla/convnet.hlo.pb");
        let bytes = std::fs::read(path).unwrap();
        let model = import_model(&bytes, "convnet.hlo.pb").unwrap();
        assert_eq!(model.info.kind, ModelKind::Xla);
        // XLA's own heap for this trace (its dump's offsets); see tests/import_xla.rs.
        assert_eq!(crate::model::load::makespan(model.problem.buffers(), &model.compiler_plan), 266_752);
        let truncated = import_model(&bytes[..bytes.len() / 2], "convnet.hlo.pb").unwrap_err();
        assert!(matches!(truncated, ImportError::Malformed(ModelKind::Xla, _)), "{truncated}");
    }
}
