/** The builder page's state: what the server handed it, the controls' choices, the result shown. Rebuilt into the DOM by controls.ts and result.ts. */
import { type Chart, type Query, type SortKey, blankState } from "./query";
import type { Dataset } from "./vocabulary";

/** A filter the token always applies (shown, not editable). */
export interface LockedFilter {
  dataset: string;
  column: string;
  op: string;
  value?: unknown;
  values?: unknown[];
}

/** What the page starts with (the JSON in `#rb-boot`, written by src/report-builder/page.ts). */
export interface Boot {
  base: string;
  can_save: boolean;
  datasets?: Dataset[] | null;
  locked_filters?: LockedFilter[];
  reports?: SavedReport[] | null;
  report: string | null;
  /** The view's locale and our own words in its language (`builder.*` of the catalogue, without the prefix). */
  locale?: string;
  words?: Record<string, string>;
}

/** A saved report as the service lists it; its query may name what is gone (a "broken" report). */
export interface SavedReport {
  id: string;
  name: string;
  query?: SavedQuery;
  chart?: { type?: string };
}

export interface SavedQuery {
  dataset: string;
  columns?: string[];
  group_by?: { column: string; bucket?: string }[];
  values?: { aggregate: string; column?: string }[];
  filters?: { column: string; op: string; value?: unknown; values?: unknown[] }[];
  sort?: SortKey[];
}

/** `/view`'s answer: the rows and the chart drawn by the service. */
export interface ViewAnswer {
  columns: { name: string; display_name: string; type: string }[];
  rows: Record<string, unknown>[];
  row_count: number;
  truncated: boolean;
  chart_html: string;
}

export const page = {
  canSave: true,
  lockedFilters: [] as LockedFilter[],
  datasets: [] as Dataset[],
  /** The blueprint's saved reports; null when they could not be loaded. */
  reports: [] as SavedReport[] | null,
  state: blankState(""),
  /** The saved report open, if any. */
  current: null as SavedReport | null,
  result: null as { query: Query; chart: Chart; note: string; answer: ViewAnswer } | null,
  problem: null as { text: string; retry?: boolean } | null,
  busy: false,
  inflight: null as AbortController | null,
  /** Counts runs: only the latest one's answer is shown. */
  generation: 0,
  editing: null as { id: string; kind: "rename" | "delete" } | null,
  notice: "",
  /** "dataset/column" → the column's values, or where loading them is. */
  distinct: {} as Record<string, string[] | "loading" | "failed">,
};

export function datasetByName(name: string | undefined): Dataset | null {
  for (const dataset of page.datasets) if (dataset.name === name) return dataset;
  return null;
}

export function currentDataset(): Dataset | null {
  return datasetByName(page.state.dataset);
}
