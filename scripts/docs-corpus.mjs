// Writes src/features/mcp/docs-corpus.json: Clarion's docs/ split into sections (one per heading),
// bundled into the Worker for the MCP server's `search_docs` tool, which needs no network and
// answers from the docs of the version it runs. `--check` (run by `npm test`) fails when the
// committed file no longer matches docs/: run `npm run reference` and commit.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const DOCS = join(ROOT, "docs");
const OUT = join(ROOT, "src/features/mcp/docs-corpus.json");

/** Markdown files under docs/, in a stable order. */
function pages(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return pages(path);
      return entry.name.endsWith(".md") ? [path] : [];
    });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as '-'. */
const anchorOf = (heading) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");

/** Sections by heading (#, ## and ###); a heading inside a code block is code, not a heading. Test markers are left out. */
function sectionsOf(path) {
  const page = relative(DOCS, path);
  const lines = readFileSync(path, "utf8").split("\n");
  const sections = [];
  let title = page;
  let current = { heading: page, lines: [] };
  let inCode = false;
  for (const line of lines) {
    if (line.startsWith("```")) inCode = !inCode;
    const heading = inCode ? null : /^(#{1,3})\s+(.+?)\s*$/.exec(line);
    if (heading) {
      sections.push(current);
      if (heading[1] === "#") title = heading[2];
      current = { heading: heading[2], lines: [] };
      continue;
    }
    if (!/^<!--.*-->$/.test(line.trim())) current.lines.push(line);
  }
  sections.push(current);
  return sections
    .map((s) => ({ page, title, heading: s.heading, anchor: anchorOf(s.heading), text: s.lines.join("\n").trim() }))
    .filter((s) => s.text.length > 0);
}

const corpus = `${JSON.stringify(pages(DOCS).flatMap(sectionsOf), null, 0).replaceAll('},{"page"', '},\n{"page"')}\n`;
if (process.argv.includes("--check")) {
  if (readFileSync(OUT, "utf8") !== corpus) {
    console.error("src/features/mcp/docs-corpus.json is out of date with docs/: run `npm run reference` and commit.");
    process.exit(1);
  }
} else {
  writeFileSync(OUT, corpus);
  console.log(`wrote ${relative(ROOT, OUT)}`);
}
