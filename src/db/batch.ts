import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "./client";

/** A statement that can go into a D1 batch (any query of the builder, or a raw `sql` one). */
export type Statement = BatchItem<"sqlite">;

/** What a list of statements answers: one result per statement, in order (a tuple stays a tuple). */
export type Results<T extends readonly Statement[]> = { -readonly [J in keyof T]: T[J] extends Statement ? T[J]["_"]["result"] : never };

/** What `batchLists` answers: the results of each list, list by list. */
export type ListResults<L extends readonly (readonly Statement[])[]> = {
  -readonly [K in keyof L]: L[K] extends readonly Statement[] ? Results<L[K]> : never;
};

function isNonEmpty<T>(items: T[]): items is [T, ...T[]] {
  return items.length > 0;
}

/**
 * Lists of statements — each a tuple written in place or an array built in a loop — in one
 * D1 round trip, their results handed back list by list. Why not `db.batch` itself: it is
 * typed for one non-empty tuple written in place, so statements gathered in arrays needed a
 * cast to reach it, and their results a cast back. No statement at all is no round trip.
 */
export async function batchLists<const L extends readonly (readonly Statement[])[]>(db: Database, lists: L): Promise<ListResults<L>> {
  const statements: Statement[] = lists.flat();
  const results: unknown[] = isNonEmpty(statements) ? await db.batch(statements) : [];
  const starts = lists.map((_, i) => lists.slice(0, i).reduce((sum, list) => sum + list.length, 0));
  const grouped = lists.map((list, i) => results.slice(starts[i], starts[i] + list.length));
  // The one assertion: `map` cannot say that it keeps the tuple's shape. Each slice holds the
  // results of its own list's statements, in their order (D1 answers a batch in order).
  return grouped as ListResults<L>;
}
