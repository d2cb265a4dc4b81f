ALTER TABLE `api_keys` ADD `kind` text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `scopes` text;