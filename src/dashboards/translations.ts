import { translationsFor } from "../view/translations";
import type { Definition, PanelDefinition, VariableDefinition } from "./definition";

// A definition in a view's language: its `translations` (by locale or language; keys `title`,
// `panels.<id>.title`, `panels.<id>.text`, `variables.<name>.label`, `options.<variable>.<value>`,
// `columns.<name>`) looked up by the view's one fallback rule (src/view/translations.ts: the
// exact locale's text, else its language's, else the definition's own). definition.ts checks the
// keys with the view's translationKeyProblem and never imports this file.

/** A definition in a view's language, with the option labels and column names to show. */
export interface LocalizedDefinition {
  definition: Definition;
  /** Select option labels by variable and value (the value sent stays the same). */
  optionLabels: Map<string, Map<string, string>>;
  /** Display names of result columns (table headers, chart series). */
  columnNames: Record<string, string>;
}

export function localizeDefinition(definition: Definition, locale: string): LocalizedDefinition {
  const texts = translationsFor(definition.translations, locale);
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
  const texts = translationsFor(definition.translations, locale);
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
