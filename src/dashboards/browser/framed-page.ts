/**
 * What `<dashboard-embed>` and `<report-builder>` share (./embed-element.ts): an iframe on the
 * service's page, its credentials (a token, or token-url fetched once per start and again
 * before expiry), its height and background, and the messages of the page in it.
 */

/**
 * The service's origin when an element has no `service-url`: the origin `embed.js` was served
 * from (set by defineEmbedElements), or null (the SDK package before `defineEmbedElements({ serviceUrl })`).
 */
let defaultOrigin: string | null = null;

/** Sets the origin elements without a `service-url` show (embed.js: its own; the SDK: its host's choice). */
export function setDefaultOrigin(url: string): void {
  defaultOrigin = originOf(url) ?? defaultOrigin;
}

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
export interface Kind {
  source: string;
  path: string;
  title: string;
  load: string;
  error: string;
  reloadOnResize: boolean;
}
export const DASHBOARD: Kind = {
  source: "dashboard-embed",
  path: "/embed/",
  title: "Dashboard",
  load: "dashboard-load",
  error: "dashboard-error",
  reloadOnResize: true,
};
export const BUILDER: Kind = {
  source: "report-builder",
  path: "/report-builder/",
  title: "Report builder",
  load: "report-builder-load",
  error: "report-builder-error",
  reloadOnResize: false,
};

/** What a page in the frame posts: `ready` / `height` (with status and height), `error`, `back`, the builder's `saved`. */
interface PageMessage {
  source?: string;
  type?: string;
  /** `ready` and `variables`: the dashboard the page shows (its embed id). */
  dashboard?: string;
  variables?: Record<string, unknown>;
  status?: number;
  height?: number;
  id?: string;
  name?: string;
  /** `ready`: the page's computed background (its theme's). */
  background?: string;
}

/** The origin of a URL, or null when it is none. */
export function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

/** HTMLElement, or a stand-in where there is none (a React app's server render imports the SDK: nothing is defined there). */
const ElementBase: typeof HTMLElement = typeof HTMLElement === "undefined" ? (class {} as typeof HTMLElement) : HTMLElement;

export abstract class FramedPage extends ElementBase {
  /** The signed token the page is loaded with (the `token` attribute's, or token-url's). */
  private credential: string | null = null;
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
  /** The unlocked variables the page in the frame last posted, with its dashboard (pages without variables post none). */
  private pageVariables: { dashboard: string; variables: Record<string, unknown> } | null = null;
  /** The dashboard the frame last said it shows (null until the first page of this embed id): a change is a navigation. */
  private shown: string | null = null;
  /**
   * Set by connectedCallback. When embed.js upgrades an element already in the page, the browser
   * calls attributeChangedCallback for each attribute (isConnected already true) before
   * connectedCallback: without this flag each would start, fetching the token twice.
   */
  private connected = false;

  protected abstract get kind(): Kind;
  /** The element's own query parameters of the page's URL. */
  protected abstract parameters(url: URL): void;

  // Properties reflect the attributes of the same name (camelCase).
  get embedId(): string | null {
    return this.getAttribute("embed-id");
  }
  set embedId(value: string | null) {
    this.reflect("embed-id", value);
  }
  get tokenUrl(): string | null {
    return this.getAttribute("token-url");
  }
  set tokenUrl(value: string | null) {
    this.reflect("token-url", value);
  }
  get token(): string | null {
    return this.getAttribute("token");
  }
  set token(value: string | null) {
    this.reflect("token", value);
  }
  get serviceUrl(): string | null {
    return this.getAttribute("service-url");
  }
  set serviceUrl(value: string | null) {
    this.reflect("service-url", value);
  }
  get height(): string | null {
    return this.getAttribute("height");
  }
  set height(value: string | null) {
    this.reflect("height", value);
  }
  get background(): string | null {
    return this.getAttribute("background");
  }
  set background(value: string | null) {
    this.reflect("background", value);
  }

  protected reflect(name: string, value: string | number | null | undefined): void {
    if (value === null || value === undefined) this.removeAttribute(name);
    else this.setAttribute(name, String(value));
  }

  /** The service's origin: `service-url`'s, else the one embed.js came from. */
  private get origin(): string | null {
    const given = this.getAttribute("service-url");
    return given ? originOf(given) : defaultOrigin;
  }

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
    if (name === "embed-id") this.shown = null;
    if (name === "height") this.applyHeight(this.contentHeight);
    else if (name === "background") this.applyBackground();
    else if (name === "token" || name === "token-url" || name === "customer-token" || name === "service-url") this.start();
    else this.navigate();
  }

  /** New credentials: take the token (or fetch one), then load the page. */
  private async start(): Promise<void> {
    clearTimeout(this.timer);
    const generation = ++this.generation;
    this.credential = null;
    if (!this.origin) {
      // After the current task: a framework attaching its listeners right after inserting the element still hears it.
      setTimeout(() => {
        if (generation === this.generation) this.fail(0, "no service-url: name the service this element shows (or load embed.js from it)");
      });
      return;
    }
    if (this.hasAttribute("token")) this.credential = this.getAttribute("token");
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
      this.credential = body.token;
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
    const expiry = this.credential ? expiryOf(this.credential) : null;
    if (!expiry) return;
    const remaining = expiry - Date.now();
    const delay = Math.max(1000, remaining - Math.max(2000, Math.min(60000, remaining * 0.2)));
    this.timer = setTimeout(() => {
      if (generation === this.generation) this.fetchToken(generation);
    }, delay);
  }

  private handOver(): void {
    this.tell({ type: "token", token: this.credential });
  }

  /** Posts to the page in the frame (at the service's origin only). */
  private tell(message: Record<string, unknown>): void {
    const origin = this.origin;
    if (this.frame?.contentWindow && origin) this.frame.contentWindow.postMessage({ source: this.kind.source, ...message }, origin);
  }

  private src(): string | null {
    const embedId = this.getAttribute("embed-id");
    const origin = this.origin;
    if (!embedId || !origin) return null;
    const url = new URL(this.kind.path + encodeURIComponent(embedId), origin);
    const customerToken = this.getAttribute("customer-token");
    if (this.credential) url.searchParams.set("token", this.credential);
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
    if (!this.frame || event.source !== this.frame.contentWindow || event.origin !== this.origin) return;
    const data: PageMessage | null = event.data;
    if (!data || data.source !== this.kind.source) return;
    if (this.kind === DASHBOARD && data.type === "click") {
      this.dispatchEvent(new CustomEvent("dashboard-click", { detail: data, bubbles: true, composed: true }));
      return;
    }
    if (this.kind === DASHBOARD && data.type === "variables") {
      // Posted by the page's click script before its `ready`: what a dashboard-navigate says of the page.
      if (typeof data.dashboard === "string" && data.variables)
        this.pageVariables = { dashboard: data.dashboard, variables: data.variables };
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
    if (this.kind === DASHBOARD && data.type === "back") {
      // The Back control of a page a drill-through opened: the dashboard this element shows, loaded anew.
      this.navigate(true);
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
    if (data.status !== undefined && data.status >= 400) {
      this.fail(data.status, `the page answered ${data.status}`);
      return;
    }
    // The page's Back control asks this element (rather than the frame's history, which the host page shares).
    if (this.kind === DASHBOARD) this.tell({ type: "host" });
    this.dispatchEvent(new CustomEvent(this.kind.load, { detail: { height: data.height }, bubbles: true, composed: true }));
    if (this.kind === DASHBOARD && typeof data.dashboard === "string")
      this.followed(data.dashboard, this.pageVariables?.dashboard === data.dashboard ? this.pageVariables.variables : {});
  };

  /** A page is shown: another dashboard than the last (a drill-through, or Back) is told to the host. */
  private followed(dashboard: string, variables: Record<string, unknown>): void {
    const before = this.shown;
    this.shown = dashboard;
    if (before !== null && before !== dashboard)
      this.dispatchEvent(
        new CustomEvent("dashboard-navigate", { detail: { embed_id: dashboard, variables }, bubbles: true, composed: true }),
      );
  }

  private fail(status: number, message: string): void {
    this.dispatchEvent(new CustomEvent(this.kind.error, { detail: { status, message }, bubbles: true, composed: true }));
  }
}
