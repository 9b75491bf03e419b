import { env } from "cloudflare:test";
import { createConnection } from "mysql2/promise";

/**
 * The MySQL-protocol server of this test run (scripts/lib/local-mysql.mjs, started by
 * `npm test` or scripts/with-test-databases.mjs): WAREHOUSE_MYSQL is the read-only account panels
 * run as, WAREHOUSE_MYSQL_ADMIN the writing one the tests set their data up with. Without a
 * server the MySQL tests are reported skipped (and `.ci/run` fails the run).
 */
const bindings = env as unknown as { WAREHOUSE_MYSQL: Hyperdrive; WAREHOUSE_MYSQL_ADMIN?: Hyperdrive };
export const mysqlWarehouse = bindings.WAREHOUSE_MYSQL;
export const mysqlAvailable = bindings.WAREHOUSE_MYSQL_ADMIN !== undefined;
if (!mysqlAvailable)
  console.log("MySQL tests skipped: no server for this run (run them through `npm test` or scripts/with-test-databases.mjs).");

/** Runs statements (several allowed) as the tests' writing account; answers the last statement's rows. */
export async function onMysql<T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const admin = bindings.WAREHOUSE_MYSQL_ADMIN as Hyperdrive;
  const connection = await createConnection({
    host: admin.host,
    port: admin.port,
    user: admin.user,
    password: admin.password,
    database: admin.database,
    disableEval: true,
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  try {
    const [result] = await connection.query(text, values);
    const last = Array.isArray(result) && Array.isArray(result[result.length - 1]) ? result[result.length - 1] : result;
    return (Array.isArray(last) ? last : []) as T[];
  } finally {
    connection.destroy();
  }
}
