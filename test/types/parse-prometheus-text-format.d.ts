declare module 'parse-prometheus-text-format' {
  interface Sample {
    value?: string;
    count?: string;
    labels?: Record<string, string>;
  }
  interface Family {
    name: string;
    help: string;
    type: string;
    metrics: Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
