import "@xyflow/react/dist/style.css";
import {
  Controls,
  Handle,
  type NodeProps,
  type NodeTypes,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useNodesState,
  useReactFlow,
} from "@xyflow/react";
import { createContext, useContext, useEffect, useMemo } from "react";
import { Badge } from "../../ui/Badge";
import { classNames } from "../../ui/class-names";
import { AddStepButton } from "./AddStepButton";
import { describeCondition } from "./describe";
import type { Step, StepType } from "./model";
import { useFieldError } from "./save-errors";
import type { Mark } from "./tree-marks";
import { type AddNodeData, dropIndex, layoutTree, type PathNodeData, type StepNodeData, type TreeNode } from "./tree-layout";
import { DEFAULT_PATH, parent } from "./tree";
import { StepActions, StepSelect } from "./TreeList";

export interface TreeActions {
  selected: string;
  marks: Map<string, Mark>;
  onSelect: (at: string) => void;
  onInsert: (list: string, index: number, type: StepType) => void;
  onMove: (at: string, to: number) => void;
  onRemove: (at: string) => void;
}

/** What the nodes act on: given by the canvas, read by each node (node types must stay the same objects). */
const Actions = createContext<TreeActions | null>(null);
const useActions = () => {
  const actions = useContext(Actions);
  if (!actions) throw new Error("A tree node outside its canvas.");
  return actions;
};

const nodeTypes: NodeTypes = {
  step: (p: NodeProps) => <StepNode data={p.data as StepNodeData} />,
  add: (p: NodeProps) => <AddNode data={p.data as AddNodeData} />,
  path: (p: NodeProps) => <PathNode data={p.data as PathNodeData} />,
};

const MIN_HEIGHT = 320;
const MAX_HEIGHT = 680;

/**
 * The workflow drawn as a vertical tree (React Flow): a node per step, a branch's paths side by
 * side under it, a `+` before, between and after the steps of every list. Every control on it is
 * a button, so it is reached and used with the keyboard; a step is dragged within its list to
 * move it (the step's panel has move buttons too).
 */
export function TreeCanvas(props: TreeActions & { steps: Step[] }) {
  return (
    <ReactFlowProvider>
      <Canvas {...props} />
    </ReactFlowProvider>
  );
}

function Canvas({ steps, ...actions }: TreeActions & { steps: Step[] }) {
  const laid = useMemo(() => layoutTree(steps), [steps]);
  const [nodes, setNodes, onNodesChange] = useNodesState<TreeNode>(laid.nodes);
  const flow = useReactFlow();
  const shape = laid.nodes.map((n) => n.id).join("|");
  useEffect(() => setNodes(laid.nodes), [laid, setNodes]);
  // A step added or removed changes the tree's size: show all of it again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: refits when the tree's shape changes
  useEffect(() => {
    const frame = requestAnimationFrame(() => void flow.fitView({ padding: 0.1, maxZoom: 1 }));
    return () => cancelAnimationFrame(frame);
  }, [shape, flow]);
  const height = Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, laid.height + 40));
  return (
    <Actions.Provider value={actions}>
      <div className="tree-canvas" style={{ height }} data-testid="tree-canvas">
        <ReactFlow
          nodes={nodes}
          edges={laid.edges}
          nodeTypes={nodeTypes}
          onNodesChange={onNodesChange}
          onNodeDragStop={(_, node) => {
            const data = node.data as TreeNode["data"];
            if (data.kind !== "step") return;
            const { list, index } = parent(data.at);
            const to = dropIndex(nodes as TreeNode[], node as TreeNode, list);
            if (to !== index) actions.onMove(data.at, to);
            else setNodes(laid.nodes);
          }}
          // A node without a click handler gets `pointer-events: none` from React Flow, which would
          // make its buttons unreachable by pointer; the buttons themselves do the work.
          onNodeClick={() => {}}
          nodesConnectable={false}
          nodesFocusable={false}
          edgesFocusable={false}
          elementsSelectable={false}
          fitView
          fitViewOptions={{ padding: 0.1, maxZoom: 1 }}
          minZoom={0.2}
          maxZoom={1.5}
          panOnScroll
          zoomOnScroll={false}
          preventScrolling={false}
        >
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
    </Actions.Provider>
  );
}

function StepNode({ data }: { data: StepNodeData }) {
  const { selected, marks, onSelect, onMove, onRemove } = useActions();
  const { step, at, index, last } = data;
  const error = useFieldError(at);
  const mark = marks.get(at);
  return (
    <div
      className={classNames(
        "tree-node",
        at === selected && "selected",
        mark && (mark.onPath ? "on-path" : "off-path"),
        mark && !mark.wouldRun && "skips",
      )}
      data-at={at}
      data-step-row={step.id}
      data-on-path={mark ? String(mark.onPath) : undefined}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="tree-node-row">
        <StepSelect step={step} at={at} selected={selected} error={Boolean(error)} onSelect={onSelect} />
        <StepActions step={step} at={at} index={index} last={last} onMove={onMove} onRemove={onRemove} />
      </div>
      {step.name ? <span className="tree-node-name small muted">{step.name}</span> : null}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

function AddNode({ data }: { data: AddNodeData }) {
  const { onInsert } = useActions();
  return (
    <div className="tree-add">
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <AddStepButton label={data.label} onPick={(type) => onInsert(data.list, data.index, type)} />
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

/** A path's heading: its name and condition (the default says it is the rest), marked when the sample takes it. */
function PathNode({ data }: { data: PathNodeData }) {
  const { marks } = useActions();
  const branchAt = data.list.replace(/\.(paths\.\d+|default)\.steps$/, "");
  const mark = marks.get(branchAt);
  const chosen = mark ? mark.path === data.path : undefined;
  const path = data.branch.paths.find((p) => p.id === data.path);
  return (
    <div
      className={classNames("tree-path", chosen === true && "chosen", chosen === false && "not-chosen")}
      data-path={data.path}
      data-chosen={chosen === undefined ? undefined : String(chosen)}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <strong>{data.path === DEFAULT_PATH ? "Otherwise" : data.name}</strong>
      <span className="small muted">{path ? `if ${describeCondition(path.if)}` : "when no path's condition holds"}</span>
      {chosen ? <Badge tone="ok">sample goes here</Badge> : null}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}
