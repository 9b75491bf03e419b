// Start tags of an HTML (or inline SVG) text, read the way a browser's HTML tokenizer reads
// them: what an escaping test counts (which elements exist, which attributes each has, and
// their values decoded). Comments are skipped; the text of <script>, <style> and <title> is
// not markup, so it is skipped to the element's end tag, as the tokenizer does.

export interface StartTag {
  name: string;
  /** In document order, names lower-cased, values with the five entities the template writes decoded. */
  attributes: [string, string][];
  /** For <script>, <style> and <title>: the text up to the element's end tag. */
  text?: string;
}

const RAW_TEXT = new Set(["script", "style", "title", "textarea"]);

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) =>
    name === "amp" ? "&" : name === "lt" ? "<" : name === "gt" ? ">" : name === "quot" ? '"' : "'",
  );
}

export function startTags(source: string): StartTag[] {
  const tags: StartTag[] = [];
  let i = 0;
  const space = (ch: string | undefined) => ch === " " || ch === "\n" || ch === "\t" || ch === "\f" || ch === "\r";
  while (i < source.length) {
    const open = source.indexOf("<", i);
    if (open === -1) break;
    if (source.startsWith("<!--", open)) {
      const end = source.indexOf("-->", open + 4);
      i = end === -1 ? source.length : end + 3;
      continue;
    }
    if (!/[A-Za-z]/.test(source[open + 1] ?? "")) {
      i = open + 1;
      continue;
    }
    let j = open + 1;
    while (j < source.length && !space(source[j]) && source[j] !== "/" && source[j] !== ">") j++;
    const tag: StartTag = { name: source.slice(open + 1, j).toLowerCase(), attributes: [] };
    for (;;) {
      while (j < source.length && (space(source[j]) || source[j] === "/")) j++;
      if (j >= source.length || source[j] === ">") break;
      const nameStart = j;
      j++; // the first character may be "=" (a name then)
      while (j < source.length && !space(source[j]) && source[j] !== "/" && source[j] !== ">" && source[j] !== "=") j++;
      const name = source.slice(nameStart, j).toLowerCase();
      while (space(source[j])) j++;
      let value = "";
      if (source[j] === "=") {
        j++;
        while (space(source[j])) j++;
        const quote = source[j];
        if (quote === '"' || quote === "'") {
          const end = source.indexOf(quote, j + 1);
          value = source.slice(j + 1, end === -1 ? source.length : end);
          j = end === -1 ? source.length : end + 1;
        } else {
          const start = j;
          while (j < source.length && !space(source[j]) && source[j] !== ">") j++;
          value = source.slice(start, j);
        }
      }
      tag.attributes.push([name, decodeEntities(value)]);
    }
    i = j + 1;
    if (RAW_TEXT.has(tag.name)) {
      const close = source.toLowerCase().indexOf(`</${tag.name}`, i);
      const end = close === -1 ? source.length : close;
      tag.text = source.slice(i, end);
      i = end;
    }
    tags.push(tag);
  }
  return tags;
}

/** The attributes' names of a tag, in order. */
export function attributeNames(tag: StartTag): string[] {
  return tag.attributes.map(([name]) => name);
}

/** A tag's attribute value (undefined when it has none of that name). */
export function attribute(tag: StartTag, name: string): string | undefined {
  return tag.attributes.find(([n]) => n === name)?.[1];
}
