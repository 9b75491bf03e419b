// Declarations of the embed SDK's React components (README.md): one per element, props for its
// attributes, `on…` props for its events, a ref with `setVariables`. src/react.ts implements them.
import type { CSSProperties, ForwardRefExoticComponent, RefAttributes } from "react";
import type {
  DashboardClickDetail,
  DashboardEmbedElement,
  DashboardNavigateDetail,
  DashboardVariablesDetail,
  ErrorDetail,
  LoadDetail,
  ReportBuilderElement,
  ReportSavedDetail,
  Variables,
} from "./index";

export type * from "./index";

/** What both components take besides their own: the service, the credential, the frame's look. */
interface FramedProps {
  /** The dashboard's (or blueprint's) embed id: `embed-id`. */
  embedId: string;
  /** Your endpoint answering GET with `{"token": "…"}`: `token-url`. */
  tokenUrl?: string;
  /** A signed embed token you already have, instead of `tokenUrl`. */
  token?: string;
  /** The service, e.g. `https://analytics.example.com`: `service-url` (else the one given to `defineEmbedElements`). */
  serviceUrl?: string;
  /** A fixed height (a number is px); without it the frame is as tall as the page. */
  height?: number | string;
  /** The frame's background before the page says its own. */
  background?: string;
  /** The iframe's accessible title. */
  title?: string;
  className?: string;
  style?: CSSProperties;
}

export interface DashboardEmbedProps extends FramedProps {
  /** A version tag (ignored when the token pins one). */
  environment?: string;
  /** The unlocked variables; a change (by value) shows the dashboard with them. */
  variables?: Variables;
  /** `dashboard-load`: shown, its fonts ready. */
  onLoad?: (event: CustomEvent<LoadDetail>) => void;
  /** `dashboard-error`. */
  onError?: (event: CustomEvent<ErrorDetail>) => void;
  /** `dashboard-click`: a click on a clickable mark, before any navigation. */
  onClick?: (event: CustomEvent<DashboardClickDetail>) => void;
  /** `dashboard-variables`: the unlocked variables changed in the frame. */
  onVariables?: (event: CustomEvent<DashboardVariablesDetail>) => void;
  /** `dashboard-navigate`: another dashboard is shown (a drill-through, or Back). */
  onNavigate?: (event: CustomEvent<DashboardNavigateDetail>) => void;
}

/** What a ref to `<DashboardEmbed>` holds. */
export interface DashboardEmbedHandle {
  /** Shows the dashboard with these unlocked variables (also after a drill-through moved the frame on). */
  setVariables(variables: Variables): void;
  /** The `<dashboard-embed>` element (null before it is mounted). */
  readonly element: DashboardEmbedElement | null;
}

export interface ReportBuilderProps extends FramedProps {
  /** A saved report to open (its id). */
  report?: string;
  /** `report-builder-load`. */
  onLoad?: (event: CustomEvent<LoadDetail>) => void;
  /** `report-builder-error`. */
  onError?: (event: CustomEvent<ErrorDetail>) => void;
  /** `report-saved`. */
  onSaved?: (event: CustomEvent<ReportSavedDetail>) => void;
}

/** What a ref to `<ReportBuilder>` holds. */
export interface ReportBuilderHandle {
  /** The `<report-builder>` element (null before it is mounted). */
  readonly element: ReportBuilderElement | null;
}

/** `<dashboard-embed>` as a React component. */
export declare const DashboardEmbed: ForwardRefExoticComponent<DashboardEmbedProps & RefAttributes<DashboardEmbedHandle>>;

/** `<report-builder>` as a React component. */
export declare const ReportBuilder: ForwardRefExoticComponent<ReportBuilderProps & RefAttributes<ReportBuilderHandle>>;

/** The same as the element bundle's: the default service of both components. */
export { defineEmbedElements } from "./index";
