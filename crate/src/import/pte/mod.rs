//! ExecuTorch programs (`.pte`, PyTorch's on-device runtime) in: the instance of one planned
//! memory of the program's first execution plan, with ExecuTorch's own offsets as the compiler's
//! plan ([`import`]); and a better plan written back into the program ([`with_plan`]).
//!
//! What the file says and what it does not, and so how the instance is made:
//! - Time is the instruction index: instruction `k` runs at time `k + 1`; graph inputs are alive
//!   from 0 and graph outputs until `instructions + 2`, one step after the last instruction.
//! - A planned tensor is a tensor value with `allocation_info` in the chosen memory (memory id 1,
//!   ExecuTorch's one arena unless a pass adds others); constants and tensors the runtime
//!   allocates are not planned. Its size is its element count times its element size, rounded up
//!   to the alignment (ExecuTorch's `MemoryPlanningPass` aligns to 16 by default).
//! - ExecuTorch lets views share their base's storage (same allocation, no instruction that
//!   writes them), and the file does not say which values are views. A kernel call lists its
//!   `out` tensors twice (as the argument and in what it returns: the tensor, or a list of them
//!   for several outputs) and a move writes its target,
//!   so a value first used that way is written there and starts a buffer of its own; any other
//!   planned value first used at an address (read before written: a view, a delegate's output)
//!   joins the buffer last started at that address (the last with bytes: ExecuTorch puts
//!   zero-size tensors inside others), which keeps every alias together (a wrong guess only
//!   makes a buffer live longer, never a plan unsafe).
//! - Buffers are listed in value order (their first value's), as ExecuTorch lists its tensors.
//! - A buffer lives from its first value's first use to its values' last use.
//! - Control flow (`JumpFalseCall`) is refused: instruction order is no longer time order.

pub(crate) mod program;
mod write;

use std::collections::HashMap;

use crate::model::{Buffer, Category, Problem};
pub use program::ExecutionPlan;
pub use write::with_plan;

/// Why a model could not be imported or written: one type for every importer.
pub use crate::import::ImportError;

/// How to turn a program into an instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// The planned memory (ExecuTorch's `mem_id`); 1 is its default arena.
    pub memory_id: u32,
    /// The alignment of every offset and size: ExecuTorch's planner aligns to 16 by default.
    pub alignment: u64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { memory_id: 1, alignment: 16 }
    }
}

/// One planned memory of a program as an instance.
#[derive(Clone, Debug)]
pub struct Imported {
    /// One buffer per storage: id = the value index of its first tensor.
    pub problem: Problem,
    /// The tensor values (indices into the plan's values) that share each buffer's storage.
    pub values: Vec<Vec<usize>>,
    /// ExecuTorch's own offsets for the buffers.
    pub compiler_plan: Vec<u64>,
    pub memory_id: u32,
    pub alignment: u64,
    /// The arena size the program asks for (`non_const_buffer_sizes[memory_id]`).
    pub arena: u64,
    /// Instructions of the execution plan (the instance's times run to this plus 2).
    pub instructions: usize,
    /// The execution plan's name (`forward`).
    pub method: String,
}

/// An import at a glance: what `memplan import` prints and Python's `summary` holds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// The execution plan's name (`forward`).
    pub method: String,
    pub memory_id: u32,
    /// Buffers of the instance (storages), and the tensors they hold.
    pub buffers: usize,
    pub tensors: usize,
    pub instructions: usize,
    pub max_load: u64,
    /// The makespan of ExecuTorch's own offsets, and the arena size the program asks for.
    pub compiler_makespan: u64,
    pub compiler_arena: u64,
    pub alignment: u64,
}

impl Imported {
    pub fn summary(&self) -> Summary {
        Summary {
            method: self.method.clone(),
            memory_id: self.memory_id,
            buffers: self.problem.len(),
            tensors: self.values.iter().map(Vec::len).sum(),
            instructions: self.instructions,
            max_load: self.problem.max_load(),
            compiler_makespan: crate::model::load::makespan(self.problem.buffers(), &self.compiler_plan),
            compiler_arena: self.arena,
            alignment: self.alignment,
        }
    }
}

/// The instance of one planned memory of the program in `bytes` (its first execution plan).
pub fn import(bytes: &[u8], options: &ImportOptions) -> Result<Imported, ImportError> {
    if options.alignment == 0 {
        return Err(ImportError::Request("the alignment must be at least 1".into()));
    }
    let plan = program::read(bytes).map_err(|e| ImportError::Malformed(crate::import::ModelKind::Pte, e))?;
    if plan.instructions.iter().any(|i| matches!(i, program::Instruction::JumpFalse)) {
        return Err(ImportError::Unsupported(
            "the program has control flow (a conditional jump): instruction order is not time order".into(),
        ));
    }
    let memory = usize::try_from(options.memory_id).unwrap_or(usize::MAX);
    let arena = match plan.buffer_sizes.get(memory) {
        Some(&size) if memory > 0 => u64::try_from(size).map_err(|_| {
            ImportError::Malformed(crate::import::ModelKind::Pte, format!("memory {memory} has a negative size {size}"))
        })?,
        _ => {
            return Err(ImportError::Request(format!(
                "the program has no planned memory {} (it has {})",
                options.memory_id,
                describe_memories(plan.buffer_sizes.len())
            )));
        }
    };
    let uses = Uses::of(&plan)?;
    let n = plan.instructions.len() as u64;
    let end_of_graph = n + 2;
    let is_input = flags(&plan.inputs, plan.values.len());
    let is_output = flags(&plan.outputs, plan.values.len());

    // The planned tensors of this memory, in the order they come alive.
    let mut planned: Vec<usize> = (0..plan.values.len())
        .filter(|&v| matches!(&plan.values[v], program::Value::Tensor(t) if t.allocation.is_some_and(|a| a.memory_id == options.memory_id)))
        .collect();
    let first_time =
        |v: usize| -> u64 { if is_input[v] { 0 } else { uses.first[v].map_or(end_of_graph, |k| k as u64 + 1) } };
    planned.sort_by_key(|&v| (first_time(v), v));

    struct Group {
        values: Vec<usize>,
        start: u64,
        end: u64,
        size: u64,
        offset: u64,
        input: bool,
        output: bool,
    }
    let mut groups: Vec<Group> = Vec::new();
    // The buffer last started at each address, and the last one with bytes: ExecuTorch puts
    // zero-size tensors inside others' bytes, and a view's base is the one with bytes.
    let mut at_address: HashMap<u64, (usize, Option<usize>)> = HashMap::new();
    for &v in &planned {
        let program::Value::Tensor(tensor) = &plan.values[v] else { unreachable!("filtered to tensors") };
        let allocation = tensor.allocation.expect("filtered to planned tensors");
        let bytes = tensor_bytes(v, tensor)?;
        let start = first_time(v);
        let end =
            if is_output[v] { end_of_graph } else { uses.last[v].map_or(start + 1, |k| k as u64 + 2).max(start + 1) };
        let alias = !is_input[v] && !uses.written_first[v] && uses.first[v].is_some();
        let joined =
            if alias { at_address.get(&allocation.offset).map(|&(last, sized)| sized.unwrap_or(last)) } else { None };
        match joined {
            Some(g) => {
                let group = &mut groups[g];
                group.values.push(v);
                group.end = group.end.max(end);
                group.size = group.size.max(bytes);
                group.input |= is_input[v];
                group.output |= is_output[v];
            }
            None => {
                let here = groups.len();
                let entry = at_address.entry(allocation.offset).or_insert((here, None));
                entry.0 = here;
                if bytes > 0 {
                    entry.1 = Some(here);
                }
                groups.push(Group {
                    values: vec![v],
                    start,
                    end,
                    size: bytes,
                    offset: allocation.offset,
                    input: is_input[v],
                    output: is_output[v],
                });
            }
        }
    }

    // In value order, the order ExecuTorch hands its planner the tensors (equal sizes then keep
    // its order in `executorch-greedy`).
    groups.sort_by_key(|group| group.values[0]);
    let mut buffers = Vec::with_capacity(groups.len());
    for group in &groups {
        let first = group.values[0];
        let size = crate::alignment::align_up(group.size, options.alignment).ok_or_else(|| {
            ImportError::Unsupported(format!("value {first}: {} bytes do not fit 64 bits once aligned", group.size))
        })?;
        let category = if group.input {
            Category::Input
        } else if group.output {
            Category::Output
        } else {
            Category::Temporary
        };
        let buffer = Buffer::new(first.to_string(), group.start, group.end, size)
            .with_alignment(options.alignment)
            .named(describe_tensor(&plan, first))
            .with_category(category);
        buffers.push(buffer);
    }
    let problem = Problem::new(buffers, None).map_err(|errors| ImportError::Unsupported(errors.to_string()))?;
    Ok(Imported {
        problem,
        values: groups.iter().map(|g| g.values.clone()).collect(),
        compiler_plan: groups.iter().map(|g| g.offset).collect(),
        memory_id: options.memory_id,
        alignment: options.alignment,
        arena,
        instructions: plan.instructions.len(),
        method: plan.name,
    })
}

/// `flags[v]` is true for every `v` in `indices` (ignoring indices out of range).
fn flags(indices: &[i32], len: usize) -> Vec<bool> {
    let mut flags = vec![false; len];
    for &i in indices {
        if let Some(flag) = usize::try_from(i).ok().and_then(|i| flags.get_mut(i)) {
            *flag = true;
        }
    }
    flags
}

fn describe_memories(count: usize) -> String {
    match count {
        0 | 1 => "none".to_string(),
        2 => "memory 1".to_string(),
        _ => format!("memories 1 to {}", count - 1),
    }
}

/// A tensor's bytes: its element count times its element size.
fn tensor_bytes(v: usize, tensor: &program::Tensor) -> Result<u64, ImportError> {
    let element = program::element_size(tensor.scalar_type).ok_or_else(|| {
        ImportError::Unsupported(format!("value {v}: a tensor of unknown scalar type {}", tensor.scalar_type))
    })?;
    tensor.sizes.iter().try_fold(element, |bytes, &dim| {
        let dim = u64::try_from(dim).map_err(|_| {
            ImportError::Malformed(crate::import::ModelKind::Pte, format!("value {v}: a negative dimension {dim}"))
        })?;
        bytes.checked_mul(dim).ok_or_else(|| ImportError::Unsupported(format!("value {v}: its size passes 64 bits")))
    })
}

/// `f32[8,64]`: a tensor's element type and shape, as a buffer's name.
fn describe_tensor(plan: &ExecutionPlan, v: usize) -> String {
    match &plan.values[v] {
        program::Value::Tensor(t) => {
            let dims: Vec<String> = t.sizes.iter().map(i32::to_string).collect();
            format!("{}[{}]", program::type_name(t.scalar_type), dims.join(","))
        }
        _ => String::new(),
    }
}

/// When each value is used: its first and last instruction, and whether the first writes it.
struct Uses {
    first: Vec<Option<usize>>,
    last: Vec<Option<usize>>,
    written_first: Vec<bool>,
}

impl Uses {
    fn of(plan: &ExecutionPlan) -> Result<Uses, ImportError> {
        let len = plan.values.len();
        let mut uses = Uses { first: vec![None; len], last: vec![None; len], written_first: vec![false; len] };
        let index = |i: i32, k: usize| -> Result<usize, ImportError> {
            usize::try_from(i).ok().filter(|&i| i < len).ok_or_else(|| {
                ImportError::Malformed(
                    crate::import::ModelKind::Pte,
                    format!("instruction {k} names value {i}, but the plan has {len} values"),
                )
            })
        };
        for (k, instruction) in plan.instructions.iter().enumerate() {
            // (value, written here) for every tensor the instruction touches, lists expanded.
            let mut touched: Vec<(usize, bool)> = Vec::new();
            let expand = |v: usize, written: bool, touched: &mut Vec<(usize, bool)>| -> Result<(), ImportError> {
                touched.push((v, written));
                if let program::Value::TensorList(items) = &plan.values[v] {
                    for &item in items.iter().filter(|&&item| item >= 0) {
                        touched.push((index(item, k)?, written));
                    }
                }
                Ok(())
            };
            match instruction {
                program::Instruction::Kernel { args, .. } => {
                    // An out tensor is listed as the argument and again in what the kernel
                    // returns: itself, or (several outputs) a list that holds it.
                    let mut all = Vec::new();
                    for &arg in args {
                        expand(index(arg, k)?, false, &mut all)?;
                    }
                    let mut counts: HashMap<usize, usize> = HashMap::new();
                    for &(v, _) in &all {
                        *counts.entry(v).or_default() += 1;
                    }
                    touched.extend(counts.into_iter().map(|(v, count)| (v, count >= 2)));
                }
                program::Instruction::Delegate { args } => {
                    for &arg in args {
                        expand(index(arg, k)?, false, &mut touched)?;
                    }
                }
                program::Instruction::Move { from, to } => {
                    expand(index(*from, k)?, false, &mut touched)?;
                    expand(index(*to, k)?, true, &mut touched)?;
                }
                program::Instruction::JumpFalse | program::Instruction::Free => {}
            }
            for (v, written) in touched {
                if uses.first[v].is_none() {
                    uses.first[v] = Some(k);
                    uses.written_first[v] = written;
                } else if uses.first[v] == Some(k) {
                    uses.written_first[v] |= written;
                }
                uses.last[v] = Some(k);
            }
        }
        Ok(uses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sizes_follow_the_schema() {
        assert_eq!(program::element_size(6), Some(4)); // float
        assert_eq!(program::element_size(4), Some(8)); // long
        assert_eq!(program::element_size(15), Some(2)); // bfloat16
        assert_eq!(program::element_size(8), None); // not in the schema
    }

    #[test]
    fn garbage_is_malformed_not_a_panic() {
        for bytes in [&b""[..], b"12345678", b"\x08\x00\x00\x00ET12\xff\xff\xff\xff"] {
            let error = import(bytes, &ImportOptions::default()).unwrap_err();
            assert!(matches!(error, ImportError::Malformed(crate::import::ModelKind::Pte, _)), "{error}");
        }
    }
}
