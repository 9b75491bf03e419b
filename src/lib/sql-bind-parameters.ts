import { lexSql, type Token } from "./sql-lexer";
import { readOnlyProblem } from "./sql-read-only";

/**
 * Vendor SQL brings no bind parameters of its own: its values come from our `{{…}}`
 * placeholders, which a run turns into parameters numbered in order. A `?`, `?3`, `$2`,
 * `:name`, `@name` or ClickHouse's `{name:Type}` written by hand would take one of those slots and shift every value
 * after it, so such SQL is refused when it is saved.
 *
 * Decided on the tokens each database reads (sql-lexer.ts), never on the raw text: a `?` in a
 * string, a comment or a quoted name is text, and PostgreSQL's `::type` cast is no `:name`.
 * A dialect's view counts only when that database can read the whole text; SQL that one of
 * them cannot read at all never runs there (and SQL neither reads is refused as not
 * read-only).
 */

const PARAMETER_ADVICE = "use placeholders such as {{customer.provided_id}}";

/**
 * Why `sql` holds a bind parameter of its own, or null when it holds none — or when it is not
 * one read-only statement at all: that graver problem is what its saving reports (422
 * query_not_read_only, checked after the request's shape).
 */
export function bindParameterProblem(sql: string): string | null {
  if (readOnlyProblem(sql) !== null) return null;
  const sqlite = lexSql(sql, "sqlite");
  const postgres = lexSql(sql, "postgres");
  const clickhouse = lexSql(sql, "clickhouse");
  const found =
    (sqlite.error === undefined ? sqliteParameter(sqlite.tokens, postgres.tokens) : undefined) ??
    (postgres.error === undefined ? postgresParameter(postgres.tokens) : undefined) ??
    // ClickHouse's `{name:Type}`: the service names its own parameters so.
    (clickhouse.error === undefined ? clickhouse.tokens.find((t) => t.kind === "param") : undefined);
  if (!found) return null;
  return `'${found.text.slice(0, 40)}' is a bind parameter; ${PARAMETER_ADVICE}`;
}

/**
 * SQLite's parameters: `?`, `?NNN`, `:name`, `@name`, and `$name` where PostgreSQL reads code
 * too (`$$…$$` is a string to PostgreSQL, which SQLite would bind: the `$` forms the rule
 * names are PostgreSQL's `$n`).
 */
function sqliteParameter(tokens: readonly Token[], postgresTokens: readonly Token[]): Token | undefined {
  let postgresAt: Map<number, Token> | undefined;
  return tokens.find((token) => {
    if (token.kind !== "param") return false;
    const sigil = token.text[0];
    if (sigil === "?" || sigil === ":" || sigil === "@") return true;
    if (sigil === "$") {
      postgresAt ??= new Map(postgresTokens.map((t) => [t.start, t]));
      // Inside a PostgreSQL string no token starts here; a dollar quote starts a string.
      const there = postgresAt.get(token.start);
      return there !== undefined && there.kind !== "string";
    }
    return false; // `#name`: PostgreSQL's `#` operator; the rule names the forms above
  });
}

/** Characters of PostgreSQL operators: an `@` right after one is part of an operator (`<@`). */
const OPERATOR_CHARACTERS = new Set("+-*/<>=~!@#%^&|`?");

/**
 * PostgreSQL's own parameters `$n`, and what other databases bind that PostgreSQL would read
 * as something else: `?` (also its jsonb operators — jsonb_exists() says the same),
 * `:name` (not the `::type` cast, not an array slice `a[1:n]`) and `@name` (not `<@`).
 */
function postgresParameter(tokens: readonly Token[]): Token | undefined {
  let brackets = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === "param") return token;
    if (token.kind !== "symbol") continue;
    const before = tokens[i - 1];
    const after = tokens[i + 1];
    const namedNext = after?.kind === "word";
    if (token.text === "[") brackets++;
    else if (token.text === "]") brackets = Math.max(0, brackets - 1);
    else if (token.text === "?") return token;
    else if (token.text === ":" && namedNext && brackets === 0 && !(before?.kind === "symbol" && before.text === ":"))
      return { ...token, text: `:${after.text}` };
    else if (token.text === "@" && namedNext && !(before?.kind === "symbol" && OPERATOR_CHARACTERS.has(before.text)))
      return { ...token, text: `@${after.text}` };
  }
  return undefined;
}
