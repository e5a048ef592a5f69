# Pinned tool versions, in one place. Keep WASM_BINDGEN equal to the `wasm-bindgen = "=..."` pin in
# crate/Cargo.toml.
NIGHTLY=nightly-2026-05-20
WASM_BINDGEN=0.2.130
