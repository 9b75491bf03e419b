import { BUILTIN_ROOT_ATTRIBUTES } from "../http/pages";
import { escapeHtml } from "../lib/html";
import type { UnsubscribeLink } from "./service";

/**
 * The pages of an unsubscribe link. The confirmation page only asks (a mail scanner that
 * follows links must not unsubscribe anyone); its button POSTs to the same URL, as a
 * mail client's one-click unsubscribe does (RFC 8058).
 */
function page(title: string, body: string): string {
  return `<!doctype html><html ${BUILTIN_ROOT_ATTRIBUTES}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>html,body{margin:0;background:#f4f6fb;color:#334155;font:15px/1.5 system-ui,sans-serif}body{padding:48px 16px}
main{max-width:440px;margin:0 auto;padding:24px 28px;background:#fff;border:1px solid #e5e9f2;border-radius:12px;text-align:center;overflow-wrap:anywhere}
h1{font-size:17px;margin:0 0 8px}p{margin:0 0 16px}button{font:inherit;font-weight:600;padding:10px 18px;border:0;border-radius:8px;background:#4338ca;color:#fff;cursor:pointer}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

export function confirmationPage(link: UnsubscribeLink): string {
  if (link.unsubscribed) return donePage(link);
  return page(
    "Unsubscribe?",
    `<p>Stop sending ${escapeHtml(link.rule)} to <strong>${escapeHtml(link.email)}</strong>?</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function donePage(link: UnsubscribeLink): string {
  return page("You are unsubscribed", `<p><strong>${escapeHtml(link.email)}</strong> will no longer receive ${escapeHtml(link.rule)}.</p>`);
}

export function unknownLinkPage(): string {
  return page("Link not available", "<p>This unsubscribe link is unknown, or what it belonged to no longer exists.</p>");
}
