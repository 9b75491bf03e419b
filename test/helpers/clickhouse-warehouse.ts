import { env } from "cloudflare:test";

/**
 * The ClickHouse server of this test run (scripts/lib/local-clickhouse.mjs, started by
 * `npm test` or scripts/with-test-databases.mjs): the tests' own around the real engine (chdb),
 * or CLICKHOUSE_TEST_URL's. `reader` is the account panels run as (a plain user: the
 * service's `readonly=1` is what keeps it from writing), `setup` the one the tests write their
 * data with. Without a server the ClickHouse tests are reported skipped (and `.ci/run` fails).
 */
const vars = env as unknown as Record<string, string | undefined>;
export const clickhouseAvailable = vars.CLICKHOUSE_TEST_SERVER !== undefined;
if (!clickhouseAvailable)
  console.log("ClickHouse tests skipped: no server for this run (run them through `npm test` or scripts/with-test-databases.mjs).");

export const clickhouseServer = {
  url: vars.CLICKHOUSE_TEST_SERVER ?? "http://127.0.0.1:1",
  user: vars.CLICKHOUSE_TEST_USER ?? "reader",
  password: vars.CLICKHOUSE_TEST_PASSWORD ?? "",
};

/** Sends one statement over ClickHouse's HTTP interface as `account` with these URL settings; answers the status and text. */
export async function sendClickhouse(
  query: string,
  { account = "setup", settings = {} }: { account?: "setup" | "reader"; settings?: Record<string, string> } = {},
): Promise<{ status: number; text: string }> {
  const [user, password] =
    account === "setup"
      ? [vars.CLICKHOUSE_TEST_ADMIN_USER ?? "", vars.CLICKHOUSE_TEST_ADMIN_PASSWORD ?? ""]
      : [clickhouseServer.user, clickhouseServer.password];
  const response = await fetch(`${clickhouseServer.url}/?${new URLSearchParams(settings)}`, {
    method: "POST",
    body: query,
    headers: { "X-ClickHouse-User": user, "X-ClickHouse-Key": password },
  });
  return { status: response.status, text: await response.text() };
}

/** Runs statements one by one as the set-up account; throws on the first the server refuses. */
export async function onClickhouse(...statements: string[]): Promise<void> {
  for (const statement of statements) {
    const { status, text } = await sendClickhouse(statement);
    if (status !== 200) throw new Error(`ClickHouse refused ${statement.slice(0, 80)}: ${text}`);
  }
}

/** One JSON answer's rows, as the set-up account. */
export async function clickhouseRows<T = Record<string, unknown>>(query: string): Promise<T[]> {
  const { status, text } = await sendClickhouse(`${query} FORMAT JSON`, { settings: { output_format_json_quote_64bit_integers: "0" } });
  if (status !== 200) throw new Error(`ClickHouse refused ${query}: ${text}`);
  return (JSON.parse(text) as { data: T[] }).data;
}
