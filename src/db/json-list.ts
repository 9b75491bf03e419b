import { sql, type SQL } from "drizzle-orm";

/**
 * `(SELECT value FROM json_each(?))`: a list bound as one JSON parameter, for `inArray`.
 * Raw because the builder binds a list item by item, and D1 allows 100 bound parameters
 * per statement (a customer alone may name 100 group tags).
 */
export function jsonList(values: readonly (string | number)[]): SQL {
  return sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;
}
