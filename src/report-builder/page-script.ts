/**
 * The report builder page's script (docs/report-builder.md), served by the Worker at
 * `/report-builder.js` and allowed by the page's CSP by its exact URL.
 *
 * Vanilla JS, written by hand: the page is one form and one result area, rebuilt from a
 * small state object; a UI library would add more bytes than the rendering code it
 * replaces. Charts are not drawn here: `/view` answers the result together with the
 * server's chart markup (the dashboards' SVG), so each change is one round trip, and a
 * change made while one is in flight aborts it (AbortController).
 *
 * Talks to its parent (`<report-builder>` in embed.js) with `{source: "report-builder", type}`
 * messages: `ready` / `height` (with `status` and `height`), `error` (`status`), `saved`
 * (`id`, `name`); accepts `{type: "token", token}` for a fresh token. Kept free of backticks
 * and template placeholders: it lives in a String.raw literal.
 */
export const BUILDER_SCRIPT = String.raw`(function () {
  "use strict";
  var SOURCE = "report-builder";
  var framed = window.parent !== window;
  var body = document.body;
  var pageStatus = Number(body.getAttribute("data-status") || 200);
  var lastHeight = -1;
  var readySent = false;

  function post(message) { if (framed) window.parent.postMessage(Object.assign({ source: SOURCE }, message), "*"); }
  function pageHeight() { return Math.ceil(document.documentElement.getBoundingClientRect().height); }
  function postHeight(type) {
    var h = pageHeight();
    if (type === "height" && h === lastHeight) return;
    lastHeight = h;
    post({ type: type, status: pageStatus, height: h });
  }
  function ready() {
    if (readySent) return;
    readySent = true;
    postHeight("ready");
    if (typeof ResizeObserver === "function") new ResizeObserver(function () { postHeight("height"); }).observe(document.documentElement);
  }
  if (pageStatus >= 400) { ready(); return; }

  var boot = JSON.parse(document.getElementById("rb-boot").textContent);
  var token = new URLSearchParams(location.search).get("token") || "";
  var base = boot.base;
  var canSave = boot.can_save !== false;
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (event.source !== window.parent || !data || data.source !== SOURCE || data.type !== "token" || typeof data.token !== "string") return;
    token = data.token;
  });

  // ---- vocabulary --------------------------------------------------------------------------
  var TYPE_NAMES = { INTEGER: "Whole number", FLOAT: "Number", STRING: "Text", BOOLEAN: "Yes / no", DATE: "Date", DATETIME: "Date and time", TIMESTAMP: "Date and time" };
  var AGGREGATES = [["count", "Count of rows"], ["count_distinct", "Distinct count"], ["sum", "Sum"], ["avg", "Average"], ["min", "Minimum"], ["max", "Maximum"]];
  var BUCKETS = [["day", "Day"], ["week", "Week"], ["month", "Month"], ["quarter", "Quarter"], ["year", "Year"]];
  var CHARTS = [["auto", "Automatic"], ["table", "Table"], ["bar", "Bar"], ["line", "Line"], ["area", "Area"], ["pie", "Pie"], ["kpi", "Single number (KPI)"]];
  var OP_LABELS = { eq: "is", neq: "is not", gt: "greater than", gte: "at least", lt: "less than", lte: "at most", between: "between", in: "is one of", not_in: "is none of", contains: "contains", starts_with: "starts with", is_null: "is empty", is_not_null: "is not empty" };
  var DATE_OP_LABELS = { eq: "on", gt: "after", gte: "on or after", lt: "before", lte: "on or before", between: "between" };

  function isNumber(type) { return type === "INTEGER" || type === "FLOAT"; }
  function isDate(type) { return type === "DATE" || type === "DATETIME" || type === "TIMESTAMP"; }
  function aggregateAllowed(aggregate, type) {
    if (aggregate === "count" || aggregate === "count_distinct") return true;
    if (aggregate === "sum" || aggregate === "avg") return isNumber(type);
    return type !== "BOOLEAN";
  }
  function opsFor(type) {
    if (isNumber(type)) return ["eq", "neq", "gt", "gte", "lt", "lte", "between", "is_null", "is_not_null"];
    if (isDate(type)) return ["between", "gte", "lte", "eq", "gt", "lt", "is_null", "is_not_null"];
    if (type === "BOOLEAN") return ["eq", "is_null", "is_not_null"];
    return ["in", "not_in", "eq", "neq", "contains", "starts_with", "is_null", "is_not_null"];
  }
  function opLabel(op, type) { return (isDate(type) && DATE_OP_LABELS[op]) || OP_LABELS[op]; }

  // ---- state ---------------------------------------------------------------------------------
  var datasets = boot.datasets || [];
  var reports = [];
  var state = blankState(datasets[0] ? datasets[0].name : "");
  var current = null; // the saved report open, if any
  var result = null;
  var problem = null; // { text, retry }
  var busy = false;
  var inflight = null;
  var generation = 0;
  var editing = null; // { id, kind: "rename" | "delete" }
  var notice = "";
  var distinct = {}; // "dataset/column" -> values | "loading" | "failed"

  function blankState(dataset) {
    return { dataset: dataset, mode: "summary", groups: [], values: [{ aggregate: "count", column: "" }], columns: [], filters: [], sort: [], chart: "auto" };
  }
  function datasetByName(name) { for (var i = 0; i < datasets.length; i++) if (datasets[i].name === name) return datasets[i]; return null; }
  function columnOf(dataset, name) {
    if (!dataset) return null;
    for (var i = 0; i < dataset.columns.length; i++) if (dataset.columns[i].name === name) return dataset.columns[i];
    return null;
  }
  function currentDataset() { return datasetByName(state.dataset); }

  // ---- the query, its result columns and the chart ------------------------------------------
  function filterIsComplete(f) {
    if (!f.column || !f.op) return false;
    if (f.op === "is_null" || f.op === "is_not_null") return true;
    if (f.op === "in" || f.op === "not_in") return f.values.length > 0;
    if (f.op === "between") return f.values.length === 2 && f.values[0] !== "" && f.values[1] !== "";
    return f.value !== "" && f.value !== undefined && f.value !== null;
  }
  function typed(value, type) {
    if (isNumber(type)) return Number(value);
    if (type === "BOOLEAN") return value === true || value === "true";
    return value;
  }
  function queryFilter(f, dataset) {
    var type = (columnOf(dataset, f.column) || {}).type;
    var out = { column: f.column, op: f.op };
    if (f.op === "in" || f.op === "not_in" || f.op === "between") out.values = f.values.map(function (v) { return typed(v, type); });
    else if (f.op !== "is_null" && f.op !== "is_not_null") out.value = typed(f.value, type);
    return out;
  }
  function groupResultName(g) { return g.bucket ? g.column + "_" + g.bucket : g.column; }
  function valueResultName(v) { return v.aggregate === "count" ? "count" : v.aggregate + "_" + v.column; }

  function buildQuery() {
    var dataset = currentDataset();
    var query = { dataset: state.dataset };
    var names;
    if (state.mode === "records") {
      query.columns = state.columns.length ? state.columns.slice() : dataset.columns.map(function (c) { return c.name; });
      names = query.columns;
    } else {
      query.group_by = state.groups.filter(function (g) { return g.column; }).map(function (g) { return g.bucket ? { column: g.column, bucket: g.bucket } : { column: g.column }; });
      query.values = state.values.filter(function (v) { return v.aggregate === "count" || v.column; }).map(function (v) { return v.aggregate === "count" ? { aggregate: "count" } : { column: v.column, aggregate: v.aggregate }; });
      if (query.group_by.length === 0 && query.values.length === 0) query.values = [{ aggregate: "count" }];
      names = query.group_by.map(groupResultName).concat(query.values.map(valueResultName));
    }
    var filters = state.filters.filter(filterIsComplete).map(function (f) { return queryFilter(f, dataset); });
    if (filters.length) query.filters = filters;
    var sort = state.sort.filter(function (s) { return names.indexOf(s.column) >= 0; });
    if (sort.length) query.sort = sort;
    return query;
  }

  function autoChart(query) {
    if (query.columns) return "table";
    var groups = query.group_by, values = query.values;
    if (groups.length === 0) return values.length === 1 ? "kpi" : "table";
    if (values.length === 0 || groups.length > 1) return "table";
    return groups[0].bucket ? "line" : "bar";
  }
  /** What can be drawn: a chart the query cannot feed falls back to a table, with a note. */
  function chartFor(query) {
    var auto = autoChart(query);
    var type = state.chart === "auto" ? auto : state.chart;
    var note = "";
    if (!query.columns) {
      var x = query.group_by[0] ? groupResultName(query.group_by[0]) : undefined;
      var y = query.values.map(valueResultName);
      var needsGroup = type === "bar" || type === "line" || type === "area" || type === "pie";
      if ((needsGroup && (!x || y.length === 0)) || (type === "kpi" && y.length === 0)) {
        note = "A " + chartLabel(type).toLowerCase() + " chart needs a group and a value: showing a table.";
        type = "table";
      }
      if (type === "pie") y = y.slice(0, 1);
      if (type === "kpi") return { chart: { type: "kpi", y: y.slice(0, 1) }, note: note };
      if (type !== "table") return { chart: { type: type, x: x, y: y }, note: note };
    } else if (type !== "table") {
      note = "A list of records is shown as a table.";
    }
    return { chart: { type: "table" }, note: note };
  }
  function chartLabel(type) { for (var i = 0; i < CHARTS.length; i++) if (CHARTS[i][0] === type) return CHARTS[i][1]; return type; }

  // ---- the API ---------------------------------------------------------------------------------
  function ApiProblem(status, code, message, retryAfter) {
    this.status = status; this.code = code; this.message = message; this.retryAfter = retryAfter;
  }
  function api(method, path, payload, options) {
    options = options || {};
    var init = { method: method, headers: { Authorization: "Bearer " + token, Accept: "application/json" }, signal: options.signal };
    if (payload !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(payload); }
    return fetch(base + path, init).then(function (response) {
      if (response.ok && options.raw) return response;
      return response.json().catch(function () { return null; }).then(function (json) {
        if (response.ok && json && json.success !== 0) return json;
        var error = json && json.error ? json.error : {};
        if (response.status === 401) post({ type: "error", status: 401 });
        throw new ApiProblem(response.status, error.code || "", error.message || "The service answered " + response.status + ".", Number(response.headers.get("Retry-After")) || 0);
      });
    }, function (error) {
      if (error && error.name === "AbortError") throw error;
      throw new ApiProblem(0, "network", "Could not reach the service. Check the connection and try again.", 0);
    });
  }
  function explain(error) {
    if (!(error instanceof ApiProblem)) return "Something went wrong: " + String((error && error.message) || error);
    if (error.status === 401) return "This report builder link has expired or is no longer valid. Reload the page to continue.";
    if (error.status === 429) return "Too many requests right now. Please wait " + (error.retryAfter || "a few") + " seconds and try again.";
    if (error.code === "dataset_data_unavailable") return "The data for this dataset is not available right now. " + error.message;
    if (error.code === "saving_not_allowed") return "Saving reports is not allowed here.";
    if (error.status >= 500) return "The service could not answer (" + error.status + "). Please try again in a moment.";
    return error.message;
  }

  // ---- running ---------------------------------------------------------------------------------
  var debounce = null;
  function runSoon() { clearTimeout(debounce); debounce = setTimeout(run, 300); }
  function run() {
    clearTimeout(debounce);
    if (inflight) inflight.abort();
    var dataset = currentDataset();
    if (!dataset) { result = null; problem = { text: datasets.length ? "Pick a dataset." : "No datasets are offered here yet." }; busy = false; renderResult(); ready(); return; }
    var query = buildQuery();
    var picked = chartFor(query);
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    inflight = controller;
    var mine = ++generation;
    busy = true;
    renderStatus();
    var width = Math.max(240, Math.floor(document.getElementById("rb-chart-area").getBoundingClientRect().width));
    api("POST", "/view", { query: query, chart: picked.chart, width: width }, { signal: controller ? controller.signal : undefined }).then(function (answer) {
      if (mine !== generation) return;
      result = { query: query, chart: picked.chart, note: picked.note, answer: answer };
      problem = null;
    }, function (error) {
      if (mine !== generation || (error && error.name === "AbortError")) return;
      problem = { text: explain(error), retry: true };
      if (error.status === 429 && error.retryAfter) setTimeout(function () { if (mine === generation) run(); }, error.retryAfter * 1000);
    }).then(function () {
      if (mine !== generation) return;
      inflight = null;
      busy = false;
      renderResult();
      ready();
    });
  }

  // ---- small DOM helpers -----------------------------------------------------------------------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var key in attrs) {
      var value = attrs[key];
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
      else if (value === true) node.setAttribute(key, "");
      else node.setAttribute(key, String(value));
    }
    (children || []).forEach(function (child) { if (child) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child); });
    return node;
  }
  function select(id, label, options, value, onchange) {
    return el("div", { class: "field" }, [
      el("label", { for: id, text: label }),
      el("select", { id: id, onchange: function (e) { onchange(e.target.value); } }, options.map(function (o) {
        return el("option", { value: o[0], selected: o[0] === value, text: o[1] });
      })),
    ]);
  }
  function button(text, onclick, extra) {
    var attrs = { type: "button", onclick: onclick, text: text };
    if (extra) for (var key in extra) attrs[key] = extra[key];
    return el("button", attrs);
  }
  function formatValue(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "number") return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
    if (typeof value === "boolean") return value ? "Yes" : "No";
    return String(value);
  }

  /** Rebuilds the controls; focus goes back to the control that had it (ids are stable). */
  function renderControls() {
    var focused = document.activeElement && document.activeElement.id;
    var root = document.getElementById("rb-controls");
    root.textContent = "";
    root.appendChild(savedSection());
    root.appendChild(datasetSection());
    if (currentDataset()) {
      root.appendChild(modeSection());
      if (state.mode === "summary") { root.appendChild(groupSection()); root.appendChild(valueSection()); }
      else root.appendChild(columnsSection());
      root.appendChild(filterSection());
      root.appendChild(chartSection());
    }
    if (focused) { var again = document.getElementById(focused); if (again) again.focus(); }
  }
  function changed() { renderControls(); run(); }

  function datasetSection() {
    var options = datasets.map(function (d, i) {
      var id = "rb-ds-" + i;
      return el("div", { class: "choice" }, [
        el("input", { type: "radio", name: "rb-dataset", id: id, value: d.name, checked: d.name === state.dataset, onchange: function () { pickDataset(d.name); } }),
        el("label", { for: id }, [el("span", { class: "choice-name", text: d.name }), d.description ? el("span", { class: "choice-desc", text: d.description }) : null]),
      ]);
    });
    var dataset = currentDataset();
    var columns = dataset ? el("details", { class: "columns" }, [
      el("summary", { text: "Columns of " + dataset.name + " (" + dataset.columns.length + ")" }),
      el("ul", {}, dataset.columns.map(function (c) {
        return el("li", {}, [el("span", { text: c.display_name }), el("span", { class: "type", text: TYPE_NAMES[c.type] || c.type })]);
      })),
    ]) : null;
    return el("fieldset", { class: "group" }, [el("legend", { text: "Dataset" })].concat(options, [columns]));
  }
  function pickDataset(name) {
    if (name === state.dataset) return;
    state = blankState(name);
    current = null;
    changed();
  }

  function modeSection() {
    var modes = [["summary", "Summary (group and aggregate)"], ["records", "List of records"]];
    return el("fieldset", { class: "group" }, [el("legend", { text: "View" })].concat(modes.map(function (m) {
      var id = "rb-mode-" + m[0];
      return el("div", { class: "choice inline" }, [
        el("input", { type: "radio", name: "rb-mode", id: id, value: m[0], checked: state.mode === m[0], onchange: function () { state.mode = m[0]; state.sort = []; changed(); } }),
        el("label", { for: id, text: m[1] }),
      ]);
    })));
  }

  function groupSection() {
    var dataset = currentDataset();
    var groupable = dataset.columns.filter(function (c) { return c.can_be_grouped; });
    var rows = state.groups.map(function (g, i) {
      var column = columnOf(dataset, g.column);
      return el("div", { class: "row" }, [
        select("rb-g" + i + "-col", "Group by", groupable.map(function (c) { return [c.name, c.display_name]; }), g.column, function (v) {
          g.column = v;
          var type = (columnOf(dataset, v) || {}).type;
          g.bucket = isDate(type) ? g.bucket || "month" : undefined;
          changed();
        }),
        column && isDate(column.type) ? select("rb-g" + i + "-bucket", "By", BUCKETS, g.bucket, function (v) { g.bucket = v; run(); }) : null,
        button("Remove", function () { state.groups.splice(i, 1); changed(); }, { class: "quiet", "aria-label": "Remove group " + (i + 1) }),
      ]);
    });
    var add = groupable.length ? button("Add group", function () {
      var used = state.groups.map(function (g) { return g.column; });
      var next = groupable.filter(function (c) { return used.indexOf(c.name) < 0; })[0] || groupable[0];
      state.groups.push({ column: next.name, bucket: isDate(next.type) ? "month" : undefined });
      changed();
      focusLast("rb-g" + (state.groups.length - 1) + "-col");
    }, { id: "rb-add-group" }) : el("p", { class: "hint", text: "No column of this dataset can be grouped." });
    return el("fieldset", { class: "group" }, [el("legend", { text: "Groups" })].concat(rows, [add]));
  }

  function valueSection() {
    var dataset = currentDataset();
    var rows = state.values.map(function (v, i) {
      var columns = dataset.columns.filter(function (c) { return aggregateAllowed(v.aggregate, c.type); });
      return el("div", { class: "row" }, [
        select("rb-v" + i + "-agg", "Calculate", AGGREGATES, v.aggregate, function (a) {
          v.aggregate = a;
          if (a === "count") v.column = "";
          else if (!v.column || !aggregateAllowed(a, (columnOf(dataset, v.column) || {}).type)) {
            var fit = dataset.columns.filter(function (c) { return aggregateAllowed(a, c.type); })[0];
            v.column = fit ? fit.name : "";
          }
          changed();
        }),
        v.aggregate === "count" ? null : select("rb-v" + i + "-col", "Of", columns.map(function (c) { return [c.name, c.display_name]; }), v.column, function (c) { v.column = c; run(); }),
        button("Remove", function () { state.values.splice(i, 1); changed(); }, { class: "quiet", "aria-label": "Remove value " + (i + 1) }),
      ]);
    });
    var add = button("Add value", function () {
      var numeric = dataset.columns.filter(function (c) { return isNumber(c.type); })[0];
      state.values.push(numeric ? { aggregate: "sum", column: numeric.name } : { aggregate: "count", column: "" });
      changed();
      focusLast("rb-v" + (state.values.length - 1) + "-agg");
    }, { id: "rb-add-value" });
    return el("fieldset", { class: "group" }, [el("legend", { text: "Values" })].concat(rows, [add]));
  }

  function columnsSection() {
    var dataset = currentDataset();
    var chosen = state.columns.length ? state.columns : dataset.columns.map(function (c) { return c.name; });
    return el("fieldset", { class: "group" }, [el("legend", { text: "Columns to list" })].concat(dataset.columns.map(function (c, i) {
      var id = "rb-col-" + i;
      return el("div", { class: "choice inline" }, [
        el("input", { type: "checkbox", id: id, checked: chosen.indexOf(c.name) >= 0, onchange: function (e) {
          var next = dataset.columns.map(function (d) { return d.name; }).filter(function (name) {
            return name === c.name ? e.target.checked : chosen.indexOf(name) >= 0;
          });
          if (next.length === 0) { e.target.checked = true; return; }
          state.columns = next;
          run();
        } }),
        el("label", { for: id, text: c.display_name }),
      ]);
    })));
  }

  function filterSection() {
    var dataset = currentDataset();
    var rows = state.filters.map(function (f, i) {
      var column = columnOf(dataset, f.column) || dataset.columns[0];
      var ops = opsFor(column.type);
      return el("div", { class: "row filter" }, [
        select("rb-f" + i + "-col", "Filter on", dataset.columns.map(function (c) { return [c.name, c.display_name]; }), f.column, function (v) {
          var filter = newFilter(columnOf(dataset, v));
          state.filters[i] = filter;
          changed();
        }),
        select("rb-f" + i + "-op", "Condition", ops.map(function (op) { return [op, opLabel(op, column.type)]; }), f.op, function (op) {
          var list = op === "in" || op === "not_in", wasList = f.op === "in" || f.op === "not_in";
          if (list !== wasList || op === "between" || f.op === "between") { f.values = []; f.value = ""; }
          f.op = op;
          if (list) loadDistinct(column);
          changed();
        }),
        filterInput(f, column, i),
        button("Remove", function () { state.filters.splice(i, 1); changed(); }, { class: "quiet", "aria-label": "Remove filter " + (i + 1) }),
      ]);
    });
    var locked = (boot.locked_filters || []).filter(function (f) { return f.dataset === state.dataset; });
    var lockedNote = locked.length ? el("p", { class: "hint", text: "Always applied here: " + locked.map(function (f) {
      var c = columnOf(dataset, f.column);
      return (c ? c.display_name : f.column) + " " + opLabel(f.op, c ? c.type : "") + (f.values ? " " + f.values.join(", ") : f.value !== undefined ? " " + f.value : "");
    }).join("; ") }) : null;
    var add = button("Add filter", function () {
      state.filters.push(newFilter(dataset.columns[0]));
      changed();
      focusLast("rb-f" + (state.filters.length - 1) + "-col");
    }, { id: "rb-add-filter" });
    return el("fieldset", { class: "group" }, [el("legend", { text: "Filters" }), lockedNote].concat(rows, [add]));
  }
  function newFilter(column) {
    var op = opsFor(column.type)[0];
    if (op === "in") loadDistinct(column);
    return { column: column.name, op: op, value: column.type === "BOOLEAN" ? "true" : "", values: [] };
  }
  function focusLast(id) { var node = document.getElementById(id); if (node) node.focus(); }

  function filterInput(f, column, i) {
    var id = "rb-f" + i + "-value";
    if (f.op === "is_null" || f.op === "is_not_null") return null;
    var kind = isNumber(column.type) ? "number" : isDate(column.type) ? "date" : "text";
    function input(inputId, label, value, onvalue) {
      return el("div", { class: "field" }, [
        el("label", { for: inputId, text: label }),
        el("input", { id: inputId, type: kind, step: column.type === "FLOAT" ? "any" : undefined, value: value, oninput: function (e) { onvalue(e.target.value); runSoon(); }, onchange: function (e) { onvalue(e.target.value); run(); } }),
      ]);
    }
    if (column.type === "BOOLEAN") return select(id, "Value", [["true", "Yes"], ["false", "No"]], String(f.value), function (v) { f.value = v; run(); });
    if (f.op === "between") {
      return el("div", { class: "pair" }, [
        input(id, "From", f.values[0] || "", function (v) { f.values[0] = v; f.values[1] = f.values[1] || ""; }),
        input(id + "-to", "To", f.values[1] || "", function (v) { f.values[1] = v; f.values[0] = f.values[0] || ""; }),
      ]);
    }
    if (f.op === "in" || f.op === "not_in") {
      var known = distinct[state.dataset + "/" + column.name];
      if (known === "loading" || known === undefined) return el("p", { class: "hint", id: id, text: "Loading the values…" });
      if (known === "failed") return el("p", { class: "hint", id: id, text: "The values could not be loaded. Choose another condition." });
      var options = known.concat(f.values.filter(function (v) { return known.indexOf(v) < 0; }));
      return el("fieldset", { class: "values", id: id }, [el("legend", { text: "Values" })].concat(options.map(function (value, j) {
        var boxId = id + "-" + j;
        return el("div", { class: "choice inline" }, [
          el("input", { type: "checkbox", id: boxId, checked: f.values.indexOf(value) >= 0, onchange: function (e) {
            f.values = options.filter(function (o) { return o === value ? e.target.checked : f.values.indexOf(o) >= 0; });
            run();
          } }),
          el("label", { for: boxId, text: value === "" ? "(empty)" : value }),
        ]);
      })));
    }
    return input(id, "Value", f.value, function (v) { f.value = v; });
  }

  /** The values a text column holds (up to 100), for "is one of": one query, kept per column. */
  function loadDistinct(column) {
    var key = state.dataset + "/" + column.name;
    if (distinct[key] && distinct[key] !== "failed") return;
    distinct[key] = "loading";
    api("POST", "/query", { dataset: state.dataset, group_by: [{ column: column.name }], values: [], limit: 100 }).then(function (answer) {
      distinct[key] = answer.rows.map(function (row) { return row[column.name]; }).filter(function (v) { return v !== null; }).map(String);
    }, function () { distinct[key] = "failed"; }).then(renderControls);
  }

  function chartSection() {
    return el("fieldset", { class: "group" }, [
      el("legend", { text: "Chart" }),
      select("rb-chart", "Chart type", CHARTS, state.chart, function (v) { state.chart = v; run(); }),
    ]);
  }

  // ---- saved reports ----------------------------------------------------------------------------
  function brokenReason(report) {
    var q = report.query || {};
    var dataset = datasetByName(q.dataset);
    if (!dataset) return "The dataset “" + q.dataset + "” is no longer offered.";
    var missing = null;
    function check(name, groupable) {
      if (missing || name === undefined) return;
      var c = columnOf(dataset, name);
      if (!c) missing = "The column “" + name + "” no longer exists in " + dataset.name + ".";
      else if (groupable && !c.can_be_grouped) missing = "“" + c.display_name + "” can no longer be grouped.";
    }
    (q.group_by || []).forEach(function (g) { check(g.column, true); });
    (q.values || []).forEach(function (v) { check(v.column); });
    (q.columns || []).forEach(function (c) { check(c); });
    (q.filters || []).forEach(function (f) { check(f.column); });
    return missing;
  }

  function savedSection() {
    var children = [el("legend", { text: "Saved reports" })];
    if (notice) children.push(el("p", { class: "notice", role: "status", text: notice }));
    if (reports === null) children.push(el("p", { class: "hint", text: "The saved reports could not be loaded." }));
    else if (reports.length === 0) children.push(el("p", { class: "hint", text: "No saved reports yet." }));
    else children.push(el("ul", { class: "reports" }, reports.map(savedItem)));
    if (canSave) {
      children.push(el("div", { class: "row save" }, [
        el("div", { class: "field grow" }, [
          el("label", { for: "rb-name", text: "Report name" }),
          el("input", { id: "rb-name", type: "text", maxlength: 200, value: state.name || (current ? current.name : ""), oninput: function (e) { state.name = e.target.value; } }),
        ]),
        current ? button("Save changes", function () { save(false); }, { id: "rb-save-changes" }) : null,
        button(current ? "Save as new" : "Save report", function () { save(true); }, { id: "rb-save", class: "primary" }),
      ]));
    }
    return el("fieldset", { class: "group saved" }, children);
  }

  function savedItem(report) {
    var reason = brokenReason(report);
    var label = el("span", { class: "report-name" }, [
      el("span", { text: report.name }),
      current && current.id === report.id ? el("span", { class: "badge", text: "open" }) : null,
      reason ? el("span", { class: "badge broken", text: "broken" }) : null,
    ]);
    var parts = [label];
    if (reason) parts.push(el("span", { class: "reason", text: reason }));
    if (editing && editing.id === report.id && editing.kind === "rename") {
      var inputId = "rb-rename-" + report.id;
      parts.push(el("div", { class: "row" }, [
        el("div", { class: "field grow" }, [el("label", { for: inputId, text: "New name" }), el("input", { id: inputId, type: "text", maxlength: 200, value: report.name })]),
        button("Save name", function () { rename(report, document.getElementById(inputId).value); }, { class: "primary", id: "rb-rename-ok" }),
        button("Cancel", function () { editing = null; renderControls(); }),
      ]));
    } else if (editing && editing.id === report.id && editing.kind === "delete") {
      parts.push(el("div", { class: "confirm", role: "alert" }, [
        el("span", { text: "Delete “" + report.name + "”? This cannot be undone." }),
        button("Delete", function () { remove(report); }, { class: "danger", id: "rb-delete-ok" }),
        button("Cancel", function () { editing = null; renderControls(); }, { id: "rb-delete-cancel" }),
      ]));
    } else {
      var actions = [button("Open", function () { openReport(report); }, { "aria-label": "Open " + report.name })];
      if (canSave) {
        actions.push(button("Rename", function () { editing = { id: report.id, kind: "rename" }; renderControls(); focusLast("rb-rename-" + report.id); }, { class: "quiet", "aria-label": "Rename " + report.name }));
        actions.push(button("Delete", function () { editing = { id: report.id, kind: "delete" }; renderControls(); focusLast("rb-delete-cancel"); }, { class: "quiet", "aria-label": "Delete " + report.name }));
      }
      parts.push(el("div", { class: "actions" }, actions));
    }
    return el("li", { class: reason ? "broken" : "" }, parts);
  }

  function loadReports() {
    return api("GET", "/reports").then(function (answer) { reports = answer.reports || []; }, function () { reports = null; });
  }

  function openReport(report) {
    var q = report.query || {};
    current = report;
    editing = null;
    notice = "";
    state = blankState(q.dataset);
    state.name = report.name;
    if (q.columns) { state.mode = "records"; state.columns = q.columns.slice(); }
    else {
      state.groups = (q.group_by || []).map(function (g) { return { column: g.column, bucket: g.bucket }; });
      state.values = (q.values || []).map(function (v) { return { aggregate: v.aggregate, column: v.column || "" }; });
    }
    state.filters = (q.filters || []).map(function (f) {
      var values = (f.values || []).map(String);
      if (f.op === "in" || f.op === "not_in") { var c = columnOf(datasetByName(q.dataset), f.column); if (c) loadDistinct(c); }
      return { column: f.column, op: f.op, value: f.value === undefined ? "" : String(f.value), values: values };
    });
    state.sort = (q.sort || []).slice();
    state.chart = report.chart && report.chart.type ? report.chart.type : "auto";
    var reason = brokenReason(report);
    if (reason || !datasetByName(q.dataset)) {
      renderControls();
      result = null;
      problem = { text: "This report cannot be shown: " + (reason || "its dataset is gone") + " Pick what to show instead, or delete it." };
      // Still ask the service: it names the first thing that is missing.
      if (datasetByName(q.dataset)) run(); else { renderResult(); ready(); }
      return;
    }
    changed();
  }

  function save(asNew) {
    var nameInput = document.getElementById("rb-name");
    var name = (nameInput ? nameInput.value : "").trim();
    if (!name) { notice = "Give the report a name to save it."; renderControls(); focusLast("rb-name"); return; }
    var query = buildQuery();
    var payload = { name: name, query: query, chart: chartFor(query).chart };
    var request = asNew || !current ? api("POST", "/reports", payload) : api("POST", "/reports/" + encodeURIComponent(current.id), payload);
    request.then(function (answer) {
      current = answer.report;
      state.name = current.name;
      notice = "Saved “" + current.name + "”.";
      post({ type: "saved", id: current.id, name: current.name });
      return loadReports();
    }, function (error) { notice = explain(error); }).then(renderControls);
  }

  function rename(report, name) {
    name = (name || "").trim();
    if (!name) { notice = "A report needs a name."; renderControls(); return; }
    api("POST", "/reports/" + encodeURIComponent(report.id), { name: name }).then(function (answer) {
      editing = null;
      notice = "Renamed to “" + answer.report.name + "”.";
      if (current && current.id === report.id) { current = answer.report; state.name = current.name; }
      return loadReports();
    }, function (error) { notice = explain(error); }).then(renderControls);
  }

  function remove(report) {
    api("DELETE", "/reports/" + encodeURIComponent(report.id)).then(function () {
      editing = null;
      notice = "Deleted “" + report.name + "”.";
      if (current && current.id === report.id) { current = null; state.name = ""; }
      return loadReports();
    }, function (error) { notice = explain(error); }).then(renderControls);
  }

  // ---- the result ---------------------------------------------------------------------------------
  function renderStatus() {
    var status = document.getElementById("rb-status");
    var area = document.getElementById("rb-result");
    area.setAttribute("aria-busy", busy ? "true" : "false");
    if (busy) { status.textContent = "Updating…"; return; }
    if (!result || problem) { status.textContent = ""; return; }
    var a = result.answer;
    var n = a.row_count;
    status.textContent = a.truncated ? "Showing the first " + n.toLocaleString("en-US") + " rows" : n.toLocaleString("en-US") + (n === 1 ? " row" : " rows");
  }

  function renderResult() {
    renderStatus();
    var chartArea = document.getElementById("rb-chart-area");
    var tableArea = document.getElementById("rb-table-area");
    var message = document.getElementById("rb-message");
    document.getElementById("rb-downloads").hidden = !result || !!problem;
    message.textContent = "";
    message.hidden = !problem;
    if (problem) {
      message.appendChild(el("p", { text: problem.text }));
      if (problem.retry) message.appendChild(button("Try again", run));
      chartArea.textContent = "";
      tableArea.textContent = "";
      return;
    }
    if (!result) return;
    var a = result.answer;
    chartArea.textContent = "";
    if (result.note) chartArea.appendChild(el("p", { class: "hint", text: result.note }));
    if (result.chart.type !== "table" && a.chart_html) {
      var holder = el("div", { class: "chart-holder chart-" + result.chart.type });
      holder.innerHTML = a.chart_html; // the service's renderer output (escaped there)
      chartArea.appendChild(holder);
    }
    tableArea.textContent = "";
    if (a.rows.length === 0) { tableArea.appendChild(el("p", { class: "empty", text: "No rows match. Change or remove a filter." })); return; }
    tableArea.appendChild(renderTable(a));
  }

  function renderTable(a) {
    var sort = state.sort[0];
    var head = el("tr", {}, a.columns.map(function (c) {
      var direction = sort && sort.column === c.name ? sort.direction : null;
      var numeric = isNumber(c.type);
      return el("th", { scope: "col", class: numeric ? "num" : "", "aria-sort": direction ? (direction === "asc" ? "ascending" : "descending") : "none" }, [
        button(c.display_name + (direction === "asc" ? " ▲" : direction === "desc" ? " ▼" : ""), function () {
          state.sort = [{ column: c.name, direction: direction === "asc" ? "desc" : "asc" }];
          run();
        }, { class: "sort", id: "rb-sort-" + c.name, title: "Sort by " + c.display_name }),
      ]);
    }));
    var rows = a.rows.map(function (row) {
      return el("tr", {}, a.columns.map(function (c) { return el("td", { class: isNumber(c.type) ? "num" : "", text: formatValue(row[c.name]) }); }));
    });
    return el("div", { class: "table-wrap", tabindex: 0, role: "region", "aria-label": "Result table" }, [el("table", {}, [el("thead", {}, [head]), el("tbody", {}, rows)])]);
  }

  function download(format) {
    var query = buildQuery();
    var name = ((state.name || (current && current.name) || state.dataset || "report").trim() || "report").replace(/[\\/:*?"<>|]+/g, "-");
    var status = document.getElementById("rb-download-status");
    status.textContent = "Preparing the " + format.toUpperCase() + " file…";
    api("POST", "/export", { query: query, format: format, file_name: name }, { raw: true }).then(function (response) {
      return response.blob();
    }).then(function (blob) {
      var link = el("a", { href: URL.createObjectURL(blob), download: name + "." + format });
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 10000);
      status.textContent = "Downloaded " + name + "." + format + ".";
    }, function (error) { status.textContent = explain(error); });
  }

  // ---- start -------------------------------------------------------------------------------------------
  // Enter in a text field must not submit (and reload) the controls' form.
  document.getElementById("rb-controls").addEventListener("submit", function (e) { e.preventDefault(); });
  document.getElementById("rb-csv").addEventListener("click", function () { download("csv"); });
  document.getElementById("rb-xlsx").addEventListener("click", function () { download("xlsx"); });
  var lastWidth = 0;
  if (typeof ResizeObserver === "function") {
    var resizeTimer = null;
    new ResizeObserver(function (entries) {
      var width = Math.round(entries[0].contentRect.width);
      if (!lastWidth) { lastWidth = width; return; }
      if (Math.abs(width - lastWidth) < 24 || !result || result.chart.type === "table") return;
      lastWidth = width;
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(run, 250); // charts are drawn for their width
    }).observe(document.getElementById("rb-chart-area"));
  }

  var datasetsReady = boot.datasets ? Promise.resolve() : api("GET", "/datasets").then(function (answer) {
    datasets = answer.datasets || [];
    state = blankState(datasets[0] ? datasets[0].name : "");
  });
  var reportsReady = boot.reports ? Promise.resolve(reports = boot.reports) : loadReports();
  Promise.all([datasetsReady, reportsReady]).then(function () {
    var wanted = boot.report ? reports && reports.filter(function (r) { return r.id === boot.report; })[0] : null;
    if (wanted) { openReport(wanted); return; }
    if (boot.report) notice = "The saved report asked for is not there any more.";
    renderControls();
    run();
  }, function (error) {
    problem = { text: explain(error), retry: false };
    renderControls();
    renderResult();
    ready();
  });
})();
`;
