import { BarChart, LineChart, PieChart } from "echarts/charts";
import { AriaComponent, GridComponent, LegendComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";
import type { Row } from "../data/query-runner";
import { type ColumnFormat, formatNumber, formatValue, numberFormat, type ViewClock } from "../view/format";
import type { CartesianPanel } from "./definition";
import type { ChartLook } from "../view/style";
import { attributeText } from "../view/page-shell";
import { sharedTextStyle } from "./chart-svg-text";

echarts.use([BarChart, LineChart, PieChart, AriaComponent, GridComponent, LegendComponent, SVGRenderer]);

/**
 * A chart draws at most this many points per series (the builder's /view and every chart
 * panel); a longer result is sampled at even steps, its first row always kept. The table
 * still lists every row: the cap only spares drawing what no screen can show (a 10,000-row
 * pie took seconds and megabytes).
 */
export const MAX_CHART_POINTS = 1000;
/** A pie draws at most this many slices: the largest ones, the rest summed as one "Other". */
export const MAX_PIE_SLICES = 50;

/** At most MAX_CHART_POINTS rows, spread evenly over `rows` (in their order). */
export function chartPoints<T>(rows: T[]): T[] {
  if (rows.length <= MAX_CHART_POINTS) return rows;
  return Array.from({ length: MAX_CHART_POINTS }, (_, i) => rows[Math.floor((i * rows.length) / MAX_CHART_POINTS)]);
}

/** At most MAX_PIE_SLICES slices: the largest MAX_PIE_SLICES - 1 (in their order) and "Other" for the rest. */
export function pieSlices(slices: { name: string; value: number }[]): { name: string; value: number }[] {
  if (slices.length <= MAX_PIE_SLICES) return slices;
  const kept = new Set(
    slices
      .map((slice, index) => ({ value: slice.value, index }))
      .sort((a, b) => b.value - a.value || a.index - b.index)
      .slice(0, MAX_PIE_SLICES - 1)
      .map((s) => s.index),
  );
  const other = slices.reduce((sum, slice, index) => (kept.has(index) ? sum : sum + slice.value), 0);
  return [...slices.filter((_, index) => kept.has(index)), { name: "Other", value: other }];
}

/** The row each slice of `pieSlices` was drawn from, in the slices' order (null for "Other"). */
export function pieSliceRows<T>(rows: T[], valueOfRow: (row: T) => number): (T | null)[] {
  if (rows.length <= MAX_PIE_SLICES) return rows;
  const kept = new Set(
    rows
      .map((row, index) => ({ value: valueOfRow(row), index }))
      .sort((a, b) => b.value - a.value || a.index - b.index)
      .slice(0, MAX_PIE_SLICES - 1)
      .map((s) => s.index),
  );
  return [...rows.filter((_, index) => kept.has(index)), null];
}

export const PALETTE = ["#4f46e5", "#0ea5e9", "#10b981", "#f59e0b", "#ef4444", "#8b5cf6", "#14b8a6", "#f97316", "#64748b", "#ec4899"];

/** The built-in theme's charts (as they were before themes: a view without a theme draws these). */
export const BUILTIN_LOOK: ChartLook = {
  series: PALETTE,
  text: "#475569",
  grid: "#e2e8f0",
  surface: "#ffffff",
  font: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
};

export function compactNumber(value: number, locale = "en-US"): string {
  return numberFormat(locale, { notation: "compact", maximumFractionDigits: 1 }).format(value);
}

/**
 * A value axis' number: below a million as tables write numbers (the locale's grouping, from
 * four digits where the locale groups them: de-DE `9.000`, docs/accessibility.md), from a million on
 * compact (`1,2 Mio.`), which stays short on a narrow axis.
 */
export function axisNumber(value: number, locale = "en-US"): string {
  return Math.abs(value) < 1_000_000 ? formatNumber(value, locale) : compactNumber(value, locale);
}

/** With this many categories or fewer every one is labelled, at any width from 320 px (docs/accessibility.md). */
export const ALL_LABELS_UP_TO = 12;

/**
 * How a category axis writes its labels: with few categories all of them (`interval: 0`),
 * turned 45° when they would not fit side by side and upright when even that is too tight; with
 * more, ECharts leaves out those that would overlap (the tooltip-less SVG's table view names them).
 * Widths are estimated from the labels' lengths (12 px text: about 7 px a character).
 */
function categoryLabels(categories: string[], plotWidth: number, color: string): Record<string, unknown> {
  if (categories.length === 0 || categories.length > ALL_LABELS_UP_TO) return { color, hideOverlap: true };
  const slot = plotWidth / categories.length;
  const widest = Math.max(...categories.map((c) => c.length)) * 7 + 8;
  // Turned 45°, neighbours stand slot·sin 45° apart: at least 12 px text plus a gap from a 26 px slot.
  const rotate = widest <= slot ? 0 : slot >= 26 ? 45 : 90;
  return { color, interval: 0, hideOverlap: false, rotate };
}

/** How a chart writes its labels: the view's locale and zone, and the panel's column formats. */
export interface ChartWords {
  clock: ViewClock;
  formats: Record<string, ColumnFormat>;
  /** Display names of columns (series names in the legend). */
  names?: Record<string, string>;
}

const EN_US: ChartWords = { clock: { locale: "en-US", timezone: "UTC" }, formats: {} };

export function toNumber(value: unknown): number | null {
  if (value === null || value === undefined || value === "") return null;
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

/**
 * Charts drawn lately in this isolate, by what they were drawn from (kind, columns, the
 * values shown and the size): the same chart is drawn once — every viewer of a customer's
 * dashboard, a share link opened again, a capture of a page just viewed. Drawing is most
 * of a render's CPU; a look-up is a string key. Bounded in entries
 * and characters, oldest out first.
 */
const drawn = new Map<string, string>();
const DRAWN_MAX_ENTRIES = 200;
const DRAWN_MAX_CHARS = 4_000_000;
let drawnChars = 0;

function drawnOnce(key: string, draw: () => string): string {
  const hit = drawn.get(key);
  if (hit !== undefined) {
    drawn.delete(key); // most recently used goes last
    drawn.set(key, hit);
    return hit;
  }
  const svg = draw();
  drawn.set(key, svg);
  drawnChars += key.length + svg.length;
  while (drawn.size > DRAWN_MAX_ENTRIES || drawnChars > DRAWN_MAX_CHARS) {
    const oldest = drawn.entries().next().value;
    if (oldest === undefined) break;
    const [oldKey, oldSvg] = oldest;
    drawn.delete(oldKey);
    drawnChars -= oldKey.length + oldSvg.length;
  }
  return svg;
}

/** Forgets every chart kept; answers how many there were. */
export function forgetDrawnCharts(): number {
  const count = drawn.size;
  drawn.clear();
  drawnChars = 0;
  return count;
}

/** Charts kept by `drawnOnce` (tests). */
export function drawnChartCount(): number {
  return drawn.size;
}

/**
 * A look as ECharts' SVG renderer may take it. The renderer escapes text content (series
 * names, labels) but writes attribute values as given: the font family lands in every
 * `<text>`'s `style="…font-family:…"`, the colors in `fill` and `stroke`. So these are
 * escaped for a double-quoted attribute here, and read back by the browser as given (a
 * theme's `"Acme Sans", sans-serif` still names its font; `x" autofocus` adds no attribute).
 */
function attributeLook(look: ChartLook): ChartLook {
  return {
    series: look.series.map(attributeText),
    text: attributeText(look.text),
    grid: attributeText(look.grid),
    surface: attributeText(look.surface),
    font: attributeText(look.font),
    decals: look.decals === true,
  };
}

/** Server-side ECharts: the option rendered to an SVG string that scales with its panel. */
function render(option: echarts.EChartsCoreOption, width: number, height: number, look: ChartLook): string {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    chart.setOption({
      animation: false,
      color: look.series,
      textStyle: { fontFamily: look.font },
      // A theme's `decals`: each series also drawn with its own pattern (ECharts' aria.decal); the
      // label ECharts' aria would write is left off: the page names and describes the chart itself.
      ...(look.decals ? { aria: { enabled: true, label: { enabled: false }, decal: { show: true } } } : {}),
      ...option,
    });
    const svg = chart
      .renderToSVGString()
      .replace(
        /^<svg width="\d+(\.\d+)?" height="\d+(\.\d+)?"/,
        '<svg class="chart" width="100%" height="100%" preserveAspectRatio="xMidYMid meet" role="img"',
      );
    return sharedTextStyle(svg, look.font);
  } finally {
    chart.dispose();
  }
}

export function cartesianChart(
  type: CartesianPanel["type"],
  allRows: Row[],
  xColumn: string,
  yColumns: string[],
  size: { width: number; height: number },
  words: ChartWords = EN_US,
  given: ChartLook = BUILTIN_LOOK,
  /** A live page whose points answer clicks: lines and areas draw a dot at each point (something to click and focus). */
  points = false,
): string {
  const { clock, formats } = words;
  const look = attributeLook(given);
  const TEXT = look.text;
  const GRID_LINE = look.grid;
  const rows = chartPoints(allRows);
  // Category labels are the x values as the viewer reads them (dates, months, numbers).
  const categories = rows.map((row) => formatValue(row[xColumn] ?? "", clock, formats[xColumn]));
  const values = yColumns.map((column) => rows.map((row) => toNumber(row[column])));
  const series = yColumns.map((column) => words.names?.[column] ?? column);
  const key = JSON.stringify(["cartesian", type, series, size.width, size.height, categories, values, clock.locale, look, points]);
  return drawnOnce(key, () =>
    render(
      {
        legend: { show: yColumns.length > 1, top: 0, left: 0, itemGap: 24, icon: "roundRect", textStyle: { color: TEXT } },
        // ECharts 6 keeps axis labels inside the chart by itself (grid.outerBounds).
        grid: { left: 8, right: 16, top: yColumns.length > 1 ? 32 : 12, bottom: 8 },
        xAxis: {
          type: "category",
          data: categories,
          boundaryGap: type === "bar",
          axisLine: { lineStyle: { color: GRID_LINE } },
          axisTick: { show: false },
          axisLabel: categoryLabels(categories, size.width - 56, TEXT),
        },
        yAxis: {
          type: "value",
          splitLine: { lineStyle: { color: GRID_LINE } },
          axisLabel: { color: TEXT, formatter: (value: number) => axisNumber(value, clock.locale) },
        },
        series: series.map((name, i) => ({
          name,
          type: type === "area" ? "line" : type,
          data: values[i],
          smooth: false,
          showSymbol: points,
          symbolSize: points ? 9 : undefined,
          barMaxWidth: 36,
          itemStyle: type === "bar" ? { borderRadius: [3, 3, 0, 0] } : undefined,
          areaStyle: type === "area" ? { opacity: 0.18 } : undefined,
          lineStyle: type === "bar" ? undefined : { width: 2.5 },
        })),
      },
      size.width,
      size.height,
      look,
    ),
  );
}

export function pieChart(
  rows: Row[],
  labelColumn: string,
  valueColumn: string,
  size: { width: number; height: number },
  words: ChartWords = EN_US,
  given: ChartLook = BUILTIN_LOOK,
): string {
  const { clock, formats } = words;
  const look = attributeLook(given);
  const TEXT = look.text;
  const legendRight = size.width > size.height * 1.3;
  const slices = pieSlices(
    rows.map((row) => ({
      name: formatValue(row[labelColumn] ?? "", clock, formats[labelColumn]),
      value: toNumber(row[valueColumn]) ?? 0,
    })),
  );
  const percent = numberFormat(clock.locale, { style: "percent", maximumFractionDigits: 0 });
  return drawnOnce(JSON.stringify(["pie", size.width, size.height, slices, clock.locale, look]), () =>
    render(
      {
        legend: legendRight
          ? { orient: "vertical", right: 8, top: "middle", icon: "circle", textStyle: { color: TEXT } }
          : { bottom: 0, icon: "circle", textStyle: { color: TEXT } },
        series: [
          {
            type: "pie",
            radius: ["42%", "70%"],
            center: legendRight ? ["38%", "50%"] : ["50%", "45%"],
            avoidLabelOverlap: true,
            itemStyle: { borderColor: look.surface, borderWidth: 2 },
            label: {
              position: "inside",
              color: "#fff",
              fontWeight: 600,
              formatter: (p: { percent?: number }) => ((p.percent ?? 0) >= 4 ? percent.format(Math.round(p.percent ?? 0) / 100) : ""),
            },
            data: slices,
          },
        ],
      },
      size.width,
      size.height,
      look,
    ),
  );
}
