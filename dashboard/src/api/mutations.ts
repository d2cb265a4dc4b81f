// What a page does after a write, added to the write's own options (an area's queries.ts holds
// each write with the cache it refreshes; the page adds only what it shows or where it goes).
import type { DefaultError, UseMutationOptions } from "@tanstack/react-query";

/**
 * `options` (a write and its cache refresh, from an area's queries.ts) followed by `after` once the
 * cache has had its say: `useMutation(andThen(saveVariable(api), () => navigate("/variables")))`.
 */
export function andThen<TData, TVariables, TError = DefaultError, TResult = unknown>(
  options: UseMutationOptions<TData, TError, TVariables, TResult>,
  after: (data: TData, variables: TVariables) => unknown,
): UseMutationOptions<TData, TError, TVariables, TResult> {
  return {
    ...options,
    // A refresh the write waits for (its promise returned) is done before `after` runs, as it was in the page.
    onSuccess: async (data, variables, result, context) => {
      await options.onSuccess?.(data, variables, result, context);
      // What `after` waits for (the session read again) the write waits for too, as it did in the page.
      await after(data, variables);
    },
  };
}
