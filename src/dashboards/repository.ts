import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { sqlNow } from "../db/time";

export function upsertDashboard(db: Database, embedId: string, name: string) {
  return db.all<{ embed_id: string; name: string }>(sql`
    INSERT INTO dashboards (embed_id, name) VALUES (${embedId}, ${name})
    ON CONFLICT (embed_id) DO UPDATE SET name = excluded.name, updated_at = ${sqlNow}
    RETURNING embed_id, name`);
}

export function listDashboards(db: Database) {
  return db.all<{ embed_id: string; name: string; versions: number; tags: string }>(sql`
    SELECT d.embed_id, d.name,
           (SELECT count(*) FROM dashboard_versions v WHERE v.dashboard_id = d.id) AS versions,
           (SELECT json_group_object(t.tag, v.version_number) FROM dashboard_tags t JOIN dashboard_versions v ON v.id = t.version_id
             WHERE t.dashboard_id = d.id) AS tags
      FROM dashboards d ORDER BY d.embed_id`);
}

export function dashboardByEmbedId(db: Database, embedId: string) {
  return db.all<{ id: number }>(sql`SELECT id FROM dashboards WHERE embed_id = ${embedId}`);
}

/** Schemas are the admin plane's; one lookup serves every capability that names them. */
export { existingSchemas } from "../admin/repository";

/** Next version number, taken inside the statement so concurrent saves cannot collide silently. */
export function insertVersion(db: Database, embedId: string, definition: string, draft: boolean) {
  return db.all<{ version_number: number; draft: number }>(sql`
    INSERT INTO dashboard_versions (dashboard_id, version_number, definition, draft)
    SELECT d.id, coalesce((SELECT max(version_number) FROM dashboard_versions WHERE dashboard_id = d.id), 0) + 1, ${definition}, ${draft ? 1 : 0}
      FROM dashboards d WHERE d.embed_id = ${embedId}
    RETURNING version_number, draft`);
}

export function tagVersion(db: Database, embedId: string, tag: string, versionNumber: number) {
  return db.all<{ tag: string }>(sql`
    INSERT INTO dashboard_tags (dashboard_id, tag, version_id)
    SELECT d.id, ${tag}, v.id FROM dashboards d JOIN dashboard_versions v ON v.dashboard_id = d.id
     WHERE d.embed_id = ${embedId} AND v.version_number = ${versionNumber}
    ON CONFLICT (dashboard_id, tag) DO UPDATE SET version_id = excluded.version_id, updated_at = ${sqlNow}
    RETURNING tag`);
}

export interface VersionChoice {
  dashboard_name: string;
  version_number: number | null;
  definition: string | null;
  tag_found: number;
}

/**
 * The dashboard and the version to render: the one `tags` names first (in order of
 * preference), else — when `fallBackToNewest` — the newest version or draft.
 */
export function chooseVersion(db: Database, embedId: string, tags: string[], fallBackToNewest: boolean) {
  return db.all<VersionChoice>(sql`
    WITH wanted AS (
      SELECT t.version_id AS id, p.key AS rank FROM dashboards d
        JOIN json_each(${JSON.stringify(tags)}) p
        JOIN dashboard_tags t ON t.dashboard_id = d.id AND t.tag = p.value
       WHERE d.embed_id = ${embedId}
    )
    SELECT d.name AS dashboard_name, v.version_number, v.definition,
           (SELECT count(*) FROM wanted) AS tag_found
      FROM dashboards d
      LEFT JOIN dashboard_versions v ON v.id = coalesce(
        (SELECT id FROM wanted ORDER BY rank LIMIT 1),
        CASE WHEN ${fallBackToNewest ? 1 : 0} = 1
             THEN (SELECT id FROM dashboard_versions WHERE dashboard_id = d.id ORDER BY version_number DESC LIMIT 1) END)
     WHERE d.embed_id = ${embedId}`);
}

export function dataSources(db: Database) {
  return db.all<{ id: number; binding: string; kind: "d1" | "postgres" }>(sql`SELECT id, binding, kind FROM data_sources`);
}
