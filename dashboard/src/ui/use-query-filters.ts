import { useSearchParams } from "react-router";

/**
 * A page's filters kept in the address, so a link shares them: `filters` holds the named keys that
 * are set, and `update` sets or clears keys (an empty value clears it) without a history entry.
 */
export function useQueryFilters<Key extends string>(keys: readonly Key[]) {
  const [params, setParams] = useSearchParams();
  const filters: Partial<Record<Key, string>> = {};
  for (const key of keys) {
    const value = params.get(key);
    if (value) filters[key] = value;
  }
  const update = (changes: Partial<Record<string, string | undefined>>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true },
    );
  return { params, filters, update };
}
