import { env } from "cloudflare:test";
import pg from "pg";
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
  await client.connect();
  try {
    const result = await client.query(text, values);
    // A multi-statement text answers with one result per statement; the last one is wanted.
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    return last.rows as T[];
  } finally {
    await client.end().catch(() => {});
  }
}
