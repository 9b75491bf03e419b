import { admin, AdminError } from "./api";
import { button, el, field, fill, selectOf } from "./dom";
import { canonical, type Customer, type EditorState, type Problem } from "./state";

// "Check all customers" (docs/console.md): every customer of the chosen access group
// (GET /admin/customers/) checked with the definition as it is shown, by the same operation
// `dashboards validate --customer` calls (POST /admin/dashboard_checks/: each data panel's
// query prepared on that customer's data source without reading rows, the columns it names,
// and the customer's locale against the translations). Runs in the background, a few at a time,
// with a progress bar; the result is the table "Problems".

const AT_ONCE = 6;

interface Found {
  customer: string;
  panel: string;
  message: string;
}

async function customersOf(group: string): Promise<Customer[]> {
  const all: Customer[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const query = new URLSearchParams({ access_group: group, limit: "1000", offset: String(offset) });
    const page: { customers: Customer[]; next_offset: number | null } = await admin("GET", `/admin/customers/?${query}`);
    all.push(...page.customers);
    offset = page.next_offset;
  }
  return all;
}

export function checkAllSection(state: EditorState, onDone: () => void): HTMLElement {
  const group = selectOf([], "");
  const bar = el("span", { style: "width:0%" });
  const progress = el(
    "div",
    {
      role: "progressbar",
      "aria-label": "Customers checked",
      "aria-valuemin": 0,
      "aria-valuemax": 0,
      "aria-valuenow": 0,
      hidden: true,
    },
    [bar],
  );
  const summary = el("p", { role: "status" });
  const rows = el("tbody");
  const table = el("table", { role: "table", "aria-label": "Problems" }, [
    el("thead", {}, [
      el("tr", {}, [
        el("th", { scope: "col", text: "Customer" }),
        el("th", { scope: "col", text: "Panel" }),
        el("th", { scope: "col", text: "Message" }),
      ]),
    ]),
    rows,
  ]);
  void admin<{ access_groups: { name: string }[] }>("GET", "/admin/access_groups/").then(({ access_groups }) => {
    fill(group, ...access_groups.map((g) => el("option", { value: g.name, text: g.name })));
  });

  const run = async () => {
    const definition = JSON.parse(JSON.stringify(state.definition));
    const key = canonical(definition);
    start.disabled = true;
    fill(rows);
    summary.textContent = "Listing the customers…";
    const started = performance.now();
    const found: Found[] = [];
    try {
      const customers = await customersOf(group.value);
      progress.hidden = false;
      progress.setAttribute("aria-valuemax", String(customers.length));
      let done = 0;
      let next = 0;
      const mark = () => {
        progress.setAttribute("aria-valuenow", String(done));
        progress.setAttribute("aria-valuetext", `${done} of ${customers.length} customers`);
        bar.style.width = customers.length ? `${(100 * done) / customers.length}%` : "100%";
        summary.textContent = `Checked ${done} of ${customers.length} customers`;
      };
      mark();
      const worker = async () => {
        while (next < customers.length) {
          const customer = customers[next++];
          try {
            const answer: { problems: Problem[] } = await admin("POST", "/admin/dashboard_checks/", {
              embed_id: state.embedId,
              name: state.name,
              definition,
              provided_id: customer.provided_id,
              customer_locale: true,
            });
            for (const problem of answer.problems) {
              found.push({
                customer: customer.provided_id,
                panel: problem.panel_id ?? (problem.field.replace(/^definition\./, "") || "the dashboard"),
                message: problem.message,
              });
            }
          } catch (error) {
            found.push({ customer: customer.provided_id, panel: "", message: error instanceof AdminError ? error.message : String(error) });
          }
          done++;
          mark();
        }
      };
      await Promise.all(Array.from({ length: AT_ONCE }, worker));
      fill(
        rows,
        ...found.map((f) => el("tr", {}, [el("td", { text: f.customer }), el("td", { text: f.panel }), el("td", { text: f.message })])),
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      summary.textContent = `Checked ${customers.length} customers in ${seconds} s: ${found.length === 0 ? "no problems" : `${found.length} problems`}.`;
      summary.dataset.seconds = seconds;
      state.checks.set(key, found.length);
      onDone();
    } catch (error) {
      summary.textContent = `The check stopped: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      start.disabled = false;
    }
  };
  const start = button("Check all customers", () => void run());
  return el("section", { class: "card", "aria-label": "Check every customer" }, [
    el("h2", { text: "Check every customer" }),
    el("div", { class: "toolbar" }, [field("Access group", group), start]),
    progress,
    summary,
    table,
  ]);
}
