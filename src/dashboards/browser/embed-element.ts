/**
 * `embed.js`: the `<dashboard-embed>` web component (docs/embedding.md), served by
 * src/dashboards/embed-routes.ts.
 *
 *   <dashboard-embed embed-id="sales-overview" token-url="/dashboard-token"
 *                    variables='{"since":"2026-01-01"}'></dashboard-embed>
 *
 * - `token` (a signed embed token) or `token-url` (the vendor's endpoint answering GET with
 *   `{"token": "…"}`, fetched with the page's credentials and again before the token
 *   expires; the fresh token is handed to the page by postMessage, so the document in the
 *   iframe is never replaced), or the legacy `customer-token`.
 * - Without `height` the iframe follows the height the page reports for its content.
 * - `variables` (JSON) and `environment` changes load the dashboard with the new values;
 *   the element's width is passed as `width` (charts are drawn for it) and followed on resize.
 * - Events: `dashboard-load` (`detail.height`; once the page's fonts are ready, so no host sees
 *   invisible text), `dashboard-error` (`detail.status`, `detail.message`),
 *   `dashboard-click` (`detail`: the page's click message `{source, type: "click", panel_id,
 *   column, value, row}`, before the page navigates), `dashboard-variables`
 *   (`detail.variables`: the page's unlocked variables, whenever they change in the frame: a
 *   filter control, a click filter, `setVariables`) and `dashboard-navigate` (`detail:
 *   {embed_id, variables}`: the frame now shows another dashboard, after a drill-through or Back).
 * - The page a drill-through opened shows a Back control; pressed, it asks this element, which
 *   shows the dashboard it was opened on again (its own attributes, a fresh load).
 * - `service-url`: the service (its origin is used); default the origin embed.js came from.
 * - `setVariables(object)`: the same as setting `variables` (unlocked ones; locked ones are the token's).
 * - The iframe wears the page's background (its theme's), so a dark app never sees a white
 *   frame: from the `background` attribute (a CSS color) before the first page arrives, then
 *   the background the page reports in its `ready` message, kept for every reload.
 *
 * `<report-builder embed-id="<blueprint embed_id>" token-url="…">` (docs/report-builder.md)
 * is the same element over the report builder page: the same credentials, refresh, height and
 * error handling, with `report` (a saved report to open) instead of variables, no reload on
 * resize (the page lays itself out), and the events `report-builder-load`,
 * `report-builder-error` (`detail.status`) and `report-saved` (`detail: {id, name}`).
 *
 * Messages from the iframe are trusted only from its own window and this service's origin.
 *
 * One source, two outputs (scripts/lib/browser-build.mjs): `embed.js` (./embed-script.ts, which
 * defines the elements for the origin it is served from) and the SDK package's element bundle
 * (packages/embed, which defines them for the `service-url` its host names). So this module
 * defines nothing itself: `defineEmbedElements` does.
 */

import { BUILDER, DASHBOARD, FramedPage, type Kind, setDefaultOrigin } from "./framed-page";

export class DashboardEmbed extends FramedPage {
  static get observedAttributes(): string[] {
    return ["embed-id", "token", "token-url", "customer-token", "environment", "variables", "height", "background", "service-url"];
  }
  get environment(): string | null {
    return this.getAttribute("environment");
  }
  set environment(value: string | null) {
    this.reflect("environment", value);
  }
  get customerToken(): string | null {
    return this.getAttribute("customer-token");
  }
  set customerToken(value: string | null) {
    this.reflect("customer-token", value);
  }
  /** The `variables` attribute as an object (`{}` without it or when it is no JSON object); setting it sets the attribute. */
  get variables(): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(this.getAttribute("variables") || "{}");
      return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  /** An object, or its JSON already (what a framework that sets properties passes for the attribute's text). */
  set variables(value: Record<string, unknown> | string | null) {
    this.reflect("variables", typeof value === "string" || !value ? value : JSON.stringify(value));
  }
  /** Shows the dashboard with these (unlocked) variables: the same as setting `variables`, also when the frame has moved on since. */
  setVariables(variables: Record<string, unknown>): void {
    const text = JSON.stringify(variables || {});
    if (this.getAttribute("variables") === text) this.navigate(true);
    else this.setAttribute("variables", text);
  }
  protected get kind(): Kind {
    return DASHBOARD;
  }
  protected parameters(url: URL): void {
    const environment = this.getAttribute("environment");
    if (environment) url.searchParams.set("environment", environment);
    let variables: Record<string, unknown> = {};
    try {
      variables = JSON.parse(this.getAttribute("variables") || "{}") || {};
    } catch (e) {
      console.error("dashboard-embed: variables must be JSON", e);
    }
    for (const [name, value] of Object.entries(variables)) {
      url.searchParams.set(`var_${name}`, typeof value === "object" && value !== null ? JSON.stringify(value) : String(value));
    }
  }
}

export class ReportBuilder extends FramedPage {
  static get observedAttributes(): string[] {
    return ["embed-id", "token", "token-url", "report", "height", "background", "service-url"];
  }
  /** The saved report to open (its id), or null. */
  get report(): string | null {
    return this.getAttribute("report");
  }
  set report(value: string | number | null) {
    this.reflect("report", value);
  }
  protected get kind(): Kind {
    return BUILDER;
  }
  protected parameters(url: URL): void {
    const report = this.getAttribute("report");
    if (report) url.searchParams.set("report", report);
  }
}

/**
 * Defines `<dashboard-embed>` and `<report-builder>` (once: a second call, or a second copy of
 * the script, leaves the first definition). `serviceUrl`: the service the elements show when
 * one has no `service-url` of its own.
 */
export function defineEmbedElements(options: { serviceUrl?: string | null } = {}): void {
  if (typeof customElements === "undefined") return; // a server render: no elements there
  if (options.serviceUrl) setDefaultOrigin(options.serviceUrl);
  if (!customElements.get("dashboard-embed")) customElements.define("dashboard-embed", DashboardEmbed);
  if (!customElements.get("report-builder")) customElements.define("report-builder", ReportBuilder);
}
