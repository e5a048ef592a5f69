//! The CSV and JSON readers and writers through the public API: the benchmark files, round trips,
//! and one test per class of bad input, each checking the reported line, column and message.

use std::path::{Path, PathBuf};

use memplan::format::{self, Document, Format, Offsets, ReadOptions};
use memplan::{Buffer, Category, Gap, InputError, Semantics};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../public/examples")
}

fn csv_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("examples folder is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            csv_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "csv") {
            found.push(path);
        }
    }
}

fn options(format: Format, semantics: Semantics, offsets: Offsets) -> ReadOptions {
    ReadOptions { format: Some(format), semantics, offsets }
}

fn read_csv(text: &str) -> Result<Document, Vec<InputError>> {
    format::read(text, &options(Format::Csv, Semantics::HalfOpen, Offsets::Pinned)).map_err(|e| e.errors)
}

fn read_json(text: &str) -> Result<Document, Vec<InputError>> {
    format::read(text, &options(Format::Json, Semantics::HalfOpen, Offsets::Pinned)).map_err(|e| e.errors)
}

/// The buffers without their input lines, which differ between formats.
fn unlocated(document: &Document) -> Vec<Buffer> {
    document.problem.buffers().iter().cloned().map(|b| b.with_line(None)).collect()
}

/// Asserts that reading failed with exactly one error, at `line` and `column`, saying `fragment`.
fn assert_single_error(result: Result<Document, Vec<InputError>>, line: usize, column: Option<usize>, fragment: &str) {
    let errors = result.expect_err("the input should be rejected");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let error = &errors[0];
    assert_eq!((error.line, error.column), (Some(line), column), "{error:?}");
    assert!(error.message.contains(fragment), "'{}' should contain '{fragment}'", error.message);
}

// ----- benchmark files -----

#[test]
fn every_benchmark_file_loads_in_every_semantics_with_the_published_max_load() {
    let mut files = Vec::new();
    csv_files(&examples_dir(), &mut files);
    files.sort();
    assert!(files.len() >= 17, "found only {files:?}");
    let published: &[(&str, usize, u64)] = &[
        ("A.1048576.csv", 154, 1_048_576),
        ("C.1048576.csv", 203, 1_039_360),
        ("D.1048576.csv", 213, 986_112),
        ("J.1048576.csv", 409, 989_184),
        ("K.1048576.csv", 454, 1_048_576),
        ("input.12.csv", 5, 12),
        ("G_1.csv", 816, 3_030_937_746),
        ("S_1.csv", 28_526, 1_498_635_932),
        ("Y_1.csv", 62_185, 497_261_190_115),
        ("resnet50.csv", 1_042, 1_515_472_556),
        ("pangu_2.6B.csv", 18_692, 5_530_099_775),
    ];
    let mut checked = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("benchmark file is readable");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        for semantics in Semantics::ALL {
            // Every read also checks that the conversion kept the max load computed in `semantics`.
            let document = format::read(&text, &options(Format::Csv, semantics, Offsets::Pinned))
                .unwrap_or_else(|e| panic!("{name} in {semantics:?}: {e}"));
            assert_eq!(document.problem.semantics(), semantics);
            if semantics == Semantics::HalfOpen
                && let Some(&(_, buffers, max_load)) = published.iter().find(|(file, _, _)| *file == name)
            {
                assert_eq!(document.problem.len(), buffers, "{name}");
                assert_eq!(document.problem.max_load(), max_load, "{name}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, published.len());
}

// ----- round trips -----

fn input_12() -> String {
    std::fs::read_to_string(examples_dir().join("minimalloc/examples/input.12.csv")).expect("input.12.csv")
}

#[test]
fn csv_round_trip_keeps_buffers_and_offsets() {
    let offsets = [0, 0, 4, 0, 8];
    for semantics in Semantics::ALL {
        let document = format::read(&input_12(), &options(Format::Csv, semantics, Offsets::Pinned)).unwrap();
        let written = format::write(&document, &offsets, Format::Csv);
        assert!(written.starts_with("id,lower,upper,size,offset\n"), "{written}");

        let as_plan = format::read(&written, &options(Format::Csv, semantics, Offsets::Plan)).unwrap();
        assert_eq!(as_plan.problem.buffers(), document.problem.buffers());
        assert_eq!(as_plan.plan.as_deref(), Some(&offsets[..]));

        let as_pinned = format::read(&written, &options(Format::Csv, semantics, Offsets::Pinned)).unwrap();
        let pinned: Vec<Option<u64>> = as_pinned.problem.buffers().iter().map(|b| b.pinned).collect();
        assert_eq!(pinned, offsets.map(Some));
        // Writing again keeps the offset column in place.
        assert_eq!(format::write(&as_plan, &offsets, Format::Csv), written);
    }
}

#[test]
fn csv_round_trip_of_a_large_benchmark() {
    let text = std::fs::read_to_string(examples_dir().join("idealloc/somas_tensors/resnet50.csv")).unwrap();
    let document = read_csv(&text).unwrap();
    let offsets: Vec<u64> = (0..document.problem.len() as u64).map(|i| i * 1024).collect();
    let written = format::write(&document, &offsets, Format::Csv);
    let back = format::read(&written, &options(Format::Csv, Semantics::HalfOpen, Offsets::Plan)).unwrap();
    assert_eq!(back.problem.buffers(), document.problem.buffers());
    assert_eq!(back.plan, Some(offsets));
}

#[test]
fn json_round_trip_keeps_buffers_capacity_semantics_and_offsets() {
    let text = r#"{"capacity": 4096, "semantics": "inclusive", "buffers": [
        {"id": "a", "start": 0, "end": 3, "size": 64, "alignment": 32, "hint": 9},
        {"id": "b", "start": 3, "end": 3, "size": 16, "offset": 64},
        {"id": 12, "start": 4, "end": 18446744073709551614, "size": "1KiB"}
    ]}"#;
    let document = read_json(text).unwrap();
    assert_eq!(document.problem.buffers()[2].end, u64::MAX);
    let offsets = [0, 64, 2048];
    let written = format::write(&document, &offsets, Format::Json);

    let as_plan = format::read(&written, &options(Format::Json, Semantics::HalfOpen, Offsets::Plan)).unwrap();
    let mut expected = unlocated(&document);
    expected[1].pinned = None; // in plan mode offsets are the plan, not pins
    assert_eq!(unlocated(&as_plan), expected);
    assert_eq!(as_plan.plan.as_deref(), Some(&offsets[..]));
    assert_eq!(as_plan.problem.capacity(), Some(4096));
    assert_eq!(as_plan.problem.semantics(), Semantics::Inclusive);

    let as_pinned = read_json(&written).unwrap();
    let pinned: Vec<Option<u64>> = as_pinned.problem.buffers().iter().map(|b| b.pinned).collect();
    assert_eq!(pinned, offsets.map(Some));
    assert_eq!(format::write(&as_pinned, &offsets, Format::Json), written);
}

#[test]
fn csv_to_json_to_csv_keeps_the_problem() {
    let text =
        "buffer_id,begin,end,size,alignment,hint,offset\n\"x,1\",0,2,64,32,7,\n\"say \"\"hi\"\"\",2,2,8,1,,128\n";
    let document = read_csv(text).unwrap();
    assert_eq!(document.problem.semantics(), Semantics::Inclusive);
    let json = format::write(&document, &[], Format::Json);
    let from_json = read_json(&json).unwrap();
    assert_eq!(unlocated(&from_json), unlocated(&document));
    assert_eq!(from_json.problem.semantics(), Semantics::Inclusive);

    let csv = format::write(&from_json, &[], Format::Csv);
    assert_eq!(
        csv,
        "id,lower,upper,size,alignment,hint,offset\n\"x,1\",0,2,64,32,7,\n\"say \"\"hi\"\"\",2,2,8,1,-1,128\n"
    );
    let back = format::read(&csv, &options(Format::Csv, Semantics::Inclusive, Offsets::Pinned)).unwrap();
    assert_eq!(unlocated(&back), unlocated(&document));

    for semantics in Semantics::ALL {
        let original = format::read(&input_12(), &options(Format::Csv, semantics, Offsets::Pinned)).unwrap();
        let json = format::write(&original, &[], Format::Json);
        let csv = format::write(&read_json(&json).unwrap(), &[], Format::Csv);
        let back = format::read(&csv, &options(Format::Csv, semantics, Offsets::Pinned)).unwrap();
        assert_eq!(unlocated(&back), unlocated(&original), "{semantics:?}");
        assert_eq!(csv, input_12(), "{semantics:?}");
    }
}

/// Found with the fuzz targets' round-trip check: an id holding `\r\n` went to CSV in quotes and
/// came back with `\n` (the reader dropped the `\r` of a line break inside a quoted cell).
#[test]
fn ids_with_line_breaks_survive_csv() {
    let json = r#"{"buffers": [{"id": "a\r\nb\r", "start": 0, "end": 1, "size": 8},
        {"id": "c\r\n", "start": 0, "end": 1, "size": 8}, {"id": "\n\r", "start": 0, "end": 1, "size": 8}]}"#;
    let document = read_json(json).unwrap();
    assert_eq!(document.problem.buffers()[0].id, "a\r\nb\r");
    let csv = format::write(&document, &[], Format::Csv);
    let back = read_csv(&csv).unwrap();
    assert_eq!(unlocated(&back), unlocated(&document), "{csv:?}");
    let crlf_file = "id,lower,upper,size\r\n\"two\r\nlines\",0,1,8\r\nb,0,1,8\r\n";
    let document = read_csv(crlf_file).unwrap();
    assert_eq!(document.problem.buffers()[0].id, "two\r\nlines");
    assert_eq!(document.problem.buffers()[1].line(), Some(4));
}

/// A buffer keeps the name its compiler gave it (a tensor's name) through both formats,
/// however awkward the name; a blank name is no name.
#[test]
fn names_survive_csv_and_json() {
    let names = ["conv2d/BiasAdd;relu", "a,b", "say \"hi\"", " padded ", "#first", "two\r\nlines", "日本"];
    let mut buffers: Vec<Buffer> =
        names.iter().enumerate().map(|(i, name)| Buffer::new(i.to_string(), 0, 2, 8).named(*name)).collect();
    buffers.push(Buffer::new("unnamed", 1, 3, 4));
    let document = Document::new(memplan::Problem::new(buffers, None).unwrap(), Format::Csv);
    let csv = format::write(&document, &[], Format::Csv);
    assert!(csv.starts_with("id,lower,upper,size,name\n"), "{csv}");
    assert!(csv.ends_with("unnamed,1,3,4,\n"), "{csv}");
    let from_csv = read_csv(&csv).unwrap();
    assert_eq!(unlocated(&from_csv), unlocated(&document), "{csv}");
    let json = format::write(&from_csv, &[], Format::Json);
    assert!(json.contains(r#"{"id": "0", "start": 0, "end": 2, "size": 8, "name": "conv2d/BiasAdd;relu"}"#), "{json}");
    let from_json = read_json(&json).unwrap();
    assert_eq!(unlocated(&from_json), unlocated(&document), "{json}");
    assert_eq!(format::write(&from_json, &[], Format::Csv), csv);

    // The user's own column order is kept, and a blank cell or an empty string is no name.
    let text = "name,id,lower,upper,size\nfirst,a,0,1,8\n,b,0,1,8\n\"\",c,0,1,8\n";
    let document = read_csv(text).unwrap();
    let read: Vec<Option<&str>> = document.problem.buffers().iter().map(|b| b.name.as_deref()).collect();
    assert_eq!(read, [Some("first"), None, None]);
    assert_eq!(
        format::write(&document, &[0, 8, 16], Format::Csv),
        "name,id,lower,upper,size,offset\nfirst,a,0,1,8,0\n,b,0,1,8,8\n,c,0,1,8,16\n"
    );
    let json = r#"{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 8, "name": ""},
        {"id": "b", "start": 0, "end": 1, "size": 8, "name": null}]}"#;
    assert!(read_json(json).unwrap().problem.buffers().iter().all(|b| b.name.is_none()));
    let wrong = r#"{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 8, "name": 7}]}"#;
    assert_single_error(read_json(wrong), 1, Some(67), "buffers[0]: name: expected a string, found a number");
}

/// A buffer keeps what it holds (input, output, weight, variable, temporary) through
/// both formats, in a column after name; a blank cell or null is no category, unknown text an
/// error naming the allowed ones.
#[test]
fn categories_survive_csv_and_json() {
    let mut buffers: Vec<Buffer> = Category::ALL
        .iter()
        .enumerate()
        .map(|(i, &category)| Buffer::new(i.to_string(), 0, 2, 8).named(format!("t{i}")).with_category(category))
        .collect();
    buffers.push(Buffer::new("unknown", 1, 3, 4));
    let document = Document::new(memplan::Problem::new(buffers, None).unwrap(), Format::Csv);
    let csv = format::write(&document, &[], Format::Csv);
    assert!(csv.starts_with("id,lower,upper,size,name,category\n0,0,2,8,t0,input\n"), "{csv}");
    assert!(csv.ends_with("unknown,1,3,4,,\n"), "{csv}");
    let from_csv = read_csv(&csv).unwrap();
    assert_eq!(unlocated(&from_csv), unlocated(&document), "{csv}");
    let json = format::write(&from_csv, &[], Format::Json);
    assert!(
        json.contains(r#"{"id": "4", "start": 0, "end": 2, "size": 8, "name": "t4", "category": "temporary"}"#),
        "{json}"
    );
    let from_json = read_json(&json).unwrap();
    assert_eq!(unlocated(&from_json), unlocated(&document), "{json}");
    assert_eq!(format::write(&from_json, &[], Format::Csv), csv);

    // The user's own column order is kept; case and blanks around the word do not matter.
    let text = "category,id,lower,upper,size\n Output ,a,0,1,8\n,b,0,1,8\n";
    let document = read_csv(text).unwrap();
    let read: Vec<Option<Category>> = document.problem.buffers().iter().map(|b| b.category).collect();
    assert_eq!(read, [Some(Category::Output), None]);
    assert_eq!(
        format::write(&document, &[0, 8], Format::Csv),
        "category,id,lower,upper,size,offset\noutput,a,0,1,8,0\n,b,0,1,8,8\n"
    );
    assert_single_error(
        read_csv("id,lower,upper,size,category\na,0,1,8,scratch\n"),
        2,
        Some(9),
        "category: unknown category 'scratch'; expected one of input, output, weight, variable, temporary",
    );
    let json = r#"{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 8, "category": null}]}"#;
    assert!(read_json(json).unwrap().problem.buffers()[0].category.is_none());
    let wrong = r#"{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 8, "category": "weights"}]}"#;
    assert_single_error(
        read_json(wrong),
        1,
        Some(71),
        "buffers[0]: category: unknown category 'weights'; expected one of input, output",
    );
    let wrong = r#"{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 8, "category": 3}]}"#;
    assert_single_error(read_json(wrong), 1, Some(71), "buffers[0]: category: expected a string, found a number");
}

#[test]
fn sniffing_picks_the_format() {
    let default = ReadOptions::default();
    assert_eq!(format::read(&input_12(), &default).unwrap().format, Format::Csv);
    let json = r#" {"buffers": [{"id": "a", "start": 0, "end": 1, "size": 1}]}"#;
    assert_eq!(format::read(json, &default).unwrap().format, Format::Json);
}

// ----- what the CSV reader accepts -----

#[test]
fn legacy_end_column_is_inclusive_and_written_back_as_such() {
    let document = read_csv("id,start,end,size\na,0,3,8\nb,3,3,8\n").unwrap();
    let ends: Vec<u64> = document.problem.buffers().iter().map(|b| b.end).collect();
    assert_eq!(ends, [4, 4]);
    assert_eq!(document.problem.semantics(), Semantics::Inclusive);
    assert_eq!(document.problem.max_load(), 16); // both alive at time 3
    assert_eq!(format::write(&document, &[0, 8], Format::Csv), "id,start,end,size,offset\na,0,3,8,0\nb,3,3,8,8\n");
    // Asking for inclusive agrees with the column; exclusive conflicts with it.
    assert!(
        format::read("id,start,end,size\na,0,3,8\n", &options(Format::Csv, Semantics::Inclusive, Offsets::Pinned))
            .is_ok()
    );
    let conflicting =
        format::read("id,start,end,size\na,0,3,8\n", &options(Format::Csv, Semantics::Exclusive, Offsets::Pinned));
    assert_single_error(conflicting.map_err(|e| e.errors), 1, Some(10), "conflicts with the requested exclusive");
}

#[test]
fn aliases_case_blanks_and_any_column_order() {
    for header in ["buffer,start,upper,size", "BUFFER_ID , Begin,UPPER,Size", "size,upper,lower,id"] {
        let row = if header.starts_with("size") { "8,5,1,a" } else { "a,1,5,8" };
        let document = read_csv(&format!("{header}\n{row}\n")).unwrap();
        assert_eq!(unlocated(&document), [Buffer::new("a", 1, 5, 8)], "{header}");
    }
    let document = read_csv("id , lower , upper , size\n  a ,  1 , 5 ,8  \n").unwrap();
    assert_eq!(unlocated(&document), [Buffer::new("a", 1, 5, 8)]);
}

#[test]
fn quoted_ids_are_read_and_written() {
    let text =
        "id,lower,upper,size\n\"a,b\",0,1,8\n\"say \"\"hi\"\"\",0,1,8\n\" padded \",0,1,8\n\"#not a comment\",0,1,8\n";
    let document = read_csv(text).unwrap();
    let ids: Vec<&str> = document.problem.buffers().iter().map(|b| b.id.as_str()).collect();
    assert_eq!(ids, ["a,b", "say \"hi\"", " padded ", "#not a comment"]);
    let written = format::write(&document, &[], Format::Csv);
    assert_eq!(written, text);
}

#[test]
fn blank_lines_comments_and_crlf_are_accepted() {
    let document =
        read_csv("# made by hand\r\nid,lower,upper,size\r\n\r\n  # a comment\r\na,0,1,8\r\n   \r\nb,1,2,8").unwrap();
    let lines: Vec<Option<u32>> = document.problem.buffers().iter().map(|b| b.line()).collect();
    assert_eq!(lines, [Some(5), Some(7)]);
}

#[test]
fn header_only_is_an_empty_problem() {
    let document = read_csv("id,lower,upper,size\n").unwrap();
    assert!(document.problem.is_empty());
    assert_eq!(document.problem.max_load(), 0);
}

#[test]
fn optional_columns_pin_align_and_hint() {
    let document = read_csv("id,lower,upper,size,alignment,offset,hint\na,0,1,8,4,16,3\nb,0,1,8,,,\n").unwrap();
    let buffers = document.problem.buffers();
    assert_eq!((buffers[0].alignment(), buffers[0].pinned, buffers[0].hint), (4, Some(16), Some(3)));
    assert_eq!((buffers[1].alignment(), buffers[1].pinned, buffers[1].hint), (1, None, None));
}

// ----- bad CSV input, one test per class -----

#[test]
fn empty_file_is_an_error() {
    assert_single_error(read_csv(""), 1, None, "no header line and no buffers");
    assert_single_error(read_csv("\n  \n# only a comment\n"), 1, None, "no buffers");
    assert_single_error(read_json(""), 1, None, "empty input: expected a JSON object");
    assert_single_error(read_json("\n \n"), 1, None, "blank input");
    let sniffed = format::read("", &ReadOptions::default()).map_err(|e| e.errors);
    assert_single_error(sniffed, 1, None, "empty input");
}

#[test]
fn missing_header_column() {
    assert_single_error(read_csv("id,lower,size\na,0,8\n"), 1, None, "missing column 'upper'");
    assert_single_error(read_csv("# note\nlower,upper,size\n0,1,8\n"), 2, None, "missing column 'id'");
}

/// MiniMalloc's reader skips columns it does not know; memplan does too, with a note naming the
/// column and the known ones (it may be a misspelling), and does not write it back.
#[test]
fn unknown_column_is_ignored_with_a_note() {
    let document = read_csv("id,lower,upper,size,colour\na,0,1,8,red\n").unwrap();
    assert_eq!(document.notes.len(), 1);
    let note = &document.notes[0];
    assert_eq!((note.line, note.column), (Some(1), Some(21)));
    assert!(note.message.contains("unknown column 'colour' (column 5) ignored"), "{}", note.message);
    assert!(note.message.contains("known columns are id"), "{}", note.message);
    assert_eq!(format::write(&document, &[3], Format::Csv), "id,lower,upper,size,offset\na,0,1,8,3\n");
    // The ignored column still counts cells.
    assert_single_error(read_csv("id,lower,upper,size,colour\na,0,1,8\n"), 2, None, "expected 5 cells");
}

#[test]
fn duplicate_column() {
    assert_single_error(read_csv("id,lower,start,upper,size\n"), 1, Some(10), "duplicate column 'start' (column 3)");
    assert_single_error(read_csv("id,lower,upper,size,Size\n"), 1, Some(21), "duplicate column 'Size' (column 5)");
}

#[test]
fn both_upper_and_end() {
    assert_single_error(read_csv("id,lower,upper,end,size\n"), 1, Some(16), "both give the end of the lifetime");
}

#[test]
fn non_integer_cell() {
    let text = "id,lower,upper,size\na,0,4,8\nb,0,abc,8\n";
    assert_single_error(read_csv(text), 3, Some(5), "upper: 'abc' is not a non-negative integer");
    assert_single_error(
        read_csv("id,lower,upper,size\na,0,4,1.5\n"),
        2,
        Some(7),
        "size: '1.5' is not a non-negative integer",
    );
    assert_single_error(read_csv("id,lower,upper,size\na,0,4,\n"), 2, Some(7), "size: missing value");
}

#[test]
fn negative_number() {
    assert_single_error(read_csv("id,lower,upper,size\na,0,4,-2\n"), 2, Some(7), "size: '-2' is negative");
}

/// MiniMalloc reads times as signed 64-bit values. memplan shifts every time so that the earliest
/// start is 0 (lengths and overlaps unchanged), says so in a note, and writes the times back as
/// they were.
#[test]
fn negative_times_are_shifted_and_written_back() {
    let text = "id,lower,upper,size,gaps\na, -2,4,8,-1-0\nb,-5,-2,4,\n";
    let document = read_csv(text).unwrap();
    let spans: Vec<_> = document.problem.buffers().iter().map(|b| (b.start, b.end)).collect();
    assert_eq!(spans, [(3, 9), (0, 3)]);
    assert_eq!(document.problem.buffers()[0].gaps, [Gap::new(4, 5)]);
    assert!(document.notes[0].message.contains("the earliest start is -5"), "{:?}", document.notes);
    assert_eq!(
        format::write(&document, &[0, 0], Format::Csv),
        "id,lower,upper,size,gaps,offset\na,-2,4,8,-1-0,0\nb,-5,-2,4,,0\n"
    );
    // A time before the earliest start (only a gap can have one) is an error on its cell.
    assert_single_error(
        read_csv("id,lower,upper,size,gaps\na,-2,4,8,-3-0\n"),
        2,
        Some(10),
        "before the earliest start (-2)",
    );
}

/// Gaps (MiniMalloc's `gaps` column): items split on blanks, `lo-hi` not alive, `lo-hi@w0:w1`
/// only bytes `[w0, w1)`; half-open with `upper`, inclusive with the legacy `end` (hi + 1, the
/// window as written). An empty cell is no gaps.
#[test]
fn gaps_column_reads_and_writes_back() {
    let text = "id,lower,upper,size,gaps\na,0,10,8,2-4  6-8@0:2\nb,2,4,8,\n";
    let document = read_csv(text).unwrap();
    let a = &document.problem.buffers()[0];
    assert_eq!(a.gaps, [Gap::new(2, 4), Gap::windowed(6, 8, 0, 2)]);
    assert!(document.problem.buffers()[1].gaps.is_empty());
    assert_eq!(document.problem.max_load(), 8);
    assert_eq!(
        format::write(&document, &[0, 0], Format::Csv),
        "id,lower,upper,size,gaps,offset\na,0,10,8,2-4 6-8@0:2,0\nb,2,4,8,,0\n"
    );
    let legacy = read_csv("id,lower,end,size,gaps\na,0,9,8,2-3 6-7@0:2\n").unwrap();
    assert_eq!(legacy.problem.buffers()[0].gaps, [Gap::new(2, 4), Gap::windowed(6, 8, 0, 2)]);
    assert_eq!(format::write(&legacy, &[], Format::Csv), "id,lower,end,size,gaps\na,0,9,8,2-3 6-7@0:2\n");
    // Errors name the line, the column and what is wrong.
    assert_single_error(
        read_csv("id,lower,upper,size,gaps\na,0,10,8,2-4 x\n"),
        2,
        Some(10),
        "gaps: gap 'x': expected lo-hi",
    );
    assert_single_error(
        read_csv("id,lower,upper,size,gaps\na,0,10,8,8-12\n"),
        2,
        None,
        "buffer a: gap 8-12 is not inside the lifetime [0, 10)",
    );
    assert_single_error(
        read_csv("id,lower,upper,size,gaps\na,0,10,8,4-6 2-3\n"),
        2,
        None,
        "gaps must be sorted and disjoint",
    );
    assert_single_error(
        read_csv("id,lower,upper,size,gaps\na,0,10,8,4-6@0:9\n"),
        2,
        None,
        "the window passes the buffer's size 8",
    );
    // Made in memory, the column comes after alignment and hint, before name.
    let buffer = Buffer::new("a", 0, 10, 8).with_alignment(4).named("t").with_gaps(vec![Gap::new(2, 4)]);
    let mut buffer = buffer;
    buffer.hint = Some(1);
    let document = Document::new(memplan::Problem::new(vec![buffer], None).unwrap(), Format::Csv);
    assert_eq!(
        format::write(&document, &[], Format::Csv),
        "id,lower,upper,size,alignment,hint,gaps,name\na,0,10,8,4,1,2-4,t\n"
    );
}

#[test]
fn gaps_in_json_are_objects() {
    let text = r#"{"semantics": "inclusive", "buffers": [{"id": "a", "start": 0, "end": 9, "size": 8,
        "gaps": [{"start": 2, "end": 3}, {"start": 6, "end": 7, "window": {"lower": 0, "upper": 2}}]}]}"#;
    let document = read_json(text).unwrap();
    assert_eq!(document.problem.buffers()[0].gaps, [Gap::new(2, 4), Gap::windowed(6, 8, 0, 2)]);
    let written = format::write(&document, &[], Format::Json);
    assert!(
        written.contains(
            r#""gaps": [{"start": 2, "end": 3}, {"start": 6, "end": 7, "window": {"lower": 0, "upper": 2}}]"#
        ),
        "{written}"
    );
    assert_eq!(unlocated(&read_json(&written).unwrap()), unlocated(&document));
    let errors = read_json(r#"{"buffers": [{"id": "a", "start": 0, "end": 9, "size": 8, "gaps": [{"start": 2}]}]}"#)
        .unwrap_err();
    assert!(errors[0].message.contains("gaps: missing field `end`"), "{errors:?}");
}

/// MiniMalloc writes -1 for no hint: read as no hint, and written so whenever a hint column is.
#[test]
fn hint_minus_one_is_no_hint() {
    let document = read_csv("id,lower,upper,size,hint\na,0,1,8,-1\nb,0,1,8,\nc,1,2,8,4\n").unwrap();
    let hints: Vec<_> = document.problem.buffers().iter().map(|b| b.hint).collect();
    assert_eq!(hints, [None, None, Some(4)]);
    assert_eq!(
        format::write(&document, &[], Format::Csv),
        "id,lower,upper,size,hint\na,0,1,8,-1\nb,0,1,8,-1\nc,1,2,8,4\n"
    );
    assert_single_error(read_csv("id,lower,upper,size,hint\na,0,1,8,-2\n"), 2, Some(9), "hint: '-2' is negative");
}

/// Every file memplan writes reads back as the same problem and plan, and writes the same text.
#[test]
fn everything_written_reads_back_unchanged() {
    let inputs = [
        ("id,lower,upper,size,gaps,hint,colour\na,-3,10,8,2-4  6-8@0:2,-1,x\nb,2,4,0,,7,y\n", Format::Csv),
        ("id,lower,end,size,alignment,offset,gaps,name\na,0,9,8,4,,2-3,t\nb,2,3,8,1,16,,\n", Format::Csv),
        (
            r#"{"buffers": [{"id": "a", "start": 0, "end": 9, "size": 8, "gaps": [{"start": 2, "end": 3, "window": {"lower": 1, "upper": 2}}]}]}"#,
            Format::Json,
        ),
    ];
    for (text, format) in inputs {
        let document = format::read(text, &options(format, Semantics::HalfOpen, Offsets::Pinned)).unwrap();
        let plan = memplan::run::solve(&document.problem, "auto", &memplan::SolveOptions::default()).unwrap();
        assert!(plan.is_valid(), "{:?}", plan.violations);
        let offsets = plan.outcome.offsets().to_vec();
        for out in [Format::Csv, Format::Json] {
            let written = format::write(&document, &offsets, out);
            let again = format::read(&written, &options(out, Semantics::HalfOpen, Offsets::Plan)).unwrap();
            // Read as a plan, a pinned offset is the plan's (checked below), not a pin.
            let unpinned =
                |d: &Document| -> Vec<Buffer> { unlocated(d).into_iter().map(|b| b.with_pin(None)).collect() };
            assert_eq!(unpinned(&again), unpinned(&document), "{written}");
            assert_eq!(again.plan.as_deref(), Some(&offsets[..]), "{written}");
            assert_eq!(format::write(&again, &offsets, out), written);
        }
    }
}

/// Checks `text` has the form MiniMalloc's CSV reader takes (facts from its converter and its
/// tests): a header of its column names (others it ignores), every row as many unquoted cells as
/// the header, integers in every numeric cell (no blank: its reader parses each; times may be
/// negative), a hint of `-1` for none, each gap `lo-hi` or `lo-hi@w0:w1` separated by spaces.
/// Its reader finds columns by name, so their order is free (memplan keeps the input's; a
/// problem made in memory puts `gaps` after `alignment` and `hint`, as MiniMalloc writes it).
/// Returns the rows' gap cells, to check they were written.
fn assert_minimalloc_form(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let position = |name: &str| header.iter().position(|c| *c == name);
    for name in ["id", "lower", "size"] {
        assert!(position(name).is_some(), "no {name} column: {text}");
    }
    assert!(position("upper").is_some() != position("end").is_some(), "one of upper and end: {text}");
    let integer = |cell: &str, min: i64| cell.parse::<i64>().is_ok_and(|v| v >= min);
    let mut gap_cells = Vec::new();
    for row in lines {
        assert!(!row.contains('"'), "MiniMalloc does not read quotes: {row}");
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), header.len(), "{row}");
        for (column, cell) in header.iter().zip(&cells) {
            match *column {
                "lower" | "upper" | "end" => assert!(integer(cell, i64::MIN), "{column} '{cell}' in {row}"),
                "size" | "alignment" | "offset" => assert!(integer(cell, 0), "{column} '{cell}' in {row}"),
                "hint" => assert!(integer(cell, -1), "hint '{cell}' in {row}"),
                "gaps" => {
                    for item in cell.split(' ').filter(|i| !i.is_empty()) {
                        let (span, window) = item.split_once('@').map_or((item, None), |(s, w)| (s, Some(w)));
                        let pair = |text: &str, separator| {
                            text.split_once(separator).is_some_and(|(a, b)| integer(a, 0) && integer(b, 0))
                        };
                        assert!(pair(span, '-'), "gap '{item}' in {row}");
                        assert!(window.is_none_or(|w| pair(w, ':')), "window '{item}' in {row}");
                    }
                    gap_cells.push(cell.to_string());
                }
                _ => {}
            }
        }
    }
    gap_cells
}

/// What memplan writes, MiniMalloc reads: inputs in every column style, negative times, no hints,
/// gaps with windows, names, JSON converted to CSV, and the instances the importers make.
#[test]
fn written_csv_is_in_minimalloc_form() {
    let texts = [
        ("id,lower,upper,size,gaps,hint,colour\na,-3,10,8,2-4  6-8@0:2,-1,x\nb,2,4,0,,7,y\n", Format::Csv),
        ("id,lower,end,size,alignment,offset,gaps,name\na,0,9,8,4,,2-3,t\nb,2,3,8,1,16,,\n", Format::Csv),
        ("id,lower,upper,size,hint\na,0,1,8,\nb,0,1,8,3\n", Format::Csv),
        (
            r#"{"buffers": [{"id": "a", "start": 0, "end": 9, "size": 8, "name": "x",
                "gaps": [{"start": 2, "end": 3, "window": {"lower": 1, "upper": 2}}]}, {"id": "b", "start": 1, "end": 4, "size": 4}]}"#,
            Format::Json,
        ),
    ];
    let mut documents: Vec<Document> = texts
        .iter()
        .map(|(text, format)| format::read(text, &options(*format, Semantics::HalfOpen, Offsets::Pinned)).unwrap())
        .collect();
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for model in ["xla/while_loop.hlo.pb", "tflite/generated_while.tflite"] {
        let bytes = std::fs::read(models.join(model)).unwrap();
        let imported = memplan::import::import_model(&bytes, model).unwrap();
        documents.push(Document::new(imported.problem, Format::Csv));
    }
    let mut gapped = 0;
    for document in &documents {
        let plan = memplan::run::solve(&document.problem, "auto", &memplan::SolveOptions::default()).unwrap();
        assert!(plan.is_valid(), "{:?}", plan.violations);
        // Pinned offsets have no MiniMalloc form (a blank offset cell is memplan's "not pinned"):
        // an instance with some pins is written for MiniMalloc only with a plan.
        let pinned = document.problem.buffers().iter().any(|b| b.pinned.is_some());
        let plans: &[&[u64]] = if pinned { &[plan.outcome.offsets()] } else { &[&[], plan.outcome.offsets()] };
        for &offsets in plans {
            let written = format::write(document, offsets, Format::Csv);
            let gap_cells = assert_minimalloc_form(&written);
            let with_gaps = document.problem.buffers().iter().filter(|b| b.has_gaps()).count();
            assert_eq!(gap_cells.iter().filter(|c| !c.is_empty()).count(), with_gaps, "{written}");
            gapped += with_gaps;
        }
    }
    assert!(gapped >= 5, "the cases exercise gaps");
}

#[test]
fn number_beyond_u64() {
    let text = "id,lower,upper,size\na,0,18446744073709551616,8\n";
    assert_single_error(
        read_csv(text),
        2,
        Some(5),
        "upper: '18446744073709551616' is larger than 18446744073709551615",
    );
}

#[test]
fn wrong_cell_count() {
    assert_single_error(
        read_csv("id,lower,upper,size\na,0,4,8\nb,0,4\n"),
        3,
        None,
        "expected 4 cells, as in the header, but found 3",
    );
    assert_single_error(read_csv("id,lower,upper,size\na,0,4,8,\n"), 2, None, "found 5");
}

#[test]
fn upper_not_greater_than_lower() {
    assert_single_error(
        read_csv("id,lower,upper,size\na,9,4,8\n"),
        2,
        Some(5),
        "upper (4) must be greater than lower (9)",
    );
    assert_single_error(
        read_csv("id,begin,end,size\na,9,4,8\n"),
        2,
        Some(5),
        "end (4) must not be less than begin (9)",
    );
    let exclusive =
        format::read("id,lower,upper,size\na,4,4,8\n", &options(Format::Csv, Semantics::Exclusive, Offsets::Pinned));
    assert_single_error(exclusive.map_err(|e| e.errors), 2, Some(5), "upper (4) must be greater than lower (4)");
}

/// MiniMalloc's files have zero-size buffers: they are read, occupy nothing, and every planner
/// places them (at 0) without counting them anywhere; but the TVM presets, which place them where
/// TVM does (the greedy ones on top of the buffers alive with them, at no cost to the makespan).
#[test]
fn size_zero_is_a_buffer_that_occupies_nothing() {
    let document = format::read("id,lower,upper,size\na,0,4,8\nb,0,4,0\n", &ReadOptions::default()).unwrap();
    let problem = &document.problem;
    assert_eq!((problem.len(), problem.max_load(), problem.lower_bound()), (2, 8, 8));
    for solver in memplan::run::registry::all() {
        let run = memplan::run::solve(problem, solver.name(), &memplan::SolveOptions::default()).unwrap();
        assert!(run.is_valid(), "{}: {:?}", solver.name(), run.violations);
        if !solver.capabilities().zero_size {
            assert_eq!(run.outcome.offsets(), [0, 0], "{}", solver.name());
        }
        assert_eq!(run.outcome.makespan(), Some(8), "{}", solver.name());
    }
}

#[test]
fn duplicate_id() {
    assert_single_error(
        read_csv("id,lower,upper,size\na,0,4,8\na,4,8,8\n"),
        3,
        None,
        "duplicate buffer id a (first seen on line 2)",
    );
}

#[test]
fn empty_id() {
    assert_single_error(read_csv("id,lower,upper,size\n,0,4,8\n"), 2, Some(1), "id: missing value");
}

#[test]
fn unclosed_quote() {
    assert_single_error(read_csv("id,lower,upper,size\n\"a,0,4,8\n"), 2, Some(1), "no closing quote");
}

#[test]
fn plan_mode_needs_every_offset() {
    let plan = |text: &str| {
        format::read(text, &options(Format::Csv, Semantics::HalfOpen, Offsets::Plan)).map_err(|e| e.errors)
    };
    assert_single_error(
        plan("id,lower,upper,size,offset\na,0,4,8,0\nb,0,4,8, \n"),
        3,
        Some(9),
        "offset: missing value",
    );
    assert_single_error(plan("id,lower,upper,size\na,0,4,8\n"), 1, None, "missing column 'offset'");
    let json = r#"{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 1, "offset": 0},
      {"id": "b", "start": 0, "end": 1, "size": 1}]}"#;
    let result = format::read(json, &options(Format::Json, Semantics::HalfOpen, Offsets::Plan)).map_err(|e| e.errors);
    assert_single_error(result, 2, Some(7), "buffers[1]: missing field 'offset'");
}

// ----- values that would overflow later -----

/// A decimal size past the u128 range wrapped (2^127 + 5 written with `.0` read as 5).
/// Every way a size is written is checked: JSON strings with fractions and suffixes, JSON
/// numbers, and CSV cells (plain integers).
#[test]
fn sizes_past_64_bits_are_rejected_on_every_path() {
    let huge = "170141183460469231731687303715884105733.0";
    let json_buffer =
        |size: &str| read_json(&format!(r#"{{"buffers": [{{"id": "a", "start": 0, "end": 1, "size": {size}}}]}}"#));
    let column = Some(56);
    for size in [format!("\"{huge}\""), "\"16777216TiB\"".into(), "\"18014398509481984.5K\"".into()] {
        assert_single_error(json_buffer(&size), 1, column, "does not fit in 64 bits");
    }
    assert_single_error(json_buffer("18446744073709551616"), 1, column, "larger than 18446744073709551615");
    assert_single_error(json_buffer(huge), 1, column, "is not a non-negative integer");
    assert_single_error(json_buffer("1e30"), 1, column, "'1e30' is not a non-negative integer");
    assert_single_error(json_buffer("\"1e3\""), 1, column, "unknown size suffix 'e3'");
    let capacity = read_json(&format!(r#"{{"capacity": "{huge}KiB", "buffers": []}}"#));
    assert_single_error(capacity, 1, Some(14), "capacity: size");
    let capacity = read_json(r#"{"capacity": 18446744073709551616, "buffers": []}"#);
    assert_single_error(capacity, 1, Some(14), "capacity: '18446744073709551616' is larger than");
    for column_name in ["size", "lower", "upper", "alignment", "offset", "hint"] {
        let header = "id,lower,upper,size,alignment,offset,hint";
        let at = header.split(',').position(|c| c == column_name).unwrap();
        let mut cells = ["a", "0", "1", "8", "1", "0", "0"];
        cells[at] = huge;
        let text = format!("{header}\n{}\n", cells.join(","));
        let expected_column = cells[..at].iter().map(|c| c.len() + 1).sum::<usize>() + 1;
        let message = format!("{column_name}: '{huge}' is not a non-negative integer");
        assert_single_error(read_csv(&text), 2, Some(expected_column), &message);
        cells[at] = "18446744073709551616";
        let text = format!("{header}\n{}\n", cells.join(","));
        assert_single_error(read_csv(&text), 2, Some(expected_column), "is larger than 18446744073709551615");
    }
}

/// Offsets, ends and loads near u64::MAX that a planner or the validator would have to add up:
/// each is an input error on the line it is written on.
#[test]
fn values_whose_sums_overflow_are_rejected_with_their_line() {
    let max = u64::MAX;
    let pinned = format!("id,lower,upper,size,offset\na,0,1,8,0\nb,0,1,16,{}\n", max - 7);
    assert_single_error(read_csv(&pinned), 3, None, "pinned offset 18446744073709551608 + size 16 overflows u64");
    let plan = |format: Format, text: &str| {
        format::read(text, &options(format, Semantics::HalfOpen, Offsets::Plan)).map_err(|e| e.errors)
    };
    assert_single_error(
        plan(Format::Csv, &pinned),
        3,
        None,
        "buffer b: offset 18446744073709551608 + size 16 overflows u64",
    );
    let json = format!(
        "{{\"buffers\": [\n  {{\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 8, \"offset\": {}}}\n]}}",
        max - 7
    );
    assert_single_error(plan(Format::Json, &json), 2, None, "buffer a: offset 18446744073709551608 + size 8 overflows");
    assert_single_error(read_json(&json), 2, None, "pinned offset 18446744073709551608 + size 8 overflows u64");
    // An inclusive end at u64::MAX has no half-open end.
    let inclusive = format!("id,lower,end,size\na,0,{max},8\n");
    assert_single_error(read_csv(&inclusive), 2, Some(5), "too large to convert to a half-open end");
    // Buffers alive at once whose sizes add up past 64 bits.
    let load = format!("id,lower,upper,size\na,5,9,1\nb,0,4,{max}\nc,1,2,2\n");
    assert_single_error(read_csv(&load), 3, None, "the 2 buffers alive at time 1 total 18446744073709551617 bytes");
    let load = format!(
        "{{\"buffers\": [\n{{\"id\": \"b\", \"start\": 0, \"end\": 4, \"size\": {max}}},\n{{\"id\": \"c\", \"start\": 1, \"end\": 2, \"size\": 2}}]}}"
    );
    assert_single_error(read_json(&load), 2, None, "does not fit in 64 bits");
    // The largest values that do fit are read.
    let fits = format!("id,lower,upper,size,offset\na,{},{max},8,{}\n", max - 1, max - 8);
    let document = read_csv(&fits).unwrap();
    assert_eq!(document.problem.lower_bound(), max);
}

// ----- empty instances -----

/// An instance with no buffers is a valid empty problem (max load 0); its plan, written in
/// either format, always has the `offset` column and reads back as a plan.
#[test]
fn an_empty_instance_reads_as_an_empty_problem_and_writes_as_a_plan() {
    for (text, format) in [("id,lower,upper,size\n", Format::Csv), ("{\"buffers\": []}", Format::Json)] {
        let document = format::read(text, &options(format, Semantics::HalfOpen, Offsets::Pinned)).unwrap();
        assert!(document.problem.is_empty());
        assert_eq!(document.problem.max_load(), 0);
        for out in [Format::Csv, Format::Json] {
            let written = format::write(&document, &[], out);
            let plan = format::read(&written, &options(out, Semantics::HalfOpen, Offsets::Plan))
                .unwrap_or_else(|e| panic!("{written:?}: {e}"));
            assert_eq!(plan.plan, Some(Vec::new()), "{written:?}");
            if out == Format::Csv {
                assert_eq!(written, "id,lower,upper,size,offset\n");
            }
        }
    }
}

#[test]
fn every_error_in_a_file_is_reported_in_order() {
    let text = "id,lower,upper,size\n\
                a,0,4,8\n\
                b,x,4,-1\n\
                c,0,4\n\
                d,9,4,8\n\
                a,0,4,0\n\
                e,0,4,8\n";
    let errors = read_csv(text).unwrap_err();
    let found: Vec<(Option<usize>, Option<usize>)> = errors.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(
        found,
        [(Some(3), Some(3)), (Some(3), Some(7)), (Some(4), None), (Some(5), Some(5)), (Some(6), None)],
        "{errors:#?}"
    );
    assert!(errors[4].message.contains("duplicate buffer id a"));
}

// ----- bad JSON input -----

#[test]
fn json_syntax_error_has_line_and_column() {
    assert_single_error(read_json("{\"buffers\": [\n  {\"id\": \"a\",, }\n]}"), 2, Some(14), "key must be a string");
    assert_single_error(read_json("{\"buffers\": [\n"), 2, Some(1), "EOF");
}

#[test]
fn json_missing_field_reports_the_buffer_line() {
    let text = "{\"buffers\": [\n  {\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 8},\n  {\"id\": \"b\", \"start\": 0, \"end\": 1, \"size\": 8},\n     {\"id\": \"c\", \"start\": 0, \"end\": 1}\n]}";
    assert_single_error(read_json(text), 4, Some(6), "buffers[2]: missing field 'size'");
}

#[test]
fn json_unknown_field() {
    let text = "{\"buffers\": [{\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 8, \"gapz\": []}]}";
    assert_single_error(read_json(text), 1, Some(59), "buffers[0]: unknown field 'gapz'");
    assert_single_error(read_json("{\"name\": \"x\", \"buffers\": []}"), 1, Some(2), "unknown field 'name'");
}

#[test]
fn json_value_errors() {
    let bad = |buffer: &str| read_json(&format!("{{\"buffers\": [{buffer}]}}"));
    assert_single_error(
        bad(r#"{"id": "a", "start": 9, "end": 4, "size": 8}"#),
        1,
        Some(45),
        "end (4) must be greater than start (9)",
    );
    assert_single_error(
        bad(r#"{"id": "a", "lower": 0, "upper": 4, "size": "8 apples"}"#),
        1,
        Some(58),
        "size: unknown size suffix",
    );
    assert_single_error(
        bad(r#"{"id": "a", "start": 0, "end": 4.5, "size": 8}"#),
        1,
        Some(45),
        "end: '4.5' is not a non-negative integer",
    );
    assert_single_error(
        bad(r#"{"id": "a", "start": 0, "start": 1, "end": 4, "size": 8}"#),
        1,
        Some(38),
        "duplicate field 'start'",
    );
    assert_single_error(
        bad(r#"{"id": "a", "start": 0, "lower": 1, "end": 4, "size": 8}"#),
        1,
        Some(38),
        "'start' and 'lower' are the same field",
    );
    assert_single_error(bad("[1]"), 1, Some(14), "buffers[0]: expected an object, found an array");
    assert_single_error(read_json("{\"buffers\": {}}"), 1, Some(13), "buffers: expected an array");
    // Capacity 0 is a question like any other (only an empty instance fits it), not an input error.
    assert_eq!(read_json("{\"capacity\": 0, \"buffers\": []}").unwrap().problem.capacity(), Some(0));
    assert_single_error(read_json("{}"), 1, Some(1), "missing field 'buffers'");
    assert_single_error(read_json("[]"), 1, Some(1), "expected a JSON object");
}

#[test]
fn a_byte_order_mark_is_ignored() {
    assert_eq!(read_csv("\u{feff}id,lower,upper,size\na,0,1,8\n").unwrap().problem.len(), 1);
    assert_eq!(read_json("\u{feff}{\"buffers\": []}").unwrap().problem.len(), 0);
}
