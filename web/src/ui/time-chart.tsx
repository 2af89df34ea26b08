import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Interval } from '../pages/analytics/range.js';

export interface ChartSeries {
  label: string;
  values: number[];
  /** A CSS custom property holding the colour, so the theme decides. */
  colorVar: string;
  /** A dashed line (segment and gap lengths in px): an earlier period's series beside the current one. */
  dash?: number[];
}

interface Props {
  /** Wall-clock bucket starts of the chosen zone, as seconds read in UTC (see analytics/range.ts). */
  times: number[];
  series: ChartSeries[];
  interval: Interval;
  label: string;
  timeLabel: string;
  lang: string;
  formatNumber: (n: number) => string;
}

const INTEGER_STEPS = [1, 2, 5].flatMap((s) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8].map((m) => s * m)).sort((a, b) => a - b);
const SPACE: Record<Interval, number> = { hour: 120, day: 80, month: 90 };
const TIME_FORMAT: Record<Interval, Intl.DateTimeFormatOptions> = {
  hour: { month: 'short', day: 'numeric', hour: 'numeric' },
  day: { month: 'short', day: 'numeric' },
  month: { month: 'short', year: 'numeric' },
};

/**
 * The dashboard's one uPlot time chart (the overview's and analytics'; uPlot is one shared
 * chunk), following its box's width: times are the buckets' wall clock, so the axis and the
 * legend write them in UTC with the page's language; ticks fall on buckets; the y axis counts
 * whole numbers from zero.
 */
export function TimeChart({ times, series, interval, label, timeLabel, lang, formatNumber }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const style = getComputedStyle(el);
    const color = (v: string) => style.getPropertyValue(v).trim() || 'currentColor';
    const timeFormat = new Intl.DateTimeFormat(lang, { ...TIME_FORMAT[interval], timeZone: 'UTC' });
    const writeTime = (s: number) => timeFormat.format(new Date(s * 1000));
    // Isolated, so an Arabic range reads right to left inside the left-to-right chart.
    const period = times.length ? `\u2068${writeTime(times[0]!)} – ${writeTime(times[times.length - 1]!)}\u2069` : '';
    const axis = { stroke: color('--muted'), grid: { stroke: color('--border'), width: 1 }, ticks: { stroke: color('--border'), width: 1 } };
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height: 240,
        tzDate: (s) => uPlot.tzDate(new Date(s * 1000), 'UTC'),
        series: [
          // Off the chart, the legend shows the period and each series' total (never a dash).
          { label: timeLabel, value: (_u, v) => (v == null ? period : writeTime(v)) },
          ...series.map((s) => ({
            label: s.label,
            stroke: color(s.colorVar),
            width: s.dash ? 1.5 : 2,
            ...(s.dash ? { dash: s.dash } : {}),
            value: (_u: uPlot, v: number | null) => formatNumber(v ?? s.values.reduce((a, b) => a + b, 0)),
          })),
        ],
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
        axes: [
          {
            ...axis,
            space: SPACE[interval],
            // Ticks on buckets, as many as fit.
            splits: (u) => {
              const fit = Math.max(1, Math.floor(u.width / SPACE[interval]));
              const stride = Math.ceil(times.length / fit);
              return times.filter((_, i) => i % stride === 0);
            },
            values: (_u, splits) => splits.map(writeTime),
          },
          { ...axis, incrs: INTEGER_STEPS, values: (_u, splits) => splits.map(formatNumber), size: 56 },
        ],
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
  }, [times, series, interval, timeLabel, lang, formatNumber]);
  return <div ref={box} class="chart" role="img" aria-label={label} dir="ltr" />;
}
