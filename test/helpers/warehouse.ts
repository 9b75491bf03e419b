import { env } from "cloudflare:test";
import pg from "pg";
import { expect } from "vitest";
import { workersSocket } from "../../src/data/sources/postgres";

/** The local PostgreSQL behind the WAREHOUSE Hyperdrive binding, for setting up and checking test data. */
export const warehouse = (env as unknown as { WAREHOUSE: Hyperdrive }).WAREHOUSE;

/** Runs statements on the local PostgreSQL as the test's own (writing) session. */
export async function onWarehouse<T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({
    connectionString: warehouse.connectionString,
    stream: workersSocket,
  } as pg.ClientConfig);
  // The socket reports the read it was waiting on when the connection ends; nothing to do then.
  client.on("error", () => {});
  await client.connect().catch((error: Error) => {
    throw new Error(noWarehouse(error));
  });
  try {
    const result = await client.query(text, values);
    // A multi-statement text answers with one result per statement; the last one is wanted.
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    return last.rows as T[];
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Why a PostgreSQL test cannot start, and how to run it: `npm test` starts (or finds) the local
 * PostgreSQL before vitest; a file run alone needs scripts/with-test-databases.mjs to do the same.
 * (The binding's own connection string names Hyperdrive's local proxy, not the server.)
 */
function noWarehouse(error: Error): string {
  const file = expect.getState().testPath?.replace(/^.*?(?=test\/)/, "") ?? "<test file>";
  return (
    `No PostgreSQL answers for the WAREHOUSE binding (${error.message}): its local database is wrangler.toml's ` +
    "localConnectionString, or CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE. Run PostgreSQL tests through `npm test`, " +
    `or this file with its database servers started for it: node scripts/with-test-databases.mjs npx vitest run --project workers ${file}`
  );
}
