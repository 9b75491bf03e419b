import { and, or, type SQL, sql } from "drizzle-orm";

/**
 * Drizzle's `and()`/`or()` answer `undefined` when every condition is left out, so their
 * result cannot be passed where a condition must be. These answer what the empty case means
 * in SQL instead: all of nothing holds, any of nothing does not.
 */
export const allOf = (...conditions: (SQL | undefined)[]): SQL => and(...conditions) ?? sql`1 = 1`;
export const anyOf = (...conditions: (SQL | undefined)[]): SQL => or(...conditions) ?? sql`1 = 0`;
