import { canonical, type Definition, type Json } from "./state";

// "Compare" (docs/console.md): what `dashboards diff` reports — panels removed and changed
// (in the first version's order), then added (in the second's), other parts of the definition
// by name — in words, with each changed panel's fields named and their values before and after.

const shown = (value: unknown): string =>
  value === undefined ? "nothing" : typeof value === "string" ? `"${value}"` : JSON.stringify(value);

export function compareInWords(a: Definition, b: Definition, numbers: [number, number]): string[] {
  const before = new Map(a.panels.map((panel) => [panel.id, panel]));
  const after = new Map(b.panels.map((panel) => [panel.id, panel]));
  const lines: string[] = [];
  for (const [id, panel] of before) {
    const next = after.get(id);
    if (!next) lines.push(`Panel ${id} ("${panel.title ?? ""}") was removed.`);
    else if (canonical(panel) !== canonical(next)) {
      const fields = [...new Set([...Object.keys(panel), ...Object.keys(next)])].filter(
        (key) => canonical((panel as Json)[key]) !== canonical((next as Json)[key]),
      );
      lines.push(
        `Panel ${id} changed: ${fields.map((key) => `${key} from ${shown((panel as Json)[key])} to ${shown((next as Json)[key])}`).join("; ")}.`,
      );
    }
  }
  for (const [id, panel] of after) if (!before.has(id)) lines.push(`Panel ${id} ("${panel.title ?? ""}") was added.`);
  const other = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(
    (key) => key !== "panels" && canonical(a[key]) !== canonical(b[key]),
  );
  if (other.length > 0) lines.push(`Also changed outside the panels: ${other.join(", ")}.`);
  if (lines.length === 0) lines.push(`Versions ${numbers[0]} and ${numbers[1]} are the same.`);
  return lines;
}
