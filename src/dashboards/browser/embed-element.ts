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
 * - Events: `dashboard-load` (`detail.height`), `dashboard-error` (`detail.status`, `detail.message`),
 *   `dashboard-click` (`detail`: the page's click message `{source, type: "click", panel_id,
 *   column, value, row}`, before the page navigates) and `dashboard-variables`
 *   (`detail.variables`: the page's unlocked variables, whenever they change in the frame: a
 *   filter control, a click filter, `setVariables`).
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
 */

/**
 * This service's origin: the Worker writes it over this placeholder (quotes included) when it
 * serves the file (embedScript in src/dashboards/embed-routes.ts).
 */
const ORIGIN: string = "__EMBED_SERVICE_ORIGIN__";

/** The token's expiry (ms since epoch) from its payload; the signature is the server's business. */
function expiryOf(token: string): number | null {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const payload = JSON.parse(atob(part + "===".slice((part.length + 3) % 4)));
    return typeof payload.exp === "number" ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** What differs between the two elements: the page, the message source and the events. */
interface Kind {
  source: string;
  path: string;
  title: string;
  load: string;
  error: string;
  reloadOnResize: boolean;
}
const DASHBOARD: Kind = {
  source: "dashboard-embed",
  path: "/embed/",
  title: "Dashboard",
  load: "dashboard-load",
  error: "dashboard-error",
  reloadOnResize: true,
};
const BUILDER: Kind = {
  source: "report-builder",
  path: "/report-builder/",
  title: "Report builder",
  load: "report-builder-load",
  error: "report-builder-error",
  reloadOnResize: false,
};

/** What a page in the frame posts: `ready` / `height` (with status and height), `error`, the builder's `saved`. */
interface PageMessage {
  source?: string;
  type?: string;
  dashboard?: string;
  variables?: Record<string, unknown>;
  status?: number;
  height?: number;
  id?: string;
  name?: string;
  /** `ready`: the page's computed background (its theme's). */
  background?: string;
}

abstract class FramedPage extends HTMLElement {
  private token: string | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private resizeTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  private generation = 0;
  private frame: HTMLIFrameElement | null = null;
  private width = 0;
  private contentHeight = 0;
  private resize: ResizeObserver | undefined = undefined;
  /** The variables the dashboard's page last reported (JSON), to tell a change. */
  private reported: string | null = null;
  /** The background the page reported (its theme's): the iframe keeps it across reloads. */
  private pageBackground: string | null = null;
  /**
   * Set by connectedCallback. When embed.js upgrades an element already in the page, the browser
   * calls attributeChangedCallback for each attribute (isConnected already true) before
   * connectedCallback: without this flag each would start, fetching the token twice.
   */
  private connected = false;

  protected abstract get kind(): Kind;
  /** The element's own query parameters of the page's URL. */
  protected abstract parameters(url: URL): void;

  connectedCallback(): void {
    // A custom element is inline by default: it would measure 0 px wide and size nothing.
    if (getComputedStyle(this).display === "inline") this.style.display = "block";
    window.addEventListener("message", this.onMessage);
    if (typeof ResizeObserver === "function") {
      this.resize = new ResizeObserver(() => this.resized());
      this.resize.observe(this);
    }
    this.connected = true;
    this.start();
  }

  disconnectedCallback(): void {
    this.connected = false;
    window.removeEventListener("message", this.onMessage);
    if (this.resize) this.resize.disconnect();
    clearTimeout(this.timer);
    clearTimeout(this.resizeTimer);
    this.generation++;
  }

  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void {
    if (!this.connected || oldValue === newValue) return;
    if (name === "height") this.applyHeight(this.contentHeight);
    else if (name === "background") this.applyBackground();
    else if (name === "token" || name === "token-url" || name === "customer-token") this.start();
    else this.navigate();
  }

  /** New credentials: take the token (or fetch one), then load the page. */
  private async start(): Promise<void> {
    clearTimeout(this.timer);
    const generation = ++this.generation;
    this.token = null;
    if (this.hasAttribute("token")) this.token = this.getAttribute("token");
    else if (this.hasAttribute("token-url") && !(await this.fetchToken(generation))) return;
    if (generation === this.generation) this.navigate();
  }

  private async fetchToken(generation: number): Promise<boolean> {
    let status = 0;
    try {
      const response = await fetch(this.getAttribute("token-url") as string, {
        credentials: "include",
        headers: { Accept: "application/json" },
      });
      status = response.status;
      if (!response.ok) throw new Error(`token-url answered ${status}`);
      const body = await response.json();
      if (!body || typeof body.token !== "string" || body.token === "") throw new Error("token-url answered without a token");
      if (generation !== this.generation) return false;
      this.token = body.token;
      this.scheduleRefresh(generation);
      this.handOver();
      return true;
    } catch (error) {
      if (generation === this.generation) this.fail(status, String((error instanceof Error && error.message) || error));
      return false;
    }
  }

  /** Fetch the next token a little before this one expires (20% of its life, 2–60 s). */
  private scheduleRefresh(generation: number): void {
    clearTimeout(this.timer);
    const expiry = this.token ? expiryOf(this.token) : null;
    if (!expiry) return;
    const remaining = expiry - Date.now();
    const delay = Math.max(1000, remaining - Math.max(2000, Math.min(60000, remaining * 0.2)));
    this.timer = setTimeout(() => {
      if (generation === this.generation) this.fetchToken(generation);
    }, delay);
  }

  private handOver(): void {
    if (this.frame?.contentWindow) {
      this.frame.contentWindow.postMessage({ source: this.kind.source, type: "token", token: this.token }, ORIGIN);
    }
  }

  private src(): string | null {
    const embedId = this.getAttribute("embed-id");
    if (!embedId) return null;
    const url = new URL(this.kind.path + encodeURIComponent(embedId), ORIGIN);
    const customerToken = this.getAttribute("customer-token");
    if (this.token) url.searchParams.set("token", this.token);
    else if (this.kind === DASHBOARD && customerToken !== null) url.searchParams.set("customer_token", customerToken);
    else return null;
    this.parameters(url);
    const width = Math.round(this.getBoundingClientRect().width);
    if (width > 0) {
      this.width = width;
      url.searchParams.set("width", String(Math.min(4096, Math.max(320, width))));
    }
    return url.toString();
  }

  /** Loads the page for the current attributes; `again`: even when the frame's URL is that already (the page may have moved on). */
  protected navigate(again = false): void {
    const src = this.src();
    if (!src) return;
    if (!this.frame) {
      const frame = document.createElement("iframe");
      frame.title = this.getAttribute("title") || this.kind.title;
      frame.referrerPolicy = "no-referrer";
      frame.style.cssText = "display:block;width:100%;border:0;height:150px";
      this.frame = frame;
      this.applyBackground();
      this.appendChild(frame);
    }
    this.applyHeight(this.contentHeight);
    if (again || this.frame.src !== src) this.frame.src = src;
  }

  /** Charts are drawn for a width: reload when the element's width really changed. */
  private resized(): void {
    if (!this.kind.reloadOnResize) return;
    const width = Math.round(this.getBoundingClientRect().width);
    if (!this.frame || !this.width || Math.abs(width - this.width) < 16) return;
    clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => this.navigate(), 250);
  }

  /** The page's own background once it said it, else the `background` attribute's color (else transparent: the host's). */
  private applyBackground(): void {
    if (!this.frame) return;
    const given = this.getAttribute("background");
    const color = this.pageBackground ?? (given && CSS.supports("color", given) ? given : null);
    this.frame.style.background = color ?? "transparent";
  }

  private applyHeight(height: number): void {
    if (!this.frame) return;
    const fixed = this.getAttribute("height");
    if (fixed) this.frame.style.height = /^\d+$/.test(fixed) ? `${fixed}px` : fixed;
    else if (height > 0) this.frame.style.height = `${height}px`;
  }

  private readonly onMessage = (event: MessageEvent): void => {
    if (!this.frame || event.source !== this.frame.contentWindow || event.origin !== ORIGIN) return;
    const data: PageMessage | null = event.data;
    if (!data || data.source !== this.kind.source) return;
    if (this.kind === DASHBOARD && data.type === "click") {
      this.dispatchEvent(new CustomEvent("dashboard-click", { detail: data, bubbles: true, composed: true }));
      return;
    }
    if (this.kind === DASHBOARD && data.type === "variables") {
      // Only this element's dashboard (not one a click opened in the frame).
      if (data.dashboard !== this.getAttribute("embed-id") || !data.variables) return;
      const reported = JSON.stringify(data.variables);
      const changed = this.reported !== null && reported !== this.reported;
      this.reported = reported;
      if (changed)
        this.dispatchEvent(
          new CustomEvent("dashboard-variables", { detail: { variables: data.variables }, bubbles: true, composed: true }),
        );
      return;
    }
    if (data.type === "saved" && this.kind === BUILDER) {
      this.dispatchEvent(new CustomEvent("report-saved", { detail: { id: data.id, name: data.name }, bubbles: true, composed: true }));
      return;
    }
    // A page already loaded whose requests are refused (an expired token without token-url).
    if (data.type === "error" && typeof data.status === "number") {
      this.fail(data.status, `the page's request answered ${data.status}`);
      return;
    }
    if (typeof data.height !== "number") return;
    if (data.type === "ready" && typeof data.background === "string" && CSS.supports("color", data.background)) {
      this.pageBackground = data.background;
      this.applyBackground();
    }
    this.contentHeight = data.height;
    this.applyHeight(data.height);
    if (data.type !== "ready") return;
    if (data.status !== undefined && data.status >= 400) this.fail(data.status, `the page answered ${data.status}`);
    else this.dispatchEvent(new CustomEvent(this.kind.load, { detail: { height: data.height }, bubbles: true, composed: true }));
  };

  private fail(status: number, message: string): void {
    this.dispatchEvent(new CustomEvent(this.kind.error, { detail: { status, message }, bubbles: true, composed: true }));
  }
}

class DashboardEmbed extends FramedPage {
  static get observedAttributes(): string[] {
    return ["embed-id", "token", "token-url", "customer-token", "environment", "variables", "height", "background"];
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

class ReportBuilder extends FramedPage {
  static get observedAttributes(): string[] {
    return ["embed-id", "token", "token-url", "report", "height", "background"];
  }
  protected get kind(): Kind {
    return BUILDER;
  }
  protected parameters(url: URL): void {
    const report = this.getAttribute("report");
    if (report) url.searchParams.set("report", report);
  }
}

if (!customElements.get("dashboard-embed")) customElements.define("dashboard-embed", DashboardEmbed);
if (!customElements.get("report-builder")) customElements.define("report-builder", ReportBuilder);
