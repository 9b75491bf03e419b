/** The two constructs of ClickHouse's SQL (its Lexer.cpp) the lexer (sql-lexer.ts) reads with help from here. */

/** A heredoc delimiter's positions in one text. */
export interface Delimiter {
  /** Where the delimiter starts, in order. */
  at: number[];
  /** The first position not yet passed over by the scan. */
  next: number;
}

/**
 * Every `$…$` in the text (from one `$` to the next) by its text, with the positions it
 * starts at in order: a heredoc opened at one closes at the first later position of the same
 * text. The spans between consecutive `$` cover the text once, so this is linear.
 */
export function dollarDelimiters(sql: string): Map<string, Delimiter> {
  const found = new Map<string, Delimiter>();
  let at = sql.indexOf("$");
  while (at >= 0) {
    const next = sql.indexOf("$", at + 1);
    if (next < 0) break;
    const text = sql.slice(at, next + 1);
    const list = found.get(text);
    if (list) list.at.push(at);
    else found.set(text, { at: [at], next: 0 });
    at = next;
  }
  return found;
}

/**
 * ClickHouse at `$`: `$anything$` opens a heredoc (text) when the same `$anything$` follows
 * later; its end, or -1 (then the `$` is part of a name or a symbol). The scan only moves
 * forward, so each delimiter's positions are passed over once: linear in the text.
 */
export function heredocEnd(sql: string, start: number, delimiters: Map<string, Delimiter>): number {
  const nameEnd = sql.indexOf("$", start + 1);
  if (nameEnd < 0) return -1;
  const delimiter = sql.slice(start, nameEnd + 1);
  const known = delimiters.get(delimiter);
  if (!known) return -1;
  while (known.next < known.at.length && known.at[known.next] < start + delimiter.length) known.next++;
  const close = known.at[known.next];
  return close === undefined ? -1 : close + delimiter.length;
}

/** The end of a `{name:Type}` parameter at `pos`, or -1. No quote inside: what ClickHouse reads as a string must stay one. */
export function clickhouseParameterEnd(sql: string, pos: number): number {
  const match = /\{\s*[A-Za-z_][A-Za-z0-9_]*\s*:[^{}'"`]*\}/y;
  match.lastIndex = pos;
  const found = match.exec(sql);
  return found ? pos + found[0].length : -1;
}
