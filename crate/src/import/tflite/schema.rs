//! The part of TFLite's model format the importer reads, as plain structs. Field numbers are those
//! of the public `schema.fbs` (a field's number is its position in the table's declaration);
//! anything else in the file (options, quantization, signatures) is left unread.

use std::ops::Range;

use crate::import::flatbuffer::{self, Read, Table};

/// `Model`: 0 version, 1 operator_codes, 2 subgraphs, 4 buffers, 6 metadata.
mod model {
    pub(super) const VERSION: usize = 0;
    pub(super) const OPERATOR_CODES: usize = 1;
    pub(super) const SUBGRAPHS: usize = 2;
    pub(super) const BUFFERS: usize = 4;
    pub(super) const METADATA: usize = 6;
}

/// `OperatorCode`: 0 deprecated_builtin_code (byte), 1 custom_code, 3 builtin_code (int).
mod operator_code {
    pub(super) const DEPRECATED_BUILTIN_CODE: usize = 0;
    pub(super) const CUSTOM_CODE: usize = 1;
    pub(super) const BUILTIN_CODE: usize = 3;
}

/// `SubGraph`: 0 tensors, 1 inputs, 2 outputs, 3 operators, 4 name.
mod subgraph {
    pub(super) const TENSORS: usize = 0;
    pub(super) const INPUTS: usize = 1;
    pub(super) const OUTPUTS: usize = 2;
    pub(super) const OPERATORS: usize = 3;
    pub(super) const NAME: usize = 4;
}

/// `Tensor`: 0 shape, 1 type, 2 buffer, 3 name, 5 is_variable, 6 sparsity, 7 shape_signature,
/// 10 external_buffer.
mod tensor {
    pub(super) const SHAPE: usize = 0;
    pub(super) const TYPE: usize = 1;
    pub(super) const BUFFER: usize = 2;
    pub(super) const NAME: usize = 3;
    pub(super) const IS_VARIABLE: usize = 5;
    pub(super) const SHAPE_SIGNATURE: usize = 7;
    pub(super) const EXTERNAL_BUFFER: usize = 10;
}

/// `Operator`: 0 opcode_index, 1 inputs, 2 outputs, 3 builtin_options_type, 4 builtin_options,
/// 8 intermediates.
mod operator {
    pub(super) const OPCODE_INDEX: usize = 0;
    pub(super) const INPUTS: usize = 1;
    pub(super) const OUTPUTS: usize = 2;
    pub(super) const BUILTIN_OPTIONS_TYPE: usize = 3;
    pub(super) const BUILTIN_OPTIONS: usize = 4;
    pub(super) const INTERMEDIATES: usize = 8;
}

/// `BuiltinOptions.WhileOptions`, and its table: 0 cond_subgraph_index, 1 body_subgraph_index.
mod while_options {
    pub(super) const UNION_TYPE: u8 = 93;
    pub(super) const COND_SUBGRAPH_INDEX: usize = 0;
    pub(super) const BODY_SUBGRAPH_INDEX: usize = 1;
}

/// `Buffer`: 0 data, 1 offset, 2 size (the last two for data stored after the FlatBuffer).
mod buffer {
    pub(super) const DATA: usize = 0;
    pub(super) const OFFSET: usize = 1;
    pub(super) const SIZE: usize = 2;
}

/// `Metadata`: 0 name, 1 buffer.
mod metadata {
    pub(super) const NAME: usize = 0;
    pub(super) const BUFFER: usize = 1;
}

/// `BuiltinOperator.CUSTOM`: the operator is named by `custom_code` instead.
pub(crate) const CUSTOM: i32 = 32;

#[derive(Clone, Debug)]
pub struct Model {
    pub version: u32,
    pub operator_codes: Vec<OperatorCode>,
    pub subgraphs: Vec<Subgraph>,
    pub buffers: Vec<Buffer>,
    pub metadata: Vec<Metadata>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorCode {
    /// The larger of `builtin_code` and `deprecated_builtin_code`, as TFLite reads it.
    pub builtin: i32,
    pub custom: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Subgraph {
    pub name: Option<String>,
    pub tensors: Vec<Tensor>,
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
    pub operators: Vec<Operator>,
}

#[derive(Clone, Debug)]
pub struct Tensor {
    pub shape: Vec<i32>,
    /// The shape with `-1` for dynamic dimensions, when the file has one.
    pub shape_signature: Option<Vec<i32>>,
    /// The `TensorType` code.
    pub element_type: i8,
    /// Index into [`Model::buffers`]; 0 is the empty sentinel.
    pub buffer: u32,
    pub name: String,
    pub is_variable: bool,
    /// Index into the model's external buffers (0 = none): data kept outside the file.
    pub external_buffer: u32,
}

#[derive(Clone, Debug)]
pub struct Operator {
    pub opcode_index: u32,
    /// `-1` = an optional input left out.
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
    pub intermediates: Vec<i32>,
    /// A WHILE's condition and body subgraphs, from its `WhileOptions`.
    pub while_subgraphs: Option<(i32, i32)>,
}

#[derive(Clone, Debug)]
pub struct Buffer {
    /// Where the buffer's bytes are in the file, when stored inside the FlatBuffer.
    pub data: Option<Range<usize>>,
    /// Data stored after the FlatBuffer (models over 2 GB): its offset from the file's start and
    /// size. An offset of 0 or 1 means none.
    pub offset: u64,
    pub size: u64,
}

impl Buffer {
    /// A constant's buffer holds data; the empty ones stand for "no data" (runtime tensors).
    pub fn has_data(&self) -> bool {
        self.data.as_ref().is_some_and(|d| !d.is_empty()) || (self.offset > 1 && self.size > 0)
    }
}

#[derive(Clone, Debug)]
pub struct Metadata {
    pub name: String,
    pub buffer: u32,
}

/// Adds where a read went wrong to its message.
fn within<T>(read: Read<T>, place: impl FnOnce() -> String) -> Read<T> {
    read.map_err(|message| format!("{}: {message}", place()))
}

impl Model {
    /// Reads the tables the importer needs; every malformation is an error naming the table.
    pub fn read(bytes: &[u8]) -> Read<Model> {
        match flatbuffer::identifier(bytes) {
            Some(b"TFL3") => {}
            Some(other) => {
                return Err(format!(
                    "the file identifier (bytes 4 to 8) is {:?}, not \"TFL3\": this is not a TFLite model",
                    String::from_utf8_lossy(other)
                ));
            }
            None => return Err(format!("{} bytes is too short for a TFLite model", bytes.len())),
        }
        let budget = flatbuffer::Budget::for_file(bytes);
        let root = within(flatbuffer::root(bytes, &budget), || "the model table".into())?;
        let version = within(root.u32(model::VERSION, 0), || "the model's version".into())?;
        let operator_codes = within(root.tables(model::OPERATOR_CODES), || "operator_codes".into())?
            .iter()
            .enumerate()
            .map(|(i, table)| within(read_operator_code(table), || format!("operator_codes[{i}]")))
            .collect::<Read<Vec<_>>>()?;
        let subgraphs = within(root.tables(model::SUBGRAPHS), || "subgraphs".into())?
            .iter()
            .enumerate()
            .map(|(i, table)| read_subgraph(table, i))
            .collect::<Read<Vec<_>>>()?;
        let buffers = within(root.tables(model::BUFFERS), || "buffers".into())?
            .iter()
            .enumerate()
            .map(|(i, table)| within(read_buffer(table), || format!("buffers[{i}]")))
            .collect::<Read<Vec<_>>>()?;
        let metadata = within(root.tables(model::METADATA), || "metadata".into())?
            .iter()
            .enumerate()
            .map(|(i, table)| within(read_metadata(table), || format!("metadata[{i}]")))
            .collect::<Read<Vec<_>>>()?;
        Ok(Model { version, operator_codes, subgraphs, buffers, metadata })
    }

    /// The data of buffer `index` when it is stored inside the file.
    pub fn buffer_data<'b>(&self, bytes: &'b [u8], index: usize) -> Option<&'b [u8]> {
        let range = self.buffers.get(index)?.data.clone()?;
        bytes.get(range)
    }
}

fn read_operator_code(table: &Table) -> Read<OperatorCode> {
    let deprecated = i32::from(table.i8(operator_code::DEPRECATED_BUILTIN_CODE, 0)?);
    let builtin = table.i32(operator_code::BUILTIN_CODE, 0)?;
    // Files from before `builtin_code` existed have only the byte; newer ones put the placeholder
    // 127 in the byte for codes that do not fit it. The larger of the two is the code either way.
    Ok(OperatorCode { builtin: builtin.max(deprecated), custom: table.string(operator_code::CUSTOM_CODE)? })
}

fn read_subgraph(table: &Table, index: usize) -> Read<Subgraph> {
    let place = |what: &str| format!("subgraph {index}: {what}");
    let tensors = within(table.tables(subgraph::TENSORS), || place("tensors"))?
        .iter()
        .enumerate()
        .map(|(i, t)| within(read_tensor(t), || place(&format!("tensor {i}"))))
        .collect::<Read<Vec<_>>>()?;
    let operators = within(table.tables(subgraph::OPERATORS), || place("operators"))?
        .iter()
        .enumerate()
        .map(|(i, t)| within(read_operator(t), || place(&format!("operator {i}"))))
        .collect::<Read<Vec<_>>>()?;
    Ok(Subgraph {
        name: within(table.string(subgraph::NAME), || place("name"))?.filter(|n| !n.is_empty()),
        inputs: within(table.i32s(subgraph::INPUTS), || place("inputs"))?,
        outputs: within(table.i32s(subgraph::OUTPUTS), || place("outputs"))?,
        tensors,
        operators,
    })
}

fn read_tensor(table: &Table) -> Read<Tensor> {
    Ok(Tensor {
        shape: table.i32s(tensor::SHAPE)?,
        shape_signature: table.vector(tensor::SHAPE_SIGNATURE, 4)?.map(|v| v.i32s()),
        element_type: table.i8(tensor::TYPE, 0)?,
        buffer: table.u32(tensor::BUFFER, 0)?,
        name: table.string(tensor::NAME)?.unwrap_or_default(),
        is_variable: table.bool(tensor::IS_VARIABLE)?,
        external_buffer: table.u32(tensor::EXTERNAL_BUFFER, 0)?,
    })
}

fn read_operator(table: &Table) -> Read<Operator> {
    Ok(Operator {
        opcode_index: table.u32(operator::OPCODE_INDEX, 0)?,
        inputs: table.i32s(operator::INPUTS)?,
        outputs: table.i32s(operator::OUTPUTS)?,
        intermediates: table.i32s(operator::INTERMEDIATES)?,
        while_subgraphs: match table.u8(operator::BUILTIN_OPTIONS_TYPE, 0)? {
            while_options::UNION_TYPE => table.table(operator::BUILTIN_OPTIONS)?.map(|options| {
                Ok::<_, String>((
                    options.i32(while_options::COND_SUBGRAPH_INDEX, 0)?,
                    options.i32(while_options::BODY_SUBGRAPH_INDEX, 0)?,
                ))
            }),
            _ => None,
        }
        .transpose()?,
    })
}

fn read_buffer(table: &Table) -> Read<Buffer> {
    let data = table.vector(buffer::DATA, 1)?.map(|v| v.position()..v.position() + v.len());
    Ok(Buffer { data, offset: table.u64(buffer::OFFSET, 0)?, size: table.u64(buffer::SIZE, 0)? })
}

fn read_metadata(table: &Table) -> Read<Metadata> {
    Ok(Metadata { name: table.string(metadata::NAME)?.unwrap_or_default(), buffer: table.u32(metadata::BUFFER, 0)? })
}

/// The byte width of a `TensorType`, or why the arena cannot hold it: `Err` names the type.
pub(crate) fn element_width(code: i8) -> Result<u64, String> {
    Ok(match code {
        0 => 4,       // FLOAT32
        1 => 2,       // FLOAT16
        2 => 4,       // INT32
        3 => 1,       // UINT8
        4 => 8,       // INT64
        6 => 1,       // BOOL
        7 => 2,       // INT16
        8 => 8,       // COMPLEX64
        9 => 1,       // INT8
        10 => 8,      // FLOAT64
        11 => 16,     // COMPLEX128
        12 => 8,      // UINT64
        15 => 4,      // UINT32
        16 => 2,      // UINT16
        18 => 2,      // BFLOAT16
        21 | 22 => 1, // FLOAT8_E4M3FN, FLOAT8_E5M2
        5 => return Err("STRING (the runtime allocates strings dynamically, outside the arena)".into()),
        13 => return Err("RESOURCE (a handle the runtime allocates outside the arena)".into()),
        14 => return Err("VARIANT (allocated by its kernel, outside the arena)".into()),
        17 => return Err("INT4 (packed below a byte; the arena's byte count for it is not known here)".into()),
        19 => return Err("INT2 (packed below a byte; the arena's byte count for it is not known here)".into()),
        20 => return Err("UINT4 (packed below a byte; the arena's byte count for it is not known here)".into()),
        other => return Err(format!("unknown element type {other} (newer than this reader)")),
    })
}
