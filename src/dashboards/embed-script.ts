/**
 * `embed.js`: the `<dashboard-embed>` web component (docs/embedding.md).
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
 * - Events: `dashboard-load` (`detail.height`), `dashboard-error` (`detail.status`, `detail.message`).
 *
 * `<report-builder embed-id="<blueprint embed_id>" token-url="…">` (docs/report-builder.md)
 * is the same element over the report builder page: the same credentials, refresh, height and
 * error handling, with `report` (a saved report to open) instead of variables, no reload on
 * resize (the page lays itself out), and the events `report-builder-load`,
 * `report-builder-error` (`detail.status`) and `report-saved` (`detail: {id, name}`).
 *
 * Messages from the iframe are trusted only from its own window and this service's origin.
 */
export function embedScript(origin: string): string {
  return `// <dashboard-embed embed-id="…" token-url="/your/token/endpoint" variables='{"since":"2026-01-01"}'></dashboard-embed>
(() => {
  const ORIGIN = ${JSON.stringify(origin)};

  /** The token's expiry (ms since epoch) from its payload; the signature is the server's business. */
  function expiryOf(token) {
    try {
      const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
      const payload = JSON.parse(atob(part + "===".slice((part.length + 3) % 4)));
      return typeof payload.exp === "number" ? payload.exp * 1000 : null;
    } catch (e) {
      return null;
    }
  }

  /** What differs between the two elements: the page, the message source and the events. */
  const DASHBOARD = { source: "dashboard-embed", path: "/embed/", title: "Dashboard", load: "dashboard-load", error: "dashboard-error", reloadOnResize: true };
  const BUILDER = { source: "report-builder", path: "/report-builder/", title: "Report builder", load: "report-builder-load", error: "report-builder-error", reloadOnResize: false };

  class FramedPage extends HTMLElement {
    constructor() {
      super();
      this._token = null;
      this._timer = null;
      this._generation = 0;
      this._frame = null;
      this._width = 0;
      this._onMessage = this._onMessage.bind(this);
    }

    connectedCallback() {
      // A custom element is inline by default: it would measure 0 px wide and size nothing.
      if (getComputedStyle(this).display === "inline") this.style.display = "block";
      window.addEventListener("message", this._onMessage);
      if (typeof ResizeObserver === "function") {
        this._resize = new ResizeObserver(() => this._resized());
        this._resize.observe(this);
      }
      this._start();
    }

    disconnectedCallback() {
      window.removeEventListener("message", this._onMessage);
      if (this._resize) this._resize.disconnect();
      clearTimeout(this._timer);
      clearTimeout(this._resizeTimer);
      this._generation++;
    }

    attributeChangedCallback(name, oldValue, newValue) {
      if (!this.isConnected || oldValue === newValue) return;
      if (name === "height") this._applyHeight(this._contentHeight);
      else if (name === "token" || name === "token-url" || name === "customer-token") this._start();
      else this._navigate();
    }

    /** New credentials: take the token (or fetch one), then load the page. */
    async _start() {
      clearTimeout(this._timer);
      const generation = ++this._generation;
      this._token = null;
      if (this.hasAttribute("token")) this._token = this.getAttribute("token");
      else if (this.hasAttribute("token-url") && !(await this._fetchToken(generation))) return;
      if (generation === this._generation) this._navigate();
    }

    async _fetchToken(generation) {
      let status = 0;
      try {
        const response = await fetch(this.getAttribute("token-url"), { credentials: "include", headers: { Accept: "application/json" } });
        status = response.status;
        if (!response.ok) throw new Error("token-url answered " + status);
        const body = await response.json();
        if (!body || typeof body.token !== "string" || body.token === "") throw new Error("token-url answered without a token");
        if (generation !== this._generation) return false;
        this._token = body.token;
        this._scheduleRefresh(generation);
        this._handOver();
        return true;
      } catch (error) {
        if (generation === this._generation) this._fail(status, String((error && error.message) || error));
        return false;
      }
    }

    /** Fetch the next token a little before this one expires (20% of its life, 2–60 s). */
    _scheduleRefresh(generation) {
      clearTimeout(this._timer);
      const expiry = expiryOf(this._token);
      if (!expiry) return;
      const remaining = expiry - Date.now();
      const delay = Math.max(1000, remaining - Math.max(2000, Math.min(60000, remaining * 0.2)));
      this._timer = setTimeout(() => { if (generation === this._generation) this._fetchToken(generation); }, delay);
    }

    _handOver() {
      if (this._frame && this._frame.contentWindow) {
        this._frame.contentWindow.postMessage({ source: this._kind.source, type: "token", token: this._token }, ORIGIN);
      }
    }

    _src() {
      const embedId = this.getAttribute("embed-id");
      if (!embedId) return null;
      const url = new URL(this._kind.path + encodeURIComponent(embedId), ORIGIN);
      if (this._token) url.searchParams.set("token", this._token);
      else if (this._kind === DASHBOARD && this.hasAttribute("customer-token")) url.searchParams.set("customer_token", this.getAttribute("customer-token"));
      else return null;
      this._parameters(url);
      const width = Math.round(this.getBoundingClientRect().width);
      if (width > 0) {
        this._width = width;
        url.searchParams.set("width", String(Math.min(4096, Math.max(320, width))));
      }
      return url.toString();
    }

    _navigate() {
      const src = this._src();
      if (!src) return;
      if (!this._frame) {
        const frame = document.createElement("iframe");
        frame.title = this.getAttribute("title") || this._kind.title;
        frame.referrerPolicy = "no-referrer";
        frame.style.cssText = "display:block;width:100%;border:0;height:150px";
        this._frame = frame;
        this.appendChild(frame);
      }
      this._loaded = false;
      this._applyHeight(this._contentHeight);
      if (this._frame.src !== src) this._frame.src = src;
    }

    /** Charts are drawn for a width: reload when the element's width really changed. */
    _resized() {
      if (!this._kind.reloadOnResize) return;
      const width = Math.round(this.getBoundingClientRect().width);
      if (!this._frame || !this._width || Math.abs(width - this._width) < 16) return;
      clearTimeout(this._resizeTimer);
      this._resizeTimer = setTimeout(() => this._navigate(), 250);
    }

    _applyHeight(height) {
      if (!this._frame) return;
      const fixed = this.getAttribute("height");
      if (fixed) this._frame.style.height = (/^\\d+$/.test(fixed) ? fixed + "px" : fixed);
      else if (height > 0) this._frame.style.height = height + "px";
    }

    _onMessage(event) {
      if (!this._frame || event.source !== this._frame.contentWindow || event.origin !== ORIGIN) return;
      const data = event.data;
      if (!data || data.source !== this._kind.source) return;
      if (data.type === "saved" && this._kind === BUILDER) {
        this.dispatchEvent(new CustomEvent("report-saved", { detail: { id: data.id, name: data.name }, bubbles: true, composed: true }));
        return;
      }
      // A page already loaded whose requests are refused (an expired token without token-url).
      if (data.type === "error" && typeof data.status === "number") { this._fail(data.status, "the page's request answered " + data.status); return; }
      if (typeof data.height !== "number") return;
      this._contentHeight = data.height;
      this._applyHeight(data.height);
      if (data.type !== "ready") return;
      if (data.status >= 400) this._fail(data.status, "the page answered " + data.status);
      else this.dispatchEvent(new CustomEvent(this._kind.load, { detail: { height: data.height }, bubbles: true, composed: true }));
    }

    _fail(status, message) {
      this.dispatchEvent(new CustomEvent(this._kind.error, { detail: { status: status, message: message }, bubbles: true, composed: true }));
    }
  }

  class DashboardEmbed extends FramedPage {
    static get observedAttributes() { return ["embed-id", "token", "token-url", "customer-token", "environment", "variables", "height"]; }
    get _kind() { return DASHBOARD; }
    _parameters(url) {
      const environment = this.getAttribute("environment");
      if (environment) url.searchParams.set("environment", environment);
      let variables = {};
      try { variables = JSON.parse(this.getAttribute("variables") || "{}") || {}; } catch (e) { console.error("dashboard-embed: variables must be JSON", e); }
      for (const [name, value] of Object.entries(variables)) {
        url.searchParams.set("var_" + name, typeof value === "object" && value !== null ? JSON.stringify(value) : String(value));
      }
    }
  }

  class ReportBuilder extends FramedPage {
    static get observedAttributes() { return ["embed-id", "token", "token-url", "report", "height"]; }
    get _kind() { return BUILDER; }
    _parameters(url) {
      const report = this.getAttribute("report");
      if (report) url.searchParams.set("report", report);
    }
  }

  if (!customElements.get("dashboard-embed")) customElements.define("dashboard-embed", DashboardEmbed);
  if (!customElements.get("report-builder")) customElements.define("report-builder", ReportBuilder);
})();
`;
}
