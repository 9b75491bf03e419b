#!/usr/bin/env node
// The import direction of src/ (README "Folders and imports"), checked before the tests run:
//   src/lib                  imports only src/lib (pure helpers: no storage, no HTTP, no config)
//   src/env.ts, src/config.ts import only src/lib and each other (the Worker's bindings and vars)
//   src/db                   imports only src/db, src/lib, src/env.ts, src/config.ts
//   src/http                 imports only src/http and the floors below it — no capability folder
//   capability folders       import anything except src/assemble-app.ts and src/index.ts
//   src/assemble-app.ts      imports anything except src/index.ts (it wires the routes)
//   src/index.ts             the Worker's entry: imports anything
// and, inside a capability, between its rooms (ROOMS below):
//   src/delivery/run         never imports src/delivery/create (creating a job starts it
//                            through run/; running one never reaches back)
//   src/schedules/service.ts never imports src/schedules/runner (the runner reads rules; the
//                            rules' CRUD does not run them)
// Written by hand rather than with dependency-cruiser: the rules are six lines, and relative
// imports of .ts files in one folder are all the project has.
// Usage: node scripts/check-imports.mjs [src-dir]. Prints each violation as
// `file: imports X (rule)` and exits 1 when there is one.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const srcDir = resolve(process.argv[2] ?? join(root, "src"));

const GROUND = ["lib", "env.ts", "config.ts"];
const rules = {
  lib: { may: ["lib"], text: "src/lib imports only src/lib" },
  env: { may: GROUND, text: "src/env.ts and src/config.ts import only src/lib and each other" },
  db: { may: ["db", ...GROUND], text: "src/db imports only src/db, src/lib, src/env.ts and src/config.ts" },
  http: { may: ["http", "db", ...GROUND], text: "src/http imports no capability folder" },
  capability: { mayNot: ["assemble-app.ts", "index.ts"], text: "a capability imports neither src/assemble-app.ts nor src/index.ts" },
  app: { mayNot: ["index.ts"], text: "src/assemble-app.ts does not import src/index.ts" },
  index: { mayNot: [], text: "" },
};

/** Rooms of one capability that must not import another room of it: `from` and `to` are folders under src/. */
const ROOMS = [
  { from: "delivery/run", to: "delivery/create", text: "delivery's running room never imports its creating room" },
  { from: "schedules/service.ts", to: "schedules/runner", text: "the schedules' CRUD service never imports their runner" },
];

/** Whether `rel` (a path under src/, with / separators) is inside folder `folder`. */
const inside = (rel, folder) => rel === folder || rel.startsWith(`${folder}/`);

/** The floor a path under src/ stands on: its first segment, or the top-level file's name. */
function floorOf(top) {
  if (top === "lib" || top === "db" || top === "http") return top;
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

/** The path under src/ (with / separators) of a relative import, or null for packages and paths outside src/. */
function targetPath(file, specifier) {
  if (!specifier.startsWith(".")) return null;
  const rel = relative(srcDir, resolve(dirname(file), specifier));
  return rel.startsWith("..") ? null : rel.split(sep).join("/");
}

/** The first segment under src/ of a relative import ("delivery", "lib", "assemble-app.ts"), or null for packages and paths outside src/. */
function targetTop(file, specifier) {
  const rel = targetPath(file, specifier);
  if (rel === null) return null;
  const [top, ...rest] = rel.split("/");
  // "../assemble-app" and "../assemble-app.ts" both mean the file src/assemble-app.ts.
  return rest.length === 0 && !/\.[mc]?[jt]sx?$/.test(top) ? `${top}.ts` : top;
}

const violations = [];
for (const file of sourceFiles(srcDir)) {
  const fileRel = relative(srcDir, file).split(sep).join("/");
  const fileTop = fileRel.split("/")[0];
  const rule = rules[floorOf(fileTop)];
  const rooms = ROOMS.filter((room) => inside(fileRel, room.from));
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    const top = targetTop(file, specifier);
    if (top === null) continue;
    const allowed = rule.may ? rule.may.includes(top) : !rule.mayNot.includes(top);
    if (!allowed) violations.push(`${relative(process.cwd(), file)}: imports ${specifier} (${rule.text})`);
    const target = targetPath(file, specifier);
    for (const room of rooms) {
      if (inside(target, room.to)) violations.push(`${relative(process.cwd(), file)}: imports ${specifier} (${room.text})`);
    }
  }
}

for (const line of violations) console.error(line);
if (violations.length > 0) {
  console.error(`check-imports: ${violations.length} import(s) against the direction of src/ (see README "Folders and imports")`);
  process.exit(1);
}
console.log(`check-imports: ${sourceFiles(srcDir).length} files, imports point one way`);
