import { and, eq, exists, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { customers, dashboards } from "../db/schema";

/**
 * Bumps a visible customer's invalidation version, only when `also` holds (the other half of
 * the request exists), so a request naming something unknown changes nothing.
 */
export function bumpCustomer(db: Database, providedId: string, accessGroupId: number, also?: SQL) {
  return db
    .update(customers)
    .set({ cacheVersion: sql`${customers.cacheVersion} + 1` })
    .where(and(eq(customers.providedId, providedId), eq(customers.accessGroupId, accessGroupId), also))
    .returning({ id: customers.id });
}

/**
 * Bumps the access group's own invalidation version of a dashboard, only when `also` holds:
 * the dashboard is shared by every group, and only this group's customers are to miss.
 */
export function bumpDashboard(db: Database, embedId: string, accessGroupId: number, also?: SQL) {
  const path = `$."${accessGroupId}"`;
  return db
    .update(dashboards)
    .set({
      groupCacheVersions: sql`json_set(${dashboards.groupCacheVersions}, ${path}, coalesce(json_extract(${dashboards.groupCacheVersions}, ${path}), 0) + 1)`,
    })
    .where(and(eq(dashboards.embedId, embedId), also))
    .returning({ id: dashboards.id });
}

export function visibleCustomer(db: Database, providedId: string, accessGroupId: number) {
  return db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.providedId, providedId), eq(customers.accessGroupId, accessGroupId)));
}

export function dashboard(db: Database, embedId: string) {
  return db.select({ id: dashboards.id }).from(dashboards).where(eq(dashboards.embedId, embedId));
}

/** A condition that a visible customer exists (for `also`). */
export function customerExists(db: Database, providedId: string, accessGroupId: number): SQL {
  return exists(visibleCustomer(db, providedId, accessGroupId));
}

/** A condition that the dashboard exists (for `also`). */
export function dashboardExists(db: Database, embedId: string): SQL {
  return exists(dashboard(db, embedId));
}
