// The package's element bundle (dist/index.js): the service's own elements
// (src/dashboards/browser/embed-element.ts, the source embed.js is built from), checked here
// against the declarations the package ships (../index.d.ts): a type error in this file means
// the two disagree.
import type * as Declared from "../index";
import { DashboardEmbed, defineEmbedElements as define, ReportBuilder } from "../../../src/dashboards/browser/embed-element";

DashboardEmbed satisfies new () => Declared.DashboardEmbedElement;
ReportBuilder satisfies new () => Declared.ReportBuilderElement;

export const defineEmbedElements: typeof Declared.defineEmbedElements = define;
