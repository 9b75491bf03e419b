import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext, AppEnv } from "../http/context";
import { answeringNotFound } from "../http/errors";
import { declaredRoute } from "../http/openapi";
import { confirmationPage, donePage, unknownLinkPage } from "./page";
import * as unsubscribe from "./service";
import { retryNotFoundOnPrimary } from "../http/replica-retry";

const tags = ["Unsubscribe"];
const params = z.object({ token: z.string().openapi({ description: "The capability token of the e-mail's link." }) });
const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

const confirm = declaredRoute({
  access: "capability token in path",
  method: "get",
  path: "/unsubscribe/{token}",
  operationId: "unsubscribePage",
  middleware: [retryNotFoundOnPrimary],
  tags,
  summary: "An e-mail's unsubscribe link: a page that asks to confirm (changes nothing)",
  request: { params },
  responses: { 200: html("The confirmation page."), 404: html("Unknown link, or its schedule or alert is gone.") },
});

const oneClick = declaredRoute({
  access: "capability token in path",
  method: "post",
  path: "/unsubscribe/{token}",
  operationId: "unsubscribe",
  tags,
  summary: "Unsubscribe the link's address from its schedule or alert for good (RFC 8058 one-click)",
  request: { params },
  description: "Mail clients POST `List-Unsubscribe=One-Click`; the body and its content type are not looked at.",
  responses: { 200: html("Unsubscribed (also when it already was)."), 404: html("Unknown link, or its schedule or alert is gone.") },
});

/** Capability pages: nothing loaded, nothing framed, nothing kept by caches or referrers. */
function pageHeaders(c: AppContext): void {
  c.header(
    "Content-Security-Policy",
    // Fonts and the logo of the rule's theme come from this origin (/theme-assets/…) only.
    "default-src 'none'; style-src 'unsafe-inline'; font-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
}

function unknown(c: AppContext) {
  answeringNotFound("schedule_not_found");
  return c.html(unknownLinkPage(), 404);
}

export function registerUnsubscribeRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(confirm, async (c) => {
    pageHeaders(c);
    const link = await unsubscribe.lookUpLink(c.get("db"), c.req.valid("param").token);
    return link ? c.html(confirmationPage(link), 200) : unknown(c);
  });
  app.openapi(oneClick, async (c) => {
    pageHeaders(c);
    const link = await unsubscribe.unsubscribe(c.get("db"), c.req.param("token"));
    return link ? c.html(donePage(link), 200) : unknown(c);
  });
}
