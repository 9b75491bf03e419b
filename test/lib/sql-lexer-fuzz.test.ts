import { describe, expect, it } from "vitest";
import { placeholderProblem, splitPlaceholders, NO_CUSTOMER } from "../../src/data/placeholders";
import { bindParameterProblem } from "../../src/lib/sql-bind-parameters";
import { lexSql } from "../../src/lib/sql-lexer";
import { readOnlyProblem } from "../../src/lib/sql-read-only";

/**
 * The checks every vendor query goes through when it is saved and run — both dialects'
 * tokens, the read-only rule, the bind-parameter rule, placeholders — on texts of up to the
 * longest query the API accepts, made of random mixes of quotes, blanks, comments and line
 * breaks. Each text must be checked within a few seconds: a backtracking pattern turns some
 * 43-character mixes into seconds, so these budgets fail loudly. Seeded: a failure names the
 * text's seed and length; the same seed replays it.
 */

/** A blueprint table's query may hold 100,000 characters; a panel's SQL 20,000. */
const MAX_QUERY_LENGTH = 100_000;
/**
 * For all the checks of one text together (seven passes of the lexer), with room for a busy
 * machine: on a quiet one the slowest text takes about 0.3 s, and two test files running at
 * once on a loaded 2-core machine stretched that to 1.35 s. A pattern that backtracks takes
 * seconds at 40 characters and never ends at 100,000, and a quadratic scan of 100,000
 * characters takes about 10 s, so 5 s still fails them loudly.
 */
const BUDGET_MS = 5_000;

const PIECES = [
  "'",
  "''",
  '"',
  "E'",
  "e'",
  "U&'",
  'U&"',
  "`",
  "[",
  "]",
  "$$",
  "$a$",
  "$1",
  "$",
  "?",
  ":",
  "::",
  "@",
  "#",
  " ",
  "  ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\f",
  "\v",
  "--",
  "-",
  "/*",
  "*/",
  "/",
  "*",
  "\\",
  "{{",
  "}}",
  "{{ customer.provided_id }}",
  "{{ a.",
  "x",
  "1",
  "1.5e",
  ".",
  ";",
  "(",
  ")",
  "SELECT ",
  "a'\n",
  "'\n  '",
];

function generator(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32: fast, deterministic, good enough to pick pieces
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

function randomText(seed: number, length: number): string {
  const random = generator(seed);
  // A few pieces per text, so long runs of the same mix (the pathological shape) are common.
  const palette = Array.from({ length: 1 + Math.floor(random() * 5) }, () => PIECES[Math.floor(random() * PIECES.length)]);
  let text = random() < 0.5 ? "SELECT " : "";
  while (text.length < length) text += palette[Math.floor(random() * palette.length)];
  return text.slice(0, length);
}

/** Every check a saved query meets, timed together. */
function checkAll(sql: string): number {
  const started = performance.now();
  lexSql(sql, "sqlite");
  lexSql(sql, "postgres");
  readOnlyProblem(sql);
  bindParameterProblem(sql);
  placeholderProblem(sql);
  splitPlaceholders(sql, NO_CUSTOMER, "postgres");
  return performance.now() - started;
}

describe("the SQL checks run in linear time (fuzz with a time budget)", () => {
  it("checks the review's case, a string then a line of blanks, grown to the longest query, within the budget", () => {
    expect(readOnlyProblem(`SELECT 'a'\n${" ".repeat(30)}x`)).toBeNull();
    for (const blanks of [30, 1_000, MAX_QUERY_LENGTH - 12]) {
      const sql = `SELECT 'a'\n${" ".repeat(blanks)}x`;
      expect([blanks, checkAll(sql)]).toEqual([blanks, expect.any(Number)]);
      expect(checkAll(sql)).toBeLessThan(BUDGET_MS);
    }
  });

  it.each([
    ["strings continued across blank lines", "'a'\n \t\n"],
    ["line comments between continued strings", "'a' -- c\n"],
    ["open line comments", "--"],
    ["open block comments", "/*"],
    ["unclosed placeholders", "{{ a."],
    ["braces and blanks", "{{ "],
    ["dollar signs", "$a"],
    ["SQLite variables", "$a::"],
    ["escaped strings", "E'\\'"],
    ["quoted names", '"a""'],
    ["ClickHouse heredoc delimiters", "$a$ "],
    ["ClickHouse parameters left open", "{a:"],
    ["ClickHouse # marks", "#x "],
  ])("checks %s repeated to the longest query within the budget", (_name, unit) => {
    const sql = `SELECT ${unit.repeat(Math.ceil(MAX_QUERY_LENGTH / unit.length))}`.slice(0, MAX_QUERY_LENGTH);
    expect(checkAll(sql)).toBeLessThan(BUDGET_MS);
  });

  it("checks random mixes of quotes, blanks, comments and line breaks up to the longest query within the budget", () => {
    const SEED = 2026_11_26;
    for (let run = 0; run < 120; run++) {
      const seed = SEED + run;
      const random = generator(seed * 7);
      // Mostly short texts (where a pattern's blow-up shows at 40 characters), some of every length up to the maximum.
      const length = run % 4 === 0 ? Math.floor(random() * MAX_QUERY_LENGTH) + 1 : Math.floor(random() * 200) + 1;
      const sql = randomText(seed, length);
      const took = checkAll(sql);
      expect({ seed, length, took: took < BUDGET_MS }).toEqual({ seed, length, took: true });
    }
  });

  it("keeps its results on a string continued on the next line (control)", () => {
    expect(lexSql("SELECT 'a'\n  -- note\n  'b' AS s", "postgres").tokens.filter((t) => t.kind === "string")).toHaveLength(1);
    expect(lexSql("SELECT 'a'  'b' AS s", "postgres").tokens.filter((t) => t.kind === "string")).toHaveLength(2);
    expect(lexSql("SELECT 'a'\n  'b' AS s", "sqlite").tokens.filter((t) => t.kind === "string")).toHaveLength(2);
    expect(lexSql("SELECT {{ customer.properties.plan-tier }} AS p", "sqlite").tokens[2]).toMatchObject({
      kind: "placeholder",
      value: "customer.properties.plan-tier",
    });
  });
});
