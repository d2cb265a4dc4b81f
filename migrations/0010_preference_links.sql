CREATE TABLE `preference_link_settings` (
	`environment_id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`brand_name` text,
	`logo_url` text,
	`accent_color` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `workflows` ADD `unsubscribe` text DEFAULT 'workflow' NOT NULL;