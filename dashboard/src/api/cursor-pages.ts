/**
 * How every list of the API pages: `?cursor=` with the last page's `nextCursor` until it is null.
 * Spread into a TanStack infinite query: `useInfiniteQuery({ queryKey, queryFn, ...CURSOR_PAGES })`.
 */
export const CURSOR_PAGES = {
  initialPageParam: undefined as string | undefined,
  getNextPageParam: (last: { nextCursor?: string | null }) => last.nextCursor ?? undefined,
};
