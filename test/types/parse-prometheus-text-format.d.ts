declare module 'parse-prometheus-text-format' {
  /** Metric families of a Prometheus text exposition, each with its samples. */
  export default function parsePrometheusTextFormat(
    text: string,
  ): { name: string; help: string; type: string; metrics: { value?: string; labels?: Record<string, string> }[] }[];
}
