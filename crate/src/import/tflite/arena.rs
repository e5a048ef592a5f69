//! One subgraph as the instance LiteRT's arena planner (`ArenaPlanner`) solves, with the rules
//! checked against LiteRT 2.3.0 (reference kernels) by comparing tensor addresses after
//! `allocate_tensors()` (`scripts/fixtures/tflite_inplace.py`, `crate/tests/import_tflite.rs`):
//!
//! - **Planned**: graph inputs and operator outputs that are not constants (a non-empty data
//!   buffer), not variables (the persistent arena holds them) and not computed at prepare time.
//!   Only DEQUANTIZE and DENSIFY of constants in the file are computed at prepare time (persistent
//!   arena): an ADD or MUL of two constants, or a DEQUANTIZE of a DENSIFY's output, is planned
//!   like any other output.
//! - **Time** = operator index. Graph inputs are allocated at step 0, an operator's outputs at its
//!   step. Each tensor counts one reference per consuming operator input, plus one when it is a
//!   graph input, a graph output or a variable; after each operator the counts of its inputs drop,
//!   and a tensor whose count reaches 0 is freed after that operator. A tensor never freed lives
//!   to the end of the run, time `operators + 1` (after the last operator, when the caller reads
//!   the outputs), so that "alive for the whole run" is exactly "allocated at 0, never freed".
//! - **In place**: some kernels write their first output over an input, which then shares its
//!   memory and its reference count (see `in_place`). The shared group is one buffer, named
//!   and numbered after its first tensor (the root), of the root's size.
//! - **Loops**: the condition and body subgraphs of a WHILE get their inputs from the WHILE
//!   kernel, outside their own arena; their other tensors are planned as above.
//! - **TFLite Micro** ([`Runtime::Micro`]): no in-place sharing, no prepare-time results, and
//!   graph inputs freed after their last reader like any tensor.
//! - Sizes: the product of the dimensions times the element width; `-1` dimensions of
//!   `shape_signature` take [`ImportOptions::dynamic_dim`]. Every offset is aligned to
//!   [`ImportOptions::alignment`] (64, LiteRT's arena alignment).

use super::names::BUILTIN_NAMES;
use super::schema::{self, CUSTOM, Model, Subgraph};
use super::{ImportError, ImportOptions, Runtime};
use crate::model::{Buffer, Category, Problem};

const DEQUANTIZE: i32 = 6;
const DENSIFY: i32 = 124;

/// How a kernel may share an input's memory with its first output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InPlace {
    /// The kernel computes the output over input `0..inputs` (the first that qualifies), so the
    /// input must have no other reader, be the same size and larger than 4 bytes.
    Overwrites { inputs: usize },
    /// The output is the input's bytes as they are (a reshape), even when others read the input.
    SameBytes,
}

/// Which builtin kernels share memory in place, as LiteRT 2.3.0's reference kernels do
/// (`scripts/fixtures/tflite_inplace.py` tried 45 operators; these are the ones that shared).
fn in_place(builtin: i32) -> Option<InPlace> {
    match builtin {
        0 | 18 | 41 | 42 => Some(InPlace::Overwrites { inputs: 2 }), // ADD, MUL, SUB, DIV
        25 => Some(InPlace::Overwrites { inputs: 1 }),               // SOFTMAX
        22 | 43 | 70 | 159 => Some(InPlace::SameBytes),              // RESHAPE, SQUEEZE, EXPAND_DIMS, BITCAST
        _ => None,
    }
}

/// The name TFLite gives a builtin operator code.
pub fn builtin_name(code: i32) -> String {
    usize::try_from(code)
        .ok()
        .and_then(|i| BUILTIN_NAMES.get(i))
        .map_or_else(|| format!("builtin operator {code}"), |name| (*name).to_string())
}

/// What the runtime's read-write arena does with one tensor of the subgraph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "role")]
pub enum TensorRole {
    /// Buffer `buffer` of the instance is this tensor's memory.
    Planned { buffer: usize },
    /// Written in place over tensor `root`: it shares buffer `buffer`, the root's.
    Shared { buffer: usize, root: usize },
    /// Its data is in the file.
    Constant,
    /// Computed once at prepare time from constants (DEQUANTIZE or DENSIFY of weights), and kept
    /// in the persistent arena.
    PrepareTime,
    /// A variable tensor: the persistent arena keeps it across runs.
    Variable,
    /// Zero bytes (a dimension of 0): nothing to place.
    Empty,
    /// Neither a graph input nor written by an operator: the runtime never allocates it.
    Unused,
    /// An input of a WHILE's condition or body subgraph: the WHILE kernel provides its memory.
    FromLoop,
}

impl TensorRole {
    /// The instance's buffer that holds this tensor, if any.
    pub fn buffer(self) -> Option<usize> {
        match self {
            TensorRole::Planned { buffer } | TensorRole::Shared { buffer, .. } => Some(buffer),
            _ => None,
        }
    }
}

/// One subgraph's instance: the buffers LiteRT's arena plans, and each tensor's part in it.
#[derive(Clone, Debug)]
pub struct Imported {
    pub subgraph: usize,
    /// The subgraph's name in the file, if it has one.
    pub name: Option<String>,
    pub operators: usize,
    /// One buffer per planned tensor (or in-place group), in tensor order; id = the tensor's
    /// index, name = its name.
    pub problem: Problem,
    /// Index = tensor index in the subgraph.
    pub tensors: Vec<TensorRole>,
}

/// What an import found, for the edges to print: counts of each kind of tensor and the max load.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub subgraph: usize,
    pub operators: usize,
    pub tensors: usize,
    /// Buffers of the instance (a group shared in place counts once).
    pub buffers: usize,
    /// Tensors that share an input's buffer in place.
    pub shared: usize,
    pub constants: usize,
    pub prepare_time: usize,
    pub variables: usize,
    pub unused: usize,
    /// Inputs of a loop's subgraph, which the WHILE kernel provides.
    pub from_loop: usize,
    #[serde(serialize_with = "crate::model::wire::serialize_u64")]
    pub max_load: u64,
}

impl Imported {
    pub fn summary(&self) -> Summary {
        let count = |wanted: fn(&TensorRole) -> bool| self.tensors.iter().filter(|r| wanted(r)).count();
        Summary {
            subgraph: self.subgraph,
            operators: self.operators,
            tensors: self.tensors.len(),
            buffers: self.problem.len(),
            shared: count(|r| matches!(r, TensorRole::Shared { .. })),
            constants: count(|r| *r == TensorRole::Constant),
            prepare_time: count(|r| *r == TensorRole::PrepareTime),
            variables: count(|r| *r == TensorRole::Variable),
            unused: count(|r| matches!(r, TensorRole::Unused | TensorRole::Empty)),
            from_loop: count(|r| *r == TensorRole::FromLoop),
            max_load: self.problem.max_load(),
        }
    }

    /// Each tensor's offset under `offsets` (one per buffer of [`Imported::problem`]): a shared
    /// tensor gets its group's offset, a tensor outside the arena `None`.
    pub fn tensor_offsets(&self, offsets: &[u64]) -> Vec<Option<u64>> {
        self.tensors.iter().map(|role| role.buffer().and_then(|b| offsets.get(b).copied())).collect()
    }
}

/// A tensor index of the file, checked: `Ok(None)` for `-1` (an optional tensor left out).
fn tensor_index(value: i32, tensors: usize, place: impl FnOnce() -> String) -> Result<Option<usize>, ImportError> {
    if value == -1 {
        return Ok(None);
    }
    match usize::try_from(value) {
        Ok(index) if index < tensors => Ok(Some(index)),
        _ => Err(ImportError::Malformed(
            crate::import::ModelKind::Tflite,
            format!("{} is tensor {value}, but the subgraph has {tensors} tensors", place()),
        )),
    }
}

/// An operator's inputs and outputs as checked tensor indices (absent optional ones left out),
/// and its builtin code.
struct Node {
    builtin: i32,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
}

fn nodes(model: &Model, subgraph: &Subgraph, index: usize) -> Result<Vec<Node>, ImportError> {
    let count = subgraph.tensors.len();
    let mut nodes = Vec::with_capacity(subgraph.operators.len());
    let mut custom: Vec<String> = Vec::new();
    for (k, operator) in subgraph.operators.iter().enumerate() {
        let code =
            usize::try_from(operator.opcode_index).ok().and_then(|i| model.operator_codes.get(i)).ok_or_else(|| {
                ImportError::Malformed(
                    crate::import::ModelKind::Tflite,
                    format!(
                        "subgraph {index}, operator {k}: opcode_index {} but the model has {} operator codes",
                        operator.opcode_index,
                        model.operator_codes.len()
                    ),
                )
            })?;
        if code.builtin == CUSTOM {
            let name = code.custom.clone().unwrap_or_else(|| "(unnamed)".to_string());
            if !custom.iter().any(|c| c.starts_with(&format!("'{name}'"))) {
                custom.push(format!("'{name}' (operator {k})"));
            }
            continue;
        }
        let name = builtin_name(code.builtin);
        let checked = |values: &[i32], what: &str| -> Result<Vec<usize>, ImportError> {
            let mut found = Vec::with_capacity(values.len());
            for (j, &value) in values.iter().enumerate() {
                let place = || format!("subgraph {index}, operator {k} ({name}): {what} {j}");
                found.extend(tensor_index(value, count, place)?);
            }
            Ok(found)
        };
        let inputs = checked(&operator.inputs, "input")?;
        let outputs = checked(&operator.outputs, "output")?;
        nodes.push(Node { builtin: code.builtin, inputs, outputs });
    }
    if !custom.is_empty() {
        return Err(ImportError::Unsupported(format!(
            "subgraph {index} uses custom operators {}: their kernels are not part of LiteRT and may ask for \
             scratch memory at prepare time that the file does not describe, so the arena cannot be \
             planned from the file alone",
            custom.join(", ")
        )));
    }
    Ok(nodes)
}

/// The bytes of tensor `t`: dimensions (dynamic ones from the option) times the element width.
fn tensor_bytes(tensor: &schema::Tensor, t: usize, options: &ImportOptions) -> Result<u64, ImportError> {
    let place = || format!("tensor {t} '{}'", tensor.name);
    let width = schema::element_width(tensor.element_type)
        .map_err(|what| ImportError::Unsupported(format!("{} has element type {what}", place())))?;
    let dims = match &tensor.shape_signature {
        Some(signature) if signature.len() == tensor.shape.len() => signature,
        _ => &tensor.shape,
    };
    let mut bytes = width;
    for &dim in dims {
        let dim = match dim {
            -1 => options.dynamic_dim,
            d => u64::try_from(d).map_err(|_| {
                ImportError::Malformed(
                    crate::import::ModelKind::Tflite,
                    format!("{} has dimension {d} in its shape {:?}", place(), tensor.shape),
                )
            })?,
        };
        bytes = bytes.checked_mul(dim).ok_or_else(|| {
            ImportError::Unsupported(format!("{}: its size (shape {dims:?}) passes 2^64 bytes", place()))
        })?;
    }
    Ok(bytes)
}

/// Builds subgraph `index`'s instance; see the module documentation for the rules.
pub(crate) fn instance(model: &Model, index: usize, options: &ImportOptions) -> Result<Imported, ImportError> {
    let subgraph = model.subgraphs.get(index).ok_or_else(|| {
        ImportError::Request(format!("the model has {} subgraphs; there is no subgraph {index}", model.subgraphs.len()))
    })?;
    let nodes = nodes(model, subgraph, index)?;
    let count = subgraph.tensors.len();
    let graph_list = |values: &[i32], what: &str| -> Result<Vec<usize>, ImportError> {
        let mut found = Vec::new();
        for (j, &value) in values.iter().enumerate() {
            found.extend(tensor_index(value, count, || format!("subgraph {index}: graph {what} {j}"))?);
        }
        Ok(found)
    };
    let graph_inputs = graph_list(&subgraph.inputs, "input")?;
    let graph_outputs = graph_list(&subgraph.outputs, "output")?;

    // Constants, variables, and what prepare time computes from constants.
    let mut roles: Vec<Option<TensorRole>> = vec![None; count];
    for (t, tensor) in subgraph.tensors.iter().enumerate() {
        let buffer = usize::try_from(tensor.buffer).ok().and_then(|b| model.buffers.get(b));
        let constant = match buffer {
            Some(buffer) => buffer.has_data(),
            None if tensor.buffer == 0 => false,
            None => {
                return Err(ImportError::Malformed(
                    crate::import::ModelKind::Tflite,
                    format!(
                        "subgraph {index}, tensor {t} '{}': buffer {} but the model has {} buffers",
                        tensor.name,
                        tensor.buffer,
                        model.buffers.len()
                    ),
                ));
            }
        } || tensor.external_buffer != 0;
        if tensor.is_variable {
            roles[t] = Some(TensorRole::Variable);
        } else if constant {
            roles[t] = Some(TensorRole::Constant);
        }
    }
    for node in &nodes {
        // Constants in the file only: a DEQUANTIZE of a DENSIFY's output is planned like any other.
        let from_constants =
            !node.inputs.is_empty() && node.inputs.iter().all(|&i| roles[i] == Some(TensorRole::Constant));
        let prepares = options.runtime == Runtime::Litert && (node.builtin == DEQUANTIZE || node.builtin == DENSIFY);
        if prepares && from_constants {
            for &o in &node.outputs {
                roles[o].get_or_insert(TensorRole::PrepareTime);
            }
        }
    }

    // A loop's condition and body take their inputs from the WHILE kernel.
    let runs_in_a_loop =
        model.subgraphs.iter().flat_map(|s| &s.operators).any(|operator| {
            operator.while_subgraphs.is_some_and(|(cond, body)| [cond, body].contains(&(index as i32)))
        });
    if runs_in_a_loop {
        for &t in &graph_inputs {
            roles[t].get_or_insert(TensorRole::FromLoop);
        }
    }

    // The tensors the arena allocates, and their bytes.
    let mut allocated = vec![false; count];
    for &t in graph_inputs.iter().chain(nodes.iter().flat_map(|n| n.outputs.iter())) {
        allocated[t] = roles[t].is_none();
    }
    let mut bytes = vec![0u64; count];
    for t in 0..count {
        if allocated[t] {
            bytes[t] = tensor_bytes(&subgraph.tensors[t], t, options)?;
            if bytes[t] == 0 {
                roles[t] = Some(TensorRole::Empty);
                allocated[t] = false;
            }
        }
    }

    // References as counted before any sharing: one per reader, one more for graph inputs,
    // graph outputs and variables.
    let mut references = vec![0u64; count];
    for &t in graph_inputs.iter().chain(&graph_outputs) {
        references[t] += 1;
    }
    for (t, role) in roles.iter().enumerate() {
        if *role == Some(TensorRole::Variable) {
            references[t] += 1;
        }
    }
    for node in &nodes {
        for &i in &node.inputs {
            references[i] += 1;
        }
    }

    // In-place groups: `root[t]` is the tensor whose memory t uses.
    let mut root: Vec<usize> = (0..count).collect();
    let mut is_input = vec![false; count];
    let mut is_output = vec![false; count];
    graph_inputs.iter().for_each(|&t| is_input[t] = true);
    graph_outputs.iter().for_each(|&t| is_output[t] = true);
    let is_graph_input = |t: usize| is_input[t];
    let is_graph_output = |t: usize| is_output[t];
    if options.runtime == Runtime::Litert {
        for node in &nodes {
            let (Some(kind), Some(&output)) = (in_place(node.builtin), node.outputs.first()) else { continue };
            if !allocated[output] || is_graph_output(output) {
                continue;
            }
            let candidates = match kind {
                InPlace::Overwrites { inputs } => &node.inputs[..inputs.min(node.inputs.len())],
                InPlace::SameBytes => &node.inputs[..1.min(node.inputs.len())],
            };
            let shareable = |input: usize| {
                if !allocated[input] || is_graph_input(input) || input == output {
                    return false;
                }
                match kind {
                    InPlace::Overwrites { .. } => {
                        bytes[input] == bytes[output]
                            && bytes[output] > 4
                            && references[input] == 1
                            && references[root[input]] == 1
                    }
                    InPlace::SameBytes => bytes[output] <= bytes[input],
                }
            };
            if let Some(&input) = candidates.iter().find(|&&input| shareable(input)) {
                root[output] = root[input];
            }
        }
    }

    // Lifetimes of the roots: allocation step, and the step after which the count reaches 0.
    let never = usize::MAX;
    let mut alloc = vec![never; count];
    let mut free = vec![never; count];
    for &t in &graph_inputs {
        if allocated[t] {
            alloc[root[t]] = 0;
        }
    }
    // TFLite Micro frees a graph input after its last reader; LiteRT keeps it to the end.
    let mut counts = vec![0u64; count];
    let kept: &[usize] = if options.runtime == Runtime::Litert { &graph_inputs } else { &[] };
    for &t in kept.iter().chain(&graph_outputs) {
        counts[t] += 1;
    }
    for node in &nodes {
        for &i in &node.inputs {
            counts[root[i]] += 1;
        }
    }
    for (step, node) in nodes.iter().enumerate() {
        for &o in &node.outputs {
            if allocated[o] && root[o] == o && alloc[o] == never {
                alloc[o] = step;
            }
        }
        for &i in &node.inputs {
            let r = root[i];
            counts[r] -= 1;
            if counts[r] == 0 && alloc[r] != never && free[r] == never {
                free[r] = step;
            }
        }
    }

    // One buffer per root, in tensor order.
    let operators = nodes.len();
    let end_of_run = operators as u64 + 1;
    let mut buffers = Vec::new();
    let mut buffer_of = vec![never; count];
    for t in 0..count {
        if !allocated[t] || root[t] != t || alloc[t] == never {
            continue;
        }
        let start = alloc[t] as u64;
        let end = if free[t] == never { end_of_run } else { free[t] as u64 + 1 };
        let tensor = &subgraph.tensors[t];
        // A graph input or output is never shared in place with another tensor, so the root
        // alone says what the buffer holds; constants and variables are not planned here.
        let category = if is_input[t] {
            Category::Input
        } else if is_output[t] {
            Category::Output
        } else {
            Category::Temporary
        };
        let buffer = Buffer::new(t.to_string(), start, end.max(start + 1), bytes[t])
            .with_alignment(options.alignment)
            .named(tensor.name.clone())
            .with_category(category);
        buffer_of[t] = buffers.len();
        buffers.push(buffer);
    }
    let tensors = (0..count)
        .map(|t| match roles[t] {
            Some(role) => role,
            None if !allocated[t] || buffer_of[root[t]] == never => TensorRole::Unused,
            None if root[t] == t => TensorRole::Planned { buffer: buffer_of[t] },
            None => TensorRole::Shared { buffer: buffer_of[root[t]], root: root[t] },
        })
        .collect();
    let problem = Problem::new(buffers, None)
        .map_err(|errors| ImportError::Unsupported(format!("subgraph {index}: {errors}")))?;
    Ok(Imported { subgraph: index, name: subgraph.name.clone(), operators, problem, tensors })
}
