import { customerNotFound } from "../customers/not-found";
import type { Database } from "../db/client";
import { ApiError } from "../http/errors";
import * as repo from "./repository";

export interface InvalidateInput {
  provided_id?: string;
  dashboard_embed_id?: string;
}

/**
 * Makes every cached query result of a customer (of the caller's access group; its
 * descendants inherit its data, so theirs too) and/or of a dashboard for the caller's access
 * group's customers (a dashboard is shared by every group; another group's entries stay)
 * miss from now on, in every location: their versions, part of every key, go up by one.
 * Both given: both go up.
 * One D1 round trip; a name that does not exist changes nothing (404).
 */
export async function invalidate(db: Database, accessGroupId: number, input: InvalidateInput): Promise<void> {
  const { provided_id: providedId, dashboard_embed_id: embedId } = input;
  if (providedId !== undefined && embedId !== undefined) {
    const [, , customer, dashboard] = await db.batch([
      repo.bumpCustomer(db, providedId, accessGroupId, repo.dashboardExists(db, embedId)),
      repo.bumpDashboard(db, embedId, accessGroupId, repo.customerExists(db, providedId, accessGroupId)),
      repo.visibleCustomer(db, providedId, accessGroupId),
      repo.dashboard(db, embedId),
    ]);
    if (customer.length === 0) throw customerNotFound(providedId);
    if (dashboard.length === 0) throw dashboardNotFound(embedId);
    return;
  }
  if (providedId !== undefined) {
    const [customer] = await repo.bumpCustomer(db, providedId, accessGroupId);
    if (!customer) throw customerNotFound(providedId);
    return;
  }
  if (embedId !== undefined) {
    const [dashboard] = await repo.bumpDashboard(db, embedId, accessGroupId);
    if (!dashboard) throw dashboardNotFound(embedId);
  }
}

function dashboardNotFound(embedId: string): ApiError {
  return new ApiError("dashboard_not_found", `Dashboard '${embedId}' does not exist.`, "dashboard_embed_id");
}
