import type { OpenAPIHono } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { AppContext, AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { escapeHtml } from "../lib/html";
import { hashCustomerToken } from "../customers/tokens";
import { RoundTripCounter } from "../db/client";
import { newest, renderForCustomer } from "./service";

/**
 * The embed page must be framable by the vendor's pages only (FRAME_ANCESTORS) and may
 * load nothing from anywhere: styles are inline, charts are inline SVG, there is no script.
 */
export function securityHeaders(c: AppContext): void {
  const ancestors = (c.env.FRAME_ANCESTORS ?? "'none'").trim() || "'none'";
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`,
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
}

export function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{margin:0;display:grid;place-items:center;min-height:100vh;background:#f4f6fb;color:#334155;font:15px/1.5 system-ui,sans-serif}
div{max-width:420px;padding:24px 28px;background:#fff;border:1px solid #e5e9f2;border-radius:12px;text-align:center}h1{font-size:17px;margin:0 0 6px}</style>
</head><body data-render-complete="true"><div><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></div></body></html>`;
}

/** `var_<name>=<value>` query parameters; JSON objects and arrays are decoded. */
export function variablesFromQuery(query: Record<string, string>): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith("var_") || key.length === 4) continue;
    let parsed: unknown = value;
    if (/^\s*[[{]/.test(value)) {
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = value;
      }
    }
    variables[key.slice(4)] = parsed;
  }
  return variables;
}

export function registerEmbedRoutes(app: OpenAPIHono<AppEnv>): void {
  app.get("/embed/:embedId", async (c) => {
    securityHeaders(c);
    const query = c.req.query();
    const token = query.customer_token ?? "";
    if (!/^[0-9a-f]{64}$/.test(token)) {
      return c.html(page("Not authorised", "This dashboard link is missing a valid customer token."), 401);
    }
    const environment = query.environment?.trim();
    const dataRoundTrips = new RoundTripCounter();
    try {
      const html = await renderForCustomer(c.get("db"), c.env, {
        embedId: c.req.param("embedId"),
        customer: sql`c0.token_hash = ${await hashCustomerToken(token)}`,
        versions: environment ? { tags: [environment], fallBackToNewest: false } : newest,
        variables: variablesFromQuery(query),
        dataRoundTrips,
      });
      if (c.env.ENVIRONMENT !== "production") c.header("X-Data-Round-Trips", String(dataRoundTrips.count));
      return c.html(html, 200);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === "customer_not_found") return c.html(page("Not authorised", "This customer token is not valid (it may have been refreshed)."), 401);
      if (error.code === "dashboard_not_found") return c.html(page("Dashboard not found", error.message), 404);
      if (error.code === "no_dashboard_version") return c.html(page("Nothing to show yet", error.message), 422);
      throw error;
    }
  });

  app.get("/embed.js", (c) => {
    const origin = new URL(c.req.url).origin;
    c.header("Content-Type", "application/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=300");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(embedScript(origin));
  });
}

/** `<dashboard-embed embed-id customer-token environment variables>` mounts the embed page in an iframe. */
function embedScript(origin: string): string {
  return `// <dashboard-embed embed-id="…" customer-token="…" environment="production" variables='{"since":"2026-01-01"}' height="800">
(() => {
  const ORIGIN = ${JSON.stringify(origin)};
  if (customElements.get("dashboard-embed")) return;
  class DashboardEmbed extends HTMLElement {
    static get observedAttributes() { return ["embed-id", "customer-token", "environment", "variables", "height"]; }
    connectedCallback() { this.render(); }
    attributeChangedCallback() { if (this.isConnected) this.render(); }
    src() {
      const embedId = this.getAttribute("embed-id");
      const token = this.getAttribute("customer-token");
      if (!embedId || !token) return null;
      const url = new URL("/embed/" + encodeURIComponent(embedId), ORIGIN);
      url.searchParams.set("customer_token", token);
      const environment = this.getAttribute("environment");
      if (environment) url.searchParams.set("environment", environment);
      let variables = {};
      try { variables = JSON.parse(this.getAttribute("variables") || "{}"); } catch (e) { console.error("dashboard-embed: variables must be JSON", e); }
      for (const [name, value] of Object.entries(variables)) {
        url.searchParams.set("var_" + name, typeof value === "object" && value !== null ? JSON.stringify(value) : String(value));
      }
      return url.toString();
    }
    render() {
      const src = this.src();
      if (!src) return;
      let frame = this.querySelector("iframe");
      if (!frame) {
        frame = document.createElement("iframe");
        frame.title = "Dashboard";
        frame.loading = "lazy";
        frame.referrerPolicy = "no-referrer";
        frame.style.cssText = "display:block;width:100%;border:0";
        this.appendChild(frame);
      }
      frame.style.height = (this.getAttribute("height") || "800") + "px";
      if (frame.src !== src) frame.src = src;
    }
  }
  customElements.define("dashboard-embed", DashboardEmbed);
})();
`;
}
