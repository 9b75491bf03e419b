/**
 * A tokenizer for the SQL that vendors write into panels and blueprint tables, one per
 * dialect, following each database's own scanner where quoting is concerned (SQLite's
 * tokenize.c, PostgreSQL's scan.l, MySQL's sql_lex.cc, ClickHouse's Lexer.cpp): what one of them reads as a string, a quoted name or a
 * comment is exactly what is hidden here, and nothing more. At every position the construct
 * that starts first wins, so a quote inside a comment, or `--` inside a string, is just text.
 *
 * Written by hand: the SQL parsers on npm either follow one dialect loosely or build a full
 * syntax tree for a subset of SQL; the read-only check needs the exact token boundaries of
 * both databases and nothing else. Every construct is read in one forward pass with no
 * backtracking (no regular expression with nested quantifiers), so checking a query costs
 * time linear in its length whatever mix of quotes, blanks and comments it holds.
 */

import { placeholderAt } from "./placeholder-syntax";
import { clickhouseParameterEnd, dollarDelimiters, heredocEnd, type Delimiter } from "./sql-clickhouse";
import { isDigit, isNamePart, isNameStart, isSpace, mysqlLineCommentAt, stringContinuation } from "./sql-characters";

export type SqlDialect = "sqlite" | "postgres" | "mysql" | "clickhouse";

export type TokenKind =
  /** A bare word: keyword, name or function name. */
  | "word"
  /** A quoted name: `"…"` (SQLite, PostgreSQL), `[…]` (SQLite), `` `…` `` (SQLite, MySQL). `value` holds the name. */
  | "quoted"
  /** A string or blob literal, dollar-quoted text and MySQL's `"…"` included. */
  | "string"
  | "number"
  /** A bound parameter the database understands: `?`, `?1`, `:a`, `@a`, `$a` (SQLite), `$1` (PostgreSQL), `?` (MySQL). */
  | "param"
  /** One of our `{{…}}` placeholders (replaced by a parameter before the SQL is sent). */
  | "placeholder"
  /** Any other character: operators, parentheses, `;`, `,` … */
  | "symbol"
  /** A comment; `/*!…*\/`, `/*M!…*\/` and `/*+…*\/` in MySQL are code to that server (refused by the read-only rule). */
  | "comment"
  | "space";

export interface Token {
  kind: TokenKind;
  /** The token's text as written. */
  text: string;
  start: number;
  /** For quoted names: the name with its quoting removed. */
  value?: string;
  /** A name whose spelling is not its text (PostgreSQL's U&"…" escapes): it could be any name. */
  disguised?: true;
}

export interface Lexed {
  tokens: readonly Token[];
  /**
   * Set when the database itself would refuse to read the text (an unterminated string, a
   * character it has no token for): its tokens stop there, and that database runs nothing.
   */
  error?: string;
}

/** Texts up to this long are remembered once lexed (see `lexSql`); longer ones are lexed every time. */
const REMEMBERED_TEXT_CHARS = 20_000;
/** How many lexed texts are remembered; when full, the oldest is forgotten. */
const REMEMBERED_TEXTS = 1_000;
const lexedTexts = new Map<string, Readonly<Lexed>>();

/**
 * The tokens of `sql` as the given database reads them. A dashboard's panel texts are lexed
 * at every view and capture, four times each (placeholders, then the read-only rule on the
 * text as saved and as sent): the result, a pure function of the text, is remembered per
 * isolate and handed out frozen, so no caller can change what the next one reads.
 */
export function lexSql(sql: string, dialect: SqlDialect): Readonly<Lexed> {
  if (sql.length > REMEMBERED_TEXT_CHARS) return new Scanner(sql, dialect).run();
  const key = `${dialect}:${sql}`;
  const known = lexedTexts.get(key);
  if (known) return known;
  const lexed = new Scanner(sql, dialect).run();
  for (const token of lexed.tokens) Object.freeze(token);
  Object.freeze(lexed.tokens);
  const frozen = Object.freeze(lexed);
  if (lexedTexts.size >= REMEMBERED_TEXTS) lexedTexts.delete(lexedTexts.keys().next().value as string);
  lexedTexts.set(key, frozen);
  return frozen;
}

class Scanner {
  private pos = 0;
  private readonly tokens: Token[] = [];
  /** ClickHouse: where each `$…$` delimiter starts, by its text (built at the first `$`). */
  private dollars?: Map<string, Delimiter>;

  constructor(
    private readonly sql: string,
    private readonly dialect: SqlDialect,
  ) {}

  run(): Lexed {
    const { sql } = this;
    while (this.pos < sql.length) {
      const start = this.pos;
      const c = sql[start];
      const next = sql[start + 1] ?? "";
      let error: string | undefined;
      if (isSpace(c)) {
        while (this.pos < sql.length && isSpace(sql[this.pos])) this.pos++;
        this.push("space", start);
      } else if (c === "-" && next === "-" && (this.dialect !== "mysql" || mysqlLineCommentAt(sql, start))) {
        this.lineComment();
      } else if (this.dialect === "mysql" && c === "#") {
        this.lineComment();
      } else if (this.dialect === "clickhouse" && (c === "#" || (c === "/" && next === "/"))) {
        // ClickHouse: `//` always, `#` only before a blank or `!` (`#x` is a character it has no token for).
        if (c === "/" || next === " " || next === "!") this.lineComment();
        else {
          this.pos++;
          this.push("symbol", start);
          error = "ClickHouse cannot read '#' here";
        }
      } else if (c === "/" && next === "*") {
        error = this.blockComment();
      } else if (c === "{" && next === "{" && this.placeholder()) {
        // consumed
      } else if (c === "'") {
        error = this.string(start, this.dialect === "mysql" || this.dialect === "clickhouse");
      } else if (this.dialect === "mysql" && c === '"') {
        // MySQL's default sql_mode reads "…" as a string, with backslash escapes (the runner keeps that mode).
        error = this.string(start, true, '"');
      } else if (this.dialect === "postgres" && (c === "E" || c === "e") && next === "'") {
        this.pos++;
        error = this.string(start, true);
      } else if (
        this.dialect === "postgres" &&
        (c === "U" || c === "u") &&
        next === "&" &&
        (sql[start + 2] === "'" || sql[start + 2] === '"')
      ) {
        // U&'…' is an ordinary string; U&"…" a name whose escapes could spell any other name.
        this.pos += 2;
        if (sql[start + 2] === "'") error = this.string(start, false);
        else {
          error = this.quotedName('"', '"');
          const name = this.tokens[this.tokens.length - 1];
          name.start = start;
          name.text = sql.slice(start, this.pos);
          name.disguised = true;
        }
      } else if (this.dialect === "clickhouse" && (c === '"' || c === "`")) {
        // ClickHouse reads backslash escapes in quoted names too.
        error = this.quotedName(c, c, true);
      } else if (c === '"') {
        error = this.quotedName('"', '"');
      } else if (this.dialect !== "postgres" && c === "`") {
        error = this.quotedName("`", "`");
      } else if (this.dialect === "sqlite" && c === "[") {
        error = this.bracketName();
      } else if (this.dialect === "postgres" && c === "$") {
        this.dollar();
      } else if (this.dialect === "clickhouse" && c === "$" && this.heredoc()) {
        // consumed
      } else if (this.dialect === "clickhouse" && c === "{" && this.clickhouseParameter()) {
        // consumed
      } else if (this.dialect === "sqlite" && (c === "$" || c === "@" || c === ":" || c === "#")) {
        error = this.sqliteVariable();
      } else if (this.dialect !== "postgres" && this.dialect !== "clickhouse" && c === "?") {
        this.pos++;
        while (this.dialect === "sqlite" && isDigit(sql[this.pos] ?? "")) this.pos++;
        this.push("param", start);
      } else if (isNameStart(c)) {
        while (this.pos < sql.length && isNamePart(sql[this.pos])) this.pos++;
        this.push("word", start);
      } else if (isDigit(c) || (c === "." && isDigit(next))) {
        this.number();
      } else {
        this.pos++;
        this.push("symbol", start);
      }
      if (error) return { tokens: this.tokens, error };
    }
    return { tokens: this.tokens };
  }

  private push(kind: TokenKind, start: number, value?: string): void {
    const token: Token = { kind, text: this.sql.slice(start, this.pos), start };
    if (value !== undefined) token.value = value;
    this.tokens.push(token);
  }

  /** `--` (MySQL: also `#`; ClickHouse: also `//`, `# `) to the end of the line: PostgreSQL ends it at `\n` or `\r`, the others at `\n` only. */
  private lineComment(): void {
    const start = this.pos;
    const end = this.dialect === "postgres" ? /[\n\r]/g : /\n/g;
    end.lastIndex = start;
    const found = end.exec(this.sql);
    this.pos = found ? found.index : this.sql.length;
    this.push("comment", start);
  }

  /**
   * `/* … *\/`: nested in PostgreSQL and ClickHouse; in SQLite and MySQL the first `*\/` ends it. An open one runs to
   * the end in SQLite; the others refuse the text.
   */
  private blockComment(): string | undefined {
    const start = this.pos;
    const { sql } = this;
    let depth = 0;
    while (this.pos < sql.length) {
      if (sql.startsWith("/*", this.pos) && (depth === 0 || this.dialect === "postgres" || this.dialect === "clickhouse")) {
        depth++;
        this.pos += 2;
      } else if (sql.startsWith("*/", this.pos)) {
        depth--;
        this.pos += 2;
        if (depth === 0) break;
      } else {
        this.pos++;
      }
    }
    this.push("comment", start);
    if (depth > 0 && this.dialect !== "sqlite") return "unterminated /* comment";
    return undefined;
  }

  private placeholder(): boolean {
    const match = placeholderAt(this.sql, this.pos);
    if (!match) return false;
    this.pos = match.end;
    this.push("placeholder", match.start, match.path);
    return true;
  }

  /**
   * A string from its opening quote at `pos` (a prefix such as `E` starts at `start`). `''` is a quote in every
   * database; in PostgreSQL's `E'…'` and in MySQL's strings a backslash escapes the next character. PostgreSQL continues a
   * string across whitespace holding a line break (`'a'⏎'b'` is `'ab'`), in the same mode:
   * the continuation of an `E'…'` string honours backslashes too.
   */
  private string(start: number, escapes: boolean, quote = "'"): string | undefined {
    const { sql } = this;
    for (;;) {
      this.pos++; // the opening quote
      let closed = false;
      while (this.pos < sql.length) {
        const c = sql[this.pos];
        if (escapes && c === "\\") {
          this.pos += 2;
        } else if (c === quote && sql[this.pos + 1] === quote) {
          this.pos += 2;
        } else if (c === quote) {
          this.pos++;
          closed = true;
          break;
        } else {
          this.pos++;
        }
      }
      if (!closed) {
        this.push("string", start);
        return "unterminated string";
      }
      const continuation = this.dialect === "postgres" ? stringContinuation(sql, this.pos) : -1;
      if (continuation < 0) break;
      this.pos = continuation; // at the continuing segment's opening quote
    }
    this.push("string", start);
    return undefined;
  }

  /** `"…"` or `` `…` ``: the closing quote doubled stands for itself (ClickHouse: a backslash escapes the next character too). */
  private quotedName(open: string, close: string, escapes = false): string | undefined {
    const { sql } = this;
    const start = this.pos;
    this.pos += open.length;
    let name = "";
    while (this.pos < sql.length) {
      const c = sql[this.pos];
      if (escapes && c === "\\") {
        name += sql.slice(this.pos, this.pos + 2);
        this.pos += 2;
      } else if (c === close && sql[this.pos + 1] === close) {
        name += close;
        this.pos += 2;
      } else if (c === close) {
        this.pos++;
        this.push("quoted", start, name);
        return undefined;
      } else {
        name += c;
        this.pos++;
      }
    }
    this.push("quoted", start, name);
    return "unterminated quoted name";
  }

  /** SQLite's `[…]`: no escapes, the first `]` ends it. */
  private bracketName(): string | undefined {
    const start = this.pos;
    const end = this.sql.indexOf("]", start + 1);
    this.pos = end < 0 ? this.sql.length : end + 1;
    this.push("quoted", start, this.sql.slice(start + 1, end < 0 ? undefined : end));
    return end < 0 ? "unterminated [name]" : undefined;
  }

  /**
   * PostgreSQL at `$`: `$1` is a parameter, `$$` or `$tag$` opens text that only the same
   * `$tag$` closes. A `$` inside a name is part of that name (read with the word).
   */
  private dollar(): void {
    const { sql } = this;
    const start = this.pos;
    if (isDigit(sql[start + 1] ?? "")) {
      this.pos++;
      while (isDigit(sql[this.pos] ?? "")) this.pos++;
      this.push("param", start);
      return;
    }
    const tag = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;
    tag.lastIndex = start;
    const opening = tag.exec(sql);
    if (!opening) {
      this.pos++;
      this.push("symbol", start);
      return;
    }
    const close = sql.indexOf(opening[0], start + opening[0].length);
    // An open dollar quote makes the whole text unreadable to PostgreSQL.
    this.pos = close < 0 ? sql.length : close + opening[0].length;
    this.push("string", start);
  }

  /** ClickHouse's heredoc at `$` (sql-clickhouse.ts), read as text; false when the `$` opens none. */
  private heredoc(): boolean {
    this.dollars ??= dollarDelimiters(this.sql);
    const end = heredocEnd(this.sql, this.pos, this.dollars);
    if (end < 0) return false;
    const start = this.pos;
    this.pos = end;
    this.push("string", start);
    return true;
  }

  /** ClickHouse's server-side parameter `{name:Type}` (as vendor SQL may not write it, see sql-bind-parameters.ts). */
  private clickhouseParameter(): boolean {
    const end = clickhouseParameterEnd(this.sql, this.pos);
    if (end < 0) return false;
    const start = this.pos;
    this.pos = end;
    this.push("param", start);
    return true;
  }

  /**
   * SQLite's named parameters `$a`, `@a`, `:a`, `#a`, including its Tcl forms `$a::b` and
   * `$a(…)` (anything but white space up to `)`), read exactly as tokenize.c does.
   */
  private sqliteVariable(): string | undefined {
    const { sql } = this;
    const start = this.pos;
    let n = 0;
    let i = start + 1;
    for (; i < sql.length; i++) {
      const c = sql[i];
      if (isNamePart(c)) {
        n++;
      } else if (c === "(" && n > 0) {
        do i++;
        while (i < sql.length && !isSpace(sql[i]) && sql[i] !== ")");
        this.pos = i;
        if (sql[i] === ")") {
          this.pos = i + 1;
          this.push("param", start);
          return undefined;
        }
        this.push("param", start);
        return `SQLite cannot read '${sql.slice(start, i)}'`;
      } else if (c === ":" && sql[i + 1] === ":") {
        i++;
      } else {
        break;
      }
    }
    this.pos = i;
    this.push("param", start);
    return n === 0 ? `SQLite cannot read '${sql.slice(start, i)}'` : undefined;
  }

  /** Digits, a fraction and an exponent; never a quote, `$`, `-` or `/` (so never hides anything). */
  private number(): void {
    const start = this.pos;
    const match = /(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?/y;
    match.lastIndex = start;
    // number() is called on a digit (or '.' before one), so the pattern always matches.
    this.pos += match.exec(this.sql)?.[0].length ?? 1;
    this.push("number", start);
  }
}
