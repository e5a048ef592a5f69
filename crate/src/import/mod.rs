//! Importers: a compiler's model file in (its bytes; the library does no I/O), instances out.
//! They sit on the edge floor with the CLI and the wasm facade: they build problems and may run
//! the solvers that reproduce the compiler's own planner.

pub mod tflite;
pub mod xla;
