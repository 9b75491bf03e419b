import type { StoredTable } from "../blueprints/schemas";
import type { BoundLockedFilter, LockedFilter } from "../data/filters";
import { ApiError } from "../http/errors";
import { sha256Hex } from "../lib/crypto";
import { opFitsColumn } from "./filter-conditions";

/**
 * A locked filter names a dataset and a column, but it belongs to the table and column it
 * was minted on (docs/report-builder.md): each lock carries `table`, a fingerprint of that table's
 * `table_name`, `schema_id` and `query` and of the column's name and type. After
 * `update_blueprint` renamed the table, gave its dataset name to another table, or renamed,
 * swapped or retyped the column, the fingerprint of what the names now point at differs, and
 * the lock refuses the whole request (fails closed) instead of filtering rows of another table
 * or column — while the table it was made on may sit, unlocked, under a new name. Checked
 * where every builder request opens (builder-request.ts) and wherever a saved report runs
 * with the locks stored on it.
 */

/** What makes a blueprint table the same table: where its rows come from, not what it is called. */
const tableSource = (table: StoredTable) => JSON.stringify([table.table_name, table.schema_id, table.query]);

/** The fingerprint of a table and one of its columns (name and type): 128 bits of SHA-256, hex. */
async function fingerprint(table: StoredTable, column: StoredTable["columns"][number]): Promise<string> {
  return (await sha256Hex(JSON.stringify([tableSource(table), column.name, column.type]))).slice(0, 32);
}

/**
 * The locks to sign into a token, each bound to the table and column it names now (the names
 * were checked by the caller). A table whose rows another dataset of the blueprint reads too
 * cannot be locked: the same rows would be open under the other name.
 */
export async function bindLocks(tables: StoredTable[], locks: readonly LockedFilter[]): Promise<BoundLockedFilter[]> {
  return Promise.all(
    locks.map(async (lock, i) => {
      const table = tables.find((t) => t.dataset_name === lock.dataset);
      const column = table?.columns.find((c) => c.name === lock.column);
      if (!table || !column) throw new ApiError("validation_error", `filters.${i}: no such dataset or column.`, `filters.${i}.dataset`);
      const twin = tables.find((t) => t !== table && tableSource(t) === tableSource(table));
      if (twin) {
        throw new ApiError(
          "validation_error",
          `filters.${i}.dataset: dataset '${twin.dataset_name}' reads the same table as '${lock.dataset}'; a lock on one would leave the other open.`,
          `filters.${i}.dataset`,
        );
      }
      return { ...lock, table: await fingerprint(table, column) };
    }),
  );
}

/**
 * Whether every lock still holds on the blueprint as it is: its dataset and column there, the
 * op fitting the column's type, and — for a bound lock — the same table and column as when it
 * was minted, read by no other dataset. `unbound: "by name"` admits locks without a fingerprint
 * (saved reports stored before locks were bound) on their names alone; a token's locks are
 * always bound.
 */
export async function lockedFiltersFit(
  tables: StoredTable[],
  locks: readonly BoundLockedFilter[],
  unbound: "refused" | "by name" = "refused",
): Promise<boolean> {
  const fits = await Promise.all(
    locks.map(async (lock) => {
      const table = tables.find((t) => t.dataset_name === lock.dataset);
      const column = table?.columns.find((c) => c.name === lock.column);
      if (!table || !column || !opFitsColumn(lock.op, column)) return false;
      if (lock.table === undefined) return unbound === "by name";
      if (tables.some((t) => t !== table && tableSource(t) === tableSource(table))) return false;
      return lock.table === (await fingerprint(table, column));
    }),
  );
  return fits.every(Boolean);
}

/** A lock as the API and the page show it: without its fingerprint (which names nothing a caller sets). */
export function lockView({ table: _table, ...lock }: BoundLockedFilter): LockedFilter {
  return lock;
}

/** A locked filter with its keys in one order: two lists of the same filters compare equal however they were written. */
function canonical(lock: BoundLockedFilter): string {
  return JSON.stringify(Object.fromEntries(Object.entries(lockView(lock)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

/** The same locked filters, in any order (what makes a token the owner of a saved report, with its user). */
export function sameLockedFilters(a: readonly BoundLockedFilter[], b: readonly BoundLockedFilter[]): boolean {
  const left = a.map(canonical).sort();
  const right = b.map(canonical).sort();
  return left.length === right.length && left.every((lock, i) => lock === right[i]);
}

/**
 * The locks a run of a saved report applies on its dataset: those it was saved under, with
 * (in the builder) the viewing token's own. All must fit the blueprint (else the run is refused).
 */
export function locksOnDataset(locks: readonly BoundLockedFilter[], dataset: string) {
  return locks.filter((f) => f.dataset === dataset).map(({ dataset: _dataset, table: _table, ...filter }) => filter);
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
    "This report builder link locks a dataset or column its blueprint no longer has as it was; ask for a new link.",
  );
}
