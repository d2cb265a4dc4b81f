CREATE TABLE `analytics_opt_outs` (
	`environment_id` text NOT NULL,
	`hour` integer NOT NULL,
	`workflow` text NOT NULL,
	`channel` text NOT NULL,
	`reason` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `hour`, `workflow`, `channel`, `reason`)
);
