import { useMutation } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { Button } from "../../ui/Button";
import { download } from "../../ui/download";
import { ProblemView } from "../../ui/ProblemView";
import type { Filters } from "./filters";
import { EXPORT_FORMATS, type ExportFormat, exportReport, type Report } from "./queries";

const LABELS: Record<Report, string> = {
  overview: "overview",
  workflows: "workflow funnels",
  providers: "providers",
  fatigue: "fatigue",
  errors: "errors",
};

/** Downloads a report as the API exports it (CSV or NDJSON, asked for with `Accept`), for the filters shown. */
export function ExportButtons({ report, filters }: { report: Report; filters: Filters }) {
  const api = useApi();
  const exported = useMutation({
    mutationFn: (format: ExportFormat) => exportReport(api, report, format, filters),
    onSuccess: (blob, format) =>
      download(blob, `clarion-${report}-${new Date().toISOString().slice(0, 10)}.${EXPORT_FORMATS[format].extension}`),
  });
  return (
    <div className="analytics-exports">
      {(Object.keys(EXPORT_FORMATS) as ExportFormat[]).map((format) => (
        <Button
          key={format}
          size="sm"
          loading={exported.isPending && exported.variables === format}
          aria-label={`Download the ${LABELS[report]} as ${EXPORT_FORMATS[format].label}`}
          onClick={() => exported.mutate(format)}
        >
          {EXPORT_FORMATS[format].label}
        </Button>
      ))}
      {exported.error ? <ProblemView error={exported.error} /> : null}
    </div>
  );
}
