import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/dashboard/",
  build: { outDir: "dist/dashboard", emptyOutDir: true },
});
