/**
 * The local Rate Limiting binding counts in windows aligned to the wall clock (a new one every 60 s
 * on the minute): a test whose requests straddle that edge would see its count start again. Each
 * counting test begins at least 5 s before the edge.
 */
export async function awayFromWindowEdge(periodMs = 60_000, marginMs = 5_000) {
  const left = periodMs - (Date.now() % periodMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}
