import { z } from "@hono/zod-openapi";
import corpus from "./docs-corpus.json";
import { defineTool } from "./tool";

// Clarion's own docs/, split by heading (scripts/docs-corpus.mjs writes the JSON at `npm run
// reference`): bundled, so an agent reads the docs of the version it talks to, with no network.

interface Section {
  page: string;
  title: string;
  heading: string;
  anchor: string;
  text: string;
}

/** What a section is searched by, lower-cased once per isolate. */
interface Indexed extends Section {
  headingLower: string;
  titleLower: string;
  textLower: string;
}

let indexed: Indexed[] | undefined;
const sections = (): Indexed[] =>
  (indexed ??= (corpus as Section[]).map((s) => ({
    ...s,
    headingLower: s.heading.toLowerCase(),
    titleLower: s.title.toLowerCase(),
    textLower: s.text.toLowerCase(),
  })));

/** Words too common in the docs to tell sections apart. */
const STOP_WORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "do",
  "for",
  "from",
  "how",
  "i",
  "in",
  "is",
  "it",
  "of",
  "on",
  "or",
  "the",
  "to",
  "what",
  "when",
  "with",
]);

const termsOf = (query: string) => [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_.-]+/gu) ?? [])].filter((t) => !STOP_WORDS.has(t));

const occurrences = (text: string, term: string) => {
  let count = 0;
  for (let at = text.indexOf(term); at >= 0 && count < 10; at = text.indexOf(term, at + term.length)) count++;
  return count;
};

/** A term in a heading says more than one in a paragraph; every term found counts more than one found often; the whole query, most. */
function scoreOf(section: Indexed, terms: readonly string[], phrase: string): number {
  let score = 0;
  let found = 0;
  for (const term of terms) {
    const inText = occurrences(section.textLower, term);
    const inHeading = section.headingLower.includes(term) ? 1 : 0;
    const inTitle = section.titleLower.includes(term) ? 1 : 0;
    if (inText + inHeading + inTitle > 0) found++;
    score += 4 * inHeading + 2 * inTitle + Math.min(inText, 5);
  }
  if (found === 0) return 0;
  const phraseBonus = terms.length > 1 && (section.textLower.includes(phrase) || section.headingLower.includes(phrase)) ? 5 : 0;
  return score * (found / terms.length) + phraseBonus;
}

const EXCERPT_CHARS = 1_500;

/** The section's text from a little before the first term found, so the answer shows why it matched. */
function excerptOf(section: Indexed, terms: readonly string[]): string {
  const first = Math.min(...terms.map((t) => section.textLower.indexOf(t)).filter((i) => i >= 0));
  const start = Number.isFinite(first) && first > EXCERPT_CHARS / 2 ? section.text.lastIndexOf("\n", first - 200) + 1 : 0;
  const excerpt = section.text.slice(start, start + EXCERPT_CHARS);
  return `${start > 0 ? "…" : ""}${excerpt}${start + EXCERPT_CHARS < section.text.length ? "…" : ""}`;
}

export function searchDocs(query: string, limit: number) {
  const terms = termsOf(query);
  const phrase = terms.join(" ");
  return sections()
    .map((section) => ({ section, score: scoreOf(section, terms, phrase) }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map(({ section, score }) => ({
      page: `docs/${section.page}`,
      title: section.title,
      heading: section.heading,
      anchor: section.anchor,
      score: Math.round(score * 100) / 100,
      excerpt: excerptOf(section, terms),
    }));
}

const searchDocsTool = defineTool({
  name: "search_docs",
  scope: "read",
  title: "Search Clarion's docs",
  description:
    "Searches Clarion's own documentation (guides, concepts, reference) as shipped with this server, by section; answers the best sections with an excerpt.",
  input: z.object({
    query: z.string().trim().min(1).max(200).describe("Words to look for, e.g. `quiet hours digest`."),
    limit: z.number().int().min(1).max(20).default(5),
  }),
  output: z.object({
    results: z.array(
      z.object({
        page: z.string().describe("The page's path in the repository, e.g. `docs/guides/tenants.md`."),
        title: z.string(),
        heading: z.string(),
        anchor: z.string().describe("The heading's anchor on the page (`#<anchor>`)."),
        score: z.number(),
        excerpt: z.string(),
      }),
    ),
  }),
  run: async ({ query, limit }) => ({ results: searchDocs(query, limit) }),
});

export const docsTools = [searchDocsTool];
