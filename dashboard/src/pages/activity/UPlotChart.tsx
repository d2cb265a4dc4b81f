import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/**
 * The axes drawn in the theme's text colour (a canvas knows no CSS variable, so the resolved
 * colour is read from the container): uPlot's default black would vanish on the dark theme.
 */
function themedAxes(axes: uPlot.Axis[] = [{}, {}], el: HTMLElement): uPlot.Axis[] {
  const text = getComputedStyle(el).color;
  const line = getComputedStyle(el).borderTopColor;
  return axes.map((axis) => ({ stroke: text, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 }, ...axis }));
}

/** A uPlot chart that follows its container's width and is rebuilt when its data changes. */
export function UPlotChart({ options, data, label }: { options: Omit<uPlot.Options, "width">; data: uPlot.AlignedData; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const chart = new uPlot({ ...options, axes: themedAxes(options.axes, el), width: el.clientWidth || 320 }, data, el);
    const resize = new ResizeObserver(() => chart.setSize({ width: el.clientWidth || 320, height: options.height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [options, data]);
  return <div ref={box} className="uplot-box" role="img" aria-label={label} />;
}
