import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest(async ({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations(fileURLToPath(new URL("./migrations", import.meta.url))),
          ENCRYPTION_KEY: "Y2xhcmlvbi10ZXN0LWtleS0wMTIzNDU2Nzg5YWJjZGU=",
          FAKE_PROVIDER_URL: inject("fakeProviderUrl"),
          // test/request.ts holds the admin credential this is the hash of.
          ADMIN_KEY_HASH: createHash("sha256").update("clarion_admin_testAdminCredential0123456789abcdef").digest("hex"),
        },
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/conformance/**", "test/browser/**", "test/scripts/**"],
    setupFiles: ["./test/setup.ts"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 30_000,
  },
});
