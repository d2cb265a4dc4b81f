CREATE TABLE `layouts` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`html` text NOT NULL,
	`text` text,
	`is_default` integer DEFAULT false NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `layouts_env_key_uq` ON `layouts` (`environment_id`,`key`);--> statement-breakpoint
CREATE TABLE `layout_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`layout_id` text NOT NULL,
	`layout_key` text NOT NULL,
	`version` integer NOT NULL,
	`stamp` integer NOT NULL,
	`definition` text NOT NULL,
	`action` text NOT NULL,
	`author_type` text NOT NULL,
	`author_id` text,
	`author_name` text NOT NULL,
	`summary` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `layout_versions_layout_version_uq` ON `layout_versions` (`layout_id`,`version`);--> statement-breakpoint
CREATE INDEX `layout_versions_env_key_stamp_idx` ON `layout_versions` (`environment_id`,`layout_key`,`stamp`);--> statement-breakpoint
CREATE TABLE `partials` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`content` text NOT NULL,
	`type` text NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `partials_env_key_uq` ON `partials` (`environment_id`,`key`);--> statement-breakpoint
CREATE TABLE `partial_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`partial_id` text NOT NULL,
	`partial_key` text NOT NULL,
	`version` integer NOT NULL,
	`stamp` integer NOT NULL,
	`definition` text NOT NULL,
	`action` text NOT NULL,
	`author_type` text NOT NULL,
	`author_id` text,
	`author_name` text NOT NULL,
	`summary` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `partial_versions_partial_version_uq` ON `partial_versions` (`partial_id`,`version`);--> statement-breakpoint
CREATE INDEX `partial_versions_env_key_stamp_idx` ON `partial_versions` (`environment_id`,`partial_key`,`stamp`);--> statement-breakpoint
CREATE TABLE `content_stamps` (
	`environment_id` text PRIMARY KEY NOT NULL,
	`stamp` integer NOT NULL
);
