// `npm run lint:length` (and `npm test`'s static stage): no function in src/ over 80 lines, counted
// from the line its node starts on to the line it ends on, nested functions included. A function
// that long holds more than one idea; split it by meaning (docs/architecture.md, CONTRIBUTING.md).
//
// Generated code is not held to it: declaration files (`*.d.ts`) and any file that says
// `@generated` in its first lines. None sits in src/ today (the OpenAPI client types and
// worker-configuration.d.ts are generated outside it).
//
// `node scripts/function-length.mjs [root]`: root defaults to the working directory.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

export const MAX_LINES = 80;

/**
 * Functions over the limit while their splits are under way in other branches: each is a file and
 * the function's name as the report prints them. Emptied when the content and delivery splits land.
 */
export const EXCEPTIONS = [];

const isGenerated = (file, text) => file.endsWith(".d.ts") || /@generated\b/.test(text.slice(0, 500));

/** What a reader calls the function: its own name, the variable or property it is assigned to, else "(anonymous)". */
function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  return "(anonymous)";
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** Every function over `limit` lines in one file's text: `{ file, line, lines, name }`, in the order they start. */
export function longFunctionsIn(file, text, limit = MAX_LINES) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (isFunction(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > limit) found.push({ file, line: start + 1, lines: end - start + 1, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The TypeScript files under `root`/src, generated ones left out, as paths relative to `root` with `/`. */
function sourceFiles(root) {
  return readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) =>
      relative(root, join(entry.parentPath ?? entry.path, entry.name))
        .split(sep)
        .join("/"),
    )
    .sort();
}

/** The functions over the limit in `root`/src, split into those the exceptions allow for now and the rest. */
export function checkFunctionLengths(root, { limit = MAX_LINES, exceptions = EXCEPTIONS } = {}) {
  const over = [];
  for (const file of sourceFiles(root)) {
    const text = readFileSync(join(root, file), "utf8");
    if (!isGenerated(file, text)) over.push(...longFunctionsIn(file, text, limit));
  }
  const excepted = (f) => exceptions.some((e) => e.file === f.file && e.name === f.name);
  return { failing: over.filter((f) => !excepted(f)), excepted: over.filter(excepted) };
}

const format = (f) => `  ${f.file}:${f.line}  ${f.name}  (${f.lines} lines)`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const root = process.argv[2] ?? process.cwd();
  const { failing, excepted } = checkFunctionLengths(root);
  if (excepted.length) {
    console.log(`Over ${MAX_LINES} lines, excepted until their splits land (EXCEPTIONS in scripts/function-length.mjs):`);
    console.log(excepted.map(format).join("\n"));
  }
  if (failing.length) {
    console.error(`${failing.length} function(s) in src/ over ${MAX_LINES} lines; split each by meaning:`);
    console.error(failing.map(format).join("\n"));
    process.exitCode = 1;
  } else {
    console.log(`No function in src/ over ${MAX_LINES} lines${excepted.length ? " beyond the exceptions" : ""}.`);
  }
}
