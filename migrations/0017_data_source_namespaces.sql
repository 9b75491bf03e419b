-- A data source may name the PostgreSQL schema or MySQL database its panels read, so one
-- Hyperdrive binding serves many tenants (one data source per tenant). NULL: the binding's own.
ALTER TABLE `data_sources` ADD COLUMN `namespace` text;
