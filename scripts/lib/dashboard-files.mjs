// Dashboards as code (docs/dashboards-as-code.md): the admin CLI's validate, preview, pull
// and diff. Every check runs on the service (POST /admin/dashboard_checks/), so a file that
// passes here is one that `dashboards push` stores, and the CLI never carries a second copy
// of the rules.
import { readFileSync, writeFileSync } from "node:fs";

/** `panels.2.y_columns.1` → `panels[2].y_columns[1]` */
function displayPath(field) {
  return field.replace(/\.(\d+)(?=\.|$)/g, "[$1]");
}

/**
 * One problem as one line: `<file>: panels[<i>] (<id>): <field>: <message>` for a panel (the
 * field inside the panel, when there is one), else `<file>: <field>: <message>`.
 */
export function problemLine(path, problem) {
  if (problem.panel_index !== null && problem.panel_index !== undefined) {
    const inside = problem.field.replace(/^definition\.panels\.\d+\.?/, "");
    return `${path}: panels[${problem.panel_index}] (${problem.panel_id ?? "?"}): ${inside ? `${displayPath(inside)}: ` : ""}${problem.message}`;
  }
  return `${path}: ${problem.field ? `${displayPath(problem.field)}: ` : ""}${problem.message}`;
}

/** An API error (`{ code, message, field }`) about a file as a problem of that file. */
function problemOfError(file, error) {
  const field = error.field ?? "";
  const match = /^definition\.panels\.(\d+)/.exec(field);
  const index = match ? Number(match[1]) : null;
  const id = index === null ? null : file?.definition?.panels?.[index]?.id;
  // The API's message starts with the field ("definition.panels.0.type: …"); the line names it already.
  const message = error.message.startsWith(`${field}: `) ? error.message.slice(field.length + 2) : error.message;
  return { field, panel_index: index, panel_id: typeof id === "string" ? id : null, message };
}

/** The file's JSON as `{ file }`, or `{ line }`: the line that says why it cannot be read. */
export function readDashboardFile(path) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return { line: `${path}: cannot be read (${error.code ?? error.message})` };
  }
  try {
    return { file: JSON.parse(text) };
  } catch (error) {
    return { line: `${path}: not valid JSON (${error.message})` };
  }
}

/** A refused call about a file as its problem line; an unknown customer is an error of the command, not of the file. */
function refusalLine(path, file, result) {
  if (result.error?.code === "customer_not_found") throw new Error(`--customer: ${result.error.message}`);
  return problemLine(path, problemOfError(file, result.error ?? { message: JSON.stringify(result) }));
}

function requestFailed(result) {
  return new Error(`${result.error?.code ?? "error"}: ${result.error?.message ?? JSON.stringify(result)}`);
}

/**
 * `dashboards validate <file…> [--customer <provided_id>] [--locales de,fr]`: every problem of every file (with
 * --locales, every text with no translation for those locales too), one
 * a line on stdout; `<file>: ok` for a clean file on stderr. Exit status 1 on any problem.
 */
export async function validate(request, paths, { customer, locales } = {}) {
  if (paths.length === 0) throw new Error("missing <file…>");
  let problems = 0;
  for (const path of paths) {
    const { file, line } = readDashboardFile(path);
    if (line) {
      console.log(line);
      problems++;
      continue;
    }
    const body = file !== null && typeof file === "object" && !Array.isArray(file) ? file : { definition: file };
    const result = await request("POST", "/admin/dashboard_checks/", {
      ...body,
      ...(customer ? { provided_id: customer } : {}),
      ...(locales ? { locales: String(locales).split(",").filter(Boolean) } : {}),
    });
    if (result.success !== 1) {
      console.log(refusalLine(path, body, result));
      problems++;
      continue;
    }
    for (const problem of result.problems) console.log(problemLine(path, problem));
    problems += result.problems.length;
    if (result.problems.length === 0) console.error(`${path}: ok${customer ? ` (every query prepared for customer '${customer}')` : ""}`);
  }
  if (problems > 0) console.error(`${problems} problem${problems === 1 ? "" : "s"}`);
  return problems > 0 ? 1 : 0;
}

/**
 * `dashboards preview <file> --customer <provided_id>`: a signed, short-lived link that draws
 * the file for that customer; nothing is saved.
 */
export async function preview(request, path, { customer, expiresIn } = {}) {
  if (!path) throw new Error("missing <file>");
  if (!customer) throw new Error("missing --customer <provided_id>");
  const { file, line } = readDashboardFile(path);
  if (line) {
    console.log(line);
    return 1;
  }
  const result = await request("POST", "/admin/dashboard_previews/", {
    provided_id: customer,
    ...(typeof file?.embed_id === "string" ? { embed_id: file.embed_id } : {}),
    ...(typeof file?.name === "string" ? { name: file.name } : {}),
    definition: file?.definition,
    ...(expiresIn !== undefined ? { expires_in: Number(expiresIn) } : {}),
  });
  if (result.success !== 1) {
    console.log(refusalLine(path, file, result));
    return 1;
  }
  console.log(result.preview_url);
  console.error(`Preview of ${path} for customer '${customer}', valid until ${result.expires_at}; no version was saved.`);
  return 0;
}

/** One version as a dashboard file, exactly what `dashboards push` sends back. */
export async function pulledFile(request, base, embedId, { version, tag } = {}) {
  if (!embedId) throw new Error("missing <embed id>");
  if (version !== undefined && tag !== undefined) throw new Error("give --version or --tag, not both");
  const query = new URLSearchParams({ embed_id: embedId });
  if (version !== undefined) query.set("version_number", String(version));
  if (tag !== undefined) query.set("tag", String(tag));
  const result = await request("GET", `/admin/dashboard_versions/?${query}`);
  if (result.success !== 1) throw requestFailed(result);
  return {
    file: {
      $schema: `${base}/schemas/dashboard.json`,
      embed_id: result.dashboard.embed_id,
      name: result.dashboard.name,
      definition: result.version.definition,
    },
    version: result.version,
  };
}

export function fileText(file) {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** `dashboards pull <embed_id> [--version N | --tag T] [--out file]` */
export async function pull(request, base, embedId, { version, tag, out } = {}) {
  const { file, version: pulled } = await pulledFile(request, base, embedId, { version, tag });
  if (out) {
    writeFileSync(out, fileText(file));
    console.error(`Wrote version ${pulled.version_number}${pulled.draft ? " (draft)" : ""} of ${embedId} to ${out}.`);
  } else {
    process.stdout.write(fileText(file));
  }
  return 0;
}

/** JSON with object keys sorted: two panels are the same when these are equal. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The panels of `b` against those of `a`, by id: `- <id>` removed and `~ <id>` changed (in
 * a's order), then `+ <id>` added (in b's order). Other changes of the definition (title,
 * variables, …) are named on stderr.
 */
export function panelDiff(a, b) {
  const before = new Map(a.panels.map((panel) => [panel.id, panel]));
  const after = new Map(b.panels.map((panel) => [panel.id, panel]));
  const lines = [];
  for (const [id, panel] of before) {
    if (!after.has(id)) lines.push(`- ${id}`);
    else if (canonical(panel) !== canonical(after.get(id))) lines.push(`~ ${id}`);
  }
  for (const id of after.keys()) if (!before.has(id)) lines.push(`+ ${id}`);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((key) => key !== "panels"));
  const other = [...keys].filter((key) => canonical(a[key]) !== canonical(b[key]));
  return { lines, other };
}

/** `dashboards diff <embed_id> <a> <b>` (version numbers) */
export async function diff(request, base, embedId, a, b) {
  if (!embedId || a === undefined || b === undefined) throw new Error("missing <embed id> <version a> <version b>");
  for (const version of [a, b]) if (!/^[1-9]\d*$/.test(String(version))) throw new Error(`'${version}' is not a version number`);
  const [first, second] = await Promise.all([
    pulledFile(request, base, embedId, { version: a }),
    pulledFile(request, base, embedId, { version: b }),
  ]);
  const { lines, other } = panelDiff(first.file.definition, second.file.definition);
  for (const line of lines) console.log(line);
  if (other.length > 0) console.error(`Also changed outside the panels: ${other.join(", ")}.`);
  if (lines.length === 0 && other.length === 0) console.error(`Versions ${a} and ${b} of ${embedId} are the same.`);
  return 0;
}
