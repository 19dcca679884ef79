/**
 * The admin API's operational groups: `/healthz`, `/readyz` and `/metrics` (public when `admin.public`
 * lists them), and the cluster's runners. Composed into `AdminApi`.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ClusterOverview } from "../state/ClusterStatus.ts"

const Text = Schema.String
const OptionalText = Schema.optionalKey(Schema.String)

/** One source in `/readyz`. */
export const SourceReadiness = Schema.Struct({
  state: Text,
  since: Text,
  reason: OptionalText,
  by: Schema.optionalKey(Schema.Literals(["api", "source"])),
  attempt: Schema.optionalKey(Schema.Number),
  api: Schema.Literals(["ok", "failing", "unused"]),
  problem: OptionalText
})

/** The body of `/readyz`, 200 or 503. */
export const ReadinessReport = Schema.Struct({
  ready: Schema.Boolean,
  problems: Schema.Array(Text),
  sources: Schema.Record(Schema.String, SourceReadiness)
}).annotate({ identifier: "Readiness" })

/** 503 from `/readyz`: the daemon cannot make progress; the body is the same report. */
export class NotReady extends Schema.Error<NotReady>("NotReady")(
  { _tag: Schema.tagDefaultOmit("NotReady"), ...ReadinessReport.fields },
  { httpApiStatus: 503, identifier: "NotReady", description: "The daemon cannot make progress" }
) {}

/** `/healthz`: public, the process is up. */
export class HealthGroup extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("healthz", "/healthz", { success: Schema.Struct({ status: Schema.Literal("ok") }) })
) {}

/** Readiness and metrics (public when `admin.public` lists them). */
export class ProbesGroup extends HttpApiGroup.make("probes").add(
  HttpApiEndpoint.get("readyz", "/readyz", { success: ReadinessReport, error: NotReady }).annotate(
    OpenApi.Summary,
    "200 when the daemon can make progress, 503 when it cannot; per-source problems either way"
  ),
  HttpApiEndpoint.get("metrics", "/metrics", {
    success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain; version=0.0.4" }))
  }).annotate(OpenApi.Summary, "Prometheus text")
) {}

/** The cluster's runners (`ClusterRoute`). */
export class ClusterGroup extends HttpApiGroup.make("cluster").add(
  HttpApiEndpoint.get("cluster", "/api/cluster", {
    success: ClusterOverview.annotate({ description: "The runners, their shards, singletons and work" })
  }).annotate(OpenApi.Summary, "The runners of the cluster as the answering runner sees them")
) {}
