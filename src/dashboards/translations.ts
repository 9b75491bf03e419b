import { languageOf } from "../lib/i18n/messages";
import type { Definition, PanelDefinition, VariableDefinition } from "./definition";

// The vendor's words in other languages: a definition's `translations`, by locale or language,
// each a map of keys (`title`, `panels.<id>.title`, `panels.<id>.text`, `variables.<name>.label`,
// `options.<variable>.<value>`, `columns.<name>`) to text. A view takes the exact locale's text,
// else its language's, else the definition's own.

/** The shape a translations key may have (what it names is checked against the definition). */
const KEY =
  /^(?:title|panels\.[A-Za-z0-9_-]{1,64}\.(?:title|text)|variables\.[A-Za-z_][A-Za-z0-9_]{0,63}\.label|options\.[A-Za-z_][A-Za-z0-9_]{0,63}\..+|columns\..+)$/s;

/** A translations locale key canonicalised (`de-ch` → `de-CH`), or null when it is not a BCP 47 tag. */
export function canonicalLocaleKey(key: string): string | null {
  try {
    return Intl.getCanonicalLocales(key)[0] ?? null;
  } catch {
    return null;
  }
}

/** Why a translations key names nothing of this definition, or null when it is fine. */
export function translationKeyProblem(definition: Pick<Definition, "panels" | "variables">, key: string): string | null {
  if (!KEY.test(key)) {
    return "unknown translation key; use title, panels.<id>.title, panels.<id>.text, variables.<name>.label, options.<variable>.<value> or columns.<name>";
  }
  const [kind, name, ...rest] = key.split(".");
  if (kind === "panels") {
    const panel = definition.panels.find((p) => p.id === name);
    if (!panel) return `there is no panel '${name}'`;
    if (rest[0] === "text" && panel.type !== "text") return `panel '${name}' is not a text panel`;
  }
  if (kind === "variables" && !definition.variables.some((v) => v.name === name)) return `there is no variable '${name}'`;
  if (kind === "options") {
    const variable = definition.variables.find((v) => v.name === name);
    if (!variable) return `there is no variable '${name}'`;
    const value = rest.join(".");
    if (!(variable.control?.options ?? []).includes(value)) return `variable '${name}' has no option '${value}'`;
  }
  return null;
}

/** The texts of one view's locale: the language's entries, overridden by the exact locale's. */
export function translationsFor(definition: Pick<Definition, "translations">, locale: string): Record<string, string> {
  const all = definition.translations;
  if (!all) return {};
  const wanted = (canonicalLocaleKey(locale) ?? locale).toLowerCase();
  const language = languageOf(locale);
  let exact: Record<string, string> = {};
  let general: Record<string, string> = {};
  for (const [key, texts] of Object.entries(all)) {
    const canonical = (canonicalLocaleKey(key) ?? key).toLowerCase();
    if (canonical === wanted) exact = texts;
    else if (canonical === language) general = texts;
  }
  return { ...general, ...exact };
}

/** A definition in a view's language, with the option labels and column names to show. */
export interface LocalizedDefinition {
  definition: Definition;
  /** Select option labels by variable and value (the value sent stays the same). */
  optionLabels: Map<string, Map<string, string>>;
  /** Display names of result columns (table headers, chart series). */
  columnNames: Record<string, string>;
}

export function localizeDefinition(definition: Definition, locale: string): LocalizedDefinition {
  const texts = translationsFor(definition, locale);
  const optionLabels = new Map<string, Map<string, string>>();
  const columnNames: Record<string, string> = {};
  if (Object.keys(texts).length === 0) return { definition, optionLabels, columnNames };
  for (const [key, text] of Object.entries(texts)) {
    const [kind, name, ...rest] = key.split(".");
    if (kind === "options") {
      const labels = optionLabels.get(name) ?? new Map<string, string>();
      labels.set(rest.join("."), text);
      optionLabels.set(name, labels);
    } else if (kind === "columns") {
      columnNames[[name, ...rest].join(".")] = text;
    }
  }
  const panels = definition.panels.map((panel): PanelDefinition => {
    const title = texts[`panels.${panel.id}.title`] ?? panel.title;
    if (panel.type === "text") return { ...panel, title, text: texts[`panels.${panel.id}.text`] ?? panel.text };
    return { ...panel, title };
  });
  const variables = definition.variables.map((variable): VariableDefinition => {
    const label = texts[`variables.${variable.name}.label`];
    if (label === undefined) return variable;
    return { ...variable, label, control: variable.control ? { ...variable.control, label } : variable.control };
  });
  return {
    definition: { ...definition, title: texts.title ?? definition.title, panels, variables },
    optionLabels,
    columnNames,
  };
}

/**
 * Every translatable text of a definition with no translation for a locale (its exact entry or
 * its language's): what `dashboards validate --locales` reports. Column names are not texts of
 * the definition (a query decides them) and are not asked for.
 */
export function missingTranslations(definition: Definition, locale: string): string[] {
  const texts = translationsFor(definition, locale);
  const wanted: string[] = [];
  if (definition.title) wanted.push("title");
  for (const panel of definition.panels) {
    if (panel.title) wanted.push(`panels.${panel.id}.title`);
    if (panel.type === "text") wanted.push(`panels.${panel.id}.text`);
  }
  for (const variable of definition.variables) {
    if (variable.label !== undefined || variable.control?.label !== undefined) wanted.push(`variables.${variable.name}.label`);
    for (const option of variable.control?.type === "select" ? (variable.control.options ?? []) : [])
      wanted.push(`options.${variable.name}.${option}`);
  }
  return wanted.filter((key) => texts[key] === undefined);
}
