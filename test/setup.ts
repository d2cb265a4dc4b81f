import { applyD1Migrations, env, reset } from "cloudflare:test";

// The runtime is shared by the files a worker runs (`isolate: false` in vitest.config.ts): empty
// every binding, and so end the objects and jobs the previous file left running, before this file
// builds its schema.
await reset();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
