// What the editor holds for one dashboard: the working definition, the newest saved one, the
// problems the API's own validation found, who the preview is drawn for. Every view of the
// editor reads this and calls `changed()` after an edit; the editor redraws and follows.

export type Json = Record<string, unknown>;

export interface Layout {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Panel extends Json {
  id: string;
  type: string;
  title?: string;
  layout: Layout;
}

export interface Definition extends Json {
  title?: string;
  panels: Panel[];
  variables?: Json[];
  translations?: Record<string, Record<string, string>>;
}

/** One problem as /admin/dashboard_checks/ reports it (`field` is the path in the file: `definition.panels.3.sql`). */
export interface Problem {
  field: string;
  panel_index: number | null;
  panel_id: string | null;
  message: string;
}

export interface Customer {
  provided_id: string;
  name: string;
  access_group: string | null;
}

export interface EditorState {
  embedId: string;
  name: string;
  definition: Definition;
  /** The newest saved version's definition (null before the first save) and its number. */
  saved: Definition | null;
  savedVersion: number | null;
  selected: number;
  problems: Problem[];
  customer: Customer | null;
  presentation: { theme?: string; locale?: string; timezone?: string };
  variables: Record<string, string>;
  /** The last "Check all customers" per definition (its canonical JSON): how many problems it found. */
  checks: Map<string, number>;
}

/** A definition's path as the console shows it: the file's `definition.` left off (`panels.3.sql`). */
export const shownPath = (field: string): string => field.replace(/^definition\./, "");

/** JSON with object keys sorted: two values are the same when these are equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Json)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

export const unsaved = (state: EditorState): boolean => state.saved === null || canonical(state.saved) !== canonical(state.definition);

export const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A new dashboard's first definition: one text panel, valid as it is. */
export function emptyDefinition(name: string): Definition {
  return {
    title: name,
    panels: [{ id: "intro", type: "text", title: "Introduction", text: "Describe this dashboard.", layout: { x: 0, y: 0, w: 12, h: 2 } }],
  };
}
