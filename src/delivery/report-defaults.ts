import type { VersionPolicy } from "../dashboards/customer-dashboard";

/**
 * What a report shows, shared by the job that draws it, the e-mail that carries it and the
 * share link behind it: the version tagged `email`, else `production`, else the newest.
 */
export const REPORT_VERSIONS: VersionPolicy = { tags: ["email", "production"], fallBackToNewest: true };

/**
 * The version a delivery pinned to an environment shows: that tag and no other, as the embed
 * page of a token pinned to it (a viewer's subscription shows what the viewer could see).
 */
export function pinnedVersions(environment: string): VersionPolicy {
  return { tags: [environment], fallBackToNewest: false };
}

/** The report e-mail's image width in CSS pixels (its layout's max-width). */
export const REPORT_WIDTH = 720;
