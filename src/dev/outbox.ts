import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { html, renderPage } from "../view/page-shell";

/** Messages per page of the local outbox. */
const OUTBOX_PAGE_SIZE = 100;

/** The local outbox (DEV_ROUTES only, with the outbox kept in R2: src/delivery/mail/send.ts writes it). */
export function registerOutboxRoutes(app: OpenAPIHono<AppEnv>): void {
  // Every e-mail the service sent, as the recipient gets it,
  // newest first, OUTBOX_PAGE_SIZE per page (`?cursor=` from the "Older" link).
  app.get("/_dev/outbox", async (c) => {
    const cursor = c.req.query("cursor") || undefined;
    const listed = await c.env.FILES.list({ prefix: "outbox/", include: ["customMetadata"], limit: OUTBOX_PAGE_SIZE, cursor }).catch(() => {
      throw new ApiError("validation_error", "cursor is not a cursor of this outbox.", "cursor");
    });
    const rows = listed.objects.map(
      (o) =>
        html`<tr><td>${o.uploaded.toISOString()}</td><td>${o.customMetadata?.to ?? ""}</td><td><a href="/_dev/outbox/${encodeURIComponent(o.key.slice(7))}">${o.customMetadata?.subject ?? o.key}</a></td></tr>`,
    );
    const older = listed.truncated
      ? html`<p><a rel="next" href="/_dev/outbox?cursor=${encodeURIComponent(listed.cursor)}">Older</a></p>`
      : "";
    const page = renderPage({
      title: "Outbox",
      viewport: false,
      bodyAttributes: { style: "font:14px system-ui;margin:24px" },
      body: html`<h1>Local outbox</h1>
<table cellpadding="6"><tr><th align="left">Sent</th><th align="left">To</th><th align="left">Subject</th></tr>${rows.length > 0 ? rows : html`<tr><td colspan="3">No e-mail sent yet.</td></tr>`}</table>${older}`,
    });
    return c.html(page);
  });
  app.get("/_dev/outbox/:name", async (c) => {
    const object = await c.env.FILES.get(`outbox/${c.req.param("name")}`);
    if (!object) throw new ApiError("route_not_found", "No such message.");
    c.header("Content-Type", "text/plain; charset=utf-8");
    return c.body(object.body);
  });
}
