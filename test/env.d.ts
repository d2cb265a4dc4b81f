import type { D1Migration } from "cloudflare:test";
import type { Bindings } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      /** Base URL of the fake provider server started by test/global-setup.ts. */
      FAKE_PROVIDER_URL: string;
    }
  }
}
