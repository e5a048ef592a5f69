// The page's modules import one another without cycles, read with TypeScript's own parser
// (`preProcessFile` lists a file's imports, re-exports and dynamic imports as the compiler sees
// them). A cycle makes the order modules run in depend on which is imported first.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

type Graph = Map<string, string[]>;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : [];
  });
}

/** Each file's relative imports, resolved to the files they name (`./x`, `./x.ts`, `./x/index.ts`). */
export function importGraph(files: Map<string, string>): Graph {
  const graph: Graph = new Map();
  for (const [file, text] of files) {
    const info = ts.preProcessFile(text, true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => {
        const base = resolve(dirname(file), name).replace(/\.(js|ts)$/, "");
        return [`${base}.ts`, join(base, "index.ts")].find((candidate) => files.has(candidate));
      })
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** A cycle of the graph as the files along it (the first repeated at the end), or null. */
export function findCycle(graph: Graph): string[] | null {
  const state = new Map<string, 1 | 2>();
  const path: string[] = [];
  const visit = (file: string): string[] | null => {
    state.set(file, 1);
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 1) return [...path.slice(path.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    path.pop();
    state.set(file, 2);
    return null;
  };
  for (const file of graph.keys()) {
    if (state.get(file) === undefined) {
      const cycle = visit(file);
      if (cycle) return cycle;
    }
  }
  return null;
}

const root = resolve(__dirname, "../../web");

describe("the page's import graph", () => {
  it("has no cycle", () => {
    const files = new Map(sources(root).map((f) => [f, readFileSync(f, "utf8")]));
    const graph = importGraph(files);
    expect(graph.get(join(root, "src/main.ts"))?.length).toBeGreaterThan(3);
    const cycle = findCycle(graph);
    expect(cycle?.map((f) => relative(root, f)).join(" -> ") ?? null).toBeNull();
  });

  it("finds a planted cycle in each way of importing", () => {
    const forms = [
      `import { b } from "./b";`,
      `import type { B } from "./b.ts";`,
      `export { b } from "./b";`,
      `export * from "./b";`,
      `const m = await import("./b");`,
      `import "./b";`,
      `import * as all from "./sub/../b";`,
    ];
    for (const form of forms) {
      const files = new Map([
        ["/p/a.ts", form],
        ["/p/b.ts", `import { c } from "./c";`],
        ["/p/c.ts", `import { a } from "./a";`],
      ]);
      expect(findCycle(importGraph(files)), form).toEqual(["/p/a.ts", "/p/b.ts", "/p/c.ts", "/p/a.ts"]);
      files.set("/p/c.ts", `// import { a } from "./a";\nconst text = 'import "./a"';`);
      expect(findCycle(importGraph(files)), form).toBeNull();
    }
  });
});
