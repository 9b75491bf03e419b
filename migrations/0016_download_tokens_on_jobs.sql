-- A download link's token (hashed) is kept on its job's row, no longer in KV: a KV write is
-- seen at once only where it was made, and up to a minute later elsewhere, so a link handed
-- to a browser on another continent could answer 404 right after the API call made it. The
-- row is read where the job is (a replica that lacks it is retried on the primary).
ALTER TABLE `jobs` ADD COLUMN `download_token_hash` text;
ALTER TABLE `jobs` ADD COLUMN `download_expires_at` text;
CREATE UNIQUE INDEX `jobs_download_token` ON `jobs` (`download_token_hash`);
