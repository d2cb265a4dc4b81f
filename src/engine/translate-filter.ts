import { pluralForm, TRANSLATOR, type Translator } from "./translate";

/** What liquidjs binds `this` to in a filter (its own type is not exported). */
interface FilterThis {
  context: { globals: object };
}

type Interpolate = (source: string, vars: Record<string, unknown>) => string;

const isPair = (arg: unknown): arg is [string, unknown] => Array.isArray(arg) && arg.length === 2 && typeof arg[0] === "string";

/** The translator a render was given, in its globals so that `{% render %}`ed partials see it too. */
export const translatorGlobals = (translator: Translator | undefined) => (translator ? { [TRANSLATOR]: translator } : undefined);

/**
 * `{{ "cart.items" | t: count: n, name: x }}`: the key's text in the first locale of the
 * subscriber's chain that has it, its plural form picked by `count`, rendered with the keyword
 * arguments alone (nothing else of the scope leaks into a translation). A key found nowhere
 * renders as itself: saves refuse literal keys the default locale lacks, so this is a key held in
 * a variable, or a render with no translations (a preview without them).
 */
export function translateFilter(interpolate: Interpolate) {
  return function t(this: FilterThis, key: unknown, ...args: unknown[]): string {
    const vars = Object.fromEntries(args.filter(isPair));
    const translator = (this.context.globals as { [TRANSLATOR]?: Translator })[TRANSLATOR];
    const found = typeof key === "string" ? translator?.lookup(key) : undefined;
    if (!found) return key === undefined || key === null ? "" : String(key);
    const text = typeof found.value === "string" ? found.value : pluralForm(found.value, found.locale, Number(vars.count));
    return interpolate(text, vars);
  };
}
