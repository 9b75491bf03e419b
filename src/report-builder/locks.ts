import type { StoredTable } from "../blueprints/schemas";
import type { LockedFilter } from "../data/filters";
import { ApiError } from "../http/errors";
import { opFitsColumn } from "./filter-conditions";

/**
 * Locked filters are bound to the blueprint by name: each names a dataset and a column.
 * When `update_blueprint` renames or drops either, the filter would match no query and the
 * rows it hid would show; so a lock that no longer fits the blueprint refuses the whole
 * request (fails closed) instead of being skipped. Checked where every builder request opens
 * (builder-request.ts) and wherever a saved report runs with the locks stored on it.
 */
export function lockedFiltersFit(tables: StoredTable[], locks: readonly LockedFilter[]): boolean {
  return locks.every((lock) => {
    const column = tables.find((t) => t.dataset_name === lock.dataset)?.columns.find((c) => c.name === lock.column);
    return column !== undefined && opFitsColumn(lock.op, column);
  });
}

/** A locked filter with its keys in one order: two lists of the same filters compare equal however they were written. */
function canonical(lock: LockedFilter): string {
  return JSON.stringify(Object.fromEntries(Object.entries(lock).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

/** The same locked filters, in any order (what makes a token the owner of a saved report, with its user). */
export function sameLockedFilters(a: readonly LockedFilter[], b: readonly LockedFilter[]): boolean {
  const left = a.map(canonical).sort();
  const right = b.map(canonical).sort();
  return left.length === right.length && left.every((lock, i) => lock === right[i]);
}

/**
 * The locks a run of a saved report applies on its dataset: those it was saved under, with
 * (in the builder) the viewing token's own. All must fit the blueprint (else the run is refused).
 */
export function locksOnDataset(locks: readonly LockedFilter[], dataset: string) {
  return locks.filter((f) => f.dataset === dataset).map(({ dataset: _dataset, ...filter }) => filter);
}

/** A saved report whose stored locks no longer fit its blueprint: it does not run without them. */
export function staleReportLockError(): ApiError {
  return new ApiError(
    "dataset_data_unavailable",
    "A filter this report was saved under no longer fits its blueprint; the report does not run without it.",
    "report_id",
  );
}

/** The one answer to a builder token whose locks no longer fit its blueprint: the link must be minted anew. */
export function staleLockError(): ApiError {
  return new ApiError(
    "invalid_embed_token",
    "This report builder link locks a dataset or column its blueprint no longer has; ask for a new link.",
  );
}
