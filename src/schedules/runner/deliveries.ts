import type { Env } from "../../env";
import { requestReport, requestScreenshot } from "../../delivery/create/jobs";
import type { Database } from "../../db/client";
import type { DeliveryTarget } from "../../delivery/target";
import type { PdfPage } from "../../view/paper";

/**
 * The one place where scheduled reports start delivery jobs: every e-mail of a run is an
 * ordinary report or screenshot job, created and enqueued by the delivery module's own
 * request functions (the same checks, limits of content, retries and job_status).
 */
export interface Delivery {
  /** The schedule or alert: its e-mails carry an unsubscribe link for it. */
  scheduleId: string;
  accessGroupId: number;
  linkBase: string;
  format: "report" | "pdf" | "image" | "xlsx" | "csv";
  /** The pages of its PDFs (format `pdf`; null: the definition's, else one page from the width). */
  pdf?: PdfPage | null;
  providedId: string;
  /** What is delivered: the dashboard, or the customer's saved report. */
  target: DeliveryTarget;
  email: string;
  subject: string | null;
  variables: Record<string, unknown> | null;
  /** An alert's reason, the e-mail's first line. */
  headline?: string;
  /** A viewer's subscription: the version tag its embed token was pinned to. */
  environment?: string | null;
  /** The rule's locale: its e-mail footer speaks it (null: English), and its page is drawn in it (null: the customer's). */
  locale?: string | null;
  /** The rule's theme, by name (null: the customer's computed theme). */
  theme?: string | null;
}

export async function startDelivery(db: Database, env: Env, d: Delivery): Promise<string> {
  const scope = { db, env, accessGroupId: d.accessGroupId, baseUrl: d.linkBase };
  const common = {
    provided_id: d.providedId,
    target: d.target,
    email: d.email,
    ...(d.subject !== null ? { subject: d.subject } : {}),
    ...(d.variables !== null ? { variables: d.variables } : {}),
    // The rule's theme and locale; the time zone is always the customer's (the rule's own is its cron's).
    ...(d.theme ? { theme: d.theme } : {}),
    ...(d.locale ? { locale: d.locale } : {}),
  };
  const extras = {
    unsubscribe: { scheduleId: d.scheduleId, base: d.linkBase, ...(d.locale ? { locale: d.locale } : {}) },
    ...(d.headline ? { headline: d.headline } : {}),
    ...(d.environment ? { environment: d.environment } : {}),
  };
  if (d.format === "report") return (await requestReport(scope, common, extras)).job_id;
  const pages = d.format === "pdf" && d.pdf ? { pdf: d.pdf } : {};
  return (await requestScreenshot(scope, { ...common, export_type: d.format, width: 1280, ...pages }, extras)).job_id;
}
