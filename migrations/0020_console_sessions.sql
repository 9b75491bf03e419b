-- The vendor's console (docs/console.md): a signed-in browser holds a cookie naming one row
-- here (the SHA-256 of its random id, never the id itself); signing out deletes the row, so
-- the cookie stops working at once, on every isolate.
CREATE TABLE `console_sessions` (
  `id_hash` text PRIMARY KEY NOT NULL,
  `expires_at` text NOT NULL,
  `created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
CREATE INDEX `console_sessions_expires_at` ON `console_sessions` (`expires_at`);
-- Wrong admin tokens given to the sign-in form, counted per client and minute: the 11th
-- within a minute is refused with 429 before the token is even compared.
CREATE TABLE `console_sign_in_failures` (
  `client` text NOT NULL,
  `minute` integer NOT NULL,
  `count` integer DEFAULT 0 NOT NULL,
  PRIMARY KEY(`client`, `minute`)
);
