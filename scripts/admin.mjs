#!/usr/bin/env node
// Admin CLI: `npm run admin -- <command>` wraps the /admin/ API (docs/api-contract.md, "Administration").
// Base URL: --url or ADMIN_URL; else the server this checkout's `npm start` runs; else CUSTOMER_API_URL; else http://127.0.0.1:${PORT:-8787}.
// Admin token: --admin-token, ADMIN_TOKEN, or ADMIN_TOKEN in .dev.vars.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { adminClient, pushDashboard } from "./lib/admin-client.mjs";
import * as dashboardFiles from "./lib/dashboard-files.mjs";
import { loadCsv, parseTypes } from "./lib/data-load.mjs";
import { readDevVars } from "./lib/dev-vars.mjs";

const usage = `Usage: npm run admin -- <command> [options]

  access-groups list
  access-groups create <name>
  tokens create --access-group <name> --permission read|write [--name <label>]
  tokens revoke <token id>
  levels get
  levels set <root level> [<next level> …]
  schemas list
  schemas create <name>
  data-sources list
  data-sources create --name <name> --binding <binding> [--kind d1|postgres|mysql] [--namespace <schema or database>] [--provided-id <id>] [--access-groups <a,b>]
  data-sources namespace <data source id> <schema or database|none>
  data-sources access <data source id> <access group>[,<access group> …]|all
  dashboards list
  dashboards push <file.json> [--tag production[,email]] [--draft]
  dashboards tag <embed id> <tag> <version number>
  dashboards validate <file.json…> [--customer <provided_id>] [--locales de,fr]
  dashboards preview <file.json> --customer <provided_id> [--expires-in <seconds>]
  dashboards pull <embed id> [--version <N> | --tag <tag>] [--out <file.json>]
  dashboards diff <embed id> <version a> <version b>
  data load <file.csv> --table <name> [--source <data source id, provided_id or name>] [--types <column>:<type>,…] [--replace]
      (types: integer, number, boolean, date, datetime, text; inferred when not given. Default source: the local demo D1)
  schedules list
  schedules run <schedule id>

Options: --url <base url>  --admin-token <token>  --json (print the raw response)`;

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

export function parseArgs(argv) {
  const positional = [];
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith("--")) {
      const name = arg.slice(2);
      if (name === "json" || name === "help" || name === "draft" || name === "replace") flags[name] = true;
      else flags[name] = argv[++i];
    } else positional.push(arg);
  }
  return { positional, flags };
}

/** "a,b" → ["a", "b"]; "all" → null (every access group). */
const accessGroupList = (text) =>
  text === "all"
    ? null
    : String(text)
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean);

function requestFor(positional, flags) {
  const [resource, action, ...rest] = positional;
  const need = (value, what) => {
    if (value === undefined || value === "") throw new Error(`missing ${what}\n\n${usage}`);
    return value;
  };
  switch (`${resource} ${action}`) {
    case "access-groups list":
      return ["GET", "/admin/access_groups/"];
    case "access-groups create":
      return ["POST", "/admin/access_groups/", { name: need(rest[0], "<name>") }];
    case "tokens create":
      return [
        "POST",
        "/admin/api_tokens/",
        {
          access_group: need(flags["access-group"], "--access-group"),
          permission: need(flags.permission, "--permission"),
          ...(flags.name ? { name: flags.name } : {}),
        },
      ];
    case "tokens revoke":
      return ["POST", "/admin/revoke_api_token/", { id: need(rest[0], "<token id>") }];
    case "levels get":
      return ["GET", "/admin/hierarchy_levels/"];
    case "levels set":
      return ["PUT", "/admin/hierarchy_levels/", { levels: rest.length ? rest : need(undefined, "level names") }];
    case "schemas list":
      return ["GET", "/admin/schemas/"];
    case "schemas create":
      return ["POST", "/admin/schemas/", { name: need(rest[0], "<name>") }];
    case "data-sources list":
      return ["GET", "/admin/data_sources/"];
    case "data-sources create":
      return [
        "POST",
        "/admin/data_sources/",
        {
          name: need(flags.name, "--name"),
          binding: need(flags.binding, "--binding"),
          ...(flags.kind ? { kind: flags.kind } : {}),
          ...(flags.namespace ? { namespace: flags.namespace } : {}),
          ...(flags["provided-id"] ? { provided_id: flags["provided-id"] } : {}),
          ...(flags["access-groups"] ? { access_groups: accessGroupList(flags["access-groups"]) } : {}),
        },
      ];
    case "data-sources access":
      return [
        "POST",
        "/admin/update_data_source/",
        { id: Number(need(rest[0], "<data source id>")), access_groups: accessGroupList(need(rest[1], "<access groups> or all")) },
      ];
    case "data-sources namespace": {
      const namespace = need(rest[1], "<schema or database> or none");
      return [
        "POST",
        "/admin/update_data_source/",
        { id: Number(need(rest[0], "<data source id>")), namespace: namespace === "none" ? null : namespace },
      ];
    }
    case "dashboards list":
      return ["GET", "/admin/dashboards/"];
    case "dashboards tag":
      return [
        "POST",
        "/admin/dashboard_tags/",
        { embed_id: need(rest[0], "<embed id>"), tag: need(rest[1], "<tag>"), version_number: Number(need(rest[2], "<version number>")) },
      ];
    case "dashboards push":
      return ["PUSH", need(rest[0], "<file.json>")];
    // Dashboards as code: several calls each, run by scripts/lib/dashboard-files.mjs.
    case "dashboards validate":
      return ["FILES", (request) => dashboardFiles.validate(request, rest, { customer: flags.customer, locales: flags.locales })];
    case "dashboards preview":
      return [
        "FILES",
        (request) =>
          dashboardFiles.preview(request, need(rest[0], "<file.json>"), {
            customer: need(flags.customer, "--customer <provided_id>"),
            expiresIn: flags["expires-in"],
          }),
      ];
    case "dashboards pull":
      return [
        "FILES",
        (request, base) =>
          dashboardFiles.pull(request, base, need(rest[0], "<embed id>"), { version: flags.version, tag: flags.tag, out: flags.out }),
      ];
    case "dashboards diff":
      return [
        "FILES",
        (request, base) =>
          dashboardFiles.diff(request, base, need(rest[0], "<embed id>"), need(rest[1], "<version a>"), need(rest[2], "<version b>")),
      ];
    case "data load":
      return [
        "FILES",
        (request) =>
          dataLoad(request, need(rest[0], "<file.csv>"), {
            table: need(flags.table, "--table <name>"),
            source: flags.source,
            types: parseTypes(flags.types),
            replace: Boolean(flags.replace),
          }),
      ];
    case "schedules list":
      return ["GET", "/admin/report_schedules/"];
    case "schedules run":
      return ["POST", "/admin/run_report_schedule/", { id: need(rest[0], "<schedule id>") }];
    default:
      throw new Error(usage);
  }
}

/**
 * The service this CLI talks to: `--url` or ADMIN_URL when given; else the server this
 * checkout's `npm start` runs (it writes `server.json` next to its state, STATE_DIR or
 * .wrangler/state, and removes it when it stops); else CUSTOMER_API_URL; else
 * http://127.0.0.1:${PORT:-8787}.
 */
export function serverUrl(flags = {}, env = process.env) {
  if (flags.url) return flags.url;
  if (env.ADMIN_URL) return env.ADMIN_URL;
  const running = runningServer(join(env.STATE_DIR ?? join(root, ".wrangler", "state"), "server.json"));
  if (running) return running;
  if (env.CUSTOMER_API_URL) return env.CUSTOMER_API_URL;
  return `http://127.0.0.1:${env.PORT || 8787}`;
}

/** The URL in a server.json whose process still runs (one left by a server killed outright is not). */
function runningServer(file) {
  try {
    const { url, pid } = JSON.parse(readFileSync(file, "utf8"));
    process.kill(pid, 0);
    return typeof url === "string" ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `data load`: the CSV into the local demo D1, or into the local database behind `source` (a
 * data source of the running server, by id, provided_id or name: its kind, binding, namespace).
 */
async function dataLoad(request, file, { table, source, types, replace }) {
  let dataSource;
  if (source !== undefined) {
    const listed = await request("GET", "/admin/data_sources/");
    if (listed.success !== 1) throw new Error(`could not list the data sources: ${JSON.stringify(listed.error ?? listed)}`);
    dataSource = listed.data_sources.find((d) => String(d.id) === source || d.provided_id === source || d.name === source);
    if (!dataSource) throw new Error(`no data source "${source}" (npm run admin -- data-sources list)`);
  }
  const loaded = await loadCsv({ root, request, file, table, source: dataSource, types, replace });
  const where = dataSource
    ? `data source ${dataSource.id} (${dataSource.kind}${dataSource.namespace ? `, ${dataSource.namespace}` : ""})`
    : "the demo D1";
  console.log(`Loaded ${loaded.rows} rows into ${loaded.table} in ${where}:`);
  for (const column of loaded.columns) console.log(`  ${column.name}  ${column.type}`);
  const schema = dataSource ? "the schema mapped to that data source" : "schema 1 (mapped to the demo data)";
  console.log(`A panel reads it with "sql": "SELECT … FROM ${loaded.table}" on ${schema}.`);
  return 0;
}

async function main() {
  const { positional, flags } = parseArgs(process.argv.slice(2));
  if (flags.help || positional.length === 0) {
    console.log(usage);
    return;
  }
  const [method, path, body] = requestFor(positional, flags);
  const base = serverUrl(flags).replace(/\/$/, "");
  const token = flags["admin-token"] ?? process.env.ADMIN_TOKEN ?? readDevVars(join(root, ".dev.vars")).ADMIN_TOKEN;
  if (!token) throw new Error("No admin token: pass --admin-token, set ADMIN_TOKEN, or run `npm start` once to create .dev.vars.");
  const request = adminClient(base, token);
  if (method === "FILES") {
    process.exitCode = await path(request, base);
    return;
  }
  const result =
    method === "PUSH"
      ? await pushDashboard(request, JSON.parse(readFileSync(path, "utf8")), {
          tags: flags.tag
            ? String(flags.tag)
                .split(",")
                .map((t) => t.trim())
                .filter(Boolean)
            : [],
          draft: Boolean(flags.draft),
        })
      : await request(method, path, body);
  if (flags.json || result.success !== 1) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    const { success, ...rest } = result;
    console.log(JSON.stringify(rest, null, 2));
    if (result.token) console.error("\nThe token is shown once: store it now.");
  }
  if (result.success !== 1) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error.message);
  process.exitCode = 1;
});
