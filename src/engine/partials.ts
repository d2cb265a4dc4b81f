import { type FS, type LiquidOptions, RenderTag, type Template, toValueSync } from "liquidjs";

/** One partial as a render sees it; `ref` names this exact content (key and version), for the parse cache. */
export interface PartialSource {
  key: string;
  content: string;
  ref: string;
}

/** The partials one render may use: what the trigger's stamp (or a preview) says, never a file system. */
export class PartialSet {
  readonly #byKey: ReadonlyMap<string, PartialSource>;
  readonly #byRef: ReadonlyMap<string, PartialSource>;
  constructor(partials: readonly PartialSource[]) {
    this.#byKey = new Map(partials.map((p) => [p.key, p]));
    this.#byRef = new Map(partials.map((p) => [p.ref, p]));
  }
  get(key: string): PartialSource | undefined {
    return this.#byKey.get(key);
  }
  byRef(ref: string): PartialSource | undefined {
    return this.#byRef.get(ref);
  }
  all(): PartialSource[] {
    return [...this.#byKey.values()];
  }
  static readonly EMPTY = new PartialSet([]);
}

/**
 * The set the running render reads. Renders are synchronous (renderSync), so the set is put in
 * place for one render and taken away after it: no other render can run in between.
 */
let active: PartialSet = PartialSet.EMPTY;

export function withPartials<T>(partials: PartialSet | undefined, render: () => T): T {
  const previous = active;
  active = partials ?? PartialSet.EMPTY;
  try {
    return render();
  } finally {
    active = previous;
  }
}

const lookupFailed = (key: string) => new Error(`unknown partial "${key}"`);

/** liquidjs's file system, answered from the active set: `resolve` turns a key into its ref, the ref into its content. */
export const partialFs: FS = {
  resolve: (_dir, file) => active.get(file)?.ref ?? `\u0000${file}`,
  existsSync: (ref) => !ref.startsWith("\u0000"),
  exists: async (ref) => !ref.startsWith("\u0000"),
  readFileSync: (ref) => readRef(ref),
  readFile: async (ref) => readRef(ref),
  contains: async () => true,
  containsSync: () => true,
  sep: "/",
  dirname: () => "",
};

function readRef(ref: string): string {
  const found = active.byRef(ref);
  if (!found) throw lookupFailed(ref.startsWith("\u0000") ? ref.slice(1) : ref);
  return found.content;
}

const PARSED_MAX = 256;

/**
 * liquidjs caches a parsed partial under its name (`partials:footer`); this cache keys it by the
 * active set's ref instead, so version 3 of "footer" never answers for version 4 or for another
 * environment's "footer", and a stored version, which never changes, is parsed once per isolate.
 */
type LiquidCache = Exclude<LiquidOptions["cache"], boolean | number | undefined>;

export function partialCache(): LiquidCache {
  const parsed = new Map<string, Template[]>();
  const refOf = (key: string) => {
    const name = key.slice(key.indexOf(":") + 1);
    return active.get(name)?.ref;
  };
  return {
    read: (key: string) => {
      const ref = refOf(key);
      return ref === undefined ? undefined : parsed.get(ref);
    },
    write: (key: string, value: Template[] | Promise<Template[]>) => {
      const ref = refOf(key);
      // Async parses hand a promise; renders here are synchronous and hand templates.
      if (ref === undefined || !Array.isArray(value)) return;
      if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value as string);
      parsed.set(ref, value as Template[]);
    },
    remove: (key: string) => {
      const ref = refOf(key);
      if (ref !== undefined) parsed.delete(ref);
    },
  };
}

/** A render tag's partial: its key when quoted, null for a name computed at render time. */
export type PartialReference = { key: string } | { key: null };

/** Every `{% render %}` in parsed templates, however deep in blocks. */
export function renderedPartials(templates: readonly Template[]): PartialReference[] {
  const found: PartialReference[] = [];
  const walk = (list: readonly Template[]) => {
    for (const node of list) {
      if (node instanceof RenderTag) {
        const file = (node as unknown as { file: unknown }).file;
        found.push({ key: typeof file === "string" ? file : null });
        continue;
      }
      const children = (node as { children?: (partials: boolean, sync: boolean) => Generator<unknown, Template[]> }).children;
      if (typeof children === "function") walk(toValueSync(children.call(node, false, true)) as Template[]);
    }
  };
  walk(templates);
  return found;
}

export const MAX_PARTIAL_DEPTH = 5;

export type PartialGraphIssue =
  | { kind: "dynamic" }
  | { kind: "unknown"; key: string }
  | { kind: "cycle"; chain: string[] }
  | { kind: "depth"; chain: string[] };

/**
 * What is wrong with the partials a template renders, followed through the partials they render:
 * a name not quoted, a partial that does not exist, a cycle, or a chain deeper than 5.
 * `renders(key)` answers the references of a partial (null: no such partial).
 */
export function partialGraphIssues(
  references: readonly PartialReference[],
  renders: (key: string) => readonly PartialReference[] | null,
): PartialGraphIssue[] {
  const issues: PartialGraphIssue[] = [];
  const seen = new Set<string>();
  const visit = (refs: readonly PartialReference[], chain: string[]) => {
    for (const ref of refs) {
      if (ref.key === null) {
        issues.push({ kind: "dynamic" });
        continue;
      }
      const next = [...chain, ref.key];
      if (chain.includes(ref.key)) {
        issues.push({ kind: "cycle", chain: next });
        continue;
      }
      if (next.length > MAX_PARTIAL_DEPTH) {
        issues.push({ kind: "depth", chain: next });
        continue;
      }
      const inner = renders(ref.key);
      if (inner === null) {
        if (!seen.has(`?${ref.key}`)) issues.push({ kind: "unknown", key: ref.key });
        seen.add(`?${ref.key}`);
        continue;
      }
      visit(inner, next);
    }
  };
  visit(references, []);
  return issues;
}

export const describeGraphIssue = (issue: PartialGraphIssue): string => {
  switch (issue.kind) {
    case "dynamic":
      return 'A partial is named by a quoted key: {% render "footer" %}, not a variable.';
    case "unknown":
      return `No partial "${issue.key}" in this environment.`;
    case "cycle":
      return `Partials render each other in a cycle: ${issue.chain.join(" → ")}.`;
    case "depth":
      return `Partials may render partials ${MAX_PARTIAL_DEPTH} deep at most: ${issue.chain.join(" → ")}.`;
  }
};
