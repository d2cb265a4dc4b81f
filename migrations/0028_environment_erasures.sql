CREATE TABLE `environment_erasures` (
	`environment_id` text PRIMARY KEY NOT NULL,
	`deleted_at` integer NOT NULL
);
