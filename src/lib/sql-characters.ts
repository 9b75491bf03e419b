/** The characters of SQL text as the lexer (sql-lexer.ts) classifies them, and the few lookaheads it needs. */

/** Letters, `_` and every non-ASCII character start a name in both databases. */
export function isNameStart(c: string): boolean {
  const code = c.charCodeAt(0);
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code >= 0x80;
}
/** …and digits and `$` continue one. */
export const isNamePart = (c: string) => isNameStart(c) || isDigit(c) || c === "$";
export const isDigit = (c: string) => c >= "0" && c <= "9";
export const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";

/**
 * MySQL reads `--` as a comment only when a blank or control character (or the end of the text)
 * follows: `1--1` is 1 minus -1 there (sql_lex.cc), and a quote right after `--` opens a string.
 */
export function mysqlLineCommentAt(sql: string, start: number): boolean {
  const after = sql.charCodeAt(start + 2);
  return Number.isNaN(after) || after <= 0x20 || after === 0x7f;
}

/**
 * Where PostgreSQL continues a string that closed at `end`: white space holding a line break
 * (`--` comments allowed), then a quote. Returns that quote's position, or -1. (scan.l:
 * quotecontinue = whitespace_with_newline quote.) A plain loop: the regular expression it
 * replaces nested quantifiers over blanks and backtracked exponentially on long runs of them.
 */
export function stringContinuation(sql: string, end: number): number {
  let i = end;
  let lineBreak = false;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "\n" || c === "\r") {
      lineBreak = true;
      i++;
    } else if (c === " " || c === "\t" || c === "\f" || c === "\v") {
      i++;
    } else if (c === "-" && sql[i + 1] === "-") {
      i += 2;
      while (i < sql.length && sql[i] !== "\n" && sql[i] !== "\r") i++;
    } else {
      break;
    }
  }
  return lineBreak && sql[i] === "'" ? i : -1;
}
