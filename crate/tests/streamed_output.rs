//! The plans and instances the CLI writes are streamed out as the writer makes them; these are
//! the bytes the writers gave when they built the whole text first (kept in
//! `fixtures/streamed/`): every column kind, quoting, shifted negative times, gaps and windows,
//! semantics, capacity, and generated instances.

use std::path::PathBuf;
use std::process::{Command, Output};

fn memplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memplan")).args(args).output().expect("memplan runs")
}

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/streamed").join(name);
    path.to_string_lossy().into_owned()
}

fn expected(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn scratch(name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("streamed");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn plans_written_to_files_are_the_bytes_of_the_whole_text() {
    for input in ["rich.csv", "plain.json"] {
        for extension in ["csv", "json"] {
            let out = scratch(&format!("{input}.out.{extension}"));
            let output = memplan(&["solve", &fixture(input), "--solver", "slff", "--out", &out]);
            assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
            let written = std::fs::read(&out).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&written),
                String::from_utf8_lossy(&expected(&format!("{input}.out.{extension}"))),
                "{input} as {extension}"
            );
        }
    }
}

#[test]
fn plans_printed_to_standard_output_are_the_same_bytes() {
    for (input, golden) in [("rich.csv", "rich.csv.out.csv"), ("plain.json", "plain.json.out.json")] {
        let output = memplan(&["solve", &fixture(input), "--solver", "slff", "--out", "-"]);
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&expected(golden)), "{input}");
    }
}

#[test]
fn generated_instances_are_the_same_bytes() {
    for (shape, name) in [("trace", "gen.csv"), ("aligned", "gen.json")] {
        let out = scratch(name);
        let output = memplan(&["generate", "--buffers", "300", "--seed", "3", "--shape", shape, "--out", &out]);
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(std::fs::read(&out).unwrap() == expected(name), "{shape}");
        let printed = memplan(&["generate", "--buffers", "300", "--seed", "3", "--shape", shape]);
        if name.ends_with(".csv") {
            assert!(printed.stdout == expected(name), "{shape} on standard output");
        }
    }
}
