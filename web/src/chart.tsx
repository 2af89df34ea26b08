import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  /** A CSS custom property holding the colour, so the theme decides. */
  colorVar: string;
}

/** A uPlot time chart that follows its box's width. Times in seconds. */
export function TimeChart({ times, series, label, timeLabel }: { times: number[]; series: Series[]; label: string; timeLabel: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const style = getComputedStyle(el);
    const color = (v: string) => style.getPropertyValue(v).trim() || 'currentColor';
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height: 240,
        series: [{ label: timeLabel }, ...series.map((s) => ({ label: s.label, stroke: color(s.colorVar), width: 2 }))],
        axes: [{ stroke: color('--muted') }, { stroke: color('--muted') }],
        legend: { show: true },
      },
      [times, ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, timeLabel]);
  return <div ref={box} class="chart" role="img" aria-label={label} dir="ltr" />;
}
