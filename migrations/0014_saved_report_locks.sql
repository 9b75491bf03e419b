-- A saved report keeps the locked filters of the builder token that saved it (JSON array,
-- '[]' when none): every run of the report applies them (the builder, deliveries, share
-- links), and only a token with the same user and the same locks may change or delete it.
ALTER TABLE `saved_reports` ADD `locked_filters` text DEFAULT '[]' NOT NULL;
