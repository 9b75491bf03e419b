/**
 * The spelling of our `{{…}}` placeholders — `{{ path }}`, the path a name and then
 * dot-separated segments (`customer.properties.plan-tier`) — read by a hand-written scanner
 * rather than a regular expression: one pass over the text, no backtracking, so a text of any
 * length made of any mix of braces, blanks and dots is read in linear time.
 */

export interface PlaceholderMatch {
  /** The placeholder's path, without the braces and blanks around it. */
  path: string;
  /** Where `{{` starts and where the text after `}}` starts. */
  start: number;
  end: number;
}

/** White space as a regular expression's `\s` knows it (the spelling has always allowed any). */
const isBlank = (c: string | undefined) => c !== undefined && /\s/.test(c);
const isNameStart = (c: string | undefined) => c !== undefined && /[A-Za-z_]/.test(c);
const isNamePart = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);
const isSegmentPart = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_-]/.test(c);

/** The placeholder that starts exactly at `start` (at its `{{`), or null. */
export function placeholderAt(text: string, start: number): PlaceholderMatch | null {
  if (text[start] !== "{" || text[start + 1] !== "{") return null;
  let i = start + 2;
  while (isBlank(text[i])) i++;
  const pathStart = i;
  if (!isNameStart(text[i])) return null;
  i++;
  while (isNamePart(text[i])) i++;
  while (text[i] === "." && isSegmentPart(text[i + 1])) {
    i += 2;
    while (isSegmentPart(text[i])) i++;
  }
  const pathEnd = i;
  while (isBlank(text[i])) i++;
  if (text[i] !== "}" || text[i + 1] !== "}") return null;
  return { path: text.slice(pathStart, pathEnd), start, end: i + 2 };
}

/** Every placeholder in `text`, left to right, none overlapping (as a global regular expression finds them). */
export function* placeholdersIn(text: string): Generator<PlaceholderMatch> {
  let from = 0;
  for (;;) {
    const start = text.indexOf("{{", from);
    if (start < 0) return;
    const match = placeholderAt(text, start);
    if (match) {
      yield match;
      from = match.end;
    } else {
      from = start + 1;
    }
  }
}

/** `text` with each placeholder replaced by what `replace` answers for its path. */
export function replacePlaceholders(text: string, replace: (path: string) => string): string {
  let out = "";
  let copied = 0;
  for (const match of placeholdersIn(text)) {
    out += text.slice(copied, match.start) + replace(match.path);
    copied = match.end;
  }
  return out + text.slice(copied);
}
