/**
 * The report builder page's script (docs/report-builder.md), served by the Worker at
 * `/report-builder.js` and allowed by the page's CSP by its exact URL; built from this file
 * and its neighbours by scripts/build-browser.mjs.
 *
 * Written by hand, without a UI library: the page is one form (controls.ts, saved.ts) and one
 * result area (result.ts), rebuilt from a small state (page.ts); a library would add more
 * bytes than the rendering code it replaces. Charts are drawn by the service (`/view`).
 * Talks to its parent (`<report-builder>` in embed.js) through parent.ts.
 */
import { setWords, t } from "./words";
import { connection, explain, api } from "./api";
import { clickFilters } from "./click-filter";
import { byId } from "./dom";
import { renderControls } from "./controls";
import { type Boot, page } from "./page";
import { onFreshToken, pageStatus, ready } from "./parent";
import { blankState } from "./query";
import { download, renderResult, run } from "./result";
import { loadReports, openReport } from "./saved";
import type { Dataset } from "./vocabulary";

function start(boot: Boot): void {
  setWords(boot.words, boot.locale);
  connection.token = new URLSearchParams(location.search).get("token") || "";
  connection.base = boot.base;
  page.canSave = boot.can_save !== false;
  page.lockedFilters = boot.locked_filters || [];
  onFreshToken((token) => {
    connection.token = token;
  });
  page.datasets = boot.datasets || [];
  page.state = blankState(page.datasets[0] ? page.datasets[0].name : "");
  clickFilters();

  // Enter in a text field must not submit (and reload) the controls' form.
  byId("rb-controls").addEventListener("submit", (e) => e.preventDefault());
  byId("rb-csv").addEventListener("click", () => download("csv"));
  byId("rb-xlsx").addEventListener("click", () => download("xlsx"));
  if (typeof ResizeObserver === "function") {
    let lastWidth = 0;
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    new ResizeObserver((entries) => {
      const width = Math.round(entries[0].contentRect.width);
      if (!lastWidth) {
        lastWidth = width;
        return;
      }
      if (Math.abs(width - lastWidth) < 24 || !page.result || page.result.chart.type === "table") return;
      lastWidth = width;
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(run, 250); // charts are drawn for their width
    }).observe(byId("rb-chart-area"));
  }

  const datasetsReady = boot.datasets
    ? Promise.resolve()
    : api<{ datasets?: Dataset[] }>("GET", "/datasets").then((answer) => {
        page.datasets = answer.datasets || [];
        page.state = blankState(page.datasets[0] ? page.datasets[0].name : "");
      });
  if (boot.reports) page.reports = boot.reports;
  const reportsReady = boot.reports ? Promise.resolve() : loadReports();
  Promise.all([datasetsReady, reportsReady]).then(
    () => {
      const wanted = boot.report ? page.reports?.filter((r) => r.id === boot.report)[0] : null;
      if (wanted) {
        openReport(wanted);
        return;
      }
      if (boot.report) page.notice = t("report_missing");
      renderControls();
      run();
    },
    (error) => {
      page.problem = { text: explain(error), retry: false };
      renderControls();
      renderResult();
      ready();
    },
  );
}

// An error page (401, 404, 429) has no builder: it only tells the parent its status.
if (pageStatus >= 400) ready();
else start(JSON.parse(byId("rb-boot").textContent || "null"));
