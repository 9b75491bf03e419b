import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../db/client";
import { jsonList } from "../db/json-list";
import { jsonOf, parsedRows, sqliteFlag } from "../db/rows";
import { dashboards, dashboardTags, dashboardVersions, dataSources as dataSourcesTable } from "../db/schema";
import { sqlNow } from "../db/time";

export type DashboardVersionRow = typeof dashboardVersions.$inferSelect;

export function upsertDashboard(db: Database, embedId: string, name: string) {
  return db
    .insert(dashboards)
    .values({ embedId, name })
    .onConflictDoUpdate({ target: dashboards.embedId, set: { name, updatedAt: sqlNow } })
    .returning({ embedId: dashboards.embedId, name: dashboards.name });
}

/** A dashboard's tags: tag → version number. */
const TagVersions = z.record(z.string(), z.number());

/** Every dashboard with its number of versions and its tags (tag → version number). */
export function listDashboards(db: Database) {
  const tags = db
    .select({ tags: sql`json_group_object(${dashboardTags.tag}, ${dashboardVersions.versionNumber})` })
    .from(dashboardTags)
    .innerJoin(dashboardVersions, eq(dashboardVersions.id, dashboardTags.versionId))
    .where(eq(dashboardTags.dashboardId, dashboards.id));
  return db
    .select({
      embedId: dashboards.embedId,
      name: dashboards.name,
      versions: db.$count(dashboardVersions, eq(dashboardVersions.dashboardId, dashboards.id)),
      // Written with their tables: in a select from one table drizzle leaves columns unqualified,
      // and in the subquery a bare "id" would be the version's.
      newestVersion: sql<number | null>`(SELECT max(v.version_number) FROM dashboard_versions v WHERE v.dashboard_id = dashboards.id)`,
      // The latest of: created or renamed, a version saved, a tag moved (ISO 8601 strings order as times).
      changedAt: sql<string>`max(dashboards.updated_at, coalesce((SELECT max(v.created_at) FROM dashboard_versions v WHERE v.dashboard_id = dashboards.id), ''), coalesce((SELECT max(t.updated_at) FROM dashboard_tags t WHERE t.dashboard_id = dashboards.id), ''))`,
      // The subquery is NULL for a dashboard without tags.
      tags: sql`coalesce((${tags}), '{}')`.mapWith((text: string) => TagVersions.parse(JSON.parse(text))),
    })
    .from(dashboards)
    .orderBy(asc(dashboards.embedId));
}

export function dashboardByEmbedId(db: Database, embedId: string) {
  return db.select({ id: dashboards.id }).from(dashboards).where(eq(dashboards.embedId, embedId));
}

/** Which of these embed ids are dashboards (those an `on_click` opens). */
export function existingDashboards(db: Database, embedIds: string[]) {
  return db
    .select({ embedId: dashboards.embedId })
    .from(dashboards)
    .where(inArray(dashboards.embedId, jsonList(embedIds)));
}

export function dashboardNamed(db: Database, embedId: string) {
  return db.select({ name: dashboards.name }).from(dashboards).where(eq(dashboards.embedId, embedId));
}

/** The version a number or a tag names, or else the newest one (at most one row). */
export function versionSelected(db: Database, embedId: string, selector: { version_number?: number; tag?: string }) {
  const base = db
    .select({ versionNumber: dashboardVersions.versionNumber, draft: dashboardVersions.draft, definition: dashboardVersions.definition })
    .from(dashboardVersions)
    .innerJoin(dashboards, eq(dashboards.id, dashboardVersions.dashboardId));
  if (selector.tag !== undefined) {
    return base
      .innerJoin(dashboardTags, and(eq(dashboardTags.versionId, dashboardVersions.id), eq(dashboardTags.tag, selector.tag)))
      .where(eq(dashboards.embedId, embedId))
      .limit(1);
  }
  const which = selector.version_number !== undefined ? eq(dashboardVersions.versionNumber, selector.version_number) : undefined;
  return base
    .where(and(eq(dashboards.embedId, embedId), which))
    .orderBy(desc(dashboardVersions.versionNumber))
    .limit(1);
}

/** Next version number, taken inside the statement so concurrent saves cannot collide silently. */
export function insertVersion(db: Database, embedId: string, definition: DashboardVersionRow["definition"], draft: boolean) {
  // Raw: an INSERT … SELECT, and drizzle's insert-select must list every column of the table, defaults included.
  // Raw rows are not mapped: `draft` is 0/1.
  return parsedRows(
    db,
    sql`
    INSERT INTO dashboard_versions (dashboard_id, version_number, definition, draft)
    SELECT d.id, coalesce((SELECT max(version_number) FROM dashboard_versions WHERE dashboard_id = d.id), 0) + 1,
           ${sql.param(definition, dashboardVersions.definition)}, ${draft ? 1 : 0}
      FROM dashboards d WHERE d.embed_id = ${embedId}
    RETURNING version_number AS versionNumber, draft`,
    z.object({ versionNumber: z.number(), draft: sqliteFlag }),
  );
}

export function tagVersion(db: Database, embedId: string, tag: string, versionNumber: number) {
  // Raw: an INSERT … SELECT (as insertVersion).
  return parsedRows(
    db,
    sql`
    INSERT INTO dashboard_tags (dashboard_id, tag, version_id)
    SELECT d.id, ${tag}, v.id FROM dashboards d JOIN dashboard_versions v ON v.dashboard_id = d.id
     WHERE d.embed_id = ${embedId} AND v.version_number = ${versionNumber}
    ON CONFLICT (dashboard_id, tag) DO UPDATE SET version_id = excluded.version_id, updated_at = ${sqlNow}
    RETURNING tag`,
    z.object({ tag: z.string() }),
  );
}

/** What chooseVersion finds; the version's columns are null when there is nothing to render. */
const VersionChoice = z.object({
  dashboardName: z.string(),
  dashboardId: z.number(),
  /** The dashboard's invalidation version (query cache keys). */
  cacheVersion: z.number(),
  /** Its invalidation version per access group. */
  groupCacheVersions: jsonOf(dashboards.groupCacheVersions),
  versionNumber: z.number().nullable(),
  definition: jsonOf(dashboardVersions.definition).nullable(),
  tagFound: z.number(),
});
export type VersionChoice = z.infer<typeof VersionChoice>;

/**
 * The dashboard and the version to render: the one `tags` names first (in order of
 * preference), else — when `fallBackToNewest` — the newest version or draft.
 */
export function chooseVersion(db: Database, embedId: string, tags: string[], fallBackToNewest: boolean) {
  // Raw: json_each ranks the wanted tags inside one statement, with one bound parameter for the list.
  return parsedRows(
    db,
    sql`
    WITH wanted AS (
      SELECT t.version_id AS id, p.key AS rank FROM dashboards d
        JOIN json_each(${JSON.stringify(tags)}) p
        JOIN dashboard_tags t ON t.dashboard_id = d.id AND t.tag = p.value
       WHERE d.embed_id = ${embedId}
    )
    SELECT d.name AS dashboardName, d.id AS dashboardId, d.cache_version AS cacheVersion,
           d.group_cache_versions AS groupCacheVersions, v.version_number AS versionNumber, v.definition,
           (SELECT count(*) FROM wanted) AS tagFound
      FROM dashboards d
      LEFT JOIN dashboard_versions v ON v.id = coalesce(
        (SELECT id FROM wanted ORDER BY rank LIMIT 1),
        CASE WHEN ${fallBackToNewest ? 1 : 0} = 1
             THEN (SELECT id FROM dashboard_versions WHERE dashboard_id = d.id ORDER BY version_number DESC LIMIT 1) END)
     WHERE d.embed_id = ${embedId}`,
    VersionChoice,
  );
}

/** Any version of the dashboard (a batch statement, or a condition inside `exists`). */
export function anyVersion(db: Database, embedId: string) {
  return db
    .select({ id: dashboardVersions.id })
    .from(dashboardVersions)
    .innerJoin(dashboards, eq(dashboards.id, dashboardVersions.dashboardId))
    .where(eq(dashboards.embedId, embedId))
    .limit(1);
}

/** A version of the dashboard carrying one of `tags` (a condition inside `exists`, for a policy without fallback). */
export function taggedVersion(db: Database, embedId: string, tags: string[]) {
  return db
    .select({ id: dashboardTags.versionId })
    .from(dashboardTags)
    .innerJoin(dashboards, eq(dashboards.id, dashboardTags.dashboardId))
    .where(and(eq(dashboards.embedId, embedId), inArray(dashboardTags.tag, tags)))
    .limit(1);
}

/** Every data source; a render keeps those the customer's access group may use (sources/access.ts). */
export function dataSources(db: Database) {
  return db
    .select({
      id: dataSourcesTable.id,
      binding: dataSourcesTable.binding,
      kind: dataSourcesTable.kind,
      namespace: dataSourcesTable.namespace,
      accessGroupIds: dataSourcesTable.accessGroupIds,
      connection: dataSourcesTable.connection,
    })
    .from(dataSourcesTable);
}

/** Every version of a dashboard, newest first, with when it was saved and the tags on it. */
export function versionHistory(db: Database, embedId: string) {
  const tags = db
    .select({ tags: sql`json_group_array(${dashboardTags.tag})` })
    .from(dashboardTags)
    .where(eq(dashboardTags.versionId, dashboardVersions.id));
  return db
    .select({
      versionNumber: dashboardVersions.versionNumber,
      draft: dashboardVersions.draft,
      createdAt: dashboardVersions.createdAt,
      tags: sql`coalesce((${tags}), '[]')`.mapWith((text: string) => z.array(z.string()).parse(JSON.parse(text)).filter(Boolean).sort()),
    })
    .from(dashboardVersions)
    .innerJoin(dashboards, eq(dashboards.id, dashboardVersions.dashboardId))
    .where(eq(dashboards.embedId, embedId))
    .orderBy(desc(dashboardVersions.versionNumber));
}
