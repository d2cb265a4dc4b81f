// Where each node of the tree canvas sits: a list of steps is a column with a `+` before, between
// and after its steps; a branch's paths are columns side by side under it, each headed by a label,
// and whatever follows the branch comes below the longest of them.
import type { Edge, Node } from "@xyflow/react";
import type { Step } from "./model";
import { branchLists } from "./tree";

export const NODE_WIDTH = 300;
const STEP_HEIGHT = 56;
const ADD_SIZE = 28;
const LABEL_HEIGHT = 76;
const GAP = 14;
const COLUMN_GAP = 32;

export type StepNodeData = { kind: "step"; step: Step; at: string; index: number; last: boolean };
export type AddNodeData = { kind: "add"; list: string; index: number; label: string };
export type PathNodeData = { kind: "path"; branch: Extract<Step, { type: "branch" }>; list: string; path: string; name: string };
export type TreeNode = Node<StepNodeData, "step"> | Node<AddNodeData, "add"> | Node<PathNodeData, "path">;

const listWidth = (steps: Step[]): number => Math.max(NODE_WIDTH, ...steps.map(stepWidth));
function stepWidth(step: Step): number {
  if (step.type !== "branch") return NODE_WIDTH;
  const lists = branchLists(step, "");
  return Math.max(NODE_WIDTH, lists.reduce((sum, l) => sum + listWidth(l.steps), 0) + COLUMN_GAP * (lists.length - 1));
}

/** The canvas's nodes and edges for a tree, and how tall it is. */
export function layoutTree(steps: Step[]): { nodes: TreeNode[]; edges: Edge[]; height: number; width: number } {
  const nodes: TreeNode[] = [];
  const edges: Edge[] = [];
  const connect = (from: string[], to: string) => {
    for (const source of from) edges.push({ id: `${source}->${to}`, source, target: to, type: "smoothstep", focusable: false });
  };

  function placeList(
    list: Step[],
    name: string,
    where: string,
    cx: number,
    top: number,
    entries: string[],
  ): { y: number; exits: string[] } {
    let y = top;
    let incoming = entries;
    const addNode = (index: number, label: string) => {
      const id = `add:${where}:${index}`;
      nodes.push({
        id,
        type: "add",
        position: { x: cx - ADD_SIZE / 2, y },
        draggable: false,
        data: { kind: "add", list: where, index, label },
      });
      connect(incoming, id);
      incoming = [id];
      y += ADD_SIZE + GAP;
    };
    addNode(0, list.length === 0 ? `Add a step to ${name}` : `Add a step at the start of ${name}`);
    list.forEach((step, i) => {
      const at = `${where}.${i}`;
      const id = `step:${at}`;
      nodes.push({
        id,
        type: "step",
        position: { x: cx - NODE_WIDTH / 2, y },
        draggable: true,
        data: { kind: "step", step, at, index: i, last: i === list.length - 1 },
      });
      connect(incoming, id);
      incoming = [id];
      y += STEP_HEIGHT + GAP;
      if (step.type === "branch") {
        const lists = branchLists(step, at);
        const widths = lists.map((l) => listWidth(l.steps));
        const total = widths.reduce((a, b) => a + b, 0) + COLUMN_GAP * (lists.length - 1);
        let x = cx - total / 2;
        let bottom = y;
        const exits: string[] = [];
        lists.forEach((l, j) => {
          const w = widths[j] ?? NODE_WIDTH;
          const column = x + w / 2;
          const label = `path:${l.list}`;
          nodes.push({
            id: label,
            type: "path",
            position: { x: column - NODE_WIDTH / 2, y },
            draggable: false,
            data: { kind: "path", branch: step, list: l.list, path: l.path, name: l.name },
          });
          connect([id], label);
          const placed = placeList(l.steps, `path ${l.name} of ${step.id}`, l.list, column, y + LABEL_HEIGHT + GAP, [label]);
          exits.push(...placed.exits);
          bottom = Math.max(bottom, placed.y);
          x += w + COLUMN_GAP;
        });
        y = bottom;
        incoming = exits;
      }
      addNode(i + 1, `Add a step after ${step.id}`);
    });
    return { y, exits: incoming };
  }

  const width = listWidth(steps);
  const { y } = placeList(steps, "the workflow", "steps", width / 2, 0, []);
  return { nodes, edges, height: y, width };
}

/** Where a step dragged within its list lands: after every sibling whose middle is above its own. */
export function dropIndex(nodes: readonly TreeNode[], dragged: TreeNode, list: string): number {
  const middle = (n: TreeNode) => n.position.y + STEP_HEIGHT / 2;
  return nodes.filter(
    (n) =>
      n.type === "step" && n.id !== dragged.id && n.data.kind === "step" && parentList(n.data.at) === list && middle(n) < middle(dragged),
  ).length;
}

const parentList = (at: string) => at.slice(0, at.lastIndexOf("."));
