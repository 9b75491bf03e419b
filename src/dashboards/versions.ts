import type { Database } from "../db/client";
import { ApiError } from "../http/errors";
import { randomAlphanumeric } from "../lib/crypto";
import { readOnlyProblem } from "../lib/sql-read-only";
import * as adminRepo from "../admin/repository";
import type { Definition } from "./definition";
import { dashboardNotFound } from "./not-found";
import * as repo from "./repository";

// A dashboard's versions, as the vendor administers them: create or rename a dashboard, list
// them, save a definition as the next version (or draft), read one back, tag one. Rendering a
// version for a customer is src/dashboards/customer-dashboard.ts.

export function createOrReplaceDashboard(db: Database, input: { embed_id?: string; name: string }) {
  return repo
    .upsertDashboard(db, input.embed_id ?? randomAlphanumeric(20), input.name)
    .then(([row]) => ({ embed_id: row.embedId, name: row.name }));
}

export async function listDashboards(db: Database) {
  return (await repo.listDashboards(db)).map((d) => ({
    embed_id: d.embedId,
    name: d.name,
    versions: d.versions,
    newest_version: d.newestVersion,
    changed_at: d.changedAt,
    tags: d.tags,
  }));
}

/** The schema ids a definition's panels name (to look up with `adminRepo.existingSchemas`). */
export function schemaIdsOf(definition: Definition): number[] {
  return [...new Set(definition.panels.flatMap((p) => (p.schema_id === undefined ? [] : [p.schema_id])))];
}

/** The dashboards a definition's `on_click` actions open (to look up with `repo.existingDashboards`). */
export function openedDashboardsOf(definition: Definition): string[] {
  return [...new Set(definition.panels.flatMap((p) => (p.on_click?.action === "open" ? [p.on_click.dashboard] : [])))];
}

/**
 * What a valid definition breaks beyond its shape, in the order the API reports: each
 * `on_click` opening a dashboard that is not among `dashboards` (400 validation_error), each
 * panel naming a schema that is not among `existing` (422 unknown_schema), then each panel
 * whose SQL is not one read-only statement (422 query_not_read_only). Saving and previewing
 * stop at the first; a check (`dashboards validate`) reports them all.
 */
export function definitionRuleErrors(definition: Definition, existing: { id: number }[], dashboards: { embedId: string }[]): ApiError[] {
  const there = new Set(dashboards.map((d) => d.embedId));
  const missing = definition.panels.flatMap((panel, index) =>
    panel.on_click?.action === "open" && !there.has(panel.on_click.dashboard)
      ? [
          new ApiError(
            "validation_error",
            `Panel '${panel.id}' opens dashboard '${panel.on_click.dashboard}', which does not exist.`,
            `definition.panels.${index}.on_click.dashboard`,
          ),
        ]
      : [],
  );
  const known = new Set(existing.map((s) => s.id));
  const unknown = definition.panels.flatMap((panel, index) =>
    panel.schema_id !== undefined && !known.has(panel.schema_id)
      ? [new ApiError("unknown_schema", `Schema ${panel.schema_id} does not exist.`, `definition.panels.${index}.schema_id`)]
      : [],
  );
  const writing = definition.panels.flatMap((panel, index) => {
    const problem = panel.type === "text" ? null : readOnlyProblem(panel.sql);
    return problem
      ? [new ApiError("query_not_read_only", `Panel '${panel.id}' is not a read-only query: ${problem}.`, `definition.panels.${index}.sql`)]
      : [];
  });
  return [...missing, ...unknown, ...writing];
}

/**
 * Saves a validated definition as the next version; schemas must exist (422 unknown_schema)
 * and every panel's SQL must be one read-only statement (422 query_not_read_only).
 */
export async function saveVersion(db: Database, input: { embed_id: string; definition: Definition; draft?: boolean }) {
  const [dashboard, schemas, opened] = await db.batch([
    repo.dashboardByEmbedId(db, input.embed_id),
    adminRepo.existingSchemas(db, schemaIdsOf(input.definition)),
    repo.existingDashboards(db, openedDashboardsOf(input.definition)),
  ]);
  if (dashboard.length === 0) throw dashboardNotFound(input.embed_id);
  const [broken] = definitionRuleErrors(input.definition, schemas, opened);
  if (broken) throw broken;
  const [version] = await repo.insertVersion(db, input.embed_id, input.definition, input.draft ?? false);
  return { version_number: version.versionNumber, draft: version.draft === 1 };
}

/** Which version `getVersion` reads: a number, a tag, or (neither) the newest version or draft. */
export interface VersionSelector {
  embed_id: string;
  version_number?: number;
  tag?: string;
}

/** One version as stored (a definition the API accepted), with its dashboard's name: what `dashboards pull` writes. */
export async function getVersion(db: Database, selector: VersionSelector) {
  const [dashboard, versions] = await db.batch([
    repo.dashboardNamed(db, selector.embed_id),
    repo.versionSelected(db, selector.embed_id, selector),
  ]);
  if (dashboard.length === 0) throw dashboardNotFound(selector.embed_id);
  if (versions.length === 0) {
    if (selector.tag !== undefined)
      throw new ApiError("dashboard_version_not_found", `Dashboard '${selector.embed_id}' has no tag '${selector.tag}'.`, "tag");
    if (selector.version_number !== undefined) {
      throw new ApiError(
        "dashboard_version_not_found",
        `Dashboard '${selector.embed_id}' has no version ${selector.version_number}.`,
        "version_number",
      );
    }
    throw new ApiError("no_dashboard_version", `Dashboard '${selector.embed_id}' has no version yet.`, "embed_id");
  }
  const [version] = versions;
  return {
    dashboard: { embed_id: selector.embed_id, name: dashboard[0].name },
    version: { version_number: version.versionNumber, draft: version.draft, definition: version.definition },
  };
}

export async function tagVersion(db: Database, input: { embed_id: string; tag: string; version_number: number }) {
  const [[tagged], dashboard] = await db.batch([
    repo.tagVersion(db, input.embed_id, input.tag, input.version_number),
    repo.dashboardByEmbedId(db, input.embed_id),
  ]);
  if (dashboard.length === 0) throw dashboardNotFound(input.embed_id);
  if (!tagged)
    throw new ApiError(
      "dashboard_version_not_found",
      `Dashboard '${input.embed_id}' has no version ${input.version_number}.`,
      "version_number",
    );
}

/** A dashboard's versions, newest first: number, draft or not, when saved, its tags (the console's list "Versions"). */
export async function versionHistory(db: Database, embedId: string) {
  const [dashboard, versions] = await db.batch([repo.dashboardByEmbedId(db, embedId), repo.versionHistory(db, embedId)]);
  if (dashboard.length === 0) throw dashboardNotFound(embedId);
  return versions.map((v) => ({ version_number: v.versionNumber, draft: v.draft, created_at: v.createdAt, tags: v.tags }));
}
