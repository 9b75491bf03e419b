import type { VersionPolicy } from "../dashboards/customer-dashboard";

/**
 * What a report shows, shared by the job that draws it, the e-mail that carries it and the
 * share link behind it: the version tagged `email`, else `production`, else the newest.
 */
export const REPORT_VERSIONS: VersionPolicy = { tags: ["email", "production"], fallBackToNewest: true };

/** The report e-mail's image width in CSS pixels (its layout's max-width). */
export const REPORT_WIDTH = 720;
