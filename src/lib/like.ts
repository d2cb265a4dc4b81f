/** A `LIKE` pattern for a substring, used with `ESCAPE '\'`: `%` and `_` in the term are literal characters, not wildcards. */
export const containing = (term: string) => `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
