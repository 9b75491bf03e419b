import { createHash, createHmac, randomBytes } from "node:crypto";

const q = (value) => (value === null ? "NULL" : `'${String(value).replaceAll("'", "''")}'`);
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** The same derivation as src/customers/tokens.ts. */
function customerToken(secret) {
  const nonce = randomBytes(16).toString("hex");
  const token = createHmac("sha256", secret).update(`customer-token:${nonce}`).digest("hex");
  return { nonce, hash: sha256(token) };
}

const demoCustomers = [
  {
    providedId: "acme",
    name: "Acme Corporation",
    level: "Customer",
    parent: null,
    properties: { plan: "enterprise", region: "EU", currency: "EUR" },
    mapping: { 1: "1" },
    emails: ["ops@acme.example"],
  },
  {
    providedId: "acme-berlin",
    name: "Acme Berlin",
    level: "User",
    parent: "acme",
    properties: { city: "Berlin" },
    mapping: null,
    emails: [],
    locale: "de-DE",
    timezone: "Europe/Berlin",
  },
  {
    providedId: "acme-paris",
    name: "Acme Paris",
    level: "User",
    parent: "acme",
    properties: { city: "Paris" },
    mapping: null,
    emails: [],
    locale: "fr-FR",
    timezone: "Europe/Paris",
  },
  {
    providedId: "globex",
    name: "Globex Inc.",
    level: "Customer",
    parent: null,
    properties: { plan: "starter", region: "US", currency: "USD" },
    mapping: { 1: "1" },
    emails: ["it@globex.example"],
  },
];

/** SQL for the main database: the Development access group, its write token, a schema, the demo data source and demo customers. */
export function workspaceSeedSql({ devApiToken, customerTokenSecret }) {
  const lines = [
    `INSERT OR IGNORE INTO access_groups (name, name_key) VALUES ('Development', 'development');`,
    `INSERT OR IGNORE INTO api_tokens (id, name, access_group_id, permission, token_hash)
       SELECT 'tok_development', 'Development write token (DEV_API_TOKEN)', id, 'write', ${q(sha256(devApiToken))}
         FROM access_groups WHERE name_key = 'development';`,
    `INSERT OR IGNORE INTO schemas (id, name) VALUES (1, 'sales');`,
    `INSERT OR IGNORE INTO data_sources (id, provided_id, name, binding) VALUES (1, 'demo', 'Demo data', 'DEMO_DATA');`,
  ];
  for (const c of demoCustomers) {
    const token = customerToken(customerTokenSecret);
    lines.push(`INSERT OR IGNORE INTO customers (provided_id, name, access_group_id, hierarchy_level_id, parent_id, is_demo, emails, properties, mapping, token_nonce, token_hash, locale, timezone)
      SELECT ${q(c.providedId)}, ${q(c.name)}, (SELECT id FROM access_groups WHERE name_key = 'development'),
             (SELECT id FROM hierarchy_levels WHERE name = ${q(c.level)}),
             ${c.parent ? `(SELECT id FROM customers WHERE provided_id = ${q(c.parent)})` : "NULL"}, 1,
             ${q(JSON.stringify(c.emails))}, ${q(JSON.stringify(c.properties))}, ${c.mapping ? q(JSON.stringify(c.mapping)) : "NULL"},
             ${q(token.nonce)}, ${q(token.hash)}, ${c.locale ? q(c.locale) : "NULL"}, ${c.timezone ? q(c.timezone) : "NULL"}
       WHERE EXISTS (SELECT 1 FROM hierarchy_levels WHERE name = ${q(c.level)});`);
  }
  return lines.join("\n");
}

/** Deterministic sample orders for the demo customers (the same rows in D1 and in PostgreSQL). */
export function demoOrders() {
  const products = ["Analytics", "Storage", "Support", "Seats"];
  const scale = { acme: 1.0, "acme-berlin": 0.45, "acme-paris": 0.35, globex: 0.6 };
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const orders = [];
  for (const [customer, factor] of Object.entries(scale)) {
    for (let month = 1; month <= 12; month++) {
      for (let i = 0; i < 6; i++) {
        const day = `2026-${String(month).padStart(2, "0")}-${String(1 + Math.floor(random() * 28)).padStart(2, "0")}`;
        const product = products[Math.floor(random() * products.length)];
        const amount = Math.round((200 + random() * 1800) * factor * (1 + month / 24) * 100) / 100;
        orders.push({ customer_id: customer, day, month: day.slice(0, 7), product, amount });
      }
    }
  }
  return orders;
}

/** The demo orders for the DEMO_DATA database (SQLite). */
export function demoDataSql() {
  const rows = demoOrders().map((o) => `(${q(o.customer_id)}, ${q(o.day)}, ${q(o.month)}, ${q(o.product)}, ${o.amount})`);
  return [
    `CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, day TEXT NOT NULL, month TEXT NOT NULL, product TEXT NOT NULL, amount REAL NOT NULL);`,
    `CREATE INDEX IF NOT EXISTS orders_customer_day ON orders (customer_id, day);`,
    `DELETE FROM orders;`,
    `INSERT INTO orders (customer_id, day, month, product, amount) VALUES\n${rows.join(",\n")};`,
  ].join("\n");
}
