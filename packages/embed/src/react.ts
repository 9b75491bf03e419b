// The React components (dist/react.js; declared in ../react.d.ts): each renders its custom
// element with the props as its attributes and listens to its events. Written without JSX, so
// the package needs no JSX setting of the app's; React is the app's own (a peer dependency).
import { createElement, forwardRef, type RefObject, useEffect, useImperativeHandle, useRef } from "react";
import type * as Declared from "../react";
import { defineEmbedElements } from "./index";

defineEmbedElements();

export { defineEmbedElements };

type Listener = ((event: CustomEvent) => void) | undefined;

/**
 * Listens to `events` (event name → the prop's current handler) on the element: attached once,
 * each call going to the handler of the latest render (so an inline arrow function re-attaches nothing).
 */
function useElementEvents(element: RefObject<HTMLElement | null>, events: Record<string, Listener>): void {
  const latest = useRef(events);
  useEffect(() => {
    latest.current = events;
  });
  const names = Object.keys(events).join(" ");
  useEffect(() => {
    const target = element.current;
    if (!target) return;
    const attached = names.split(" ").map((name) => {
      const listener = (event: Event) => latest.current[name]?.(event as CustomEvent);
      target.addEventListener(name, listener);
      return () => target.removeEventListener(name, listener);
    });
    return () => {
      for (const detach of attached) detach();
    };
  }, [element, names]);
}

/** The attributes both elements take, from the props (undefined: no attribute). */
function framedAttributes(props: Declared.DashboardEmbedProps | Declared.ReportBuilderProps): Record<string, unknown> {
  return {
    "embed-id": props.embedId,
    "token-url": props.tokenUrl,
    token: props.token,
    "service-url": props.serviceUrl,
    height: props.height === undefined ? undefined : String(props.height),
    background: props.background,
    title: props.title,
    className: props.className,
    style: props.style,
  };
}

export const DashboardEmbed = forwardRef<Declared.DashboardEmbedHandle, Declared.DashboardEmbedProps>(function DashboardEmbed(props, ref) {
  const element = useRef<Declared.DashboardEmbedElement | null>(null);
  useImperativeHandle(
    ref,
    () => ({
      setVariables: (variables) => element.current?.setVariables(variables),
      get element() {
        return element.current;
      },
    }),
    [],
  );
  useElementEvents(element, {
    "dashboard-load": props.onLoad as Listener,
    "dashboard-error": props.onError as Listener,
    "dashboard-click": props.onClick as Listener,
    "dashboard-variables": props.onVariables as Listener,
    "dashboard-navigate": props.onNavigate as Listener,
  });
  // By value: a new object with the same variables changes no attribute, so the dashboard is not loaded again.
  const variables = props.variables === undefined ? undefined : JSON.stringify(props.variables);
  return createElement("dashboard-embed", {
    ref: element,
    ...framedAttributes(props),
    environment: props.environment,
    variables,
  });
});

export const ReportBuilder = forwardRef<Declared.ReportBuilderHandle, Declared.ReportBuilderProps>(function ReportBuilder(props, ref) {
  const element = useRef<Declared.ReportBuilderElement | null>(null);
  useImperativeHandle(
    ref,
    () => ({
      get element() {
        return element.current;
      },
    }),
    [],
  );
  useElementEvents(element, {
    "report-builder-load": props.onLoad as Listener,
    "report-builder-error": props.onError as Listener,
    "report-saved": props.onSaved as Listener,
  });
  return createElement("report-builder", { ref: element, ...framedAttributes(props), report: props.report });
});

// The components answer to the declarations the package ships (a type error here means they disagree).
DashboardEmbed satisfies typeof Declared.DashboardEmbed;
ReportBuilder satisfies typeof Declared.ReportBuilder;
