#!/usr/bin/env node
// The tests' ClickHouse server (docs/clickhouse.md, "The tests' server"): the real ClickHouse
// engine (chdb, the engine as a library, from the npm registry) behind the part of
// ClickHouse's HTTP interface that @clickhouse/client-web uses. The engine does all the SQL
// work — parsing, parameters, settings, `readonly`, time limits, errors; this file is only
// the transport, and it is the tests' own:
//   - POST (or GET) `/` with the query in the body (and/or the `query` URL parameter);
//   - `param_<name>` URL parameters for `{name:Type}`, in ClickHouse's escaped text form (`\N` is NULL);
//   - `database` and every other URL parameter as a setting of that request (`readonly` applied
//     last, so the request's own limits are set first, as the server checks them all at once);
//     a GET request is `readonly=2` unless it says otherwise, as ClickHouse's;
//   - users by `X-ClickHouse-User`/`X-ClickHouse-Key`, HTTP Basic or `user`/`password` parameters;
//   - answers in the format the query names (`FORMAT JSON` from the client), errors as
//     ClickHouse writes them (`Code: N. DB::Exception: <user>: … (NAME) (version …)`) with
//     `X-ClickHouse-Exception-Code` and ClickHouse's status for the code.
// Each request runs in a fresh engine session, so no request's settings or database stay behind.
// Not the tests' business and not here: TLS, compression, sessions (`session_id`), multipart
// parameters, progress headers, the native protocol.
//
// Started by scripts/lib/local-clickhouse.mjs:
//   node scripts/lib/clickhouse-test-server.mjs <data dir> <users JSON>   → prints {"port":N} once listening
import { createServer } from "node:http";
import { Session } from "chdb";

const [dataDir, usersJson] = process.argv.slice(2);
/** `{ name: { password } }`: plain users, as a server's with the default profile: what a request may do is what its settings allow. */
const users = JSON.parse(usersJson ?? "{}");

/** URL parameters that are not settings (HTTPHandler.cpp's reserved names, and the transport's own). */
const NOT_SETTINGS = new Set([
  "query",
  "database",
  "default_format",
  "query_id",
  "session_id",
  "session_timeout",
  "session_check",
  "user",
  "password",
  "quota_key",
  "buffer_size",
  "wait_end_of_query",
  "compress",
  "decompress",
  "role",
  "stacktrace",
  "enable_http_compression",
]);

/** ClickHouse's HTTP status for an error code (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp, the codes the tests meet). */
function statusFor(code) {
  if (code === 194) return 401;
  if ([192, 193, 516, 497].includes(code)) return 403;
  if ([36, 6, 8, 27, 44, 53, 62, 69, 117].includes(code)) return 400;
  if ([46, 47, 50, 56, 60, 63, 73, 81, 115].includes(code)) return 404;
  if (code === 159) return 408;
  return 500;
}

/** `\N` is NULL; backslash escapes as ClickHouse's escaped text format reads them. */
function unescapeParam(text) {
  if (text === "\\N") return null;
  const escapes = { 0: "\0", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
  return text.replace(/\\(.)/gs, (_, c) => escapes[c] ?? c);
}

function credentials(request, url) {
  const user = request.headers["x-clickhouse-user"];
  if (user !== undefined) return { user, password: request.headers["x-clickhouse-key"] ?? "" };
  const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? "");
  if (basic) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const at = decoded.indexOf(":");
    return { user: decoded.slice(0, at < 0 ? undefined : at), password: at < 0 ? "" : decoded.slice(at + 1) };
  }
  return { user: url.searchParams.get("user") ?? "default", password: url.searchParams.get("password") ?? "" };
}

function settingValue(value) {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

const quotedName = (name) => `\`${name.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``;

const CONTENT_TYPES = { JSON: "application/json; charset=UTF-8", JSONCompact: "application/json; charset=UTF-8" };

class ServerError extends Error {
  constructor(code, name, message) {
    super(message);
    this.clickhouseCode = code;
    this.errorName = name;
  }
}

async function answer(request, body) {
  const url = new URL(request.url ?? "/", "http://localhost");
  if (url.pathname === "/ping" || (request.method === "GET" && !url.searchParams.has("query"))) return { status: 200, body: "Ok.\n" };
  const { user, password } = credentials(request, url);
  const account = Object.hasOwn(users, user) ? users[user] : undefined;
  if (!account || account.password !== password)
    throw new ServerError(
      516,
      "AUTHENTICATION_FAILED",
      `${user}: Authentication failed: password is incorrect, or there is no user with such name.`,
    );
  const query = [url.searchParams.get("query"), body].filter((part) => part).join("\n");
  const params = {};
  const settings = [];
  for (const [name, value] of url.searchParams) {
    if (name.startsWith("param_")) params[name.slice(6)] = unescapeParam(value);
    else if (!NOT_SETTINGS.has(name) && !name.startsWith("http_")) settings.push([name, value]);
  }
  if (request.method === "GET" && !settings.some(([name]) => name === "readonly")) settings.push(["readonly", "2"]);
  for (const [name] of settings)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ServerError(115, "UNKNOWN_SETTING", `Unknown setting '${name}'.`);
  settings.sort(([a], [b]) => (a === "readonly") - (b === "readonly"));
  const session = new Session(dataDir);
  try {
    const database = url.searchParams.get("database");
    if (database) await session.queryAsync(`USE ${quotedName(database)}`);
    const sets = settings.map(([name, value]) => `SET ${name} = ${settingValue(value)}`);
    if (sets.length > 0) await session.queryAsync(sets.join("; "));
    const format = url.searchParams.get("default_format") ?? "TabSeparated";
    const result =
      Object.keys(params).length > 0
        ? await session.queryBindAsync(query, params, { format })
        : await session.queryAsync(query, { format });
    const named = /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(query)?.[1] ?? format;
    return {
      status: 200,
      body: Buffer.from(result.bytes()),
      headers: {
        "Content-Type": CONTENT_TYPES[named] ?? "text/plain; charset=UTF-8",
        "X-ClickHouse-Format": named,
        "X-ClickHouse-Summary": JSON.stringify({
          read_rows: String(result.rowsRead),
          read_bytes: String(result.bytesRead),
          elapsed_ns: String(Math.round(result.elapsed * 1e9)),
        }),
      },
    };
  } catch (error) {
    // The engine's session user is `default`: its messages name the request's user, as a server's do.
    const message = String(error.message ?? error)
      .replace(/^Code: \d+\. DB::Exception: /, "")
      .replaceAll("default: ", `${user}: `);
    throw new ServerError(error.clickhouseCode ?? 1001, null, message);
  } finally {
    session.close();
  }
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", async () => {
    const queryId = new URL(request.url ?? "/", "http://localhost").searchParams.get("query_id") ?? crypto.randomUUID();
    try {
      const result = await answer(request, Buffer.concat(chunks).toString("utf8"));
      response.writeHead(result.status, { "X-ClickHouse-Query-Id": queryId, ...(result.headers ?? {}) });
      response.end(result.body);
    } catch (error) {
      const code = error.clickhouseCode ?? 1001;
      const name = error.errorName ? ` (${error.errorName})` : "";
      const text = `Code: ${code}. DB::Exception: ${error.message}${name} (version chdb test server)\n`;
      if (!response.headersSent) {
        response.writeHead(statusFor(code), {
          "Content-Type": "text/plain; charset=UTF-8",
          "X-ClickHouse-Exception-Code": String(code),
          "X-ClickHouse-Query-Id": queryId,
        });
      }
      response.end(text);
    }
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
