import { Button } from "./Button";
/** Loads the next page of a cursor-paged list (a TanStack infinite query); absent on the last page. */
export function MoreButton({
  list,
  label = "More",
  className,
}: {
  list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
  label?: string;
  className?: string;
}) {
  if (!list.hasNextPage) return null;
  return (
    <Button type="button" className={className} onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
      {list.isFetchingNextPage ? "Loading…" : label}
    </Button>
  );
}
