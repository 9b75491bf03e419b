// Declarations of the embed SDK's elements, `<dashboard-embed>` and `<report-builder>`
// (README.md; the service's docs/embedding.md section 4 and docs/report-builder.md are the
// contract). The implementation is the service's own src/dashboards/browser/ (the same source
// as its embed.js); src/index.ts of this package checks that it answers to these declarations.

/** A dashboard's variables by name (`since`, `product`, …): strings, numbers, booleans, or JSON values. */
export type Variables = Record<string, unknown>;

/** The attributes of `<dashboard-embed>` (what HTML writes; each has a property of the camelCase name). */
export interface DashboardEmbedAttributes {
  /** The dashboard (its embed id). */
  "embed-id": string;
  /** Your endpoint answering GET with `{"token": "…"}` (fetched with the page's cookies, once per start and again before the token expires). */
  "token-url"?: string;
  /** A signed embed token you already have (instead of `token-url`; you replace it yourself). */
  token?: string;
  /** The service (its origin is used). Default: the origin embed.js was loaded from; with this package, `defineEmbedElements({ serviceUrl })`. */
  "service-url"?: string;
  /** A version tag (ignored when the token pins one). */
  environment?: string;
  /** The unlocked variables as JSON; a change shows the dashboard with the new values. */
  variables?: string;
  /** A fixed height (`600` means px, or any CSS length); without it the frame is as tall as the dashboard. */
  height?: string;
  /** The frame's background (a CSS color) before the page says its own (its theme's). */
  background?: string;
  /** The iframe's accessible title (default "Dashboard"). */
  title?: string;
  /** Legacy: the customer's long-lived token (refused when the service sets EMBED_REQUIRE_SIGNED). */
  "customer-token"?: string;
}

/** The attributes of `<report-builder>`. */
export interface ReportBuilderAttributes {
  /** The blueprint (its embed id). */
  "embed-id": string;
  "token-url"?: string;
  token?: string;
  "service-url"?: string;
  /** A saved report to open (its id). */
  report?: string;
  height?: string;
  background?: string;
  /** The iframe's accessible title (default "Report builder"). */
  title?: string;
}

/** `dashboard-load` and `report-builder-load`: the page is shown, its fonts ready. */
export interface LoadDetail {
  /** The content's height in px (the frame's, unless `height` is set). */
  height: number;
}

/** `dashboard-error` and `report-builder-error`. */
export interface ErrorDetail {
  /** The error page's status (401, 404, 422), or the status `token-url` answered (0: it could not be reached, or no service is named). */
  status: number;
  message: string;
}

/** `dashboard-click`: a click on a clickable mark (a bar, point, slice, table row or KPI), before any navigation. */
export interface DashboardClickDetail {
  source: "dashboard-embed";
  type: "click";
  /** The panel's id. */
  panel_id: string;
  /** The result column the click is about (the panel's `on_click` column), or null. */
  column: string | null;
  /** The clicked row's value of `column`. */
  value: unknown;
  /** The clicked row by result column. */
  row: Record<string, unknown>;
}

/** `dashboard-variables`: the page's unlocked variables changed in the frame (a filter control, a click filter, `setVariables`). */
export interface DashboardVariablesDetail {
  /** Every unlocked variable's current value. */
  variables: Variables;
}

/** `dashboard-navigate`: the frame shows another dashboard, after a drill-through (`on_click: open`) or Back. */
export interface DashboardNavigateDetail {
  /** The dashboard now shown. */
  embed_id: string;
  /** Its unlocked variables (`{}` when it has none). */
  variables: Variables;
}

/** `report-saved`: the viewer saved a report in the builder. */
export interface ReportSavedDetail {
  id: string;
  name: string;
}

/** `<dashboard-embed>`'s own events. They bubble and cross shadow roots. */
export interface DashboardEmbedEvents {
  "dashboard-load": CustomEvent<LoadDetail>;
  "dashboard-error": CustomEvent<ErrorDetail>;
  "dashboard-click": CustomEvent<DashboardClickDetail>;
  "dashboard-variables": CustomEvent<DashboardVariablesDetail>;
  "dashboard-navigate": CustomEvent<DashboardNavigateDetail>;
}

/** `<report-builder>`'s own events. */
export interface ReportBuilderEvents {
  "report-builder-load": CustomEvent<LoadDetail>;
  "report-builder-error": CustomEvent<ErrorDetail>;
  "report-saved": CustomEvent<ReportSavedDetail>;
}

/** Every event a `<dashboard-embed>` dispatches or an HTML element does: a name outside it is a type error. */
export interface DashboardEmbedEventMap extends HTMLElementEventMap, DashboardEmbedEvents {}
/** Every event a `<report-builder>` dispatches or an HTML element does. */
export interface ReportBuilderEventMap extends HTMLElementEventMap, ReportBuilderEvents {}

/** What both elements have. */
interface FramedElement extends HTMLElement {
  /** `embed-id`. */
  embedId: string | null;
  /** `token-url`. */
  tokenUrl: string | null;
  /** `token`. */
  token: string | null;
  /** `service-url`. */
  serviceUrl: string | null;
  /** `height`. */
  height: string | null;
  /** `background`. */
  background: string | null;
}

/** `<dashboard-embed>`: a dashboard in an iframe, as tall as its content. */
export interface DashboardEmbedElement extends FramedElement {
  /** `environment`. */
  environment: string | null;
  /** `customer-token` (legacy). */
  customerToken: string | null;
  /** The `variables` attribute as an object (`{}` without it); setting it (an object, or its JSON) sets the attribute (null removes it). */
  get variables(): Variables;
  set variables(value: Variables | string | null);
  /** Shows the dashboard with these unlocked variables: the same as setting `variables`, also after the frame moved on (a drill-through). */
  setVariables(variables: Variables): void;
  addEventListener<K extends keyof DashboardEmbedEventMap>(
    type: K,
    listener: (this: DashboardEmbedElement, event: DashboardEmbedEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof DashboardEmbedEventMap>(
    type: K,
    listener: (this: DashboardEmbedElement, event: DashboardEmbedEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
}

/** `<report-builder>`: the report builder on a blueprint in an iframe. */
export interface ReportBuilderElement extends FramedElement {
  /** `report`: the saved report to open. */
  report: string | null;
  addEventListener<K extends keyof ReportBuilderEventMap>(
    type: K,
    listener: (this: ReportBuilderElement, event: ReportBuilderEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof ReportBuilderEventMap>(
    type: K,
    listener: (this: ReportBuilderElement, event: ReportBuilderEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
}

export interface DefineOptions {
  /** The service the elements show when one has no `service-url` of its own, e.g. `https://analytics.example.com`. */
  serviceUrl?: string;
}

/**
 * Defines `<dashboard-embed>` and `<report-builder>` in this page (once; later calls only change
 * the default service). Does nothing where there is no DOM (a server render).
 */
export function defineEmbedElements(options?: DefineOptions): void;

declare global {
  interface HTMLElementTagNameMap {
    "dashboard-embed": DashboardEmbedElement;
    "report-builder": ReportBuilderElement;
  }
}
