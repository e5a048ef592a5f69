//! The crate's dependencies point one way (the floors of `shared/docs/conventions.md`): the model
//! at the bottom; formats, the validator, metrics and the structures solvers share above it; each
//! solver folder; the portfolio; the run; the edges. This test reads every source file, finds
//! which module each `crate::`/`super::` path names, and fails on any import cycle between the
//! units (top-level modules, and each solver folder on its own), naming the cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The unit a source file belongs to: `solvers::<folder>` for a solver, else its top-level module.
fn unit_of(relative: &Path) -> String {
    let parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    match parts.as_slice() {
        [solvers, rest @ ..] if solvers == "solvers" => match rest {
            [only] if only == "mod" => "solvers".to_string(),
            [first, ..] => format!("solvers::{first}"),
            [] => "solvers".to_string(),
        },
        [bin, ..] if bin == "bin" => "bin".to_string(),
        [first, ..] => first.clone(),
        [] => String::new(),
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The identifiers right after each occurrence of `prefix` (`a` in `prefix a::b`, and each of
/// `a`, `b` in `prefix {a, b::c}`).
fn names_after(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut names = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        if text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
            continue; // part of a longer path (`self::super::`) or a name
        }
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(inner.split(',').map(|item| ident(item.trim())).filter(|n| !n.is_empty()));
        } else {
            names.push(ident(rest));
        }
    }
    names
}

/// Every unit each unit refers to (itself left out), from the text of its files. Comments are
/// skipped; test modules count (a test that imports upward is a cycle too).
fn dependencies(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let solver_folders: BTreeSet<String> =
        files.iter().map(|f| unit_of(f.strip_prefix(src).unwrap())).filter(|u| u.starts_with("solvers::")).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(src).unwrap();
        let unit = unit_of(relative);
        let code: String = std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut named: Vec<String> = Vec::new();
        for first in names_after(&code, "crate::") {
            if first == "solvers" {
                // `crate::solvers::x` names the folder x when it is one.
                for second in names_after(&code, "crate::solvers::") {
                    let folder = format!("solvers::{second}");
                    named.push(if solver_folders.contains(&folder) { folder } else { "solvers".into() });
                }
            } else {
                named.push(first);
            }
        }
        // `super::` from a solver's top file names the solvers module or a sibling solver.
        let is_solver_top = relative.starts_with("solvers")
            && (relative.components().count() == 2 || relative.file_name().is_some_and(|n| n == "mod.rs"));
        if is_solver_top && unit != "solvers" {
            for name in names_after(&code, "super::") {
                let sibling = format!("solvers::{name}");
                named.push(if solver_folders.contains(&sibling) { sibling } else { "solvers".into() });
            }
        }
        let entry = graph.entry(unit.clone()).or_default();
        entry.extend(named.into_iter().filter(|n| *n != unit && !n.is_empty()));
    }
    graph
}

/// A cycle of the graph, if it has one, as the units along it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        unit: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(unit.to_string(), 1);
        path.push(unit.to_string());
        for next in graph.get(unit).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|u| u == next).unwrap_or(0);
                    let mut cycle = path[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, graph, state, path) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(unit.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for unit in graph.keys() {
        if state.get(unit.as_str()).copied().unwrap_or(0) == 0
            && let Some(cycle) = visit(unit, graph, &mut state, &mut Vec::new())
        {
            return Some(cycle);
        }
    }
    None
}

fn source_graph() -> BTreeMap<String, BTreeSet<String>> {
    dependencies(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let graph = source_graph();
    assert!(graph.contains_key("solvers::portfolio") && graph.contains_key("solvers::minimalloc"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn solvers_never_reach_up_to_the_portfolio_or_the_run() {
    let graph = source_graph();
    for (unit, uses) in &graph {
        if unit.starts_with("solvers") && unit != "solvers::portfolio" {
            for above in ["solvers::portfolio", "run", "protocol", "bench", "wasm", "bin"] {
                assert!(!uses.contains(above), "{unit} uses {above}, a floor above it");
            }
        }
    }
}

/// The detector itself: a planted cycle is found, and the graph reading sees grouped imports.
#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let mut graph = BTreeMap::new();
    graph.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    graph.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    graph.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(find_cycle(&graph), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    graph.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&graph), None);
    let text = "use super::{Capabilities, greedy::Run, idealloc};\nlet x = crate::run::solve(p);";
    assert_eq!(names_after(text, "super::"), vec!["Capabilities", "greedy", "idealloc"]);
    assert_eq!(names_after(text, "crate::"), vec!["run"]);
    // The real graph has the edges this test relies on.
    let real = source_graph();
    assert!(real["solvers::portfolio"].contains("solvers::minimalloc"), "{:?}", real["solvers::portfolio"]);
    assert!(real["run"].contains("solvers::portfolio"), "{:?}", real["run"]);
}
