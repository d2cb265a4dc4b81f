/**
 * How every list of the API pages: `?cursor=` with the last page's `nextCursor` until it is null.
 * Spread into a TanStack infinite query: `useInfiniteQuery({ queryKey, queryFn, ...CURSOR_PAGES })`.
 */
export const CURSOR_PAGES = {
  initialPageParam: undefined as string | undefined,
  getNextPageParam: (last: { nextCursor?: string | null }) => last.nextCursor ?? undefined,
};

/** Every page of a short list read one after another, for the places that need all of it at once. */
export async function allPages<T>(page: (cursor: string | undefined) => Promise<{ data: T[]; nextCursor?: string | null }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    all.push(...next.data);
    cursor = next.nextCursor ?? undefined;
  } while (cursor);
  return all;
}
