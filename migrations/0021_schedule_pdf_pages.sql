-- The pages a schedule's PDFs are printed on (docs/delivery.md, "PDF pages"):
-- `{ "page_size": "A4", "orientation": "landscape" }` as JSON, NULL when unset (the
-- dashboard definition's `pdf`, else one page derived from the width).
ALTER TABLE `report_schedules` ADD `pdf` text;
