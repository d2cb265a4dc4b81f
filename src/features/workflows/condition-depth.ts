import type { Condition } from "../../engine/steps";

/** How many all / any / not groups nest inside one another (a single leaf is 0). Iterative: safe at any depth. */
export function conditionDepth(condition: Condition): number {
  let deepest = 0;
  const stack: { node: Condition; depth: number }[] = [{ node: condition, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { node, depth } = item;
    deepest = Math.max(deepest, depth);
    if ("all" in node) for (const child of node.all) stack.push({ node: child, depth: depth + 1 });
    else if ("any" in node) for (const child of node.any) stack.push({ node: child, depth: depth + 1 });
    else if ("not" in node) stack.push({ node: node.not, depth: depth + 1 });
  }
  return deepest;
}
