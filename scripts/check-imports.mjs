#!/usr/bin/env node
// The import direction of src/ (README "Folders and imports"), checked before the tests run.
// Floors, bottom to top — each imports only itself and what is below it:
//   src/lib                  imports only src/lib (pure helpers: no storage, no HTTP, no config)
//   src/view                 imports only src/view and src/lib (how a page looks and speaks: the
//                            resolved presentation, our words, formatting; no storage, no HTTP, no config)
//   src/env.ts, src/config.ts import only src/lib and each other (the Worker's bindings and vars)
//   src/db                   imports only src/db, src/lib, src/env.ts, src/config.ts (storage shows nothing:
//                            not src/view)
//   src/rate-limits          the API tokens' guard, the isolate's leases, the customers' budgets:
//                            src/rate-limits, src/db and below — nothing of HTTP (it answers
//                            verdicts; src/http turns them into responses)
//   src/http                 imports only src/http and the floors below it (src/rate-limits, src/db, src/view, …) — no capability folder
//   src/data                 the data plane: src/data, src/http and below — not src/tokens
//   src/tokens               the signed-token scheme and its claims: src/tokens, src/data, src/http and below
//   capability folders       (every other folder of src/) import anything except src/dev,
//                            src/assemble-app.ts and src/index.ts
//   src/dev                  /_dev/ routes and benchmark floors: anything except
//                            src/assemble-app.ts and src/index.ts
//   src/assemble-app.ts      imports anything except src/index.ts (it wires the routes)
//   src/index.ts             the Worker's entry: imports anything
// Inside a capability, between its rooms (ROOMS below):
//   src/delivery/run         never imports src/delivery/create (creating a job starts it
//                            through run/; running one never reaches back)
//   src/schedules/service.ts never imports src/schedules/runner (the runner reads rules; the
//                            rules' CRUD does not run them)
// Browser code: a file in a `browser/` folder (any depth, e.g. src/dashboards/browser/x.ts) is
// bundled for the browser, so its relative imports reach only files in `browser/` folders and the
// view's pure modules listed in BROWSER_SHARED (no twin of a view helper in browser code); a listed
// module imports only other listed modules and no package (nothing Worker-only reaches a bundle),
// and tsconfig.browser.json includes each (checked with the browser's lib too). No file outside a
// `browser/` folder imports a browser file by a relative path (the server reaches the built bundle
// through a non-relative specifier, which is not checked).
// Folders: the capability folders' import graph has no cycle — neither two folders importing
// each other nor a longer ring (printed as `folder cycle: a -> b -> a (file: import; …)`, one
// example import per edge).
// Re-exports: no file re-exports from another top-level folder or file of src/
// (`export { x } from "../other/…"`, `export * from`, `export type { T } from`): callers import
// the owner directly. Re-exports within one top-level folder are fine; src/index.ts is exempt
// (the Worker's entry must export its Durable Object classes). An import already refused by a
// rule above is reported once, under that rule.
// Written by hand rather than with dependency-cruiser: the rules are a table and two graph
// walks, and relative imports of .ts files in one folder are all the project has.
// Usage: node scripts/check-imports.mjs [src-dir]. Prints each violation as
// `file: imports X (rule)`, `file: re-exports from X (call the owner directly)` or
// `folder cycle: …`, and exits 1 when there is one.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const srcDir = resolve(process.argv[2] ?? join(root, "src"));

const GROUND = ["lib", "env.ts", "config.ts"];
/** What src/http, src/data and src/tokens stand on besides src/db: src/view (above src/lib; src/db shows nothing) and the ground. */
const VIEW_AND_GROUND = ["view", ...GROUND];
const rules = {
  lib: { may: ["lib"], text: "src/lib imports only src/lib" },
  view: { may: ["view", "lib"], text: "src/view imports only src/view and src/lib — no capability, no storage, no HTTP, no config" },
  env: { may: GROUND, text: "src/env.ts and src/config.ts import only src/lib and each other" },
  db: { may: ["db", ...GROUND], text: "src/db imports only src/db, src/lib, src/env.ts and src/config.ts" },
  "rate-limits": {
    may: ["rate-limits", "db", ...GROUND],
    text: "src/rate-limits imports only src/rate-limits, src/db, src/lib, src/env.ts and src/config.ts",
  },
  http: { may: ["http", "rate-limits", "db", ...VIEW_AND_GROUND], text: "src/http imports no capability folder" },
  tokens: {
    may: ["tokens", "data", "http", "rate-limits", "db", ...VIEW_AND_GROUND],
    text: "src/tokens imports only src/tokens, src/data, src/http and the floors below — no capability",
  },
  data: {
    may: ["data", "http", "rate-limits", "db", ...VIEW_AND_GROUND],
    text: "src/data imports only src/data, src/http and the floors below — no capability, not src/tokens",
  },
  capability: {
    mayNot: ["assemble-app.ts", "index.ts", "dev"],
    text: "a capability imports neither src/assemble-app.ts nor src/index.ts",
    // src/dev sits above every capability: its routes and benchmark floors call them, never back.
    textFor: { dev: "a capability does not import src/dev" },
  },
  dev: { mayNot: ["assemble-app.ts", "index.ts"], text: "src/dev imports neither src/assemble-app.ts nor src/index.ts" },
  app: { mayNot: ["index.ts"], text: "src/assemble-app.ts does not import src/index.ts" },
  index: { mayNot: [], text: "" },
};

/** Rooms of one capability that must not import another room of it: `from` and `to` are folders under src/. */
const ROOMS = [
  { from: "delivery/run", to: "delivery/create", text: "delivery's running room never imports its creating room" },
  { from: "schedules/service.ts", to: "schedules/runner", text: "the schedules' CRUD service never imports their runner" },
];

const BROWSER_TEXT = "browser code imports only files in browser/ folders and the view's modules shared with it";
/** The view's pure modules browser code may import (paths under src/): they import nothing but each other. */
const BROWSER_SHARED = ["view/click-data.ts", "view/date-field.ts", "view/fill.ts"];
const SHARED_TEXT = "a view module shared with browser code imports only other shared modules, no package";
const TO_BROWSER_TEXT = "only browser code imports a browser/ file by a relative path";

/** Whether `rel` (a path under src/, with / separators) is inside folder `folder`. */
const inside = (rel, folder) => rel === folder || rel.startsWith(`${folder}/`);

/** Whether the file at `rel` (a path under src/) lies in a `browser/` folder, at any depth. */
const inBrowser = (rel) => rel.split("/").slice(0, -1).includes("browser");

/** The floor a path under src/ stands on: its first segment, or the top-level file's name. */
function floorOf(top) {
  if (["lib", "view", "db", "rate-limits", "http", "tokens", "data", "dev"].includes(top)) return top;
  if (top === "env.ts" || top === "config.ts") return "env";
  if (top === "assemble-app.ts") return "app";
  if (top === "index.ts") return "index";
  return "capability";
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}

// `… from "x"` (imports and re-exports, also across lines), `import "x"` and `import("x")`.
const SPECIFIER = /\bfrom\s*["']([^"']+)["']|\bimport\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;
// Re-exports: `export { x } from "x"`, `export type { T } from "x"`, `export * from "x"`,
// `export * as ns from "x"` (the braces may span lines).
const RE_EXPORT = /\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*["']([^"']+)["']/g;

/** The path under src/ (with / separators) of a relative import, or null for packages and paths outside src/. */
function targetPath(file, specifier) {
  if (!specifier.startsWith(".")) return null;
  const rel = relative(srcDir, resolve(dirname(file), specifier));
  return rel.startsWith("..") ? null : rel.split(sep).join("/");
}

/** Whether an import's path under src/ names one of the BROWSER_SHARED files (`../view/fill` or `../view/fill.ts`). */
const isShared = (target) => target !== null && BROWSER_SHARED.includes(/\.[mc]?[jt]sx?$/.test(target) ? target : `${target}.ts`);

/** The first segment under src/ of a relative import ("delivery", "lib", "assemble-app.ts"), or null for packages and paths outside src/. */
function targetTop(file, specifier) {
  const rel = targetPath(file, specifier);
  if (rel === null) return null;
  const [top, ...rest] = rel.split("/");
  // "../assemble-app" and "../assemble-app.ts" both mean the file src/assemble-app.ts; "../dev" is the folder.
  if (rest.length > 0 || /\.[mc]?[jt]sx?$/.test(top) || existsSync(join(srcDir, top))) return top;
  return `${top}.ts`;
}

const files = sourceFiles(srcDir);
const violations = [];
// The project's own tree: the browser's type check must cover what its bundles import.
if (process.argv[2] === undefined) {
  const browserProject = JSON.parse(readFileSync(join(root, "tsconfig.browser.json"), "utf8").replace(/^\s*\/\/.*$/gm, ""));
  for (const path of BROWSER_SHARED)
    if (!browserProject.include.includes(`src/${path}`))
      violations.push(`tsconfig.browser.json: does not include src/${path} (browser code imports it: check it with the browser's lib)`);
}
const reExports = [];
/** The capability folders' import graph: folder → (folder → one example `file: specifier`). */
const graph = new Map();

for (const file of files) {
  const shown = relative(process.cwd(), file);
  const fileRel = relative(srcDir, file).split(sep).join("/");
  const fileTop = fileRel.split("/")[0];
  const floor = floorOf(fileTop);
  const rule = rules[floor];
  const rooms = ROOMS.filter((room) => inside(fileRel, room.from));
  const browser = inBrowser(fileRel);
  const shared = BROWSER_SHARED.includes(fileRel);
  const text = readFileSync(file, "utf8");
  /** Offsets of the specifiers already refused by a rule of this loop. */
  const refused = new Set();
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    const target = targetPath(file, specifier);
    if (shared && !isShared(target)) {
      violations.push(`${shown}: imports ${specifier} (${SHARED_TEXT})`);
      refused.add(match.index + match[0].length);
      continue;
    }
    const top = targetTop(file, specifier);
    if (top === null) continue;
    const broken = [];
    const allowed = rule.may ? rule.may.includes(top) : !rule.mayNot.includes(top);
    if (!allowed) broken.push(rule.textFor?.[top] ?? rule.text);
    for (const room of rooms) if (inside(target, room.to)) broken.push(room.text);
    if (browser && !inBrowser(target) && !isShared(target)) broken.push(BROWSER_TEXT);
    if (!browser && inBrowser(target)) broken.push(TO_BROWSER_TEXT);
    for (const why of broken) violations.push(`${shown}: imports ${specifier} (${why})`);
    if (broken.length > 0) refused.add(match.index + match[0].length);
    if (floor === "capability" && floorOf(top) === "capability" && top !== fileTop) {
      if (!graph.has(fileTop)) graph.set(fileTop, new Map());
      const edges = graph.get(fileTop);
      if (!edges.has(top)) edges.set(top, `${shown}: ${specifier}`);
    }
  }
  if (fileRel === "index.ts") continue;
  for (const match of text.matchAll(RE_EXPORT)) {
    const specifier = match[1];
    if (refused.has(match.index + match[0].length)) continue;
    const top = targetTop(file, specifier);
    if (top !== null && top !== fileTop) reExports.push(`${shown}: re-exports from ${specifier} (call the owner directly)`);
  }
}

/** Strongly connected components of the folder graph (Tarjan), each a list of folders. */
function components() {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      found.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** The shortest path from `from` to `to` inside `members` (breadth first, folders in name order), as a list of folders. */
function shortestPath(from, to, members) {
  const previous = new Map([[from, null]]);
  const queue = [from];
  while (queue.length > 0) {
    const v = queue.shift();
    if (v === to) break;
    for (const w of [...(graph.get(v)?.keys() ?? [])].sort()) {
      if (members.has(w) && !previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  const path = [];
  for (let v = to; v !== null; v = previous.get(v)) path.unshift(v);
  return path;
}

// Every edge inside a strongly connected component lies on a cycle: each is shown in the
// shortest cycle through it, shortest cycles first, a cycle only if it shows an edge not yet shown.
const cycles = [];
for (const component of components().filter((c) => c.length > 1)) {
  const members = new Set(component);
  const rings = [];
  for (const from of component) {
    for (const to of graph.get(from).keys()) {
      if (!members.has(to)) continue;
      const ring = [from, ...shortestPath(to, from, members)];
      // Start at the folder first in name order, so a ring reads the same whichever edge found it.
      const start = ring.slice(0, -1).indexOf([...ring.slice(0, -1)].sort()[0]);
      rings.push([...ring.slice(start, -1), ...ring.slice(0, start), ring[start]]);
    }
  }
  rings.sort((a, b) => a.length - b.length || a.join(" ").localeCompare(b.join(" ")));
  const shownEdges = new Set();
  for (const ring of rings) {
    const edges = ring.slice(0, -1).map((from, i) => `${from} ${ring[i + 1]}`);
    if (edges.every((edge) => shownEdges.has(edge))) continue;
    for (const edge of edges) shownEdges.add(edge);
    const examples = ring.slice(0, -1).map((from, i) => graph.get(from).get(ring[i + 1]));
    cycles.push(`folder cycle: ${ring.join(" -> ")} (${examples.join("; ")})`);
  }
}

for (const line of [...violations, ...reExports, ...cycles]) console.error(line);
if (violations.length + reExports.length + cycles.length > 0) {
  const counts = [
    violations.length > 0 ? `${violations.length} import(s) against the direction of src/` : "",
    reExports.length > 0 ? `${reExports.length} re-export(s) from another folder` : "",
    cycles.length > 0 ? `${cycles.length} folder cycle(s) among capabilities` : "",
  ].filter(Boolean);
  console.error(`check-imports: ${counts.join(", ")} (see docs/architecture.md "Folders and imports")`);
  process.exit(1);
}
console.log(`check-imports: ${files.length} files, imports point one way`);
