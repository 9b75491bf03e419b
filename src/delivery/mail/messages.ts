import type { Env } from "../../env";
import { raw } from "hono/html";
import { sanitizeHtml } from "../../lib/sanitize-html";
import { translator } from "../../view/messages";
import { unsubscribeToken, unsubscribeUrl } from "../../unsubscribe/tokens";
import { REPORT_WIDTH } from "../report-defaults";
import type { JobRequest } from "../schemas";
import type { Mail } from "./mime";
import { assetPath } from "../../view/asset-url";
import { BUILTIN_PRESENTATION, documentOf, type Presentation } from "../../view/presentation";
import { onAccent } from "../../view/style";
import { type Html, html, renderPage, url } from "../../view/page-shell";

/** The file a job captured, as its e-mail attaches it. */
export type StoredFile = { bytes: Uint8Array; contentType: string };

/** What a report e-mail says about its recipient: the end user's attributes (header, footer) and the customer's name. */
export interface ReportRecipient {
  attributes: Record<string, unknown>;
  customerName: string | undefined;
  /** A saved report's e-mail: the report's name (it says "report", not "dashboard"). */
  reportName?: string;
}

/** An alert's reason goes first, in the text and at the top of the HTML. */
const headlineText = (request: JobRequest) => (request.headline ? `${request.headline}\n\n` : "");
const headlineHtml = (request: JobRequest) =>
  request.headline ? html`<p class="alert-headline" style="font-size:18px;font-weight:bold;margin:0 0 16px">${request.headline}</p>\n` : "";

/** An e-mail's page: no title, no viewport, no script (a mail client runs none); its look inline on <body>. */
function mailPage(bodyStyle: string, body: Html): string {
  return renderPage({ viewport: false, bodyAttributes: { style: bodyStyle }, body });
}

/** The end user's own header or footer: HTML through the allow-list of lib/sanitize-html. */
function endUserHtml(value: unknown): Html | "" {
  // Safe: sanitizeHtml keeps only the elements and attributes of its allow-list.
  return typeof value === "string" ? raw(sanitizeHtml(value)) : "";
}

/** A screenshot job's e-mail: a line of text, the file attached. */
export function screenshotMail(request: JobRequest, file: StoredFile): Mail {
  return {
    to: request.email as string,
    subject: request.subject,
    text: `${headlineText(request)}${request.unsubscribe ? "The dashboard export is attached" : "The dashboard export you requested is attached"} (${request.fileName}).`,
    attachments: [{ filename: request.fileName, contentType: file.contentType, bytes: file.bytes }],
  };
}

/**
 * What of the view's theme an e-mail wears: the logo at the top (from this service's origin,
 * where it is served immutable) and the accent on the link button. The image is the capture,
 * already in the theme.
 */
function mailTheme(
  request: JobRequest,
  view: Presentation | undefined,
): { logo: Html | ""; accent: string; onAccent: string; radius: number } {
  const doc = documentOf(view ?? BUILTIN_PRESENTATION);
  const logo =
    doc.logo && request.origin
      ? html`<img class="report-logo" src="${url(`${request.origin}${assetPath(doc.logo.sha256)}`)}" alt="" height="32" style="display:block;height:32px;width:auto;margin:0 0 16px">\n`
      : "";
  return { logo, accent: doc.colors.accent, onAccent: onAccent(doc.colors.accent), radius: Math.min(doc.radius, 12) };
}

/**
 * A report job's e-mail: the image inline, linked to the live dashboard, between the end
 * user's own header and footer; the logo and accent of the view's theme (`view`, the page's).
 */
export function reportMail(
  request: JobRequest,
  file: StoredFile,
  { attributes, customerName, reportName }: ReportRecipient,
  view?: Presentation,
): Mail {
  const theme = mailTheme(request, view);
  const header = endUserHtml(attributes.header);
  const footer = endUserHtml(attributes.footer);
  const link = url(request.linkUrl ?? "");
  const name = customerName ?? "";
  const what = reportName === undefined ? "dashboard" : "report";
  // A saved report is named: "Your report “Revenue by day” for Acme".
  const titled = reportName === undefined ? "dashboard report" : `report “${reportName}”`;
  const alt = `${reportName === undefined ? "Dashboard report" : `Report “${reportName}”`} for ${name}`;
  const page = mailPage(
    "margin:0;padding:24px;background:#f4f6fb;font-family:Arial,Helvetica,sans-serif;color:#0f172a",
    html`
<div style="max-width:760px;margin:0 auto">
${theme.logo}${headlineHtml(request)}${header ? html`<div class="report-header">${header}</div>` : ""}
<a href="${link}" style="display:block;text-decoration:none"><img src="cid:dashboard" alt="${alt}" width="${REPORT_WIDTH}" style="display:block;width:100%;max-width:${REPORT_WIDTH}px;height:auto;border:1px solid #e5e9f2;border-radius:8px"></a>
<p style="font-size:14px;margin:16px 0"><a href="${link}" class="report-link" style="display:inline-block;background:${theme.accent};color:${theme.onAccent};font-weight:bold;text-decoration:none;padding:10px 16px;border-radius:${theme.radius}px">Open the live ${what}</a></p>
${footer ? html`<div class="report-footer">${footer}</div>` : ""}
</div>`,
  );
  const extension = file.contentType === "image/jpeg" ? "jpg" : "png";
  return {
    to: request.email as string,
    subject: request.subject,
    text: `${headlineText(request)}Your ${titled} for ${customerName ?? "your account"}.\n\nOpen the live ${what}: ${request.linkUrl}\n`,
    html: page,
    attachments: [{ filename: `dashboard.${extension}`, contentType: file.contentType, bytes: file.bytes, contentId: "dashboard" }],
  };
}

/**
 * An e-mail of a schedule or alert carries its recipient's unsubscribe link: the two header
 * fields of RFC 8058 (a mail client's one-click button POSTs to it) and a footer link.
 */
export async function withUnsubscribe(env: Env, request: JobRequest, mail: Mail): Promise<Mail> {
  if (!request.unsubscribe) return mail;
  const link = unsubscribeUrl(request.unsubscribe.base, await unsubscribeToken(env, request.unsubscribe.scheduleId, mail.to));
  const t = translator(request.unsubscribe.locale ?? "en-US");
  const footer = html`<p class="unsubscribe" style="font-size:12px;color:#64748b;margin:24px 0 0">${t("mail.footer")} <a href="${url(link)}" style="color:#64748b">${t("mail.unsubscribe")}</a></p>`;
  return {
    ...mail,
    headers: { ...mail.headers, "List-Unsubscribe": `<${link}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    text: `${mail.text.trimEnd()}\n\n--\n${t("mail.unsubscribe")}: ${link}\n`,
    html: mail.html
      ? mail.html.replace(/<\/div><\/body><\/html>$/, () => `${footer}\n</div></body></html>`)
      : mailPage("font-family:Arial,Helvetica,sans-serif;color:#0f172a", html`<p>${mail.text}</p>${footer}`),
  };
}
