import type { MiddlewareHandler } from "hono";
import { html } from "../view/page-shell";

/**
 * Which window a framed page may talk to (docs/embedding.md): the embed page and the report
 * builder post clicks with rows, variables, saved reports and heights to their host, never to
 * `"*"`. The host is whoever the page's own `frame-ancestors` lets frame it — the token's
 * `allowed_origins`, else FRAME_ANCESTORS — so every HTML page served with that directive
 * gets the same source list as `<meta name="host-origins">` in its head, taken from the header that
 * was actually sent, and its scripts post only there (src/http/browser/host-origins.ts: a
 * wildcard leaves it to the origin the browser reports for the framing page).
 */
export const hostOriginsOnPages: MiddlewareHandler = async (c, next) => {
  await next();
  const type = c.res.headers.get("Content-Type") ?? "";
  const ancestors = /(?:^|;)\s*frame-ancestors\s+([^;]*)/.exec(c.res.headers.get("Content-Security-Policy") ?? "")?.[1]?.trim();
  if (!type.startsWith("text/html") || !ancestors || !c.res.body) return;
  let written = false;
  c.res = new HTMLRewriter()
    .on("head", {
      element(head) {
        if (written) return;
        written = true;
        head.append(html`<meta name="host-origins" content="${ancestors}">`.toString(), { html: true });
      },
    })
    .transform(c.res);
};
