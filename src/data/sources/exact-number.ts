/**
 * Exact numbers from a database's text (PostgreSQL's bigint and numeric, MySQL's BIGINT and
 * DECIMAL): a JSON number only when it means exactly the same decimal, else the text.
 */

/** A number when the JSON number means exactly the same decimal, else the text (e.g. big bigints). */
export function exactNumber(text: string): number | string {
  const value = Number(text);
  if (!Number.isFinite(value)) return text;
  return canonicalDecimal(text) === canonicalDecimal(String(value)) ? value : text;
}

/** "-012.50" → "-12.5"; exponent forms are left as they are (then never equal a plain decimal). */
function canonicalDecimal(text: string): string {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match) return text;
  const integer = match[2].replace(/^0+(?=\d)/, "") || "0";
  const fraction = (match[3] ?? "").replace(/0+$/, "");
  const sign = match[1] === "-" && (integer !== "0" || fraction !== "") ? "-" : "";
  return `${sign}${integer}${fraction ? `.${fraction}` : ""}`;
}
