//! The crate's module graph, read with a Rust parser (`syn`): every path a file names (in `use`
//! trees of any nesting, in expressions, types, patterns and attributes' arguments aside) is
//! resolved the way the compiler would — `crate::`, `self::`, any run of `super::`, a child module
//! named relatively, a name brought in by an earlier `use` — to the module it reaches, and each
//! module is folded into its unit: its top-level module, or `solvers::<x>` for a solver (a folder
//! or a file under `solvers/`). Text matching missed imports made through nested groups,
//! `super::super::` and relative child paths; a parser does not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Units and the units each one names (itself left out).
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// A module's absolute path from the crate root (`[]` is the root).
type ModulePath = Vec<String>;

/// One source file: its module path and its parsed items.
struct Source {
    module: ModulePath,
    file: syn::File,
}

/// The module graph of the crate whose `lib.rs` is in `src` (the binaries, separate crates that
/// only use the library, are left out).
pub fn read(src: &Path) -> Result<Graph, String> {
    let mut sources = Vec::new();
    collect(src, src, &mut sources)?;
    let mut modules: BTreeSet<ModulePath> = BTreeSet::new();
    for source in &sources {
        modules.insert(source.module.clone());
        inline_modules(&source.module, &source.file.items, &mut modules);
    }
    // First what each module's `use` items name (its re-exports among them), then every path,
    // followed through re-exports: `crate::Problem` names the model, not the crate's root.
    let none = BTreeMap::new();
    let mut exports = BTreeMap::new();
    for source in &sources {
        let mut reader = Reader::new(&modules, &none);
        reader.items(&source.module, &source.file.items);
        exports.append(&mut reader.collected);
    }
    let mut graph = Graph::new();
    for source in &sources {
        let mut reader = Reader::new(&modules, &exports);
        reader.items(&source.module, &source.file.items);
        let unit = unit_of(&source.module);
        let entry = graph.entry(unit.clone()).or_default();
        entry.extend(reader.named.iter().map(|m| unit_of(m)).filter(|u| *u != unit));
    }
    Ok(graph)
}

/// Every `.rs` file under `dir` (outside `bin/`), with the module path its place gives it.
fn collect(root: &Path, dir: &Path, out: &mut Vec<Source>) -> Result<(), String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .map(|entry| entry.map(|e| e.path()).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let relative = path.strip_prefix(root).map_err(|e| e.to_string())?;
        if relative.starts_with("bin") {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            out.push(Source { module: module_of(relative), file });
        }
    }
    Ok(())
}

/// `lib.rs` is the root, `a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`.
fn module_of(relative: &Path) -> ModulePath {
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && stem == "lib")) {
        parts.push(stem.to_string());
    }
    parts
}

/// Modules written inline (`mod tests { … }`), which are modules too, and modules whose file a
/// `#[path]` attribute places outside the folder read (the tests' shared helpers): known by name,
/// so that a path into one is not taken for a path into its parent.
fn inline_modules(module: &ModulePath, items: &[syn::Item], out: &mut BTreeSet<ModulePath>) {
    for item in items {
        if let syn::Item::Mod(m) = item {
            let mut child = module.clone();
            child.push(m.ident.to_string());
            if let Some((_, inner)) = &m.content {
                out.insert(child.clone());
                inline_modules(&child, inner, out);
            } else if m.attrs.iter().any(|a| a.path().is_ident("path")) {
                out.insert(child);
            }
        }
    }
}

/// The unit a module belongs to: `solvers::<x>` under `solvers`, else its top-level module.
pub fn unit_of(module: &[String]) -> String {
    match module {
        [] => "crate".to_string(),
        [solvers, x, ..] if solvers == "solvers" => format!("solvers::{x}"),
        [first, ..] => first.clone(),
    }
}

/// What one module's `use` items bring into scope: a name and the absolute path it stands for.
type Scope = BTreeMap<String, ModulePath>;

/// Reads the paths of one file's items, module by module.
struct Reader<'a> {
    modules: &'a BTreeSet<ModulePath>,
    /// Every module's `use` names, to follow a path through a re-export.
    exports: &'a BTreeMap<ModulePath, Scope>,
    /// The module being read and its `use` names, innermost last.
    scopes: Vec<(ModulePath, Scope)>,
    /// The `use` names of the modules read.
    collected: BTreeMap<ModulePath, Scope>,
    /// The modules named so far.
    named: BTreeSet<ModulePath>,
}

impl<'a> Reader<'a> {
    fn new(modules: &'a BTreeSet<ModulePath>, exports: &'a BTreeMap<ModulePath, Scope>) -> Self {
        Reader { modules, exports, scopes: Vec::new(), collected: BTreeMap::new(), named: BTreeSet::new() }
    }

    fn items(&mut self, module: &ModulePath, items: &[syn::Item]) {
        // `use` items apply to the whole module, wherever they are written in it.
        let mut scope = Scope::new();
        for item in items {
            if let syn::Item::Use(u) = item {
                let mut leaves = Vec::new();
                use_leaves(&u.tree, Vec::new(), &mut leaves);
                for (path, alias) in leaves {
                    if let Some(resolved) = self.resolve_in(module, &scope, &path) {
                        self.note(&resolved);
                        if let Some(alias) = alias {
                            scope.insert(alias, resolved);
                        }
                    }
                }
            }
        }
        self.collected.insert(module.clone(), scope.clone());
        self.scopes.push((module.clone(), scope));
        for item in items {
            match item {
                syn::Item::Use(_) => {}
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let mut child = module.clone();
                        child.push(m.ident.to_string());
                        self.items(&child, inner);
                    }
                }
                other => self.visit_item(other),
            }
        }
        self.scopes.pop();
    }

    /// Records the deepest known module that `path` (absolute) reaches, through re-exports: a
    /// name a module brought in with `use` stands for what it names.
    fn note(&mut self, path: &ModulePath) {
        let mut path = path.clone();
        // A few hops at most; a `use` that names itself ends the walk.
        for _ in 0..8 {
            let mut end = path.len();
            while end > 0 && !self.modules.contains(&path[..end].to_vec()) {
                end -= 1;
            }
            let target = path.get(end).and_then(|name| self.exports.get(&path[..end]).and_then(|s| s.get(name)));
            match target {
                Some(target) if *target != path[..=end] => {
                    path = target.iter().chain(&path[end + 1..]).cloned().collect();
                }
                _ => {
                    self.named.insert(path[..end].to_vec());
                    return;
                }
            }
        }
        self.named.insert(path);
    }

    /// `path` as written in `module` (with `scope`'s `use` names), made absolute; `None` for
    /// paths outside the crate (std, dependencies) and names that are not modules or items of one.
    fn resolve_in(&self, module: &ModulePath, scope: &Scope, path: &[String]) -> Option<ModulePath> {
        let (first, rest) = path.split_first()?;
        let mut resolved: ModulePath = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.clone(),
            "super" => {
                let mut up = module.clone();
                up.pop()?;
                up
            }
            name => {
                let mut child = module.clone();
                child.push(name.to_string());
                if self.modules.contains(&child) { child } else { scope.get(name)?.clone() }
            }
        };
        // `super` and `self` may follow (`self::super::x`, `super::super::x`).
        for segment in rest {
            match segment.as_str() {
                "super" => {
                    resolved.pop()?;
                }
                "self" => {}
                name => resolved.push(name.to_string()),
            }
        }
        Some(resolved)
    }

    /// A path written in an item body, resolved against the innermost module's scope.
    fn path(&mut self, path: &syn::Path) {
        // One segment names an item or a local (a variable may share a module's name); what a
        // `use` brought in was counted at the `use`.
        if path.leading_colon.is_some() || path.segments.len() < 2 {
            return;
        }
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some((module, scope)) = self.scopes.last() else { return };
        if let Some(resolved) = self.resolve_in(module, scope, &segments) {
            self.note(&resolved);
        }
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.path(path);
        syn::visit::visit_path(self, path);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // A module inside a function body or another item: read with its own scope.
        if let Some((_, inner)) = &m.content {
            let Some((module, _)) = self.scopes.last() else { return };
            let mut child = module.clone();
            child.push(m.ident.to_string());
            self.items(&child, inner);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        // A `use` inside a function body: it names what it imports.
        let mut leaves = Vec::new();
        use_leaves(&u.tree, Vec::new(), &mut leaves);
        let Some((module, scope)) = self.scopes.last() else { return };
        let resolved: Vec<ModulePath> =
            leaves.iter().filter_map(|(path, _)| self.resolve_in(module, scope, path)).collect();
        for path in resolved {
            self.note(&path);
        }
    }
}

/// Each leaf of a `use` tree: its whole path and the name it binds (none for a glob; `self` in a
/// group binds the group's last segment).
fn use_leaves(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let with = |name: &syn::Ident| {
        let mut path = prefix.clone();
        path.push(name.to_string());
        path
    };
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, with(&p.ident), out),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let alias = prefix.last().cloned();
            out.push((prefix, alias));
        }
        syn::UseTree::Name(n) => out.push((with(&n.ident), Some(n.ident.to_string()))),
        syn::UseTree::Rename(r) => out.push((with(&r.ident), Some(r.rename.to_string()))),
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for item in &g.items {
                use_leaves(item, prefix.clone(), out);
            }
        }
    }
}

/// A cycle of the graph, if it has one, as the units along it (the first repeated at the end).
pub fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        unit: &str,
        graph: &Graph,
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
