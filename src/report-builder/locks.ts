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

/** The one answer to a builder token whose locks no longer fit its blueprint: the link must be minted anew. */
export function staleLockError(): ApiError {
  return new ApiError(
    "invalid_embed_token",
    "This report builder link locks a dataset or column its blueprint no longer has; ask for a new link.",
  );
}
