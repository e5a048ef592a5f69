//! The parts of an ExecuTorch program (`.pte`) that memory planning needs, read with memplan's own
//! FlatBuffers reader. Field numbers come from the public `program.fbs` schema (a union takes two
//! slots: its type, then its value).

use crate::import::flatbuffer::{self, Read, Table};

/// `Program` fields.
const PROGRAM_EXECUTION_PLAN: usize = 1;
/// `ExecutionPlan` fields.
const PLAN_NAME: usize = 0;
const PLAN_VALUES: usize = 2;
const PLAN_INPUTS: usize = 3;
const PLAN_OUTPUTS: usize = 4;
const PLAN_CHAINS: usize = 5;
const PLAN_OPERATORS: usize = 6;
const PLAN_NON_CONST_BUFFER_SIZES: usize = 8;
/// `EValue.val` (a union: its type in slot 0, the table in slot 1).
const EVALUE_TYPE: usize = 0;
const EVALUE_VALUE: usize = 1;
/// `KernelTypes` union members.
const KERNEL_TYPE_TENSOR: u8 = 5;
const KERNEL_TYPE_TENSOR_LIST: u8 = 10;
const KERNEL_TYPE_OPTIONAL_TENSOR_LIST: u8 = 11;
/// `Tensor` fields.
const TENSOR_SCALAR_TYPE: usize = 0;
const TENSOR_SIZES: usize = 2;
const TENSOR_DATA_BUFFER_IDX: usize = 5;
pub(crate) const TENSOR_ALLOCATION_INFO: usize = 6;
/// `AllocationDetails` fields.
const ALLOCATION_MEMORY_ID: usize = 0;
const ALLOCATION_OFFSET_LOW: usize = 1;
const ALLOCATION_OFFSET_HIGH: usize = 2;
/// `TensorList.items` / `OptionalTensorList.items`.
const LIST_ITEMS: usize = 0;
/// `Chain.instructions`.
const CHAIN_INSTRUCTIONS: usize = 2;
/// `Instruction.instr_args` (a union).
const INSTRUCTION_TYPE: usize = 0;
const INSTRUCTION_ARGS: usize = 1;
/// `InstructionArguments` union members.
const KERNEL_CALL: u8 = 1;
const DELEGATE_CALL: u8 = 2;
const MOVE_CALL: u8 = 3;
const JUMP_FALSE_CALL: u8 = 4;
const FREE_CALL: u8 = 5;
/// `KernelCall.args` and `DelegateCall.args`.
const CALL_ARGS: usize = 1;
/// `MoveCall` fields.
const MOVE_FROM: usize = 0;
const MOVE_TO: usize = 1;
/// `Operator.name`.
const OPERATOR_NAME: usize = 0;

/// One value of the execution plan, as far as planning cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Tensor(Tensor),
    /// A list of tensors (value indices; -1 for an absent optional one): using the list uses them.
    TensorList(Vec<i32>),
    /// Anything else (ints, lists of ints, scalars, strings): never planned.
    Other,
}

/// A tensor value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub scalar_type: i8,
    pub sizes: Vec<i32>,
    /// Non-zero for a constant whose data the program carries.
    pub data_buffer_idx: u32,
    /// Where the memory planner put it, for a planned tensor.
    pub allocation: Option<Allocation>,
}

/// A planned tensor's place: the memory (arena) and the offset in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub memory_id: u32,
    pub offset: u64,
    /// The byte position of the tensor's `allocation_info` offset field, which a rewrite points
    /// at new allocation details.
    pub field: usize,
}

/// One step of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instruction {
    /// A kernel call (`op` indexes the operators); its arguments are value indices, the operator's
    /// own arguments (its `out` tensors among them) followed by what it returns.
    Kernel { op: usize, args: Vec<i32> },
    /// A call into a delegate: inputs and outputs as value indices.
    Delegate { args: Vec<i32> },
    /// Copies one value into another.
    Move { from: i32, to: i32 },
    /// A conditional jump: control flow.
    JumpFalse,
    /// Frees a value.
    Free,
}

/// The first execution plan of a program.
#[derive(Clone, Debug)]
pub struct ExecutionPlan {
    pub name: String,
    pub values: Vec<Value>,
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
    /// Every chain's instructions, in order.
    pub instructions: Vec<Instruction>,
    /// Operator names (`aten::add`), indexed by a kernel call's `op`.
    pub operators: Vec<String>,
    /// The size of each planned memory (arena), index 0 reserved.
    pub buffer_sizes: Vec<i64>,
    /// The byte position of `buffer_sizes[0]`, for a rewrite.
    pub buffer_sizes_at: Option<usize>,
}

/// Reads the first execution plan of a `.pte` program. Errors say which part failed.
pub(crate) fn read(bytes: &[u8]) -> Read<ExecutionPlan> {
    match flatbuffer::identifier(bytes) {
        Some(id) if id == b"ET12" => {}
        Some(other) => {
            return Err(format!(
                "its file identifier is {:?}, not \"ET12\" (an ExecuTorch program)",
                String::from_utf8_lossy(other)
            ));
        }
        None => return Err(format!("{} bytes is too short for an ExecuTorch program", bytes.len())),
    }
    let budget = flatbuffer::Budget::for_file(bytes);
    let root = flatbuffer::root(bytes, &budget).map_err(|e| format!("the program table: {e}"))?;
    let plans = root.tables(PROGRAM_EXECUTION_PLAN).map_err(|e| format!("the execution plans: {e}"))?;
    let plan = plans.first().ok_or("the program has no execution plan")?;
    let name = plan.string(PLAN_NAME)?.unwrap_or_default();
    let values = plan
        .tables(PLAN_VALUES)
        .map_err(|e| format!("the values: {e}"))?
        .iter()
        .enumerate()
        .map(|(i, value)| read_value(value).map_err(|e| format!("value {i}: {e}")))
        .collect::<Read<Vec<Value>>>()?;
    let mut instructions = Vec::new();
    for (c, chain) in plan.tables(PLAN_CHAINS).map_err(|e| format!("the chains: {e}"))?.iter().enumerate() {
        for (k, instruction) in chain.tables(CHAIN_INSTRUCTIONS)?.iter().enumerate() {
            instructions.push(read_instruction(instruction).map_err(|e| format!("chain {c}, instruction {k}: {e}"))?);
        }
    }
    let operators = plan
        .tables(PLAN_OPERATORS)?
        .iter()
        .map(|op| Ok(op.string(OPERATOR_NAME)?.unwrap_or_default()))
        .collect::<Read<Vec<String>>>()?;
    let sizes = plan.vector(PLAN_NON_CONST_BUFFER_SIZES, 8)?;
    Ok(ExecutionPlan {
        name,
        values,
        inputs: plan.i32s(PLAN_INPUTS)?,
        outputs: plan.i32s(PLAN_OUTPUTS)?,
        instructions,
        operators,
        buffer_sizes: sizes.map(|v| v.i64s()).unwrap_or_default(),
        buffer_sizes_at: sizes.map(|v| v.position()),
    })
}

fn read_value(value: &Table) -> Read<Value> {
    let kind = value.u8(EVALUE_TYPE, 0)?;
    let Some(table) = value.table(EVALUE_VALUE)? else {
        return Ok(Value::Other);
    };
    Ok(match kind {
        KERNEL_TYPE_TENSOR => Value::Tensor(read_tensor(&table)?),
        KERNEL_TYPE_TENSOR_LIST | KERNEL_TYPE_OPTIONAL_TENSOR_LIST => Value::TensorList(table.i32s(LIST_ITEMS)?),
        _ => Value::Other,
    })
}

fn read_tensor(tensor: &Table) -> Read<Tensor> {
    let allocation = match tensor.table(TENSOR_ALLOCATION_INFO)? {
        Some(details) => {
            let low = u64::from(details.u32(ALLOCATION_OFFSET_LOW, 0)?);
            let high = u64::from(details.u32(ALLOCATION_OFFSET_HIGH, 0)?);
            let field = tensor.field(TENSOR_ALLOCATION_INFO, 4)?.ok_or("allocation_info vanished")?;
            Some(Allocation { memory_id: details.u32(ALLOCATION_MEMORY_ID, 0)?, offset: high << 32 | low, field })
        }
        None => None,
    };
    Ok(Tensor {
        scalar_type: tensor.i8(TENSOR_SCALAR_TYPE, 0)?,
        sizes: tensor.i32s(TENSOR_SIZES)?,
        data_buffer_idx: tensor.u32(TENSOR_DATA_BUFFER_IDX, 0)?,
        allocation,
    })
}

fn read_instruction(instruction: &Table) -> Read<Instruction> {
    let kind = instruction.u8(INSTRUCTION_TYPE, 0)?;
    let args = instruction.table(INSTRUCTION_ARGS)?.ok_or("an instruction without arguments")?;
    Ok(match kind {
        KERNEL_CALL => Instruction::Kernel {
            op: usize::try_from(args.i32(0, 0)?).unwrap_or(usize::MAX),
            args: args.i32s(CALL_ARGS)?,
        },
        DELEGATE_CALL => Instruction::Delegate { args: args.i32s(CALL_ARGS)? },
        MOVE_CALL => Instruction::Move { from: args.i32(MOVE_FROM, 0)?, to: args.i32(MOVE_TO, 0)? },
        JUMP_FALSE_CALL => Instruction::JumpFalse,
        FREE_CALL => Instruction::Free,
        other => return Err(format!("an instruction of unknown kind {other}")),
    })
}

/// Bytes per element of an ExecuTorch scalar type (`scalar_type.fbs`); `None` for a type the
/// schema does not list. Packed sub-byte types take a byte per element, as the runtime counts them.
pub(crate) fn element_size(scalar_type: i8) -> Option<u64> {
    Some(match scalar_type {
        0 | 1 | 11 | 12 | 13 | 16 | 17 | 23..=26 => 1, // bytes, bool, 8-bit quantised, packed, float8
        2 | 5 | 15 | 22 | 27 => 2,                     // short, half, bfloat16, bits16, uint16
        3 | 6 | 14 | 28 => 4,                          // int, float, qint32, uint32
        4 | 7 | 29 => 8,                               // long, double, uint64
        _ => return None,
    })
}

/// The name of a scalar type, for buffer names (`f32[8,64]`).
pub(crate) fn type_name(scalar_type: i8) -> &'static str {
    match scalar_type {
        0 => "u8",
        1 => "i8",
        2 => "i16",
        3 => "i32",
        4 => "i64",
        5 => "f16",
        6 => "f32",
        7 => "f64",
        11 => "bool",
        12 => "qi8",
        13 => "qu8",
        14 => "qi32",
        15 => "bf16",
        27 => "u16",
        28 => "u32",
        29 => "u64",
        _ => "t",
    }
}
