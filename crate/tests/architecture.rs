//! The crate's dependencies point one way (the floors in CONTRIBUTING.md): the model at the
//! bottom; formats, the validator, metrics and the structures solvers share above it; each solver
//! folder; the portfolio; the run; the faces. This test reads every source file with a Rust parser
//! ([`graph`]), resolves every path it names to a module, and fails on any import cycle between
//! the units (top-level modules, and each module under `solvers/` on its own), naming the cycle.
//! The reader is itself tested on planted cycles, one for each way a path can be written.

#[path = "architecture/graph.rs"]
mod graph;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use graph::{Graph, find_cycle};

fn source_graph() -> Graph {
    graph::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let graph = source_graph();
    // The reading sees the edges the layers are made of.
    assert!(graph["solvers::portfolio"].contains("solvers::minimalloc"), "{:?}", graph["solvers::portfolio"]);
    assert!(graph["run"].contains("solvers::portfolio"), "{:?}", graph["run"]);
    assert!(graph["solvers::view"].contains("solvers::capabilities"), "{:?}", graph["solvers::view"]);
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn solvers_never_reach_up_to_the_portfolio_or_the_run() {
    let graph = source_graph();
    for (unit, uses) in &graph {
        if unit.starts_with("solvers") && unit != "solvers::portfolio" {
            for above in ["solvers::portfolio", "run", "protocol", "bench", "wasm"] {
                assert!(!uses.contains(above), "{unit} uses {above}, a floor above it");
            }
        }
    }
}

/// A small crate written to a temporary folder: `files` as (path under `src/`, text).
struct Planted(PathBuf);

impl Planted {
    fn new(name: &str, files: &[(&str, &str)]) -> Planted {
        let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("architecture-{name}"));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        Planted(root)
    }

    fn graph(&self) -> Graph {
        graph::read(&self.0).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Drop for Planted {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The layout every planted case shares: a model below, solvers with a greedy folder, a view file
/// and a portfolio. Each case adds one upward path in `from` (a file) written one way.
fn plant(name: &str, from: &str, upward: &str) -> Graph {
    let mut files: Vec<(&str, String)> = vec![
        (
            "lib.rs",
            "pub mod model;\npub mod solvers;\npub mod run;\npub use model::Problem;\npub use run::solve;\n".into(),
        ),
        ("model.rs", "pub struct Problem;\n".into()),
        ("solvers/mod.rs", "pub mod greedy;\npub mod portfolio;\npub mod view;\npub trait Solver {}\n".into()),
        (
            "solvers/greedy/mod.rs",
            "mod fits;\nuse super::Solver;\nuse crate::Problem;\npub fn plan(_: &Problem) {}\n".into(),
        ),
        ("solvers/greedy/fits.rs", "pub fn best() {}\n".into()),
        (
            "solvers/portfolio.rs",
            "use super::greedy;\npub fn solve() { greedy::plan(&crate::model::Problem); }\n".into(),
        ),
        ("solvers/view.rs", "use crate::model::Problem;\npub struct View(pub Problem);\n".into()),
        ("run.rs", "pub fn solve() { crate::solvers::portfolio::solve(); }\n".into()),
    ];
    let at = files.iter().position(|(path, _)| *path == from).unwrap();
    files[at].1.push_str(upward);
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    Planted::new(name, &files).graph()
}

/// Every way of writing a path is read: a cycle planted in each form is found, and the layout
/// without it has none.
#[test]
fn a_cycle_planted_in_any_import_form_is_found() {
    // The root re-exports the model and the run; a path through it names what it re-exports.
    let clean = plant("clean", "model.rs", "");
    assert_eq!(find_cycle(&clean), None, "{clean:?}");
    assert!(clean["solvers::greedy"].contains("model") && !clean["solvers::greedy"].contains("crate"), "{clean:?}");
    assert!(clean["solvers::portfolio"].contains("solvers::greedy"), "{clean:?}");
    let cases: [(&str, &str, &str); 11] = [
        ("root re-export", "model.rs", "fn up() { crate::solve(); }\n"),
        ("crate path", "solvers/greedy/mod.rs", "fn up() { crate::solvers::portfolio::solve(); }\n"),
        ("grouped use", "solvers/greedy/mod.rs", "use crate::{model::Problem as P, solvers::{view, portfolio}};\n"),
        ("super super", "solvers/greedy/fits.rs", "use super::super::portfolio::solve;\n"),
        ("super in expression", "solvers/greedy/mod.rs", "fn up() { super::portfolio::solve(); }\n"),
        ("relative child", "solvers/mod.rs", "pub use greedy::plan;\n"),
        ("alias then path", "model.rs", "use crate::solvers;\nfn up() { solvers::greedy::plan(&Problem); }\n"),
        ("self path", "solvers/greedy/fits.rs", "use self::super::super::portfolio as p;\n"),
        ("type position", "model.rs", "pub struct Holder(crate::solvers::view::View);\n"),
        ("inline test module", "model.rs", "#[cfg(test)]\nmod tests {\n    use super::super::run::solve;\n}\n"),
        ("use inside a function", "model.rs", "fn up() { use crate::run::solve; solve(); }\n"),
    ];
    for (name, from, upward) in cases {
        let graph = plant(&name.replace(' ', "-"), from, upward);
        assert!(find_cycle(&graph).is_some(), "{name}: no cycle found in {graph:?}");
    }
}

/// The cycle finder names the cycle, and a variable that shares a module's name is no import.
#[test]
fn the_cycle_finder_names_the_cycle() {
    let mut graph = Graph::new();
    graph.insert("a".into(), BTreeSet::from(["b".to_string()]));
    graph.insert("b".into(), BTreeSet::from(["c".to_string()]));
    graph.insert("c".into(), BTreeSet::from(["a".to_string()]));
    assert_eq!(find_cycle(&graph), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    graph.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&graph), None);
    let local = plant("local", "solvers/greedy/fits.rs", "fn f(run: u8) -> u8 { let portfolio = run; portfolio }\n");
    assert_eq!(find_cycle(&local), None, "{local:?}");
}
