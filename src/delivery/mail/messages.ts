import type { Env } from "../../env";
import { raw } from "hono/html";
import { sanitizeHtml } from "../../lib/sanitize-html";
import { directionOf, translator } from "../../view/messages";
import { unsubscribeToken, unsubscribeUrl } from "../../unsubscribe/tokens";
import { REPORT_WIDTH } from "../report-defaults";
import type { JobRequest } from "../schemas";
import type { Mail } from "./mime";
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

/** The end user's own header or footer: HTML through the allow-list of lib/sanitize-html. */
function endUserHtml(value: unknown): Html | "" {
  // Safe: sanitizeHtml keeps only the elements and attributes of its allow-list.
  return typeof value === "string" ? raw(sanitizeHtml(value)) : "";
}

/**
 * The view an e-mail speaks and wears: the page's (its theme, its locale) — the job resolves it
 * when it drew none (run/mail-view.ts) — else the locale the delivery or its rule named, in
 * the built-in colors.
 */
function mailView(request: JobRequest, view: Presentation | undefined): Presentation {
  if (view) return view;
  const locale = request.presentation?.locale ?? request.unsubscribe?.locale ?? BUILTIN_PRESENTATION.locale;
  return { ...BUILTIN_PRESENTATION, locale, dir: directionOf(locale) };
}

/** A screenshot job's e-mail: a line of text in the view's language, the file attached. */
export function screenshotMail(request: JobRequest, file: StoredFile, view?: Presentation): Mail {
  const t = translator(mailView(request, view).locale);
  const line = t(request.unsubscribe ? "mail.attached" : "mail.attached_requested", { file: request.fileName });
  return {
    to: request.email as string,
    subject: request.subject,
    text: `${headlineText(request)}${line}`,
    attachments: [{ filename: request.fileName, contentType: file.contentType, bytes: file.bytes }],
  };
}

/**
 * What of the view's theme an e-mail wears: its background and text around the image (so a
 * dark theme is not framed in light grey), its border, and the accent on the link button.
 * The logo is not repeated: the image, the capture in the theme, carries it left of the title.
 */
interface MailLook {
  background: string;
  text: string;
  muted: string;
  border: string;
  font: string;
  accent: string;
  onAccent: string;
  radius: number;
}

function mailLook(view: Presentation): MailLook {
  const doc = documentOf(view);
  const c = doc.colors;
  return {
    background: c.background,
    text: c.text,
    muted: c.muted_text,
    border: c.border,
    font: doc.font_family,
    accent: c.accent,
    onAccent: onAccent(c.accent),
    radius: Math.min(doc.radius, 12),
  };
}

/** `<body>`'s style of an e-mail in a look (mail clients keep inline styles, not stylesheets). */
const bodyStyle = (look: MailLook) => `margin:0;padding:24px;background:${look.background};font-family:${look.font};color:${look.text}`;

/**
 * A report job's e-mail: the image inline, linked to the live dashboard, between the end
 * user's own header and footer; in the view's language (`lang`/`dir`, intro, button, the
 * image's alt) and its theme's colors (`view`, the page's).
 */
export function reportMail(
  request: JobRequest,
  file: StoredFile,
  { attributes, customerName, reportName }: ReportRecipient,
  view?: Presentation,
): Mail {
  const shown = mailView(request, view);
  const t = translator(shown.locale);
  const look = mailLook(shown);
  const header = endUserHtml(attributes.header);
  const footer = endUserHtml(attributes.footer);
  const link = url(request.linkUrl ?? "");
  const customer = customerName ?? t("mail.your_account");
  // A saved report is named: "Your report “Revenue by day” for Acme".
  const named = reportName !== undefined;
  const intro = named ? t("mail.intro_report", { name: reportName, customer }) : t("mail.intro_dashboard", { customer });
  const open = t(named ? "mail.open_report" : "mail.open_dashboard");
  const alt = named
    ? t("mail.image_report", { name: reportName, customer: customerName ?? "" })
    : t("mail.image_dashboard", { customer: customerName ?? "" });
  const page = renderPage({
    root: { lang: shown.locale, dir: shown.dir },
    viewport: false,
    bodyAttributes: { style: bodyStyle(look) },
    body: html`
<div style="max-width:760px;margin:0 auto">
${headlineHtml(request)}${header ? html`<div class="report-header">${header}</div>` : ""}<p class="report-intro" style="font-size:14px;margin:0 0 12px">${intro}</p>
<a href="${link}" style="display:block;text-decoration:none"><img src="cid:dashboard" alt="${alt}" width="${REPORT_WIDTH}" style="display:block;width:100%;max-width:${REPORT_WIDTH}px;height:auto;border:1px solid ${look.border};border-radius:8px"></a>
<p style="font-size:14px;margin:16px 0"><a href="${link}" class="report-link" style="display:inline-block;background:${look.accent};color:${look.onAccent};font-weight:bold;text-decoration:none;padding:10px 16px;border-radius:${look.radius}px">${open}</a></p>
${footer ? html`<div class="report-footer">${footer}</div>` : ""}
</div>`,
  });
  const extension = file.contentType === "image/jpeg" ? "jpg" : "png";
  return {
    to: request.email as string,
    subject: request.subject,
    text: `${headlineText(request)}${intro}\n\n${open}: ${request.linkUrl}\n`,
    html: page,
    attachments: [{ filename: `dashboard.${extension}`, contentType: file.contentType, bytes: file.bytes, contentId: "dashboard" }],
  };
}

/**
 * An e-mail of a schedule or alert carries its recipient's unsubscribe link: the two header
 * fields of RFC 8058 (a mail client's one-click button POSTs to it) and a footer link, in
 * the e-mail's language and muted text color (the view's, as for the rest of the e-mail).
 */
export async function withUnsubscribe(env: Env, request: JobRequest, mail: Mail, view?: Presentation): Promise<Mail> {
  if (!request.unsubscribe) return mail;
  const link = unsubscribeUrl(request.unsubscribe.base, await unsubscribeToken(env, request.unsubscribe.scheduleId, mail.to));
  const shown = view ?? mailView(request, undefined);
  const t = translator(shown.locale);
  const look = mailLook(shown);
  const footer = html`<p class="unsubscribe" style="font-size:12px;color:${look.muted};margin:24px 0 0">${t("mail.footer")} <a href="${url(link)}" style="color:${look.muted}">${t("mail.unsubscribe")}</a></p>`;
  return {
    ...mail,
    headers: { ...mail.headers, "List-Unsubscribe": `<${link}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    text: `${mail.text.trimEnd()}\n\n--\n${t("mail.unsubscribe")}: ${link}\n`,
    html: mail.html
      ? mail.html.replace(/<\/div><\/body><\/html>$/, () => `${footer}\n</div></body></html>`)
      : renderPage({
          root: { lang: shown.locale, dir: shown.dir },
          viewport: false,
          bodyAttributes: { style: bodyStyle(look) },
          body: html`<p>${mail.text}</p>${footer}`,
        }),
  };
}
