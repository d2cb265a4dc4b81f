import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/** A uPlot chart that follows its container's width and is rebuilt when its data changes. */
export function UPlotChart({ options, data, label }: { options: Omit<uPlot.Options, "width">; data: uPlot.AlignedData; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const chart = new uPlot({ ...options, width: el.clientWidth || 320 }, data, el);
    const resize = new ResizeObserver(() => chart.setSize({ width: el.clientWidth || 320, height: options.height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [options, data]);
  return <div ref={box} className="uplot-box" role="img" aria-label={label} />;
}
