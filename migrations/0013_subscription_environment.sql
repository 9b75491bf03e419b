-- A viewer's subscription (source 'embed') renders the dashboard version its embed token was
-- pinned to (the token's `environment` tag); NULL when the token pinned none, and for every
-- schedule made through the API.
ALTER TABLE `report_schedules` ADD `environment` text;
