import { z } from "zod";
import { byId } from "../../customers/repository";
import { customerTokenFingerprint } from "../../tokens/signed";
import type { PageOptions } from "../../dashboards/render";
import { renderForCustomer, type RenderRun } from "../../dashboards/customer-dashboard";
import type { Database } from "../../db/client";
import { config } from "../../config";
import type { Env } from "../../env";
import { ApiError } from "../../http/errors";
import { HEX_TOKEN } from "../../http/fields";
import { constantTimeEqual, sha256Hex } from "../../lib/crypto";
import { pinnedVersions, REPORT_VERSIONS } from "../report-defaults";
import { savedReportHtml } from "../../report-builder/delivered";
import { DEFAULT_PAGE_WIDTH } from "../../dashboards/layout";
import { storedTarget, targetColumns, type DeliveryTarget } from "../target";

/**
 * What a report's share link shows, kept in KV under the link's hashed token: the target in
 * the job row's two fields (`embedId`, '' for a saved report, and `reportId`: the report,
 * drawn as its one-panel page for that customer).
 */
const StoredShareLink = z.object({
  customerId: z.number(),
  embedId: z.string(),
  reportId: z.string().optional(),
  variables: z.record(z.string(), z.unknown()),
  /** The version tag the report was pinned to (a viewer's subscription): the link shows that version only. */
  environment: z.string().optional(),
  /**
   * Fingerprint of the customer token the link was made under (as in signed embed tokens):
   * refresh_customer_token revokes the link. A link stored without one is not honoured.
   */
  ctv: z.string().optional(),
});
type StoredShareLink = z.infer<typeof StoredShareLink>;

/** A share link as it is made: who sees what, with which variables. */
export interface ShareLink {
  customerId: number;
  target: DeliveryTarget;
  variables: Record<string, unknown>;
  environment?: string;
}

const shareKey = async (token: string) => `share:${await sha256Hex(token)}`;

/** Stores a share link for `token` (hashed) until SHARE_TTL_SECONDS pass, made under the customer token whose hash is given. */
export async function storeShareLink(env: Env, token: string, link: ShareLink, customerTokenHash: string): Promise<void> {
  const { dashboardEmbedId, reportId } = targetColumns(link.target);
  const share: StoredShareLink = {
    customerId: link.customerId,
    embedId: dashboardEmbedId,
    ...(reportId !== null ? { reportId } : {}),
    variables: link.variables,
    ...(link.environment !== undefined ? { environment: link.environment } : {}),
    ctv: await customerTokenFingerprint(customerTokenHash),
  };
  await env.LINKS.put(await shareKey(token), JSON.stringify(share), { expirationTtl: config(env).SHARE_TTL_SECONDS });
}

/**
 * The dashboard behind a report's share link, rendered for that customer — while the customer
 * exists and still has the token the link was made under (deleted or refreshed: not found).
 */
export async function renderShare(db: Database, env: Env, token: string, presentation: PageOptions, run: RenderRun = {}): Promise<string> {
  const value = HEX_TOKEN.test(token) ? await env.LINKS.get(await shareKey(token)) : null;
  if (!value) throw new ApiError("dashboard_not_found", "This share link is unknown or has expired.");
  const share = StoredShareLink.parse(JSON.parse(value));
  const made = share.ctv;
  const target = storedTarget({ dashboardEmbedId: share.embedId, reportId: share.reportId ?? null });
  // Only while the customer holds the token the link was made under; what the page reads of
  // the customer is kept at the location for VIEWER_CACHE_SECONDS (dashboards/viewer-cache.ts).
  const viewerCache = { viewer: `cid:${share.customerId}`, seconds: config(env).VIEWER_CACHE_SECONDS };
  const accept = async (customer: { tokenHash: string }) =>
    made !== undefined && constantTimeEqual(made, await customerTokenFingerprint(customer.tokenHash));
  if (target.kind === "saved_report") {
    const width = presentation.width ?? DEFAULT_PAGE_WIDTH;
    return savedReportHtml(db, env, {
      reportId: target.reportId,
      customerId: share.customerId,
      width,
      cacheReport: run.cacheReport,
      dataRoundTrips: run.dataRoundTrips,
      fitToWindow: presentation.fitToWindow,
      viewerCache,
      waitUntil: run.waitUntil,
      accept,
    });
  }
  const request = {
    embedId: target.embedId,
    customer: byId(share.customerId),
    viewerCache,
    versions: share.environment === undefined ? REPORT_VERSIONS : pinnedVersions(share.environment),
    variables: share.variables,
    accept,
    ...run,
  };
  return renderForCustomer(db, env, request, presentation);
}
