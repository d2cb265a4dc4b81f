CREATE TABLE `brands` (
	`environment_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `brand_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`action` text NOT NULL,
	`author_type` text NOT NULL,
	`author_id` text,
	`author_name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `brand_versions_env_version_uq` ON `brand_versions` (`environment_id`,`version`);--> statement-breakpoint
CREATE TABLE `translations` (
	`environment_id` text NOT NULL,
	`locale` text NOT NULL,
	`keys` text NOT NULL,
	`key_revisions` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `locale`)
);
--> statement-breakpoint
CREATE TABLE `translation_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`locale` text NOT NULL,
	`version` integer NOT NULL,
	`revision` integer NOT NULL,
	`keys` text,
	`action` text NOT NULL,
	`author_type` text NOT NULL,
	`author_id` text,
	`author_name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `translation_versions_locale_version_uq` ON `translation_versions` (`environment_id`,`locale`,`version`);--> statement-breakpoint
CREATE INDEX `translation_versions_env_revision_idx` ON `translation_versions` (`environment_id`,`revision`);--> statement-breakpoint
CREATE TABLE `translation_settings` (
	`environment_id` text PRIMARY KEY NOT NULL,
	`default_locale` text DEFAULT 'en' NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL
);
